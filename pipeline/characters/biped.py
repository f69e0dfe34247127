"""A biped character as a creature document, from its two sides' proportions
(pipeline/characters/proportions.py), laid out like creatures/biped.yaml so the
`biped_walk` controller finds its bodies by name.

Masses come from density: each body's density is BipV3's mass for it over the volume of its
BipV3-sized shape (times the character's relative density), so the default character
weighs BipV3's 70.4 kg and a limb made longer or thicker gains mass by its volume. The
compiler computes the masses and inertias from the shapes, as for any creature.
"""
from __future__ import annotations

import copy
import functools

from pipeline.characters.proportions import defaults
from pipeline.compiler.mass import unit_density_properties
from pipeline.spec.expand import mirror_body

# BipV3's masses, kg (digest seed-002-coros.md §2.2), per body role
BIPV3_MASS = {"pelvis": 12.9, "lower_back": 7.0, "torso": 15.5, "head": 5.2, "upper_arm": 2.2,
              "lower_arm": 1.7, "upper_leg": 6.6, "lower_leg": 3.2, "foot": 1.0, "toes": 0.2}
BIPV3_TOTAL = 70.4
DENSITY_OF = {"pelvis": "pelvis_density", "lower_back": "trunk_density", "torso": "trunk_density",
              "head": "head_density", "upper_arm": "arm_density", "lower_arm": "arm_density",
              "upper_leg": "leg_density", "lower_leg": "leg_density", "foot": "foot_density",
              "toes": "foot_density"}
BLUE, SKIN, LIGHT, DARK = "#4a6fa5", "#d0a070", "#e0b890", "#303030"
# creatures/biped.yaml's joints (BipV3's limits); the limit springs' k and b scale with the
# character's mass, like the controller's gains
JOINTS = {
    "lower_back": {"type": "ball"}, "torso": {"type": "ball"}, "head": {"type": "ball"},
    "upper_arm": {"type": "ball"}, "upper_leg": {"type": "ball"},
    "lower_arm": {"type": "revolute", "axis": [0, 1, 0], "limits": {"lower": -2.7, "upper": 0, "k": 200, "b": 5}},
    "lower_leg": {"type": "revolute", "axis": [0, 1, 0], "limits": {"lower": 0, "upper": 2.5, "k": 2000, "b": 50}},
    "foot": {"type": "universal", "axes": [[1, 0, 0], [0, 1, 0]],
             "limits": {"lower": -0.75, "upper": 0.75, "k": 500, "b": 10}},
    "toes": {"type": "revolute", "axis": [0, 1, 0], "limits": {"lower": -0.52, "upper": 0.1, "k": 50, "b": 1}},
}


def _capsule(r, length, limb_shape="capsule"):
    """A capsule along z, or the box around it (boxy limbs)."""
    if limb_shape == "box":
        return "box", (2 * r, 2 * r, length + 2 * r)
    return "capsule", (r, length)


def _centre(p):
    """The pelvis, back, torso and head: (role, parent, joint position in the parent,
    (shape, size), shape offset in the body frame, shape rotated about x by 90 deg)."""
    s = p["scale"]
    tl, g = p["torso_length"] * s, p["torso_girth"]
    hr = p["head_radius"] * s
    head_len = 0.05 / 0.09 * hr
    return [
        ("pelvis", None, None, _capsule(p["pelvis_radius"] * s, 0.625 * p["hip_width"] * s), (-0.025 * s, 0, 0), True),
        ("lower_back", "pelvis", (0, 0, 0.14 * tl), _capsule(0.08 * g * s, 0.13 * tl), (0, 0, 0.085 * tl), False),
        ("torso", "lower_back", (0, 0, 0.2 * tl), _capsule(0.12 * g * s, 0.24 * tl), (0.03 * g * s, 0, 0.28 * tl),
         False),
        ("head", "torso", (0, 0, 0.66 * tl), _capsule(hr, head_len), (0, 0, 0.04 * s + hr + head_len / 2), False),
    ]


