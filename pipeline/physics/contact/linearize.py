"""Derivatives of the ground contact forces for implicit integrators.

For every contact point that pushes (depth > 0) or is held by a sticky anchor, the 3 x 3
derivatives of its force with respect to the point's position and velocity, dF/dp and
dF/dv, differentiated by hand from `ground_point_force` (`ground_point_jacobian`): the
normal push of the linear and exponential springs with their damping, the restitution ramp
and the depth clamp; friction model 2's anchor spring, sticking or slipping at its cap;
Coulomb friction with its low-speed ramp (along a slip the damper of the same force, not
the law's zero slope: `_coulomb_friction`); the sticky anchors' in-plane springs. As the
contact stage moves a point, its depth changes by -n.dp and the surface normal n stays
(a probe across a terrain facet would give the other facet's normal: no derivative there).
Anchors the law would place at the point itself (a new contact) move with it and resist
nothing. At a kink of a law (a ramp's end, the cap, the depth clamp) the derivative is the
one of the side the point is on; at a ramp's start (speed 0) that of the ramp, the side
that resists. These replaced nine evaluations of the law per point (forward and central
differences), which cost a quarter of a humanoid's step; tests/test_contact_linearize.py
checks them against Richardson-extrapolated central differences of the law in every regime.
"""
import math

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.contact import state as S
from pipeline.physics.contact.forces import body_clear_of_ground, ground_contact, material_point
from pipeline.physics.contact.laws import exp_spring, normal_stiffness, restitution_scale
from pipeline.physics.contact.points import point_velocity


@njit_no_refcounts
def ground_point_derivatives(contact, cs, xpos, xrot, vbody, body, point, dfdp, dfdv):
    """Fill body[m], point[m] (world contact point) and dfdp[m], dfdv[m] (3 x 3,
    [force component, coordinate]) for every active ground point, reduced to the part that
    resists (`dissipative_part`); returns their number."""
    if contact.enabled[0] == 0 or cs[S.GROUND_ON] == 0.0:
        return 0
    top = cs[S.GROUND_Z] + contact.grid_top[0]
    a0 = contact.layout[S.LAYOUT_ANCHORS]
    sticky0 = contact.layout[S.LAYOUT_STICKY]
    group_body, group_start = contact.group_body, contact.group_start
    group_reach, group_radius = contact.group_reach, contact.group_radius
    point_pos, point_radius = contact.point_pos, contact.point_radius
    grid_h, grid_geom = contact.grid_h, contact.grid_geom
    n = 0
    for g in range(group_body.shape[0]):
        if body_clear_of_ground(group_body, group_reach, group_radius, sticky0, cs, xpos, g, top):
            continue
        b = group_body[g]
        sticky = cs[sticky0 + b] != 0.0
        for i in range(group_start[g], group_start[g + 1]):
            a = a0 + S.ANCHOR_STRIDE * i
            active, px, py, pz, depth, nx, ny, nz = ground_contact(
                point_pos, point_radius, grid_h, grid_geom, cs, i, b, a, sticky, xpos, xrot)
            if not active:
                continue
            vx, vy, vz = point_velocity(b, px, py, pz, xpos, xrot, vbody)
            body[n] = b
            point[n, 0], point[n, 1], point[n, 2] = px, py, pz
            sx, sy, sz = px, py, pz
            if point_radius[i] > 0.0:  # its anchors stretch to the material, which moves as p's
                sx, sy, sz = material_point(cs, a, b, px, py, pz, xpos, xrot)
            ground_point_jacobian(a, sticky, sx, sy, sz, depth, nx, ny, nz, vx, vy, vz, cs,
                                  dfdp, dfdv, n)
            dissipative_part(dfdp[n], nx, ny, nz)
            dissipative_part(dfdv[n], nx, ny, nz)
            n += 1
    return n


@njit_no_refcounts
def ramp_slope(e, speed, e_velocity):
    """d restitution_scale / d speed, taking the ramp's slope at its start (speed 0)."""
    if 0.0 <= speed < e_velocity:
        return -(1.0 - e) / e_velocity
    return 0.0


