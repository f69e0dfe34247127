"""Render meshes of a compiled Model: each geom's mesh placed in its body's frame, with
normals split at sharp edges (so boxes stay flat-shaded and spheres smooth) and its colour.

Both the glTF writer and the off-screen renderer draw from these; geoms of body -1 are the
static world (obstacles fixed to the ground).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh

from pipeline.export.view import view_of


@dataclass(frozen=True)
class Part:
    """One geom's triangles in its body's frame."""

    vertices: np.ndarray  # (n, 3) float64
    normals: np.ndarray  # (n, 3) unit vertex normals
    faces: np.ndarray  # (m, 3) int
    rgba: tuple  # 4 floats in 0..1


def _part(vertices, faces, pos, rot, rgba) -> Part:
    # trimesh's smooth_shaded keeps one normal per vertex only across gentle edges
    mesh = trimesh.Trimesh(np.asarray(vertices, float), np.asarray(faces, np.int64), process=True)
    shaded = mesh.smooth_shaded
    v = shaded.vertices @ np.asarray(rot).T + np.asarray(pos)
    n = shaded.vertex_normals @ np.asarray(rot).T
    return Part(np.ascontiguousarray(v), np.ascontiguousarray(n),
                np.ascontiguousarray(shaded.faces, dtype=np.int64),
                tuple(float(c) for c in rgba))


def body_parts(model) -> tuple[list[list[Part]], list[Part]]:
    """Parts per body (index = body index) and the static world parts (body -1)."""
    model = view_of(model)
    geoms = model.geoms
    per_body: list[list[Part]] = [[] for _ in range(model.nbody)]
    world: list[Part] = []
    for g, (vertices, faces) in enumerate(model.geom_meshes):
        if len(faces) == 0:
            continue  # an infinite plane has no render mesh; the ground is drawn separately
        part = _part(vertices, faces, geoms.pos[g], geoms.rot[g], geoms.rgba[g])
        b = int(geoms.body[g])
        (world if b < 0 else per_body[b]).append(part)
    return per_body, world


def merged(parts: list[Part]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One vertex/normal/face/colour (n, 4) array set from several parts."""
    if not parts:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros((0, 4))
    offsets = np.cumsum([0] + [len(p.vertices) for p in parts[:-1]])
    return (np.concatenate([p.vertices for p in parts]),
            np.concatenate([p.normals for p in parts]),
            np.concatenate([p.faces + o for p, o in zip(parts, offsets)]),
            np.concatenate([np.tile(p.rgba, (len(p.vertices), 1)) for p in parts]))


def extent(parts_per_body: list[list[Part]], matrices: np.ndarray) -> float:
    """Diagonal of the world bounding box of all body parts at one pose (B, 4, 4): the
    creatures' size, which sets default camera distance and checker tile."""
    points = [p.vertices @ matrices[b, :3, :3].T + matrices[b, :3, 3]
              for b, parts in enumerate(parts_per_body) for p in parts]
    if not points:
        return 1.0
    allp = np.concatenate(points)
    return float(np.linalg.norm(allp.max(axis=0) - allp.min(axis=0))) or 1.0


def posed_mesh(parts_per_body: list[list[Part]], world_parts: list[Part],
               matrices: np.ndarray) -> trimesh.Trimesh:
    """Every body's parts moved to the pose (B, 4, 4), plus the static parts, as one mesh
    with vertex colours (for per-frame OBJ/PLY/STL files)."""
    posed = [Part(p.vertices @ matrices[b, :3, :3].T + matrices[b, :3, 3],
                  p.normals @ matrices[b, :3, :3].T, p.faces, p.rgba)
             for b, parts in enumerate(parts_per_body) for p in parts] + list(world_parts)
    v, n, f, c = merged(posed)
    return trimesh.Trimesh(v, f, vertex_normals=n,
                           vertex_colors=np.rint(c * 255).astype(np.uint8), process=False)
