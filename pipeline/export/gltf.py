"""Animated glTF 2.0 binary (.glb) written by hand: one node per body holding its geoms'
triangles (one primitive and material per colour), translation and rotation channels
sampled at the output frames, and the ground as a static vertex-coloured mesh.

glTF is y-up and corpus is z-up, so every node hangs under a root node that turns z-up
into y-up (-90 degrees about x); Blender's importer turns it back. Quaternions are stored
xyzw as glTF requires.
"""
from __future__ import annotations

import json
import struct

import numpy as np

from pipeline.export.meshes import Part

FLOAT, UINT32 = 5126, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
Z_UP_TO_Y_UP = [-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)]  # xyzw, -90 deg about x


class _Builder:
    """Accumulates the binary buffer, bufferViews and accessors of one glTF document."""

    def __init__(self):
        self.blob = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def accessor(self, data: np.ndarray, kind: str, target: int | None = None,
                 bounds: bool = False) -> int:
        component = UINT32 if data.dtype.kind in "iu" else FLOAT
        data = np.ascontiguousarray(data, dtype=np.uint32 if component == UINT32 else np.float32)
        while len(self.blob) % 4:
            self.blob.append(0)
        view = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": data.nbytes}
        if target is not None:
            view["target"] = target
        self.blob += data.tobytes()
        self.views.append(view)
        acc = {"bufferView": len(self.views) - 1, "componentType": component,
               "count": int(data.shape[0]), "type": kind}
        if bounds:
            flat = data.reshape(data.shape[0], -1)
            acc["min"] = [float(v) if component == FLOAT else int(v) for v in flat.min(axis=0)]
            acc["max"] = [float(v) if component == FLOAT else int(v) for v in flat.max(axis=0)]
        self.accessors.append(acc)
        return len(self.accessors) - 1


def _material(rgba, vertex_colors: bool = False) -> dict:
    m = {"pbrMetallicRoughness": {"baseColorFactor": [float(c) for c in rgba],
                                  "metallicFactor": 0.0, "roughnessFactor": 0.8}}
    if rgba[3] < 1.0:
        m["alphaMode"] = "BLEND"
    if vertex_colors:
        m["name"] = "ground"
    return m


def _continuous(quat_xyzw: np.ndarray) -> np.ndarray:
    """Flip signs so consecutive keys lie in one hemisphere (players interpolate linearly)."""
    q = quat_xyzw.copy()
    for k in range(1, len(q)):
        if np.dot(q[k], q[k - 1]) < 0:
            q[k] = -q[k]
    return q


def _unit_cylinder() -> Part:
    """Radius 1, from z = 0 to z = 1: stretched by node scale between two masses."""
    import trimesh

    mesh = trimesh.creation.cylinder(radius=1.0, height=1.0, sections=12)
    mesh.apply_translation([0.0, 0.0, 0.5])
    return Part(np.asarray(mesh.vertices), np.asarray(mesh.vertex_normals),
                np.asarray(mesh.faces), (0.0, 0.0, 0.0, 1.0))