@njit_no_refcounts
def ground_point_jacobian(a, sticky, px, py, pz, depth, nx, ny, nz, vx, vy, vz, cs, P, V, m):
    """P[m] <- dF/dp and V[m] <- dF/dv (3 x 3, [force component, coordinate]) of
    `ground_point_force` with the same arguments, moving p along the surface's plane (depth
    changes by -n.dp, n stays); anchors are read from cs, as the law reads them."""
    n = (nx, ny, nz)
    vn = vx * nx + vy * ny + vz * nz
    t = (vx - vn * nx, vy - vn * ny, vz - vn * nz)  # tangential velocity
    # proj = I - n n^T, the surface plane
    for r in range(3):
        for k in range(3):
            P[m, r, k] = 0.0
            V[m, r, k] = 0.0
    if depth > 0.0:
        k_, b_, krf = cs[S.K], cs[S.B], cs[S.KRF]
        alpha, beta, max_depth = cs[S.ALPHA], cs[S.BETA], cs[S.MAX_DEPTH]
        clamped = depth >= max_depth
        d = max_depth if clamped else depth
        rs = restitution_scale(cs[S.E], vn, cs[S.REST_V])
        fs = k_ * d + exp_spring(alpha, beta, d) - b_ * vn - krf * d * vn
        fn = fs * rs
        dfn_dd = 0.0  # d fn / d depth
        dfn_dvn = 0.0  # d fn / d vn
        if fn > 0.0:
            if not clamped:
                dfn_dd = (k_ + alpha * beta * math.exp(beta * d) - krf * vn) * rs
            dfn_dvn = (-b_ - krf * d) * rs + fs * ramp_slope(cs[S.E], vn, cs[S.REST_V])
        else:
            fn = 0.0
        for r in range(3):
            for k in range(3):
                P[m, r, k] -= dfn_dd * n[r] * n[k]
                V[m, r, k] += dfn_dvn * n[r] * n[k]
        if cs[S.FRICTION_MODEL] == 2.0:
            _anchor_friction(a, px, py, pz, n, t, depth, clamped, d, fn, dfn_dd, dfn_dvn, cs,
                             P, V, m)
        else:
            _coulomb_friction(n, t, fn, dfn_dd, dfn_dvn, cs, P, V, m)
    if sticky and cs[a + 3] != 0.0:
        _sticky_spring(a, px, py, pz, n, t, cs, P, V, m)


@njit_no_refcounts
def _anchor_friction(a, px, py, pz, n, t, depth, clamped, d, fn, dfn_dd, dfn_dvn, cs, P, V,
                     m):
    """Friction model 2: F = -f u, f = k2 |s| restitution(approach) capped at mu2 fn, with
    s the in-plane stretch from the anchor and u = s / |s|."""
    if cs[a + 7] == 0.0:  # a new contact anchors at the point itself: the anchor follows it
        return
    ex, ey, ez = px - cs[a + 4], py - cs[a + 5], pz - cs[a + 6]
    en = ex * n[0] + ey * n[1] + ez * n[2]
    s = (ex - en * n[0], ey - en * n[1], ez - en * n[2])
    dist = math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
    mu = cs[S.MU2] if cs[S.MU2] >= 0.0 else cs[S.MU]
    cap = mu * fn
    if cs[S.K2] >= 0.0:
        k2, dk2 = cs[S.K2], 0.0
    else:
        k2 = normal_stiffness(depth, cs[S.K], cs[S.ALPHA], cs[S.BETA], cs[S.MAX_DEPTH])
        dk2 = 0.0 if clamped else cs[S.ALPHA] * cs[S.BETA] ** 2 * math.exp(cs[S.BETA] * d)
    if dist == 0.0:  # at the anchor: the spring's stiffness, while it may hold anything
        if cap > 0.0:
            for r in range(3):
                for k in range(3):
                    P[m, r, k] -= k2 * ((1.0 if r == k else 0.0) - n[r] * n[k])
        return
    u = (s[0] / dist, s[1] / dist, s[2] / dist)
    tu = t[0] * u[0] + t[1] * u[1] + t[2] * u[2]
    approach = -tu
    rs = restitution_scale(cs[S.E2], approach, cs[S.REST_V])
    slope = ramp_slope(cs[S.E2], approach, cs[S.REST_V])
    f = k2 * dist * rs
    for r in range(3):
        for k in range(3):
            if f > cap:  # slipping: f = mu2 fn
                gp = -mu * dfn_dd * n[k]
                gv = mu * dfn_dvn * n[k]
            else:
                gp = -dk2 * dist * rs * n[k] + k2 * rs * u[k] - k2 * slope * (t[k] - tu * u[k])
                gv = -k2 * dist * slope * u[k]
            plane = (1.0 if r == k else 0.0) - n[r] * n[k]
            P[m, r, k] -= u[r] * gp + min(f, cap) * (plane - u[r] * u[k]) / dist
            V[m, r, k] -= u[r] * gv


