"""A biped character's proportions: named lengths, thicknesses and relative densities,
BipV3's by default (creatures/biped.yaml), checked, per side, or drawn from a seed.

Lengths are at scale 1 and in metres (a string may carry a unit: "40cm"); `scale`
multiplies every length afterwards. Densities are relative to BipV3's, whose per-body
densities make the default character weigh BipV3's 70.4 kg (pipeline/characters/biped.py).
"""
from __future__ import annotations

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.spec.units import to_si

# name -> (BipV3's value, random range low, high, what it is). Ranges are the sliders the
# random characters sample (Coros's proportion editor gives none; these keep the knee
# above the ankle and the shoulders above the hips for any draw).
NUMBERS = {
    "scale": (1.0, 0.85, 1.2, "every length's factor"),
    "thigh": (0.40, 0.34, 0.46, "hip to knee, m"),
    "shin": (0.46, 0.39, 0.53, "knee to ankle, m"),
    "leg_radius": (0.05, 0.045, 0.058, "thigh and shin thickness, m"),
    "foot_length": (0.155, 0.13, 0.18, "heel to toe joint, m"),
    "foot_width": (0.10, 0.085, 0.12, "m"),
    "hip_width": (0.16, 0.13, 0.21, "between the hip joints, m"),
    "torso_length": (0.50, 0.42, 0.62, "pelvis to neck, m"),
    "torso_girth": (1.0, 0.9, 1.15, "lower back and torso thickness, factor"),
    "pelvis_radius": (0.07, 0.063, 0.08, "m"),
    "head_radius": (0.09, 0.083, 0.1, "m"),
    "shoulder_width": (0.32, 0.27, 0.40, "between the shoulder joints, m"),
    "upper_arm": (0.26, 0.21, 0.33, "shoulder to elbow, m"),
    "lower_arm": (0.27, 0.22, 0.34, "elbow to hand tip, m"),
    "arm_radius": (0.04, 0.035, 0.046, "m"),
    "pelvis_density": (1.0, 0.8, 1.25, "relative to BipV3's"),
    "trunk_density": (1.0, 0.8, 1.25, "lower back and torso, relative"),
    "head_density": (1.0, 0.8, 1.25, "relative"),
    "arm_density": (1.0, 0.8, 1.25, "relative"),
    "leg_density": (1.0, 0.8, 1.25, "relative"),
    "foot_density": (1.0, 0.8, 1.25, "relative"),
}
LIMB_SHAPES = ("capsule", "box")
# what may differ between the sides (--left / --right)
SIDED = ("thigh", "shin", "leg_radius", "foot_length", "foot_width", "upper_arm", "lower_arm",
         "arm_radius", "arm_density", "leg_density", "foot_density")
DENSITIES = tuple(k for k in NUMBERS if k.endswith("_density"))
FACTORS = ("scale", "torso_girth") + DENSITIES
# random asymmetry: the knee moves up or down by up to KNEE_SHIFT (m, the leg's length
# kept), each arm's lengths by a factor within 1 +- ARM_ASYMMETRY
KNEE_SHIFT, ARM_ASYMMETRY = 0.03, 0.1


def defaults() -> dict:
    values = {k: v[0] for k, v in NUMBERS.items()}
    values["limb_shape"] = "capsule"
    return values


def read(items: dict, where: str, sided: bool = False) -> dict:
    """`items` (name -> number, quantity string or, for limb_shape, a word) checked and in
    SI; problems name `where` (a flag or a field path) and the proportion."""
    known = SIDED if sided else tuple(NUMBERS) + ("limb_shape",)
    out, problems = {}, []
    for name, value in items.items():
        at = f"{where} {name}"
        if name not in known:
            scope = "differ between the sides" if sided else "be set"
            problems.append(Problem(f"no proportion {name!r} can {scope}; known: {', '.join(known)}", path=at))
        elif name == "limb_shape":
            if value not in LIMB_SHAPES:
                problems.append(Problem(f"limb_shape is one of {', '.join(LIMB_SHAPES)}, not {value!r}", path=at))
            else:
                out[name] = value
        else:
            try:
                number = to_si(value, "number" if name in FACTORS else "length")
            except ValueError as err:
                problems.append(Problem(str(err), path=at))
                continue
            if not number > 0:
                problems.append(Problem(f"must be positive, got {value!r}", path=at))
            else:
                out[name] = number
    if problems:
        raise CorpusError(problems)
    return out


def random_proportions(seed: int) -> tuple[dict, dict, dict]:
    """(both sides, left, right) for a random character: every number uniform in its range,
    then a knee shift and arm factors per side."""
    rng = np.random.default_rng(seed)
    both = {k: float(rng.uniform(lo, hi)) for k, (_, lo, hi, _) in NUMBERS.items()}
    sides = []
    for _ in range(2):
        shift = float(rng.uniform(-KNEE_SHIFT, KNEE_SHIFT))
        arm = float(rng.uniform(1 - ARM_ASYMMETRY, 1 + ARM_ASYMMETRY))
        sides.append({"thigh": both["thigh"] + shift, "shin": both["shin"] - shift,
                      "upper_arm": both["upper_arm"] * arm, "lower_arm": both["lower_arm"] * arm})
    return both, sides[0], sides[1]


def resolve(both: dict, left: dict, right: dict) -> tuple[dict, dict]:
    """The left and right sides' full proportions (defaults, then `both`, then the side's
    own), checked for limbs too short for their thickness."""
    sides = []
    for own in (left, right):
        p = defaults()
        p.update(both)
        p.update(own)
        sides.append(p)
    problems = []
    for name, p in zip(("left", "right"), sides):
        for limb, thickness, spare in (("thigh", "leg_radius", 0.0), ("shin", "leg_radius", 0.02),
                                       ("upper_arm", "arm_radius", 0.0), ("lower_arm", "arm_radius", 0.0)):
            if p[limb] <= 2 * p[thickness] + spare:
                problems.append(Problem(
                    f"the {name} {limb} ({p[limb]:g} m) must be longer than twice {thickness} "
                    f"({p[thickness]:g} m){f' plus {spare:g} m' if spare else ''}", path=limb))
        if p["hip_width"] <= 2 * p["leg_radius"]:
            problems.append(Problem(f"hip_width ({p['hip_width']:g} m) must exceed twice leg_radius "
                                    f"({p['leg_radius']:g} m): the thighs would overlap", path="hip_width"))
    if problems:
        raise CorpusError(list({str(q): q for q in problems}.values()))
    return sides[0], sides[1]
