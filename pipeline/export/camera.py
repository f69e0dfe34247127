"""Camera paths for the frame sequence: fixed, following a body or the centre of mass
(smoothed so the picture does not shake with every step), or orbiting the target.

A path is three (F, 3) arrays: eye position, focal point and view-up, one row per frame.
Angles: azimuth about world z from +x, elevation above the ground plane, in degrees.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import gaussian_filter1d

from pipeline.errors import CorpusError
from pipeline.export.poses import centre_of_mass
from pipeline.export.view import view_of

MODES = ("fixed", "follow", "orbit")


@dataclass(frozen=True)
class CameraPath:
    eye: np.ndarray  # (F, 3)
    focus: np.ndarray  # (F, 3)
    up: np.ndarray  # (F, 3)


def direction(azimuth_deg, elevation_deg) -> np.ndarray:
    """Unit vector from the focal point towards the eye."""
    az, el = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az),
                     np.sin(el) * np.ones_like(az)], -1)


def smooth(path: np.ndarray, fps: float, seconds: float) -> np.ndarray:
    """Zero-lag Gaussian smoothing of a (F, 3) path with a standard deviation in seconds
    (offline, so the camera may look ahead; 'nearest' ends keep the first/last frame still)."""
    if seconds <= 0 or len(path) < 2:
        return path
    return gaussian_filter1d(path, sigma=seconds * fps, axis=0, mode="nearest")


def target_bodies(spec: str, model, pos) -> np.ndarray:
    """Bodies the camera is about: for `com` the first creature (in scene order) that
    moves, for `com:<creature>` that creature, for a body name that body's creature; of a
    creature, the bodies that move when some do (the jellyfish's food marker stays put and
    would otherwise pull the framing half a metre wide)."""
    model = view_of(model)
    trees = np.asarray(model.body_tree)
    moving = np.ptp(pos, axis=0).max(axis=1) > 0 if len(pos) > 1 else np.ones(pos.shape[1], bool)
    if spec == "com":
        tree = trees[np.flatnonzero(moving)[0]] if moving.any() else trees[0]
    elif spec.startswith("com:"):
        name = spec[4:]
        if name not in model.tree_names:
            raise CorpusError(f"outputs.camera.target: no creature named {name!r} "
                              f"(creatures: {', '.join(model.tree_names)})")
        tree = model.tree_names.index(name)
    elif spec in model.body_names:
        tree = trees[model.body_names.index(spec)]
    else:
        raise CorpusError(f"outputs.camera.target: no body named {spec!r}; use com, com:<creature> "
                          f"or one of {', '.join(model.body_names[:8])}...")
    bodies = np.flatnonzero(trees == tree)
    return bodies[moving[bodies]] if moving[bodies].any() else bodies


def target_path(spec: str, model, pos, quat) -> np.ndarray:
    """World point (F, 3) the camera looks at: the centre of mass of `target_bodies` for
    `com` and `com:<creature>`, else the named body's frame origin."""
    model = view_of(model)
    bodies = target_bodies(spec, model, pos)
    if spec == "com" or spec.startswith("com:"):
        return centre_of_mass(pos, quat, model.body_mass, model.body_com, bodies)
    return pos[:, model.body_names.index(spec)]


VIEW_ANGLE = 30.0  # degrees: the renderer's vertical field of view (VTK's default)
MARGIN = 1.1  # room left above and below the creature


def framing(heights: np.ndarray, preferred: float, size: float, distance: float,
            elevation: float) -> tuple[float, float]:
    """The focus height and the distance at which a camera that holds its height keeps the
    creature in the picture at every height it reaches (a box dropped from 0.5 m, a humanoid
    from 1.9 m): the preferred height and distance when they show it all, else the middle
    of its range, from a distance that fits the range in the field of view."""
    lo, hi = heights.min() - 0.5 * size, heights.max() + 0.5 * size
    # half the height the picture spans at the focus, for a camera `elevation` degrees up
    half = np.tan(np.radians(VIEW_ANGLE / 2)) / np.cos(np.radians(elevation))
    if hi - preferred <= distance * half and preferred - lo <= distance * half:
        return preferred, distance
    return 0.5 * (lo + hi), max(distance, MARGIN * 0.5 * (hi - lo) / half)


def camera_path(cam: dict, model, times, pos, quat, fps: float, size: float) -> CameraPath:
    """The eye/focus/up of every output frame for a resolved `outputs.camera` block."""
    mode = cam.get("mode", "follow")
    if mode not in MODES:
        raise CorpusError(f"outputs.camera.mode must be one of {', '.join(MODES)}, got {mode!r}")
    n = len(times)
    elevation = float(cam.get("elevation", 25.0))
    target = target_path(cam.get("target", "com"), model, pos, quat)
    z = target[:, 2]
    height, fitted = framing(z, float(z.mean() if mode == "fixed" else np.median(z)), size,
                             float(cam.get("distance") or 2.5 * size), elevation)
    distance = float(cam.get("distance") or fitted)
    if mode == "fixed":
        focus = np.tile(cam.get("look_at") or [*target.mean(axis=0)[:2], height], (n, 1)).astype(float)
    else:
        # track the target over the ground but hold the height, so a fall or a hop reads
        # as motion against the floor instead of the floor jumping about
        focus = smooth(target, fps, float(cam.get("smoothing", 0.5)))
        focus[:, 2] = height
    azimuth = float(cam.get("azimuth", -70.0)) + (
        float(cam.get("orbit_speed", 30.0)) * (np.asarray(times) - times[0]) if mode == "orbit" else 0.0)
    offset = distance * direction(azimuth, elevation)
    eye = np.tile(cam["position"], (n, 1)).astype(float) if (mode == "fixed" and cam.get("position")) \
        else focus + offset
    return CameraPath(eye, focus, np.tile([0.0, 0.0, 1.0], (n, 1)))
