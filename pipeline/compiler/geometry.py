"""Geometry codes, meshes for rendering and mass, and body-frame bounding boxes.

`GeomArrays.type` codes (also what the contact stage reads) and `GeomArrays.size` layout:
  BOX (x, y, z full extents) · SPHERE (r, 0, 0) · CAPSULE (r, length, 0) ·
  CYLINDER (r, length, 0) · ELLIPSOID (a, b, c) · FRUSTUM (r_bottom, r_top, length) ·
  MESH (scale x, y, z) · PLANE (0, 0, 0).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from pipeline.compiler.cache import note_read
from pipeline.contents import file_state
from pipeline.errors import CorpusError, Problem

BOX, SPHERE, CAPSULE, CYLINDER, ELLIPSOID, FRUSTUM, MESH, PLANE = range(8)
GEOM_CODES = {"box": BOX, "sphere": SPHERE, "capsule": CAPSULE, "cylinder": CYLINDER,
              "ellipsoid": ELLIPSOID, "frustum": FRUSTUM, "mesh": MESH, "plane": PLANE}

# render tessellation: fine enough for frames, small enough for per-frame mesh export
SPHERE_SUBDIVISIONS = 2
ROUND_SECTIONS = 24


def size3(geom) -> np.ndarray:
    """The geom's size padded to the 3-vector layout above."""
    out = np.zeros(3)
    s = tuple(geom.size)
    out[:len(s)] = s[:3]
    return out


def _load_mesh_file(path: str):
    note_read(path)
    return _read_mesh(path, file_state(path))


@functools.lru_cache(maxsize=64)
def _read_mesh(path: str, content: str):
    """Keyed by the file's content too: a process that lives on (a warm batch worker) reads
    an edited mesh again."""
    import trimesh

    return trimesh.load(path, force="mesh", process=True)


def load_mesh(geom):
    """The geom's mesh file as a trimesh.Trimesh in the geom frame, scale applied;
    CorpusError (at the geom) if it cannot be read."""
    where = geom.where
    try:
        mesh = _load_mesh_file(geom.mesh_file).copy()
    except Exception as exc:  # trimesh raises many types for unreadable files
        raise CorpusError(Problem(f"cannot read mesh {geom.mesh_file!r}: {exc}",
                                  where.file, where.line, where.col, where.path)) from None
    if len(mesh.vertices) == 0 or len(mesh.faces) == 0:
        raise CorpusError(Problem(f"mesh {geom.mesh_file!r} has no faces", where.file,
                                  where.line, where.col, where.path))
    mesh.apply_scale(size3(geom) if len(geom.size) else 1.0)
    return mesh


def closed_mesh(geom):
    """`load_mesh`, outward oriented, for mass properties; CorpusError unless the surface
    is closed (an open surface encloses no volume)."""
    mesh = load_mesh(geom)
    if not mesh.is_watertight:
        where = geom.where
        raise CorpusError(Problem(f"mesh {geom.mesh_file!r} is not a closed surface, so it has "
                                  "no volume; give the part a mass and inertial, make it "
                                  "inertial: false, or repair the mesh",
                                  where.file, where.line, where.col, where.path))
    if mesh.volume < 0:
        mesh.invert()
    return mesh


def render_mesh(geom):
    """(vertices (n, 3), faces (m, 3)) of the shape in its own frame."""
    if geom.shape == "mesh":
        m = load_mesh(geom)
        return np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)
    return primitive_mesh(geom.shape, size3(geom))


def primitive_mesh(kind: str, s: np.ndarray):
    """(vertices, faces) tessellating an analytic shape of size3 `s` in its own frame."""
    if kind == "plane":  # a large quad for display only
        v = np.array([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], float)
        return v, np.array([[0, 1, 2], [0, 2, 3]], np.int64)
    import trimesh

    if kind == "box":
        m = trimesh.creation.box(extents=s)
    elif kind == "sphere":
        m = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=s[0])
    elif kind == "ellipsoid":
        m = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=1.0)
        m.apply_scale(s)
    elif kind == "capsule":
        m = trimesh.creation.capsule(height=s[1], radius=s[0], count=[ROUND_SECTIONS, ROUND_SECTIONS])
    elif kind == "cylinder":
        m = trimesh.creation.cylinder(radius=s[0], height=s[1], sections=ROUND_SECTIONS)
    else:  # frustum
        profile = [[0.0, 0.0], [s[0], 0.0], [s[1], s[2]], [0.0, s[2]]]
        m = trimesh.creation.revolve(profile, sections=ROUND_SECTIONS)
    return np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)


class RenderMeshes(Sequence):
    """Per geom, (vertices, faces) in the geom frame, as a read-only sequence. Analytic shapes
    are tessellated when first read: only export draws them, and tessellating imports trimesh
    (with SciPy, PIL and lxml), which would cost every compile, evaluation and batch job about
    0.5 s and 65 MB."""

    def __init__(self, entries):
        # each entry: (vertices, faces), or (kind, size3) of an analytic shape not yet tessellated
        self._entries = list(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        entry = self._entries[i]
        if isinstance(entry[0], str):
            entry = self._entries[i] = primitive_mesh(*entry)
        return entry


def local_bounds(geom, vertices):
    """(lo, hi) of the shape in its own frame: exact for analytic shapes, the vertex
    bounds for meshes."""
    s = size3(geom)
    kind = geom.shape
    if kind == "box":
        hi = s / 2.0
    elif kind == "sphere":
        hi = np.full(3, s[0])
    elif kind == "ellipsoid":
        hi = s.copy()
    elif kind == "capsule":
        hi = np.array([s[0], s[0], s[1] / 2.0 + s[0]])
    elif kind == "cylinder":
        hi = np.array([s[0], s[0], s[1] / 2.0])
    elif kind == "frustum":
        r = max(s[0], s[1])
        return np.array([-r, -r, 0.0]), np.array([r, r, s[2]])
    else:
        return vertices.min(axis=0), vertices.max(axis=0)
    return -hi, hi


def body_frame_aabb(lo, hi, rot, pos):
    """Axis-aligned bounds, in the body frame, of the box [lo, hi] placed by (rot, pos).
    For a shape aligned with its body these are the shape's own bounding-box corners,
    the points corpus tests against the ground."""
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])])
    pts = corners @ np.asarray(rot).T + np.asarray(pos)
    return pts.min(axis=0), pts.max(axis=0)
