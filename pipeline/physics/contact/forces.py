"""Contact forces inside the step kernel: ground and terrain penalty contact with friction,
sticky feet, body-body collisions (bodies.py) and attach springs (McKenna 1990 §3.2-3.7).

`contact_forces` is called in every derivative evaluation. It reads the live parameters
and the non-integrated state from `cstate_in` (layout in `state.py`) and writes the state
to keep if the step is accepted into `cstate_out`; it never writes `cstate_in`, so a
rejected step leaves the committed state untouched.

Contact points are spheres of radius r >= 0 fixed in a body (r = 0: a bounding-box or box
corner; r > 0: a sphere or a capsule end). Against a surface with upward normal n a point
with centre c touches at p = c - r n with depth r - n.(c - plane).
"""
import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.contact import state as S
from pipeline.physics.contact.bodies import corner_collisions, shape_collisions
from pipeline.physics.contact.laws import (coulomb_scale, exp_spring, normal_force, normal_stiffness,
                                           restitution_scale)
from pipeline.physics.contact.points import (apply_force, point_velocity, rotate, rotate_back,
                                             world_point)
from pipeline.physics.contact.surface import grid_sphere, surface


class ContactArrays(NamedTuple):
    enabled: np.ndarray  # (1,) int64: 0 = no contact forces at all
    layout: np.ndarray  # (LAYOUT_SIZE,) int64: block offsets in cstate (state.py)
    point_body: np.ndarray  # (npt,) int64 body of each contact point
    point_pos: np.ndarray  # (npt, 3) centre in the body frame
    point_radius: np.ndarray  # (npt,) 0 for corners
    group_start: np.ndarray  # (ngroup + 1,) int64: points of group g are start[g]:start[g+1]
    group_body: np.ndarray  # (ngroup,) int64: the body of each group (points sorted by body)
    group_reach: np.ndarray  # (ngroup,) max |centre| + radius over the group's points
    group_radius: np.ndarray  # (ngroup,) largest radius in the group
    box_body: np.ndarray  # (nbox,) int64 body owning each collision box
    box_pos: np.ndarray  # (nbox, 3) box centre in the body frame
    box_rot: np.ndarray  # (nbox, 3, 3) body <- box
    box_half: np.ndarray  # (nbox, 3) half extents
    pair: np.ndarray  # (npair, 2) int64 bodies whose corners collide with each other's boxes
    shapes: object  # bodies.BodyShapes: exact convex shapes and the body pairs they collide in
    attach_body: np.ndarray  # (na, 2) int64, -1 = the world
    attach_pos: np.ndarray  # (na, 2, 3) point in its body frame (world frame for -1)
    attach_const: np.ndarray  # (na, 6): k, exp_alpha, exp_beta, restitution, break, rest
    grid_geom: np.ndarray  # (4,) x0, y0, dx, dy of the terrain grid
    grid_h: np.ndarray  # (ny, nx) terrain heights above ground z; (1, 1) = flat ground
    grid_top: np.ndarray  # (1,) max(grid_h): no surface point lies above ground z + this


@njit_no_refcounts
def _ground_depth(grid_h, grid_geom, ground_z, cx, cy, cz, rad):
    """Penetration of the sphere (c, rad) into the ground and the contact normal:
    (depth, nx, ny, nz); depth <= 0 when apart."""
    h, nx, ny, nz = surface(grid_h, grid_geom, ground_z, cx, cy)
    depth = rad - nz * (cz - h)  # perpendicular distance into the facet plane
    if rad > 0.0 and grid_h.shape[0] > 1 and cz > h:
        # a sphere above the terrain may touch another facet, an edge or a vertex first
        g = grid_geom
        d, mx, my, mz = grid_sphere(grid_h, g[0], g[1], g[2], g[3], cx, cy, cz - ground_z, rad)
        if d > -math.inf:  # no triangle under the footprint: beyond the grid's edge
            depth, nx, ny, nz = d, mx, my, mz
    return depth, nx, ny, nz


