"""The ground surface inside the kernels: a flat plane or a regular triangle grid.

Grid convention (corpus `addtrigrid`): heights h[j, i] at x = x0 + i dx, y = y0 + j dy.
Each cell is split along the diagonal from (i+1, j) to (i, j+1): the lower triangle holds
corner (i, j), the upper one corner (i+1, j+1). Inside a triangle the height is that
triangle's plane exactly (corpus's height table interpolation); outside the grid the edge
heights continue horizontally.
"""
import math

import numba

from pipeline.nrt import njit_no_refcounts


@njit_no_refcounts
def grid_surface(h, x0, y0, dx, dy, x, y):
    """Height and unit upward normal of the triangle under (x, y): (z, nx, ny, nz)."""
    ny_, nx_ = h.shape
    u = (x - x0) / dx
    v = (y - y0) / dy
    flat = False
    if u < 0.0:
        u, flat = 0.0, True
    elif u > nx_ - 1:
        u, flat = nx_ - 1.0, True
    if v < 0.0:
        v, flat = 0.0, True
    elif v > ny_ - 1:
        v, flat = ny_ - 1.0, True
    i = min(int(math.floor(u)), nx_ - 2)
    j = min(int(math.floor(v)), ny_ - 2)
    fu = u - i
    fv = v - j
    if fu + fv <= 1.0:
        z0 = h[j, i]
        gx = (h[j, i + 1] - z0) / dx
        gy = (h[j + 1, i] - z0) / dy
        z = z0 + fu * (h[j, i + 1] - z0) + fv * (h[j + 1, i] - z0)
    else:
        z1 = h[j + 1, i + 1]
        gx = (z1 - h[j + 1, i]) / dx
        gy = (z1 - h[j, i + 1]) / dy
        z = z1 + (1.0 - fu) * (h[j + 1, i] - z1) + (1.0 - fv) * (h[j, i + 1] - z1)
    if flat:
        return z, 0.0, 0.0, 1.0
    norm = math.sqrt(gx * gx + gy * gy + 1.0)
    return z, -gx / norm, -gy / norm, 1.0 / norm


@njit_no_refcounts
def surface(grid_h, grid_geom, ground_z, x, y):
    """Ground height and upward unit normal under (x, y): (z, nx, ny, nz).

    Takes the two grid arrays rather than the whole ContactArrays: passing a tuple of
    twenty arrays to a kernel that is not inlined costs a reference count on each, which
    made this call most of the cost of a contact point."""
    if grid_h.shape[0] < 2:
        return ground_z, 0.0, 0.0, 1.0
    g = grid_geom
    z, nx, ny, nz = grid_surface(grid_h, g[0], g[1], g[2], g[3], x, y)
    return z + ground_z, nx, ny, nz


@njit_no_refcounts
def closest_on_triangle(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """The point of triangle abc closest to p (Ericson, Real-Time Collision Detection 5.1.5)."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return ax, ay, az
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return bx, by, bz
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return ax + v * abx, ay + v * aby, az + v * abz
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return cx, cy, cz
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        return ax + w * acx, ay + w * acy, az + w * acz
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return bx + w * (cx - bx), by + w * (cy - by), bz + w * (cz - bz)
    denom = 1.0 / (va + vb + vc)
    v = vb * denom
    w = vc * denom
    return ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w


@njit_no_refcounts
def grid_sphere(h, x0, y0, dx, dy, cx, cy, cz, rad):
    """Deepest contact of a sphere whose centre is above the grid with the triangles under
    its footprint: (depth, nx, ny, nz), the normal pointing from the surface to the centre
    (a facet's normal on a face, the line to an edge or vertex at a crease). depth <= 0: no
    contact. Exact for the triangulated surface inside the grid."""
    ny_, nx_ = h.shape
    i0 = max(int(math.floor((cx - rad - x0) / dx)), 0)
    i1 = min(int(math.floor((cx + rad - x0) / dx)), nx_ - 2)
    j0 = max(int(math.floor((cy - rad - y0) / dy)), 0)
    j1 = min(int(math.floor((cy + rad - y0) / dy)), ny_ - 2)
    best, bnx, bny, bnz = -math.inf, 0.0, 0.0, 1.0
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            xa, ya = x0 + i * dx, y0 + j * dy
            for tri in range(2):
                if tri == 0:  # lower triangle: (i, j), (i+1, j), (i, j+1)
                    qx, qy, qz = closest_on_triangle(cx, cy, cz, xa, ya, h[j, i], xa + dx, ya, h[j, i + 1],
                                                     xa, ya + dy, h[j + 1, i])
                else:  # upper triangle: (i+1, j+1), (i, j+1), (i+1, j)
                    qx, qy, qz = closest_on_triangle(cx, cy, cz, xa + dx, ya + dy, h[j + 1, i + 1],
                                                     xa, ya + dy, h[j + 1, i], xa + dx, ya, h[j, i + 1])
                ex, ey, ez = cx - qx, cy - qy, cz - qz
                dist = math.sqrt(ex * ex + ey * ey + ez * ez)
                if dist > 0.0 and rad - dist > best:
                    best, bnx, bny, bnz = rad - dist, ex / dist, ey / dist, ez / dist
    return best, bnx, bny, bnz
