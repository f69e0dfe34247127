"""Shapes and mass: a body's geoms (own shape and parts, with scale folded into sizes)
and explicit inertials, from SI documents."""
from __future__ import annotations

import numpy as np

from pipeline.spec import checks
from pipeline.spec.loader import MDict, Mark, where_of
from pipeline.spec.transforms import pose, split_scale
from pipeline.spec.types import Geom, Inertial

DEFAULT_RGBA = (0.8, 0.6, 0.4, 1.0)
DEFAULT_DENSITY = 1000.0


def build_inertial(doc, si, path, problems) -> Inertial | None:
    n0 = len(problems)
    checks.positive(si["mass"], doc.value_mark("mass"), f"{path}.mass", "a mass", problems)
    inertia = list(si.get("inertia", (0.0, 0.0, 0.0)))
    if len(inertia) not in (3, 6):
        problems.append(doc.value_mark("inertia").problem(
            f"give 3 or 6 inertia components, got {len(inertia)}", f"{path}.inertia"))
    inertia += [0.0] * (6 - len(inertia))
    for k in range(3):
        checks.positive(inertia[k], doc.value_mark("inertia"), f"{path}.inertia[{k}]",
                        "a principal moment", problems, allow_zero=True)
    if len(problems) > n0:
        return None
    return Inertial(float(si["mass"]), tuple(float(x) for x in si.get("com", (0, 0, 0))),
                    tuple(float(x) for x in inertia))


def rgba(color) -> tuple[float, float, float, float]:
    if color is None:
        return DEFAULT_RGBA
    if isinstance(color, str):
        h = color.lstrip("#")
        vals = [int(h[i:i + 2], 16) / 255.0 for i in range(0, len(h), 2)]
    else:
        vals = [float(c) for c in color]
    return tuple(vals + [1.0] * (4 - len(vals)))


def body_geoms(body: MDict, si: dict, creature_si: dict, path: str, problems) -> list[Geom]:
    density = si.get("density", creature_si.get("density", DEFAULT_DENSITY))
    if "density" in si:
        checks.positive(density, body.value_mark("density"), f"{path}.density", "a density", problems)
    geoms = []
    if "shape" in si:
        geoms.append(build_geom(body, si, density, si.get("color"), si.get("name", ""), True, path, problems))
    for k, part in enumerate(si.get("parts", ())):
        part_doc = body["parts"][k]
        part_density = part.get("density", density)
        geoms.append(build_geom(part_doc, part, part_density, part.get("color", si.get("color")),
                           part.get("name", f"{si['name']}.part{k}"), part.get("inertial", True),
                           f"{path}.parts[{k}]", problems))
    if "mass" in si:
        if "shape" not in si:
            problems.append(body.key_mark("mass").problem("`mass` needs a `shape` to spread it over", f"{path}.mass"))
    return [g for g in geoms if g is not None]


def build_geom(doc: MDict, si: dict, density, color, name, inertial, path, problems) -> Geom | None:
    shape_doc = doc["shape"]
    (shape, arg), = si["shape"].items()
    try:
        R, t, s = split_scale(si.get("transform", ()))
    except ValueError as exc:
        problems.append(doc.value_mark("transform").problem(str(exc), f"{path}.transform"))
        return None
    mark = shape_doc.value_mark(shape)
    where = f"{path}.shape.{shape}"
    uniform_xy = abs(s[0] - s[1]) <= 1e-12 * max(s[0], s[1])
    mesh_file = None
    if shape == "box":
        size = tuple(np.asarray(arg) * s)
    elif shape == "sphere":
        if np.ptp(s) <= 1e-12 * s.max():
            size = (arg * s[0],)
        else:  # a sphere scaled unevenly is an ellipsoid
            shape, size = "ellipsoid", tuple(arg * s)
    elif shape == "ellipsoid":
        size = tuple(np.asarray(arg) * s)
    elif shape in ("capsule", "cylinder", "frustum"):
        if not uniform_xy:
            problems.append(doc.value_mark("transform").problem(
                f"a {shape} must be scaled equally in x and y (its cross-section is round)", f"{path}.transform"))
            return None
        if shape == "frustum":
            size = (arg["bottom"] * s[0], arg["top"] * s[0], arg["length"] * s[2])
        else:
            size = (arg["radius"] * s[0], arg["length"] * s[2])
    else:  # mesh
        scale = np.broadcast_to(np.asarray(arg.get("scale", 1.0), float), (3,))
        size = tuple(scale * s)
        mesh_file = arg["file"]
    ok = True
    for k, v in enumerate(size):
        at, sub = _size_location(shape_doc, shape, k, where)
        if shape == "frustum" and k == 1:
            ok &= checks.positive(v, at, sub, "a frustum's top radius", problems, allow_zero=True)
        elif shape == "mesh":
            if v == 0:
                ok = False
                problems.append(mark.problem("a mesh scale must not be zero", where))
        else:
            ok &= checks.positive(v, at, sub, f"a {shape} size", problems)
    if "density" in si:
        ok &= checks.positive(si["density"], doc.value_mark("density"), f"{path}.density", "a density", problems)
    if "mass" in si:
        ok &= checks.positive(si["mass"], doc.value_mark("mass"), f"{path}.mass", "a mass", problems)
    if not ok:
        return None
    return Geom(shape, tuple(float(v) for v in size), pose(R, t), mesh_file, float(density),
                float(si["mass"]) if "mass" in si else None, bool(inertial), bool(si.get("colliding", True)),
                rgba(color), name, where_of(mark, where))


_SIZE_KEYS = {"capsule": ("radius", "length"), "cylinder": ("radius", "length"),
              "frustum": ("bottom", "top", "length")}


def _size_location(shape_doc: MDict, shape: str, k: int, where: str) -> tuple[Mark, str]:
    """Where the k-th size number of a shape was written (for messages)."""
    written = next(iter(shape_doc.values()))
    if isinstance(written, list) and k < len(written):
        return written.item_mark(k), f"{where}[{k}]"
    if shape in _SIZE_KEYS and isinstance(written, MDict):
        key = _SIZE_KEYS[shape][k]
        return written.value_mark(key), f"{where}.{key}"
    return shape_doc.value_mark(next(iter(shape_doc))), where
