"""The ground surface inside the kernels: a flat plane or a regular triangle grid.

Grid convention (corpus `addtrigrid`): heights h[j, i] at x = x0 + i dx, y = y0 + j dy.
Each cell is split along the diagonal from (i+1, j) to (i, j+1): the lower triangle holds
corner (i, j), the upper one corner (i+1, j+1). Inside a triangle the height is that
triangle's plane exactly (corpus's height table interpolation); outside the grid the edge
heights continue horizontally.
"""
import math

import numba


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def surface(contact, ground_z, x, y):
    """Ground height and upward unit normal under (x, y): (z, nx, ny, nz)."""
    if contact.grid_h.shape[0] < 2:
        return ground_z, 0.0, 0.0, 1.0
    g = contact.grid_geom
    z, nx, ny, nz = grid_surface(contact.grid_h, g[0], g[1], g[2], g[3], x, y)
    return z + ground_z, nx, ny, nz