@njit_no_refcounts
def _coulomb_friction(n, t, fn, dfn_dd, dfn_dvn, cs, P, V, m):
    """Friction model 1: F = -c t with c = mu fn / max(|t|, slip velocity), differentiated
    with c held: exact on the ramp and across the slip, but along a slip the law's slope
    is 0 and this takes -c, the damper that gives the same force.

    With the exact 0 a step treats sliding friction as a constant force, which carries a
    stopping point through zero to the other side's full force: one 10 us step of a
    roach's 0.1 mg foot carrying mN is worth ~1 m/s against the 1e-4 m/s ramp, so loaded
    feet chattered at 0.3 m/s in stance and the run gained energy (docs/roach.md, D4).
    The damper's step, v' = v / (1 + h c / m), slows it onto the ramp without reversing
    it; sliding on, it lags the constant deceleration a by (h a)^2 / v a step."""
    vt = math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    mu, slip = cs[S.MU], cs[S.SLIP_V]
    if vt <= 0.0 and slip <= 0.0:  # corpus's literal law: no derivative at rest
        return
    ramp = vt <= slip
    vv = slip if ramp else vt
    c = mu * fn / vv
    for r in range(3):
        for k in range(3):
            plane = (1.0 if r == k else 0.0) - n[r] * n[k]
            P[m, r, k] += t[r] * (mu / vv) * dfn_dd * n[k]
            V[m, r, k] -= c * plane + t[r] * (mu / vv) * dfn_dvn * n[k]


@njit_no_refcounts
def _sticky_spring(a, px, py, pz, n, t, cs, P, V, m):
    """The sticky anchor's exponential spring in the surface plane: F = f u, f =
    alpha (e^(beta |s|) - 1) restitution(rate), s the in-plane stretch to the anchor;
    nothing once the anchor is farther than the break stretch."""
    ex, ey, ez = cs[a] - px, cs[a + 1] - py, cs[a + 2] - pz
    if math.sqrt(ex * ex + ey * ey + ez * ez) > cs[S.STICK_MAX]:
        return
    en = ex * n[0] + ey * n[1] + ez * n[2]
    s = (ex - en * n[0], ey - en * n[1], ez - en * n[2])
    dist = math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
    alpha, beta = cs[S.STICK_ALPHA], cs[S.STICK_BETA]
    if dist == 0.0:
        for r in range(3):
            for k in range(3):
                P[m, r, k] -= alpha * beta * ((1.0 if r == k else 0.0) - n[r] * n[k])
        return
    u = (s[0] / dist, s[1] / dist, s[2] / dist)
    rate = t[0] * u[0] + t[1] * u[1] + t[2] * u[2]
    spring = exp_spring(alpha, beta, dist)
    rs = restitution_scale(cs[S.STICK_E], rate, cs[S.REST_V])
    slope = ramp_slope(cs[S.STICK_E], rate, cs[S.REST_V])
    f = spring * rs
    stiff = alpha * beta * math.exp(beta * dist) * rs
    for r in range(3):
        for k in range(3):
            gp = -stiff * u[k] - spring * slope * (t[k] - rate * u[k]) / dist
            plane = (1.0 if r == k else 0.0) - n[r] * n[k]
            P[m, r, k] += u[r] * gp - f * (plane - u[r] * u[k]) / dist
            V[m, r, k] += u[r] * spring * slope * u[k]


