"""Soft shadows on a flat floor: a shadow image drawn each frame and laid on the floor.

Every part a body is made of is convex (box, sphere, capsule, cylinder), so its shadow
along the key light is the convex hull of its vertices slid onto the floor
(pipeline/export/shadows.py). The hulls are filled into an image around the creature and
blurred by a penumbra that widens with the part's height above the floor, as under a light
of some size (a sky, a window) rather than a point: legs on the ground cast crisp shadows,
a body in the air a soft one. Parts near the floor also darken it straight below them
(contact shadows, a cheap stand-in for ambient occlusion). The floor's shader darkens its
checker by the image (pipeline/export/shaders.py), so the shadows lie exactly on it, and
shadows of several parts merge instead of darkening twice.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw
from scipy.ndimage import gaussian_filter
from scipy.spatial import ConvexHull, QhullError

from pipeline.export.shaders import place_sheet
from pipeline.export.shadows import onto_ground

TEXELS = 128  # the shadow image's width and height
KEY_STRENGTH = 0.38  # how much the key light's shadow darkens the floor (1 - SHADOW_SHADE)
CONTACT_STRENGTH = 0.35  # darkening straight under a part resting on the floor
CONTACT_HEIGHT = 0.25  # of the creature size: parts higher than this cast no contact shadow
PENUMBRA = 0.12  # penumbra width per unit height of the part above the floor (~7 degree light)
BANDS = 3  # blur levels the parts are sorted into by height
SMALL_HULL = 32  # hulls of up to this many points are found in Python


def _hull(points: np.ndarray) -> np.ndarray:
    """The 2-D convex hull of points (n, 2), in order. Few points (a box's eight): Andrew's
    monotone chain, faster than a call into Qhull; many (a sphere's): Qhull, joggled when
    the points lie on a line (a part seen edge-on), which plain Qhull refuses."""
    if len(points) < 3:
        return points
    if len(points) > SMALL_HULL:
        try:
            return points[ConvexHull(points).vertices]
        except QhullError:
            return points[ConvexHull(points, qhull_options="QJ").vertices]
    pts = sorted(map(tuple, points))

    def half(seq):
        chain = []
        for p in seq:
            while len(chain) >= 2 and ((chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                                       - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])) <= 0:
                chain.pop()
            chain.append(p)
        return chain[:-1]
    return np.array(half(pts) + half(reversed(pts)))


class SoftShadow:
    """The shadow image of one renderer's floor: `texture` goes to the floor's shader
    (pipeline/export/shaders.checker_floor), `update(parts)` redraws it each frame from the
    world vertices of every convex part and places it under them."""

    def __init__(self, checker, size: float):
        import vtk
        from vtk.util.numpy_support import numpy_to_vtk

        self.checker, self.z, self.size = checker, checker.z, size
        self.floor = None  # the floor actor, once the renderer has made it
        self.alpha = np.zeros((TEXELS, TEXELS, 4), np.uint8)  # black, alpha = darkening
        image = vtk.vtkImageData()
        image.SetDimensions(TEXELS, TEXELS, 1)
        self.vtk_pixels = numpy_to_vtk(self.alpha.reshape(-1, 4), deep=False)
        image.GetPointData().SetScalars(self.vtk_pixels)
        self.image = image
        self.texture = vtk.vtkTexture()
        self.texture.SetInputData(image)
        self.texture.InterpolateOn()
        self.texture.SetColorModeToDirectScalars()

    def update(self, parts: list[np.ndarray]) -> None:
        """Redraw the shadows of convex parts given as world vertex arrays (n_i, 3)."""
        d = self.size
        lifted = [p for p in parts if len(p)]
        if not lifted:
            self.alpha[..., 3] = 0
            self._modified()
            return
        heights = np.array([max(p[:, 2].min() - self.z, 0.0) for p in lifted])
        keyed = [onto_ground(p, self.checker)[:, :2] for p in lifted]
        every = np.concatenate(keyed + [p[:, :2] for p in lifted])
        sigma_max = PENUMBRA * heights.max() + 0.02 * d
        lo = every.min(axis=0) - 3 * sigma_max
        hi = every.max(axis=0) + 3 * sigma_max
        span = float((hi - lo).max())
        texel = span / TEXELS
        key = np.zeros((TEXELS, TEXELS))
        sigmas = PENUMBRA * heights + 0.01 * d
        levels = np.geomspace(sigmas.min(), sigmas.max() + 1e-12, BANDS)
        band = np.abs(np.log(sigmas)[:, None] - np.log(levels)[None]).argmin(axis=1)
        for b in range(BANDS):
            members = np.flatnonzero(band == b)
            if len(members):
                layer = self._fill([keyed[i] for i in members], lo, texel)
                key = np.maximum(key, gaussian_filter(layer, levels[b] / texel, truncate=2.5))
        near = np.flatnonzero(heights < CONTACT_HEIGHT * d)
        contact = np.zeros_like(key)
        if len(near):
            weights = 1.0 - heights[near] / (CONTACT_HEIGHT * d)
            contact = gaussian_filter(self._fill([lifted[i][:, :2] for i in near], lo, texel, weights),
                                      0.04 * d / texel, truncate=2.5)
        dark = 1.0 - (1.0 - KEY_STRENGTH * key) * (1.0 - CONTACT_STRENGTH * contact)
        self.alpha[..., 3] = np.rint(np.clip(dark, 0.0, 1.0) * 255)
        place_sheet(self.floor, lo, span)
        self._modified()

    def _fill(self, polygons, lo, texel, weights=None) -> np.ndarray:
        """The polygons (xy outlines) filled into a float image, each with its weight (the
        largest where they overlap)."""
        img = Image.new("L", (TEXELS, TEXELS), 0)
        draw = ImageDraw.Draw(img)
        order = np.argsort(weights) if weights is not None else range(len(polygons))
        for i in order:
            xy = (_hull(polygons[i]) - lo) / texel
            if len(xy) < 2:  # a part shrunk to a point casts nothing
                continue
            value = 255 if weights is None else int(round(255 * weights[i]))
            draw.polygon([tuple(p) for p in xy], fill=value)
        return np.asarray(img, float) / 255.0

    def _modified(self) -> None:
        self.vtk_pixels.Modified()
        self.image.Modified()