def _limbs(p):
    """One side's arm and leg, left-handed (y > 0), in the same tuples as _centre."""
    s, shape = p["scale"], p["limb_shape"]
    tl = p["torso_length"] * s
    ua, la, ra = p["upper_arm"] * s, p["lower_arm"] * s, p["arm_radius"] * s
    th, sh, rl = p["thigh"] * s, p["shin"] * s, p["leg_radius"] * s
    fl, fw = p["foot_length"] / 0.155, p["foot_width"] / 0.10  # the foot against BipV3's
    return [
        ("upper_arm", "torso", (0, p["shoulder_width"] * s / 2, 0.45 * tl),
         _capsule(ra, ua + 0.03 * s - 2 * ra, shape), (0, 0, -(ua - 0.01 * s) / 2), False),
        ("lower_arm", "upper_arm", (0, 0, -ua), _capsule(ra, la - 2 * ra, shape), (0, 0, -la / 2), False),
        ("upper_leg", "pelvis", (0, p["hip_width"] * s / 2, -0.03 * s), _capsule(rl, th - 2 * rl, shape),
         (0, 0, -th / 2), False),
        ("lower_leg", "upper_leg", (0, 0, -th), _capsule(rl, sh - 0.02 * s - 2 * rl, shape),
         (0, 0, -(sh - 0.02 * s) / 2), False),
        ("foot", "lower_leg", (0, 0, -sh), ("box", (0.155 * fl * s, 0.10 * fw * s, 0.045 * s)),
         (0.0175 * fl * s, 0, -0.0375 * s), False),
        ("toes", "foot", (0.095 * fl * s, 0, -0.044 * s), ("box", (0.055 * fl * s, 0.06 * fw * s, 0.032 * s)),
         (0.0275 * fl * s, 0, 0), False),
    ]


def _round(x: float) -> float:
    return float(f"{x:.9g}")


def _volume(shape):
    """The volume of the shape as the document writes it (rounded)."""
    kind, size = shape
    return unit_density_properties(kind, [_round(c) for c in size])[0]


@functools.cache
def bipv3_density() -> dict:
    """Each role's density that gives BipV3's mass on its BipV3-sized shape, kg/m^3."""
    p = defaults()
    parts = _centre(p) + _limbs(p)
    return {role: BIPV3_MASS[role] / _volume(shape) for role, _, _, shape, _, _ in parts}


def _body(name, role, parent, at, shape, offset, turned, density, mass_ratio):
    kind, size = shape
    body = {"name": name}
    if parent is not None:
        body["parent"] = parent
        body["at"] = [{"move": [_round(c) for c in at]}]
        joint = copy.deepcopy(JOINTS[role])
        if "limits" in joint:
            joint["limits"]["k"] = _round(joint["limits"]["k"] * mass_ratio)
            joint["limits"]["b"] = _round(joint["limits"]["b"] * mass_ratio)
        body["joint"] = joint
    else:
        body["joint"] = {"type": "free"}
    if kind == "capsule":
        body["shape"] = {"capsule": {"radius": _round(size[0]), "length": _round(size[1])}}
    else:
        body["shape"] = {"box": [_round(c) for c in size]}
    ops = [{"rotate": {"x": 90}}] if turned else []
    body["transform"] = ops + [{"move": [_round(c) for c in offset]}]
    body["density"] = _round(density)
    if role in ("lower_back", "upper_arm", "lower_arm"):
        body["colliding"] = False
    body["color"] = {"pelvis": BLUE, "lower_back": BLUE, "upper_leg": BLUE, "lower_leg": BLUE, "torso": SKIN,
                     "upper_arm": SKIN, "head": LIGHT, "lower_arm": LIGHT}.get(role, DARK)
    return body


def biped_document(name: str, left: dict, right: dict, description: str = "") -> tuple[dict, float]:
    """(the creature document, its mass in kg) for the two sides' proportions; the shared
    ones (scale, trunk, head, widths, limb_shape) are read from `left`."""
    ref = bipv3_density()
    centre = _centre(left)
    sides = [("left_", _limbs(left), left), ("right_", _limbs(right), right)]

    def density(role, p):
        return _round(ref[role] * p[DENSITY_OF[role]])

    mass = sum(density(role, left) * _volume(shape) for role, _, _, shape, _, _ in centre)
    mass += sum(density(role, p) * _volume(shape) for _, parts, p in sides for role, _, _, shape, _, _ in parts)
    ratio = mass / BIPV3_TOTAL
    bodies = [_body(role, role, parent, at, shape, off, turned, density(role, left), ratio)
              for role, parent, at, shape, off, turned in centre]
    for prefix, parts, p in sides:
        for role, parent, at, shape, off, turned in parts:
            own = "left_" + parent if parent not in ("pelvis", "torso") else parent
            body = _body("left_" + role, role, own, at, shape, off, turned, density(role, p), ratio)
            bodies.append(body if prefix == "left_" else mirror_body(body, 1, "left_", "right_"))
    s = left["scale"]
    legs = max(p["thigh"] + p["shin"] for _, _, p in sides) * s
    doc = {"creature": name}
    if description:
        doc["description"] = description
    doc.update({"root": {"mode": "free"}, "at": [{"move": [0, 0, _round(0.03 * s + legs + 0.06 * s)]}],
                "bodies": bodies})
    return doc, mass
