"""The ground a scene's environment describes, as something to draw: a checker-coloured
flat plane (tile size from the creatures' size, extent from where they go) or terrain."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pipeline.export.view import view_of

LIGHT_TILE = (0.80, 0.82, 0.85)
DARK_TILE = (0.55, 0.60, 0.67)


@dataclass(frozen=True)
class Checker:
    """A flat checker floor at height z covering [lo, hi] in x and y (tile multiples)."""

    z: float
    lo: tuple[float, float]
    hi: tuple[float, float]
    tile: float
    colors: tuple = (LIGHT_TILE, DARK_TILE)


def nice_length(x: float) -> float:
    """The nearest 1, 2 or 5 times a power of ten at or below x (readable tile sizes)."""
    if not x > 0:
        return 1.0
    p = 10.0 ** math.floor(math.log10(x))
    return max(m * p for m in (1.0, 2.0, 5.0) if m * p <= x * (1 + 1e-12))


def ground_height(environment: dict) -> float | None:
    """Height of a flat ground, or None when the environment has no flat ground."""
    ground = (environment or {}).get("ground", {"type": "flat", "z": 0.0})
    if ground is None or ground.get("type", "flat") != "flat":
        return None
    return float(ground.get("z", 0.0))


@dataclass(frozen=True)
class Terrain:
    """The compiled terrain grid (corpus `addtrigrid`) as the contact kernels see it."""

    h: np.ndarray  # (ny, nx) heights above z
    x0: float
    y0: float
    dx: float
    dy: float
    z: float  # ground height the grid heights are added to

    @property
    def lo(self) -> tuple[float, float]:
        return (self.x0, self.y0)

    def height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Surface height under each (x, y), from the contact stage's own kernel."""
        from pipeline.export.heights import grid_heights

        out = np.empty(len(x))
        grid_heights(self.h, self.x0, self.y0, self.dx, self.dy,
                     np.ascontiguousarray(x, float), np.ascontiguousarray(y, float), out)
        return out + self.z

    def mesh(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vertices, faces, per-vertex RGB) with each grid cell one checker tile. Cells
        split along the diagonal from (i+1, j) to (i, j+1), as the contact kernels do
        (pipeline/physics/contact/surface.py); every cell has its own six vertices so the
        tile colours stay sharp."""
        ny, nx = self.h.shape
        j, i = np.meshgrid(np.arange(ny - 1), np.arange(nx - 1), indexing="ij")
        i, j = i.ravel(), j.ravel()

        def corner(di, dj):
            return np.stack([self.x0 + (i + di) * self.dx, self.y0 + (j + dj) * self.dy,
                             self.h[j + dj, i + di] + self.z], -1)

        tri = np.stack([corner(0, 0), corner(1, 0), corner(0, 1),
                        corner(1, 0), corner(1, 1), corner(0, 1)], 1).reshape(-1, 3)
        faces = np.arange(len(tri)).reshape(-1, 3)
        rgb = np.repeat(np.asarray((LIGHT_TILE, DARK_TILE))[(i + j) % 2], 6, axis=0)
        return tri, faces, rgb


def terrain_of(model, environment: dict) -> Terrain | None:
    """The model's terrain grid, or None on flat ground."""
    contact = view_of(model).contact
    if contact is None or np.asarray(contact.grid_h).shape == (1, 1):
        return None
    x0, y0, dx, dy = (float(v) for v in contact.grid_geom)
    z = float(((environment or {}).get("ground") or {}).get("z", 0.0))
    return Terrain(np.asarray(contact.grid_h, float), x0, y0, dx, dy, z)


def checker_for(environment: dict, body_pos: np.ndarray, size: float,
                tile: float | None = None, margin_sizes: float = 12.0) -> Checker | None:
    """The checker floor for a flat-ground environment, sized to the recorded motion."""
    z = ground_height(environment)
    if z is None:
        return None
    tile = float(tile) if tile else nice_length(size / 4.0)
    xy = np.asarray(body_pos, float)[..., :2].reshape(-1, 2)
    margin = margin_sizes * max(size, tile)
    lo = np.floor((xy.min(axis=0) - margin) / (2 * tile)) * 2 * tile
    hi = np.ceil((xy.max(axis=0) + margin) / (2 * tile)) * 2 * tile
    return Checker(z, (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1])), tile)


def checker_mesh(c: Checker) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertices, triangles and per-vertex RGB of the checker as separate coloured quads
    (formats without textures, such as glTF vertex colours, show the pattern this way)."""
    nx = int(round((c.hi[0] - c.lo[0]) / c.tile))
    ny = int(round((c.hi[1] - c.lo[1]) / c.tile))
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    i, j = i.ravel(), j.ravel()
    x0 = c.lo[0] + i * c.tile
    y0 = c.lo[1] + j * c.tile
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float) * c.tile
    xy = np.stack([x0, y0], -1)[:, None, :] + corners[None]
    vertices = np.concatenate([xy, np.full(xy.shape[:2] + (1,), c.z)], -1).reshape(-1, 3)
    base = 4 * np.arange(len(i))[:, None]
    faces = (base + np.array([[0, 1, 2], [0, 2, 3]]).reshape(1, 6)).reshape(-1, 3)
    # tile parity uses absolute tile indices so the pattern does not depend on the extent
    parity = (np.round(x0 / c.tile).astype(np.int64) + np.round(y0 / c.tile).astype(np.int64)) % 2
    rgb = np.asarray(c.colors, float)[parity]
    return vertices, faces, np.repeat(rgb, 4, axis=0)
