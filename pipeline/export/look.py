"""How a scene's world looks in the frames: sky or water, fog, floor colours.

In air the floor fades into the sky towards the horizon; under water (a scene whose world
holds a medium at least half as dense as water, such as SeaWorld) the background is the
water's colour, everything fades into it with distance (depth fog) and the floor is sand.
"""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.export.ground import DARK_TILE, LIGHT_TILE

SKY = (0.78, 0.85, 0.93)
WATER = (0.06, 0.30, 0.40)
SAND = ((0.78, 0.72, 0.56), (0.66, 0.60, 0.45))
DENSE_MEDIUM = 500.0  # kg/m^3: a medium this dense is a liquid the camera is inside


@dataclass(frozen=True)
class Look:
    background: tuple
    fog: tuple  # colour far things fade into
    fog_near: float  # distances from the eye, in camera distances (eye to focus)
    fog_far: float
    fog_max: float  # how much of the fog colour the farthest things take
    tiles: tuple  # light and dark checker colours
    water_surface: float | None = None  # height of the water surface, when under water
    elevation: float | None = None  # default camera elevation, degrees (None: the camera's own)

    @property
    def underwater(self) -> bool:
        return self.background == WATER


AIR_LOOK = Look(SKY, SKY, 1.0, 2.6, 1.0, (LIGHT_TILE, DARK_TILE))


def look_for(environment: dict | None) -> Look:
    """The look of a scene's `environment` (its resolved dict, with a particle world's
    `world` entry when there is one)."""
    world = (environment or {}).get("world")
    water = [m for m in getattr(world, "media", ()) if m.density >= DENSE_MEDIUM]
    if not water:
        return AIR_LOOK
    surface = next((m.surface for m in water if m.flow == "waves"), None)
    # a camera looking nearly level sees the surface above the far floor
    return Look(WATER, WATER, 0.4, 4.0, 1.0, SAND, surface, elevation=8.0)