@njit_no_refcounts
def ground_point_force(a, sticky, px, py, pz, depth, nx, ny, nz, vx, vy, vz, cs, co):
    """Force (fx, fy, fz) on a contact point moving at v: normal push, friction and sticky
    spring. Its anchors start at cs[a] and their updates go to co; p (world) is the point
    they are stretched to (a round point's `material_point`), new ones start at it.
    depth > 0 is the penetration along the surface normal n.

    Takes plain arrays and scalars, not ContactArrays: passing a tuple of twenty arrays to
    a kernel costs a reference count on each, which was most of the cost of a point."""
    fx = fy = fz = 0.0
    if depth > 0.0:
        vn = vx * nx + vy * ny + vz * nz
        fn = normal_force(depth, vn, cs[S.K], cs[S.B], cs[S.KRF], cs[S.ALPHA], cs[S.BETA],
                          cs[S.E], cs[S.MAX_DEPTH], cs[S.REST_V])
        fx, fy, fz = fn * nx, fn * ny, fn * nz
        tx, ty, tz = vx - vn * nx, vy - vn * ny, vz - vn * nz
        if cs[S.FRICTION_MODEL] == 2.0:
            if cs[a + 7] == 0.0:  # new contact: anchor the tangential spring here
                co[a + 4], co[a + 5], co[a + 6], co[a + 7] = px, py, pz, 1.0
                ax, ay, az = px, py, pz
            else:
                ax, ay, az = cs[a + 4], cs[a + 5], cs[a + 6]
            dx, dy, dz = px - ax, py - ay, pz - az
            dn = dx * nx + dy * ny + dz * nz
            dx, dy, dz = dx - dn * nx, dy - dn * ny, dz - dn * nz
            dist = math.sqrt(dx * dx + dy * dy + dz * dz)
            approach = -(tx * dx + ty * dy + tz * dz) / dist if dist > 0.0 else 0.0
            k2 = cs[S.K2] if cs[S.K2] >= 0.0 else normal_stiffness(
                depth, cs[S.K], cs[S.ALPHA], cs[S.BETA], cs[S.MAX_DEPTH])
            f = k2 * dist * restitution_scale(cs[S.E2], approach, cs[S.REST_V])
            cap = (cs[S.MU2] if cs[S.MU2] >= 0.0 else cs[S.MU]) * fn
            if f > cap:  # slipping: the anchor follows so the spring holds exactly mu2 fn
                keep = cap / k2 / dist
                co[a + 4] = px - dx * keep
                co[a + 5] = py - dy * keep
                co[a + 6] = pz - dz * keep
                f = cap
            if dist > 0.0:
                fx -= f * dx / dist
                fy -= f * dy / dist
                fz -= f * dz / dist
        else:
            s = coulomb_scale(fn, cs[S.MU], math.sqrt(tx * tx + ty * ty + tz * tz), cs[S.SLIP_V])
            fx -= s * tx
            fy -= s * ty
            fz -= s * tz
    else:
        co[a + 7] = 0.0
    if sticky:
        if cs[a + 3] != 0.0:
            dx, dy, dz = cs[a] - px, cs[a + 1] - py, cs[a + 2] - pz
            dist = math.sqrt(dx * dx + dy * dy + dz * dz)
            if dist > cs[S.STICK_MAX]:  # the spring breaks; the foot sticks again on contact
                if depth > 0.0:
                    co[a], co[a + 1], co[a + 2] = px, py, pz
                else:
                    co[a + 3] = 0.0
            else:
                # the spring lies in the surface plane: it holds the foot against sliding
                # (thesis §3.5) and leaves the normal to the ground spring, so a foot that
                # lifts inside the break stretch is not glued down (our reading, creatures/roach.md)
                dn = dx * nx + dy * ny + dz * nz
                dx, dy, dz = dx - dn * nx, dy - dn * ny, dz - dn * nz
                s = math.sqrt(dx * dx + dy * dy + dz * dz)
                if s > 0.0:
                    f = exp_spring(cs[S.STICK_ALPHA], cs[S.STICK_BETA], s) * restitution_scale(
                        cs[S.STICK_E], (vx * dx + vy * dy + vz * dz) / s, cs[S.REST_V])
                    fx += f * dx / s
                    fy += f * dy / s
                    fz += f * dz / s
        elif depth > 0.0:
            co[a], co[a + 1], co[a + 2], co[a + 3] = px, py, pz, 1.0
    else:
        co[a + 3] = 0.0
    return fx, fy, fz


@numba.njit(cache=True, inline="always")
def body_clear_of_ground(group_body, group_reach, group_radius, sticky0, cs, xpos, g, top):
    """True when no point of group g can touch the ground (top: the highest surface point)
    and none is within the break stretch of a sticky anchor, so `ground_point_force` would
    only clear its anchors.

    Most points of a walking creature are far above the ground and testing each cost most
    of a derivative evaluation. A body's lowest possible point is its origin height minus
    the group's reach; sticky anchors lie at most one radius above the surface. Takes the
    group arrays, not ContactArrays: handing that tuple of ~40 arrays to a function, even
    an inlined one, cost ~0.2 us per call, more than the test itself (per group, twice per
    implicit step: 7 us of the humanoid's 55)."""
    b = group_body[g]
    clearance = xpos[b, 2] - group_reach[g] - top
    margin = 0.0
    if cs[sticky0 + b] != 0.0:
        margin = max(0.0, group_radius[g] + cs[S.STICK_MAX])
    return clearance > margin


