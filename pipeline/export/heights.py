"""Terrain heights under many points at once, through the contact stage's own surface
kernel (one numba loop instead of a Python call per point: shadows need them per frame)."""
import numba

from pipeline.physics.contact.surface import grid_surface


@numba.njit(cache=True)
def grid_heights(h, x0, y0, dx, dy, xs, ys, out):
    for k in range(xs.shape[0]):
        out[k] = grid_surface(h, x0, y0, dx, dy, xs[k], ys[k])[0]
