"""Geometry that changes shape from frame to frame, from a particle model's `extras`
(pipeline/particles/model.py): springs between masses and the render-only domes.

Rigid bodies are drawn by moving actors; these are rebuilt from the resampled mass
positions at every output frame instead.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.export.view import view_of

SPRING_RGBA = (0.35, 0.38, 0.45, 1.0)


@dataclass(frozen=True)
class Deforming:
    """One deforming drawable: fixed topology, vertices (F, n, 3) per output frame."""

    name: str
    vertices: np.ndarray  # (F, n, 3)
    faces: np.ndarray | None  # (m, 3) triangles, or None for line segments between pairs
    rgba: tuple


def springs(model, pos: np.ndarray) -> Deforming | None:
    """Spring segments: vertex 2s and 2s+1 are spring s's two masses."""
    ends = np.asarray(view_of(model).extras.get("springs", np.zeros((0, 2))), int)
    if len(ends) == 0:
        return None
    return Deforming("springs", pos[:, ends.reshape(-1)], None, SPRING_RGBA)


def domes(model, pos: np.ndarray, channels: dict, time: np.ndarray, frame_t: np.ndarray) -> list[Deforming]:
    """Every dome surface at every output frame, its phase read from its channel."""
    from pipeline.export.resample import resample_series
    from pipeline.particles.surfaces import dome_mesh

    out = []
    for s in view_of(model).extras.get("surfaces", []):
        if s.get("kind", "dome") != "dome":
            continue
        ring = list(s["ring"])
        phase_name = s.get("phase_channel")
        phase = (resample_series(time, channels[phase_name], frame_t)
                 if phase_name in channels else np.zeros(len(frame_t)))
        meshes = [dome_mesh(pos[k, ring], float(phase[k]), s.get("height", 0.03), s.get("sign", 1.0))
                  for k in range(len(frame_t))]
        out.append(Deforming(s.get("name", "dome"), np.stack([v for v, _ in meshes]), meshes[0][1],
                             tuple(s.get("rgba", (0.85, 0.55, 0.75, 0.8)))))
    return out


def deforming(model, pos, channels, time, frame_t) -> list[Deforming]:
    spring = springs(model, pos)
    return ([spring] if spring is not None else []) + domes(model, pos, channels, time, frame_t)


def segment_trs(a: np.ndarray, b: np.ndarray, radius: float):
    """Translation, xyzw rotation and scale that stretch a unit cylinder (radius 1, from
    z = 0 to z = 1) between points a and b (arrays (..., 3)): the glTF form of a spring."""
    d = b - a
    length = np.linalg.norm(d, axis=-1)
    u = d / np.where(length > 0, length, 1.0)[..., None]
    # the rotation taking +z onto u: half-way quaternion (1 + z.u, z x u), normalised;
    # u = -z has no unique half-way axis, any perpendicular one (x) turns it
    w = 1.0 + u[..., 2]
    xyz = np.stack([-u[..., 1], u[..., 0], np.zeros_like(w)], -1)
    q = np.concatenate([xyz, w[..., None]], -1)
    flipped = w < 1e-12
    q[flipped] = (1.0, 0.0, 0.0, 0.0)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    scale = np.stack([np.full_like(length, radius), np.full_like(length, radius), length], -1)
    return a, q, scale