@njit_no_refcounts
def ground_contact(point_pos, point_radius, grid_h, grid_geom, cs, i, b, a, sticky, xpos,
                   xrot):
    """Contact point i of body b against the ground: (active, px, py, pz, depth, nx, ny,
    nz), p the point touching the surface, n the surface normal. Active: it pushes
    (depth > 0) or a sticky anchor (state at cs[a]) holds it; an inactive point feels no
    force and keeps no anchor."""
    rad = point_radius[i]
    cx, cy, cz = world_point(b, point_pos[i], xpos, xrot)
    depth, nx, ny, nz = _ground_depth(grid_h, grid_geom, cs[S.GROUND_Z], cx, cy, cz, rad)
    active = depth > 0.0 or (sticky and cs[a + 3] != 0.0)
    return active, cx - rad * nx, cy - rad * ny, cz - rad * nz, depth, nx, ny, nz


@njit_no_refcounts
def material_point(cs, a, b, px, py, pz, xpos, xrot):
    """The point a round contact point's anchors are stretched to (`follow_material`): the
    material that touched when the step began, or p itself for a new contact. Corners need
    none: their touching point is their material."""
    if cs[a + 3] == 0.0 and cs[a + 7] == 0.0:
        return px, py, pz
    m = a + S.MATERIAL
    rx, ry, rz = rotate(xrot[b], cs[m], cs[m + 1], cs[m + 2])
    return xpos[b, 0] + rx, xpos[b, 1] + ry, xpos[b, 2] + rz


@njit_no_refcounts
def follow_material(co, a, b, px, py, pz, sx, sy, sz, xpos, xrot):
    """Hand a round point's anchors on to the material touching at p now.

    A sphere's touching point p moves with its centre, not with its material: a ball
    rolling without slipping moves p along the ground while the material at p stands still.
    Springs stretched to p would pull a rolling ball back and spin a sliding one up (a lone
    capsule spinning on the ground gained energy). They are stretched to s, the material
    point that touched when the step began; for the next step each anchor is shifted by
    p - s, which keeps its stretch, and the material point becomes the one at p."""
    dx, dy, dz = px - sx, py - sy, pz - sz
    if co[a + 3] != 0.0:
        co[a] += dx
        co[a + 1] += dy
        co[a + 2] += dz
    if co[a + 7] != 0.0:
        co[a + 4] += dx
        co[a + 5] += dy
        co[a + 6] += dz
    if co[a + 3] == 0.0 and co[a + 7] == 0.0:
        return  # no anchor left to measure from it: keep the state as a skipped body would
    m = a + S.MATERIAL
    co[m], co[m + 1], co[m + 2] = rotate_back(xrot[b], px - xpos[b, 0], py - xpos[b, 1],
                                              pz - xpos[b, 2])


@njit_no_refcounts
def _ground(contact, cs, co, xpos, xrot, vbody, fext):
    """Every contact point against the ground, skipping whole bodies clear of it."""
    top = cs[S.GROUND_Z] + contact.grid_top[0]
    a0 = contact.layout[S.LAYOUT_ANCHORS]
    sticky0 = contact.layout[S.LAYOUT_STICKY]
    group_body, group_start = contact.group_body, contact.group_start
    group_reach, group_radius = contact.group_reach, contact.group_radius
    point_pos, point_radius = contact.point_pos, contact.point_radius
    grid_h, grid_geom = contact.grid_h, contact.grid_geom
    for g in range(group_body.shape[0]):
        b = group_body[g]
        if body_clear_of_ground(group_body, group_reach, group_radius, sticky0, cs, xpos, g, top):
            for i in range(group_start[g], group_start[g + 1]):
                co[a0 + S.ANCHOR_STRIDE * i + 3] = 0.0
                co[a0 + S.ANCHOR_STRIDE * i + 7] = 0.0
            continue
        sticky = cs[sticky0 + b] != 0.0
        for i in range(group_start[g], group_start[g + 1]):
            a = a0 + S.ANCHOR_STRIDE * i
            active, px, py, pz, depth, nx, ny, nz = ground_contact(
                point_pos, point_radius, grid_h, grid_geom, cs, i, b, a, sticky, xpos, xrot)
            if not active:
                co[a + 3] = 0.0
                co[a + 7] = 0.0
                continue
            vx, vy, vz = point_velocity(b, px, py, pz, xpos, xrot, vbody)
            if point_radius[i] > 0.0:
                sx, sy, sz = material_point(cs, a, b, px, py, pz, xpos, xrot)
                fx, fy, fz = ground_point_force(a, sticky, sx, sy, sz, depth, nx, ny, nz,
                                                vx, vy, vz, cs, co)
                follow_material(co, a, b, px, py, pz, sx, sy, sz, xpos, xrot)
            else:
                fx, fy, fz = ground_point_force(a, sticky, px, py, pz, depth, nx, ny, nz,
                                                vx, vy, vz, cs, co)
            if fx != 0.0 or fy != 0.0 or fz != 0.0:
                apply_force(fext, b, xpos, px, py, pz, fx, fy, fz)


