"""Numbers with units and placement ops for particle documents.

Until the spec stage exposes its unit parser and transform composer (pipeline/spec/units.py,
transforms.py), particle documents use these; both follow docs/architecture.md exactly
(SI bare numbers, "2cm", "30deg", "1/240"; `move` and `rotate` ops in degrees).
"""
from __future__ import annotations

import math
import re

import numpy as np

_UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "kg": 1.0, "g": 0.001, "rad": 1.0,
          "deg": math.pi / 180.0, "s": 1.0, "ms": 0.001, "kg/m3": 1.0, "g/cm3": 1000.0, "": 1.0}
_QUANTITY = re.compile(r"^\s*([-+]?[0-9.eE+-]+)\s*(?:/\s*([-+]?[0-9.eE+-]+))?\s*([a-z/0-9]*)\s*$")


def si(value) -> float:
    """A bare number, a fraction string or a number with a unit, in SI."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _QUANTITY.match(str(value))
    if not m or m.group(3) not in _UNITS:
        raise ValueError(f"not a quantity: {value!r}")
    x = float(m.group(1)) / (float(m.group(2)) if m.group(2) else 1.0)
    return x * _UNITS[m.group(3)]


def vec(values) -> np.ndarray:
    return np.array([si(v) for v in values], dtype=float)


def _axis_rotation(axis, angle: float) -> np.ndarray:
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def placement(ops) -> tuple[np.ndarray, np.ndarray]:
    """Compose `move`/`rotate` ops (each acting in the world frame after the previous ones)
    into (R, p): a creature-frame point x lands at R x + p."""
    rot = np.eye(3)
    pos = np.zeros(3)
    for op in ops or ():
        if "move" in op:
            pos = pos + vec(op["move"])
        elif "rotate" in op:
            r = op["rotate"]
            if "axis" in r:
                step = _axis_rotation(vec(r["axis"]), si(r["angle"]) if isinstance(r["angle"], str)
                                      else math.radians(r["angle"]))
            else:
                (name, deg), = r.items()
                step = _axis_rotation({"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}[name],
                                      math.radians(si(deg)))
            rot = step @ rot
            pos = step @ pos
        else:
            raise ValueError(f"particle creatures are placed with move/rotate ops only, not {sorted(op)}")
    return rot, pos


def upward_sign(tri) -> float:
    """+1 or -1: the orientation that makes the normal of triangle `tri` (3, 3) point up (z)."""
    tri = np.asarray(tri, float)
    return 1.0 if np.cross(tri[1] - tri[0], tri[2] - tri[0])[2] >= 0 else -1.0
