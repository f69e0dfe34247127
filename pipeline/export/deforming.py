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
# the drawn bell reaches this far past its ring of masses (in ring radii), its skirt hiding
# them: the ring is the physics, the bell what a viewer should see
BELL_REACH = 1.45
TUBE_FRACTION = 0.8  # spring tube radius over the smaller radius of its two masses
TUBE_SIDES = 8


@dataclass(frozen=True)
class Deforming:
    """One deforming drawable: fixed topology, vertices (F, n, 3) per output frame."""

    name: str
    vertices: np.ndarray  # (F, n, 3)
    faces: np.ndarray | None  # (m, 3) triangles, or None for line segments between pairs
    rgba: tuple
    colors: np.ndarray | None = None  # (n, 3) per-vertex RGB, instead of rgba's
    radius: np.ndarray | None = None  # (n // 2,) tube radius per spring, m (springs only)


def springs(model, pos: np.ndarray) -> Deforming | None:
    """Spring segments: vertex 2s and 2s+1 are spring s's two masses, coloured as they are
    (a tentacle pink, a seaweed frond green) when the model gives mass colours."""
    extras = view_of(model).extras
    ends = np.asarray(extras.get("springs", np.zeros((0, 2))), int).reshape(-1)
    if len(ends) == 0:
        return None
    rgba, radius = extras.get("rgba"), extras.get("radius")
    colors = None if rgba is None else np.asarray(rgba, float)[ends, :3]
    # a tube nearly as thick as its thinner mass: a chain of masses reads as one tentacle
    # or frond, not as beads on a wire
    if radius is None:  # no mass sizes: tubes 1/50 of the typical spring length
        lengths = np.linalg.norm(pos[0, ends[0::2]] - pos[0, ends[1::2]], axis=1)
        thick = np.full(len(lengths), 0.02 * float(np.median(lengths)))
    else:
        thick = TUBE_FRACTION * np.asarray(radius, float)[ends].reshape(-1, 2).min(axis=1)
    return Deforming("springs", pos[:, ends], None, SPRING_RGBA, colors, thick)


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
        meshes = [dome_mesh(pos[k, ring], float(phase[k]), s.get("height", 0.03), s.get("sign", 1.0),
                            BELL_REACH) for k in range(len(frame_t))]
        out.append(Deforming(s.get("name", "dome"), np.stack([v for v, _ in meshes]), meshes[0][1],
                             tuple(s.get("rgba", (0.85, 0.55, 0.75, 0.8)))))
    return out


def covered(model) -> set[int]:
    """Masses the drawn bells cover (their ring masses): the frames leave their spheres out."""
    return {int(b) for s in view_of(model).extras.get("surfaces", [])
            if s.get("kind", "dome") == "dome" for b in s["ring"]}


def deforming(model, pos, channels, time, frame_t) -> list[Deforming]:
    spring = springs(model, pos)
    return ([spring] if spring is not None else []) + domes(model, pos, channels, time, frame_t)


def tube_mesh(ends: np.ndarray, radius: np.ndarray, sides: int = TUBE_SIDES):
    """Open cylinders between point pairs `ends` (2n, 3) (pairs 2s, 2s+1) of radii (n,):
    vertices (2n * sides, 3) in rings, their outward normals, and triangles. Vertex
    (2s + e) * sides + k lies on the ring around end e of segment s, so per-end values
    repeat `sides` times."""
    a, b = ends[0::2], ends[1::2]
    d = b - a
    d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
    # any vector not along the segment gives a perpendicular pair (u, v)
    helper = np.where(np.abs(d[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    u = np.cross(d, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(d, u)
    angle = 2 * np.pi * np.arange(sides) / sides
    normal = np.cos(angle)[None, :, None] * u[:, None] + np.sin(angle)[None, :, None] * v[:, None]
    rings = np.stack([a, b], 1)[:, :, None, :] + radius[:, None, None, None] * normal[:, None]
    n = len(a)
    k = np.arange(sides)
    k1 = (k + 1) % sides
    base = (2 * np.arange(n) * sides)[:, None]
    quads = np.stack([base + k, base + k1, base + sides + k1, base + sides + k], -1)  # (n, sides, 4)
    faces = np.concatenate([quads[..., [0, 1, 2]], quads[..., [0, 2, 3]]], 1).reshape(-1, 3)
    normals = np.repeat(normal[:, None], 2, axis=1)
    return rings.reshape(-1, 3), normals.reshape(-1, 3), faces


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