def build_glb(body_names, parts_per_body: list[list[Part]], world_parts: list[Part],
              times: np.ndarray, pos: np.ndarray, quat_wxyz: np.ndarray,
              ground=None, name: str = "corpus", springs=None, spring_radius: float = 0.0) -> bytes:
    """The .glb bytes. `times` (F,) from 0, `pos` (F,B,3), `quat_wxyz` (F,B,4);
    `ground` is (vertices, faces, rgb) or None; `springs` a deforming.Deforming of segment
    end points (F, 2 ns, 3), drawn as cylinders of `spring_radius` animated by node scale."""
    b = _Builder()
    materials: list[dict] = []
    material_of: dict[tuple, int] = {}
    meshes: list[dict] = []

    def primitives(parts):
        prims = []
        for p in parts:
            key = tuple(round(c, 6) for c in p.rgba)
            if key not in material_of:
                material_of[key] = len(materials)
                materials.append(_material(key))
            prims.append({"attributes": {
                "POSITION": b.accessor(p.vertices, "VEC3", ARRAY_BUFFER, bounds=True),
                "NORMAL": b.accessor(p.normals, "VEC3", ARRAY_BUFFER)},
                "indices": b.accessor(p.faces.reshape(-1), "SCALAR", ELEMENT_ARRAY_BUFFER,
                                      bounds=True),
                "material": material_of[key]})
        return prims

    root = {"name": name, "rotation": Z_UP_TO_Y_UP, "children": []}
    nodes: list[dict] = [root]
    body_node = []
    for bi, body in enumerate(body_names):
        node = {"name": str(body),
                "translation": [float(v) for v in pos[0, bi]],
                "rotation": [float(v) for v in quat_wxyz[0, bi, [1, 2, 3, 0]]]}
        if parts_per_body[bi]:
            node["mesh"] = len(meshes)
            meshes.append({"name": str(body), "primitives": primitives(parts_per_body[bi])})
        root["children"].append(len(nodes))
        body_node.append(len(nodes))
        nodes.append(node)
    tracks = []  # (node, path, values (F, k)) of every animated property
    for bi in range(len(body_names)):
        tracks.append((body_node[bi], "translation", pos[:, bi]))
        tracks.append((body_node[bi], "rotation", _continuous(quat_wxyz[:, bi][:, [1, 2, 3, 0]])))
    if springs is not None:
        from pipeline.export.deforming import segment_trs

        ends = springs.vertices.reshape(len(times), -1, 2, 3)
        t, r, sc = segment_trs(ends[:, :, 0], ends[:, :, 1], spring_radius)
        cylinder = _unit_cylinder()
        spring_mesh = len(meshes)
        meshes.append({"name": "spring", "primitives": primitives(
            [Part(cylinder.vertices, cylinder.normals, cylinder.faces, springs.rgba)])})
        for s in range(ends.shape[1]):
            root["children"].append(len(nodes))
            tracks += [(len(nodes), "translation", t[:, s]), (len(nodes), "rotation", _continuous(r[:, s])),
                       (len(nodes), "scale", sc[:, s])]
            nodes.append({"name": f"spring{s}", "mesh": spring_mesh,
                          "translation": [float(v) for v in t[0, s]],
                          "rotation": [float(v) for v in r[0, s]],
                          "scale": [float(v) for v in sc[0, s]]})
    if world_parts:
        root["children"].append(len(nodes))
        nodes.append({"name": "static", "mesh": len(meshes)})
        meshes.append({"name": "static", "primitives": primitives(world_parts)})
    if ground is not None:
        gv, gf, grgb = ground
        materials.append(_material((1.0, 1.0, 1.0, 1.0), vertex_colors=True))
        root["children"].append(len(nodes))
        nodes.append({"name": "ground", "mesh": len(meshes)})
        normals = np.tile([0.0, 0.0, 1.0], (len(gv), 1))
        meshes.append({"name": "ground", "primitives": [{"attributes": {
            "POSITION": b.accessor(gv, "VEC3", ARRAY_BUFFER, bounds=True),
            "NORMAL": b.accessor(normals, "VEC3", ARRAY_BUFFER),
            "COLOR_0": b.accessor(grgb, "VEC3", ARRAY_BUFFER)},
            "indices": b.accessor(gf.reshape(-1), "SCALAR", ELEMENT_ARRAY_BUFFER, bounds=True),
            "material": len(materials) - 1}]})

    doc = {"asset": {"version": "2.0", "generator": "corpus pipeline.export.gltf"},
           "scene": 0, "scenes": [{"name": name, "nodes": [0]}], "nodes": nodes,
           "meshes": meshes, "materials": materials}
    if len(times) > 1:
        t_acc = b.accessor(np.asarray(times, float), "SCALAR", bounds=True)
        samplers, channels = [], []
        for node, path, values in tracks:
            samplers.append({"input": t_acc, "interpolation": "LINEAR",
                             "output": b.accessor(values, "VEC4" if path == "rotation" else "VEC3")})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})
        doc["animations"] = [{"name": "simulation", "samplers": samplers, "channels": channels}]
    while len(b.blob) % 4:
        b.blob.append(0)
    doc["buffers"] = [{"byteLength": len(b.blob)}]
    doc["bufferViews"] = b.views
    doc["accessors"] = b.accessors
    return _pack_glb(doc, bytes(b.blob))


def _pack_glb(doc: dict, blob: bytes) -> bytes:
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    total = 12 + 8 + len(text) + 8 + len(blob)
    return (struct.pack("<4sII", b"glTF", 2, total)
            + struct.pack("<I4s", len(text), b"JSON") + text
            + struct.pack("<I4s", len(blob), b"BIN\x00") + blob)
