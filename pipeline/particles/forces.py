"""Force accumulation: every force object adds into the per-mass accumulator.

Order matters only for the floor and the world nail, which read the accumulator: ordinary
forces first (gravity, springs, angle and torque joints, constant forces, fluid media), then
the floor (normal reaction and friction), then nails (cancel what is left), as Urban requires.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts
from pipeline.particles.arrays import FLOW_UNIFORM, FLOW_WAVES

_TINY = 1e-12
TOUCH = 1e-7  # m: a mass this close to the floor touches it


@numba.njit(cache=True, inline="always")
def flow_velocity(code, prm, px, py, pz, t):
    """Velocity (ux, uy, uz) of the fluid at point (px, py, pz) and time t.

    waves: linear deep-water wave orbits, u = a w e^{k(z - surface)} (d cos(kx - wt), sin(kx - wt))
    along the horizontal unit `d`, plus the mean current prm[0:3] (our ReefWater).
    """
    ux, uy, uz = 0.0, 0.0, 0.0
    if code == FLOW_UNIFORM or code == FLOW_WAVES:
        ux, uy, uz = prm[0], prm[1], prm[2]
    if code == FLOW_WAVES:
        amp, period, wavelength = prm[3], prm[4], prm[5]
        w = 2.0 * math.pi / period
        k = 2.0 * math.pi / wavelength
        x = px * prm[6] + py * prm[7]
        decay = math.exp(k * min(pz - prm[9], 0.0))
        s = amp * w * decay
        ph = k * x - w * t
        ux += s * prm[6] * math.cos(ph)
        uy += s * prm[7] * math.cos(ph)
        uz += s * math.sin(ph)
    return ux, uy, uz


@numba.njit(cache=True, inline="always")
def _springs(m, live, pos, vel, f):
    # scalar arithmetic: temporaries of 3-vectors would allocate in the innermost loop
    for s in range(m.sp_ends.shape[0]):
        a, b = m.sp_ends[s, 0], m.sp_ends[s, 1]
        dx = pos[a, 0] - pos[b, 0]
        dy = pos[a, 1] - pos[b, 1]
        dz = pos[a, 2] - pos[b, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if length < _TINY:
            continue
        ux, uy, uz = dx / length, dy / length, dz / length
        rate = ((vel[a, 0] - vel[b, 0]) * ux + (vel[a, 1] - vel[b, 1]) * uy
                + (vel[a, 2] - vel[b, 2]) * uz)
        mag = m.sp_k[s] * (length - live.sp_rest[s]) + m.sp_kd[s] * rate
        f[a, 0] -= mag * ux
        f[a, 1] -= mag * uy
        f[a, 2] -= mag * uz
        f[b, 0] += mag * ux
        f[b, 1] += mag * uy
        f[b, 2] += mag * uz


@numba.njit(cache=True, inline="always")
def _toward(x0, x1, x2, y0, y1, y2):
    """Unit vector perpendicular to x, in the plane of x and y, pointing toward y
    (zero vector when x and y are parallel)."""
    c = (x0 * y0 + x1 * y1 + x2 * y2) / (x0 * x0 + x1 * x1 + x2 * x2)
    p0, p1, p2 = y0 - c * x0, y1 - c * x1, y2 - c * x2
    n = math.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    if n < _TINY:
        return 0.0, 0.0, 0.0
    return p0 / n, p1 / n, p2 / n


@numba.njit(cache=True, inline="always")
def angle_state(pos, vel, ia, ij, ib):
    """The angle a-j-b and its rate, with the arm lengths la, lb and the unit vectors ua, ub
    along which a and b move to open it: (ok, theta, rate, la, lb, ua0, ua1, ua2, ub0, ub1,
    ub2). ok is False when an arm has no length or the arms are parallel (no gradient)."""
    a0, a1, a2 = pos[ia, 0] - pos[ij, 0], pos[ia, 1] - pos[ij, 1], pos[ia, 2] - pos[ij, 2]
    b0, b1, b2 = pos[ib, 0] - pos[ij, 0], pos[ib, 1] - pos[ij, 1], pos[ib, 2] - pos[ij, 2]
    la = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    lb = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
    if la < _TINY or lb < _TINY:
        return False, 0.0, 0.0, la, lb, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    c = min(1.0, max(-1.0, (a0 * b0 + a1 * b1 + a2 * b2) / (la * lb)))
    theta = math.acos(c)
    ua0, ua1, ua2 = _toward(a0, a1, a2, b0, b1, b2)
    ub0, ub1, ub2 = _toward(b0, b1, b2, a0, a1, a2)
    if ua0 == 0.0 and ua1 == 0.0 and ua2 == 0.0:
        return False, theta, 0.0, la, lb, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    # d(theta)/d(p_a) = -ua/la, d(theta)/d(p_b) = -ub/lb, the joint mass takes minus both
    rate = -((vel[ia, 0] - vel[ij, 0]) * ua0 + (vel[ia, 1] - vel[ij, 1]) * ua1
             + (vel[ia, 2] - vel[ij, 2]) * ua2) / la \
        - ((vel[ib, 0] - vel[ij, 0]) * ub0 + (vel[ib, 1] - vel[ij, 1]) * ub1
           + (vel[ib, 2] - vel[ij, 2]) * ub2) / lb
    return True, theta, rate, la, lb, ua0, ua1, ua2, ub0, ub1, ub2


@numba.njit(cache=True, inline="always")
def _angles(m, live, pos, vel, f):
    for s in range(m.an_ends.shape[0]):
        ia, ij, ib = m.an_ends[s, 0], m.an_ends[s, 1], m.an_ends[s, 2]
        ok, theta, rate, la, lb, ua0, ua1, ua2, ub0, ub1, ub2 = angle_state(pos, vel, ia, ij, ib)
        if not ok:
            continue
        torque = m.an_k[s] * (theta - live.an_rest[s]) + m.an_kd[s] * rate
        sa, sb = torque / la, torque / lb
        fa0, fa1, fa2 = sa * ua0, sa * ua1, sa * ua2
        fb0, fb1, fb2 = sb * ub0, sb * ub1, sb * ub2
        f[ia, 0] += fa0
        f[ia, 1] += fa1
        f[ia, 2] += fa2
        f[ib, 0] += fb0
        f[ib, 1] += fb1
        f[ib, 2] += fb2
        if m.an_reaction[s] != 0.0:
            f[ij, 0] -= fa0 + fb0
            f[ij, 1] -= fa1 + fb1
            f[ij, 2] -= fa2 + fb2


@numba.njit(cache=True, inline="always")
def _torques(m, live, pos, f):
    for s in range(m.tq_ends.shape[0]):
        ie, ij = m.tq_ends[s, 0], m.tq_ends[s, 1]
        n0, n1, n2 = m.tq_axis[s, 0], m.tq_axis[s, 1], m.tq_axis[s, 2]
        r0, r1, r2 = pos[ie, 0] - pos[ij, 0], pos[ie, 1] - pos[ij, 1], pos[ie, 2] - pos[ij, 2]
        along = 0.0 + r0 * n0 + r1 * n1 + r2 * n2  # as numpy's sum: from 0, in order
        p0, p1, p2 = r0 - along * n0, r1 - along * n1, r2 - along * n2
        l2 = 0.0 + p0 * p0 + p1 * p1 + p2 * p2
        if l2 < _TINY:
            continue
        # f = tau / |r_perp| * (n x r_perp_hat): moment r x f = tau n
        cx = n1 * p2 - n2 * p1
        cy = n2 * p0 - n0 * p2
        cz = n0 * p1 - n1 * p0
        s_ = live.tq_torque[s] / l2
        f[ie, 0] += cx * s_
        f[ie, 1] += cy * s_
        f[ie, 2] += cz * s_
        if m.tq_reaction[s] != 0.0:
            f[ij, 0] -= cx * s_
            f[ij, 1] -= cy * s_
            f[ij, 2] -= cz * s_


@numba.njit(cache=True, inline="always")
def _constants(m, live, pos, f):
    # scalar arithmetic: temporaries of 3-vectors would allocate in the innermost loop
    for s in range(m.cf_dir.shape[0]):
        if m.cf_tri[s, 0] >= 0:
            i0, i1, i2 = m.cf_tri[s, 0], m.cf_tri[s, 1], m.cf_tri[s, 2]
            e10, e11, e12 = pos[i1, 0] - pos[i0, 0], pos[i1, 1] - pos[i0, 1], pos[i1, 2] - pos[i0, 2]
            e20, e21, e22 = pos[i2, 0] - pos[i0, 0], pos[i2, 1] - pos[i0, 1], pos[i2, 2] - pos[i0, 2]
            d0 = e11 * e22 - e12 * e21
            d1 = e12 * e20 - e10 * e22
            d2 = e10 * e21 - e11 * e20
            nd = math.sqrt(0.0 + d0 * d0 + d1 * d1 + d2 * d2)  # as numpy's sum: from 0, in order
            if nd < _TINY:
                continue
            scale = m.cf_sign[s] / nd
            d0, d1, d2 = d0 * scale, d1 * scale, d2 * scale
        else:
            d0, d1, d2 = m.cf_dir[s, 0], m.cf_dir[s, 1], m.cf_dir[s, 2]
        mag = live.cf_mag[s]
        for k in range(m.cf_start[s], m.cf_start[s + 1]):
            i = m.cf_members[k]
            f[i, 0] += mag * d0
            f[i, 1] += mag * d1
            f[i, 2] += mag * d2


@numba.njit(cache=True, inline="always")
def _gravitation(m, pos, f):
    """Newtonian attraction G m_i m_j / d^2 between every pair of members (Urban's
    NBodyGravity example of a user-defined force)."""
    mem = m.nb_members
    for p in range(mem.shape[0]):
        i = mem[p]
        for q in range(p + 1, mem.shape[0]):
            j = mem[q]
            d0, d1, d2 = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
            r2 = 0.0 + d0 * d0 + d1 * d1 + d2 * d2  # as numpy's sum: from 0, in order
            if r2 < _TINY:
                continue
            s = m.nb_g * m.mass[i] * m.mass[j] / (r2 * math.sqrt(r2))
            fd0, fd1, fd2 = s * d0, s * d1, s * d2
            f[i, 0] += fd0
            f[i, 1] += fd1
            f[i, 2] += fd2
            f[j, 0] -= fd0
            f[j, 1] -= fd1
            f[j, 2] -= fd2


@numba.njit(cache=True, inline="always")
def _media(m, pos, vel, t, f):
    gx, gy, gz = m.gravity[0], m.gravity[1], m.gravity[2]
    for md in range(m.md_density.shape[0]):
        rho = m.md_density[md]
        for i in range(pos.shape[0]):
            if m.md_members[md, i] == 0.0:
                continue
            ux, uy, uz = flow_velocity(m.md_flow[md], m.md_flow_params[md], pos[i, 0], pos[i, 1], pos[i, 2], t)
            rx, ry, rz = vel[i, 0] - ux, vel[i, 1] - uy, vel[i, 2] - uz
            speed = math.sqrt(rx * rx + ry * ry + rz * rz)
            c = 0.5 * m.md_drag[md] * rho * math.pi * m.radius[i] * m.radius[i] * speed
            b = rho * m.volume[i]
            f[i, 0] -= c * rx + b * gx
            f[i, 1] -= c * ry + b * gy
            f[i, 2] -= c * rz + b * gz


@numba.njit(cache=True, inline="always")
def _floor(m, pos, vel, h, f):
    """Contact force of the floor plane z = floor[0] (Urban's Floor as a Force).

    A mass is in contact when it touches the plane, hardly moves along the normal and is
    pushed into it: the normal push is cancelled (N = -F_z) and friction acts tangentially.
    Static friction cancels the tangential force up to mu_s N (and the residual slip);
    kinetic friction -mu_k N v_t/|v_t| is capped at m |v_t| / h so that it never reverses the
    slide within one step.
    """
    z0, v_static, v_rest = m.floor[0], m.floor[2], m.floor[3]
    for i in range(pos.shape[0]):
        if m.on_floor[i] == 0.0:
            continue
        gap = pos[i, 2] - m.radius[i] - z0
        if gap > TOUCH or abs(vel[i, 2]) > v_rest or f[i, 2] >= 0.0:
            continue
        normal = -f[i, 2]
        f[i, 2] = 0.0
        vx, vy = vel[i, 0], vel[i, 1]
        fx, fy = f[i, 0], f[i, 1]
        slip = math.sqrt(vx * vx + vy * vy)
        mh = m.mass[i] / h
        if slip < v_static:
            sx = -fx - mh * vx
            sy = -fy - mh * vy
            if math.sqrt(sx * sx + sy * sy) <= m.mu_s[i] * normal:
                f[i, 0] = 0.0 - mh * vx
                f[i, 1] = 0.0 - mh * vy
                continue
        if slip > 0.0:
            ux, uy = vx / slip, vy / slip
            kin = min(m.mu_k[i] * normal, mh * slip)
        else:
            ft = math.sqrt(fx * fx + fy * fy)
            ux, uy = fx / ft, fy / ft
            kin = m.mu_k[i] * normal
        f[i, 0] -= kin * ux
        f[i, 1] -= kin * uy


@njit_no_refcounts
def accumulate(m, live, pos, vel, t, h, f):
    """Net force on every mass at state (pos, vel, t); h is the step (friction cap)."""
    f[:] = 0.0
    for i in range(pos.shape[0]):
        if m.on_gravity[i] != 0.0:
            for k in range(3):
                f[i, k] += m.mass[i] * m.gravity[k]
    _springs(m, live, pos, vel, f)
    _angles(m, live, pos, vel, f)
    _torques(m, live, pos, f)
    _constants(m, live, pos, f)
    if m.nb_members.shape[0] > 1:
        _gravitation(m, pos, f)
    _media(m, pos, vel, t, f)
    _floor(m, pos, vel, h, f)
    for i in range(pos.shape[0]):
        if m.on_nail[i] != 0.0:
            f[i, 0] = 0.0
            f[i, 1] = 0.0
            f[i, 2] = 0.0
