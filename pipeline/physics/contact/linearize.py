"""Derivatives of the ground contact forces for implicit integrators.

For every contact point that pushes (depth > 0) or is held by a sticky anchor, the 3 x 3
derivatives of its force with respect to the point's position and velocity, dF/dp and
dF/dv, by differences of `ground_point_force` itself: the implicit step then linearises
whichever law and parameters the contact stage runs (exponential or linear springs,
restitution, friction model 2's anchor spring and its cap, sticky springs) without a
second, hand-derived copy of each. Nine calls per point: forward differences in x and z,
central in y, so that a creature's mirror-image feet (y -> -y) get mirror-image
derivatives; one-sided ones would break its symmetry at 1e-6 and the roach's drop would
end 1.5 degrees turned. Position probes keep the surface's normal (see `_probe`).
"""
import math

import numba

from pipeline.physics.contact import state as S
from pipeline.physics.contact.forces import (body_clear_of_ground, ground_contact,
                                             ground_point_force)
from pipeline.physics.contact.points import point_velocity

DP = 1e-9  # m: small against the exponential springs' 1/beta (0.3 mm for the roach ground)
RATIO = 1e3  # velocity probe DP * RATIO = 1e-6 m/s: small against the 1 cm/s restitution ramp


@numba.njit(cache=True)
def _probe(a, sticky, px, py, pz, depth, nx, ny, nz, dx, dy, dz, vx, vy, vz, cs, scratch):
    """The point's force moved by d, on the plane of the surface under it (depth changes by
    -n.d, the normal stays): a probe must not cross into another terrain facet, whose
    normal would turn the difference into a spurious stiffness of either sign."""
    return ground_point_force(a, sticky, px + dx, py + dy, pz + dz,
                              depth - (nx * dx + ny * dy + nz * dz), nx, ny, nz,
                              vx, vy, vz, cs, scratch)


@numba.njit(cache=True)
def ground_point_derivatives(contact, cs, scratch, xpos, xrot, vbody,
                             body, point, dfdp, dfdv):
    """Fill body[m], point[m] (world contact point) and dfdp[m], dfdv[m] (3 x 3,
    [force component, coordinate]) for every active ground point; returns their number.
    `scratch` (like cs) receives the law's anchor updates, which are discarded."""
    if contact.enabled[0] == 0 or cs[S.GROUND_ON] == 0.0:
        return 0
    top = cs[S.GROUND_Z] + contact.grid_top[0]
    a0 = contact.layout[S.LAYOUT_ANCHORS]
    sticky0 = contact.layout[S.LAYOUT_STICKY]
    n = 0
    for g in range(contact.group_body.shape[0]):
        if body_clear_of_ground(contact, cs, xpos, g, top):
            continue
        b = contact.group_body[g]
        sticky = cs[sticky0 + b] != 0.0
        for i in range(contact.group_start[g], contact.group_start[g + 1]):
            a = a0 + S.ANCHOR_STRIDE * i
            active, px, py, pz, depth, nx, ny, nz = ground_contact(
                contact.point_pos, contact.point_radius, contact.grid_h, contact.grid_geom,
                cs, i, b, a, sticky, xpos, xrot)
            if not active:
                continue
            vx, vy, vz = point_velocity(b, px, py, pz, xpos, xrot, vbody)
            body[n] = b
            point[n, 0], point[n, 1], point[n, 2] = px, py, pz
            f = _probe(a, sticky, px, py, pz, depth, nx, ny, nz, 0.0, 0.0, 0.0, vx, vy, vz,
                       cs, scratch)
            for k in range(3):
                ex = DP if k == 0 else 0.0
                ey = DP if k == 1 else 0.0
                ez = DP if k == 2 else 0.0
                u = DP * RATIO
                fp = _probe(a, sticky, px, py, pz, depth, nx, ny, nz, ex, ey, ez, vx, vy, vz,
                            cs, scratch)
                fv = _probe(a, sticky, px, py, pz, depth, nx, ny, nz, 0.0, 0.0, 0.0,
                            vx + ex * RATIO, vy + ey * RATIO, vz + ez * RATIO, cs, scratch)
                if k == 1:  # y: central, so mirror images (y -> -y) get mirror derivatives
                    fm = _probe(a, sticky, px, py, pz, depth, nx, ny, nz, 0.0, -DP, 0.0,
                                vx, vy, vz, cs, scratch)
                    fw = _probe(a, sticky, px, py, pz, depth, nx, ny, nz, 0.0, 0.0, 0.0,
                                vx, vy - u, vz, cs, scratch)
                    for r in range(3):
                        dfdp[n, r, k] = (fp[r] - fm[r]) / (2.0 * DP)
                        dfdv[n, r, k] = (fv[r] - fw[r]) / (2.0 * u)
                else:
                    for r in range(3):
                        dfdp[n, r, k] = (fp[r] - f[r]) / DP
                        dfdv[n, r, k] = (fv[r] - f[r]) / u
            dissipative_part(dfdp[n], nx, ny, nz)
            dissipative_part(dfdv[n], nx, ny, nz)
            n += 1
    return n


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _quad(D, ux, uy, uz, wx, wy, wz):
    """u^T D w"""
    return (ux * (D[0, 0] * wx + D[0, 1] * wy + D[0, 2] * wz)
            + uy * (D[1, 0] * wx + D[1, 1] * wy + D[1, 2] * wz)
            + uz * (D[2, 0] * wx + D[2, 1] * wy + D[2, 2] * wz))
