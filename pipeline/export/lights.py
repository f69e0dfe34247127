"""The light rig: a key light (the one shadows follow), a fill from the camera's other side
that keeps the shadowed faces readable, and a rim light from behind the subject that
outlines its silhouette against the floor. Fill and rim move with the camera."""
from __future__ import annotations

import numpy as np

from pipeline.export.shadows import KEY_LIGHT

# camera-light positions are in camera coordinates: eye at (0, 0, 1) looking at the origin,
# +y up on the screen
FILL_AT = (-1.0, -0.3, 0.8)  # from the left, a little below the eye
RIM_AT = (0.4, 1.0, -1.0)  # behind the subject and above it


def add_rig(plotter, underwater: bool = False) -> None:
    import pyvista as pv

    key_colour, fill_colour = ((0.85, 0.95, 1.0), (0.55, 0.85, 0.9)) if underwater else \
        ((1.0, 0.97, 0.92), (0.80, 0.88, 1.0))
    key = pv.Light(light_type="scene light", intensity=0.95, color=key_colour)
    key.positional = False
    key.position = tuple(np.asarray(KEY_LIGHT) * 100.0)
    key.focal_point = (0.0, 0.0, 0.0)
    plotter.add_light(key)
    for at, intensity, colour in ((FILL_AT, 0.5, fill_colour), (RIM_AT, 0.55, (1.0, 1.0, 1.0))):
        light = pv.Light(light_type="camera light", intensity=intensity, color=colour)
        light.positional = False
        light.position = at
        light.focal_point = (0.0, 0.0, 0.0)
        plotter.add_light(light)