@njit_no_refcounts
def _attach(contact, cs, co, xpos, xrot, vbody, fext):
    """corpus `attach`: linear + exponential spring between two points, scaled by the
    restitution while it unloads, broken for good once stretched past the break length."""
    base = contact.layout[S.LAYOUT_ATTACH]
    for j in range(contact.attach_body.shape[0]):
        if cs[base + j] != 0.0:
            continue
        b1, b2 = contact.attach_body[j, 0], contact.attach_body[j, 1]
        r1, r2 = contact.attach_pos[j, 0], contact.attach_pos[j, 1]
        ax, ay, az = (r1[0], r1[1], r1[2]) if b1 < 0 else world_point(b1, r1, xpos, xrot)
        bx, by, bz = (r2[0], r2[1], r2[2]) if b2 < 0 else world_point(b2, r2, xpos, xrot)
        k, alpha, beta, e, brk, rest = contact.attach_const[j]
        dx, dy, dz = bx - ax, by - ay, bz - az
        dist = math.sqrt(dx * dx + dy * dy + dz * dz)
        if brk > 0.0 and dist > brk:
            co[base + j] = 1.0
            continue
        if dist == 0.0:
            continue
        x = dist - rest
        f = k * x + math.copysign(exp_spring(alpha, beta, abs(x)), x)
        u1 = point_velocity(b1, ax, ay, az, xpos, xrot, vbody)
        u2 = point_velocity(b2, bx, by, bz, xpos, xrot, vbody)
        rate = (u2[0] - u1[0]) * dx + (u2[1] - u1[1]) * dy + (u2[2] - u1[2]) * dz
        f *= restitution_scale(e, -rate / dist if x > 0.0 else rate / dist, cs[S.REST_V])
        fx, fy, fz = f * dx / dist, f * dy / dist, f * dz / dist
        if b1 >= 0:
            apply_force(fext, b1, xpos, ax, ay, az, fx, fy, fz)
        if b2 >= 0:
            apply_force(fext, b2, xpos, bx, by, bz, -fx, -fy, -fz)


@njit_no_refcounts
def contact_forces(contact, t, cstate_in, cstate_out, xpos, xrot, vbody, fext, scratch):
    """Accumulate contact forces into fext (nb, 6): world axes, [torque about the body
    origin; force]. xpos (nb,3)/xrot (nb,3,3): body frames in the world; vbody (nb,6):
    body spatial velocity [w; v] in the body frame (v = velocity of the body origin).
    Reads parameters and non-integrated contact state from cstate_in and writes the state
    to keep if the step is accepted into cstate_out (same length). scratch: a
    `bodies.ShapeScratch`."""
    for i in range(cstate_in.shape[0]):
        cstate_out[i] = cstate_in[i]
    if contact.enabled[0] == 0:
        return
    if cstate_in[S.GROUND_ON] != 0.0:
        _ground(contact, cstate_in, cstate_out, xpos, xrot, vbody, fext)
    else:
        a0 = contact.layout[S.LAYOUT_ANCHORS]
        for i in range(contact.point_body.shape[0]):
            cstate_out[a0 + S.ANCHOR_STRIDE * i + 3] = 0.0
            cstate_out[a0 + S.ANCHOR_STRIDE * i + 7] = 0.0
    if cstate_in[S.COLLISION_ON] != 0.0:
        corner_collisions(contact, cstate_in, xpos, xrot, vbody, fext)
        shape_collisions(contact.shapes, cstate_in, xpos, xrot, vbody, fext, scratch)
    _attach(contact, cstate_in, cstate_out, xpos, xrot, vbody, fext)
