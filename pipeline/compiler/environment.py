"""The environment document (Scene.environment, schema environment.schema.json) read into
the live contact parameter block of `cstate` (pipeline/physics/contact/state.py), at compile
time (contact.py) and by the timeline commands `material` and `ground`
(pipeline/control/contact_commands.py). Gravity is read by build.py.

Defaults are the values of McKenna's roach script (Appendix C) where it sets one; the rest
are ours and documented in docs/environments.md.
"""
from __future__ import annotations

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.physics.contact import state as S
from pipeline.spec.units import to_si

DEFAULT_PARAMS = {
    S.GROUND_ON: 1.0, S.GROUND_Z: 0.0,
    S.K: 0.0, S.B: 0.0, S.KRF: 0.0,  # groundk 0, groundb 0 (script)
    S.ALPHA: 17.5, S.BETA: 3000.0, S.E: 0.5, S.MAX_DEPTH: 0.01,  # groundea/eB/e/emaxz (script)
    S.REST_V: 1e-2,
    # friction model 2 by default: its stiffness follows the normal spring, so it is stable at
    # any step the normal contact allows; corpus's Coulomb law (`friction_model: coulomb`)
    # needs h < 2.8 slip_velocity / (friction * normal acceleration) with RK4
    S.FRICTION_MODEL: S.FRICTION_MODELS["spring"], S.MU: 0.7, S.SLIP_V: 1e-4,
    S.MU2: -1.0, S.K2: -1.0, S.E2: 0.5,  # < 0: `friction`; the normal stiffness
    S.STICK_ALPHA: 0.1, S.STICK_BETA: 1000.0, S.STICK_MAX: 1e-3, S.STICK_E: 0.5,
    S.COLLISION_ON: 1.0,
    S.COL_ALPHA: 17.5, S.COL_BETA: 3000.0, S.COL_MAX: 0.01, S.COL_E: 0.5, S.COL_MU: 0.7,
}


def number(value, path: str) -> float:
    """A plain float. The spec stage already converted unit strings; a fraction string
    such as "1/2400" (or any unit string given from Python) is read here."""
    try:
        return float(to_si(value))
    except (ValueError, KeyError) as exc:
        raise CorpusError(Problem(f"expected a number: {exc}", path=path)) from None


def _dotted(d: dict, dotted: str):
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return None
        d = d[part]
    return d


def apply_material(params: np.ndarray, material: dict, path: str = "material") -> None:
    """Write the fields given in a `material:` mapping into the parameter block."""
    for name, (slot, _) in S.MATERIAL_FIELDS.items():
        v = _dotted(material, name)
        if v is not None:
            params[slot] = number(v, f"{path}.{name}")
    model = material.get("friction_model")
    if model is not None:
        params[S.FRICTION_MODEL] = S.FRICTION_MODELS[model]


def apply_ground(params: np.ndarray, ground: dict, path: str = "ground") -> None:
    """`ground:` on/off and plane height (also the `ground` timeline command)."""
    if "on" in ground:
        params[S.GROUND_ON] = 1.0 if ground["on"] else 0.0
    if ground.get("type") == "none":
        params[S.GROUND_ON] = 0.0
    if ground.get("z") is not None:
        params[S.GROUND_Z] = number(ground["z"], f"{path}.z")


def contact_params(env: dict) -> np.ndarray:
    """The initial parameter block of cstate for an environment document."""
    params = np.zeros(S.N_PARAMS)
    for slot, v in DEFAULT_PARAMS.items():
        params[slot] = v
    apply_ground(params, env.get("ground") or {}, "ground")
    apply_material(params, env.get("material") or {}, "material")
    collision = env.get("collision") or {}
    for name, (slot, _) in S.COLLISION_FIELDS.items():
        if collision.get(name) is not None:
            params[slot] = number(collision[name], f"collision.{name}")
    if "enabled" in collision:
        params[S.COLLISION_ON] = 1.0 if collision["enabled"] else 0.0
    return params