@njit_no_refcounts
def dissipative_part(D, nx, ny, nz):
    """D (3 x 3, dF/dp or dF/dv) <- the part that only ever resists: no coupling between
    the normal and the surface plane, symmetric, and -D positive semidefinite.

    Sliding friction grows with the normal push (mu F_n), so the exact derivative couples
    depth to tangential force, and at mu >~ 1 that coupling makes the implicit step's
    matrix lose definiteness: the roach at mu = 1.5 blew up. Left out of the matrix, the
    coupling stays in the explicit force; what remains makes the step's matrix symmetric
    positive definite, which implicit Euler never amplifies."""
    # an orthonormal basis (n, t1, t2) of the contact
    if abs(nx) < 0.9:
        ax, ay, az = 1.0, 0.0, 0.0
    else:
        ax, ay, az = 0.0, 1.0, 0.0
    d = ax * nx + ay * ny + az * nz
    t1x, t1y, t1z = ax - d * nx, ay - d * ny, az - d * nz
    norm = math.sqrt(t1x * t1x + t1y * t1y + t1z * t1z)
    t1x, t1y, t1z = t1x / norm, t1y / norm, t1z / norm
    t2x, t2y, t2z = ny * t1z - nz * t1y, nz * t1x - nx * t1z, nx * t1y - ny * t1x
    # S = -D in that basis (only the blocks kept)
    snn = -_quad(D, nx, ny, nz, nx, ny, nz)
    a = -_quad(D, t1x, t1y, t1z, t1x, t1y, t1z)
    c = -_quad(D, t2x, t2y, t2z, t2x, t2y, t2z)
    b = -0.5 * (_quad(D, t1x, t1y, t1z, t2x, t2y, t2z) + _quad(D, t2x, t2y, t2z, t1x, t1y, t1z))
    snn = max(snn, 0.0)
    # clamp the tangential 2 x 2 block's eigenvalues at zero
    mean = 0.5 * (a + c)
    rad = math.sqrt(0.25 * (a - c) * (a - c) + b * b)
    lo, hi = mean - rad, mean + rad
    if lo < 0.0:
        if hi <= 0.0:
            a = b = c = 0.0
        else:  # keep the positive eigenvalue's part hi v v^T; of the two expressions for
            # its eigenvector take the longer (one vanishes when b = 0)
            vx, vy = b, hi - a
            if vx * vx + vy * vy < (hi - c) * (hi - c) + b * b:
                vx, vy = hi - c, b
            vn = math.sqrt(vx * vx + vy * vy)
            vx, vy = vx / vn, vy / vn
            a, b, c = hi * vx * vx, hi * vx * vy, hi * vy * vy
    # D = -(snn n n^T + a t1 t1^T + b (t1 t2^T + t2 t1^T) + c t2 t2^T)
    n3 = (nx, ny, nz)
    u3 = (t1x, t1y, t1z)
    w3 = (t2x, t2y, t2z)
    for r in range(3):
        for k in range(3):
            D[r, k] = -(snn * n3[r] * n3[k] + a * u3[r] * u3[k] + c * w3[r] * w3[k]
                        + b * (u3[r] * w3[k] + w3[r] * u3[k]))


@njit_no_refcounts
def _quad(D, ux, uy, uz, wx, wy, wz):
    """u^T D w"""
    return (ux * (D[0, 0] * wx + D[0, 1] * wy + D[0, 2] * wz)
            + uy * (D[1, 0] * wx + D[1, 1] * wy + D[1, 2] * wz)
            + uz * (D[2, 0] * wx + D[2, 1] * wy + D[2, 2] * wz))
