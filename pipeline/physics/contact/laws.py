"""Scalar force laws of corpus's penalty contacts (McKenna 1990 §3.2, §3.5, §3.7, Eq 8).

Every law here is a small numba function of plain floats so the kernels in `forces.py`
share one definition and tests can check each law on its own.
"""
import math

import numba

from pipeline.nrt import njit_no_refcounts


@njit_no_refcounts
def exp_spring(alpha, beta, x):
    """corpus Eq 8: f = alpha (e^(beta x) - 1); x is the displacement from rest (>= 0 here)."""
    return alpha * math.expm1(beta * x)


@njit_no_refcounts
def normal_force(depth, vn, k, b, krf, alpha, beta, e, max_depth, e_velocity):
    """Normal push of a penetrating point (corpus ground*/collision* constants).

    depth > 0 is the penetration, vn the normal velocity of the point (> 0 = leaving the
    surface). The depth used by the springs is clamped at max_depth (corpus `*emaxz`);
    `krf` is the velocity-dependent reaction term, a damper proportional to depth
    (Hunt-Crossley form) so it vanishes as contact begins and never pulls at touch-down.
    While the point separates the whole force is scaled by the restitution e, so the
    unloading path returns the fraction e of the stored energy (rebound height ~ e h).
    Below the separation speed `e_velocity` the scale ramps from 1 to e (see
    restitution_scale). The result never pulls (>= 0).
    """
    d = depth if depth < max_depth else max_depth
    f = (k * d + exp_spring(alpha, beta, d) - b * vn - krf * d * vn) * restitution_scale(e, vn, e_velocity)
    return f if f > 0.0 else 0.0


@njit_no_refcounts
def normal_stiffness(depth, k, alpha, beta, max_depth):
    """dF/d(depth) of the normal springs at `depth` (clamped like the force): the default
    stiffness of the friction-model-2 spring, so its tangential vibration is no faster
    than the normal one and needs no smaller step."""
    d = depth if depth < max_depth else max_depth
    return k + alpha * beta * math.exp(beta * d)


@njit_no_refcounts
def coulomb_scale(fn, mu, vt_norm, slip_velocity):
    """Magnitude factor s of Coulomb friction F_t = -s v_t (so |F_t| = mu fn when sliding).

    Below `slip_velocity` the force ramps linearly to zero with the tangential speed,
    which removes the stick-phase sign flipping of the pure law (slip_velocity = 0 gives
    corpus's discontinuous law exactly)."""
    if vt_norm <= 0.0:
        return 0.0
    v = vt_norm if vt_norm > slip_velocity else slip_velocity
    return mu * fn / v


@njit_no_refcounts
def restitution_scale(e, speed, e_velocity):
    """corpus's damper replacement: a spring force is scaled by e while the spring unloads
    (`speed` > 0 is the unloading rate: separation, approach to an anchor). The scale ramps
    from 1 at rest to e at `e_velocity`, so a loaded spring at rest has one equilibrium;
    corpus's literal jump at speed 0 lets it rest anywhere between f and f / e
    (e_velocity = 0 gives the literal law)."""
    if speed <= 0.0:
        return 1.0
    if speed >= e_velocity:
        return e
    return 1.0 - (1.0 - e) * speed / e_velocity
