"""How a converted MuJoCo model runs as it comes: its `simulation:` block, and a start clear
of the ground.

MuJoCo steps its soft constraint contact with an implicit integrator at the model's own
timestep; corpus's ground is a penalty spring (the roach's exponential one unless the scene
says otherwise), which RK4 at the default 1/240 s throws most of the importer zoo off
(the ant at 0.3 s, the humanoid at 0.22 s). So the converter writes:

- `dt`: MuJoCo's timestep (0.002 s when the file sets none), the rate its actuators and
  policies expect commands at;
- `integrator: implicit_euler` with `h` = IMPLICIT_H: linearly implicit Euler takes the
  ground's stiffness into its step, and 1e-4 s ran every model of the zoo stably for 1 s
  with its ground, with margin (5e-4 s did too; tests/test_import_run.py);
- `duration`: 1 s, made a whole number of frames.

MuJoCo also lets a model start inside its floor (gymnasium's humanoidstandup lies with its
arms 3.6 cm deep), which the penalty spring would answer with a force that ends the run in
its first step: a free creature whose contact spheres start below the ground is lifted
until they touch it, and a note in the file says by how much.
"""
from __future__ import annotations

import math

import numpy as np

MUJOCO_TIMESTEP = 0.002  # MuJoCo's default <option timestep>
IMPLICIT_H = 1e-4  # s; see the module doc
DURATION = 1.0  # s, before rounding up to whole frames
PENETRATION = 1e-3  # m: a start deeper than this into the ground is lifted clear


def simulation_block(timestep: float | None) -> dict:
    dt = MUJOCO_TIMESTEP if timestep is None else float(timestep)
    frames = math.ceil(DURATION / dt - 1e-9)
    return {"duration": _number(frames * dt), "dt": _number(dt), "integrator": "implicit_euler",
            "h": _number(min(IMPLICIT_H, dt))}


def _number(x: float) -> float:
    """Short decimals for the YAML (0.999 rather than 0.9990000000000001)."""
    return float(f"{x:.12g}")


def lowest_point(creature: dict, environment: dict) -> float:
    """World height of the lowest contact sphere's bottom of a creature document at its
    initial pose, as corpus compiles it (the points the ground pushes on)."""
    from pipeline.compiler.build import build_model
    from pipeline.physics import forward_kinematics
    from pipeline.spec.resolve import load

    scene = load({"scene": "lowest_point", "environment": environment, "creatures": [creature]},
                 allow_outside=True)
    model = build_model(scene)
    contact = model.contact
    if contact is None or len(contact.point_body) == 0:
        return math.inf
    xpos, xrot = forward_kinematics(model, model.q0)
    body = np.asarray(contact.point_body)
    z = xpos[body, 2] + np.einsum("pj,pj->p", xrot[body, 2, :], np.asarray(contact.point_pos))
    return float((z - np.asarray(contact.point_radius)).min())


def lift_clear(creature: dict, environment: dict, ground_z: float) -> float:
    """Lift a free creature document whose initial pose reaches below ground_z until it
    touches it; returns the lift (0 when none was needed)."""
    if creature.get("root", {}).get("mode") != "free":
        return 0.0
    depth = ground_z - lowest_point(creature, environment)
    if not depth > PENETRATION:
        return 0.0
    creature["at"] = [*creature.get("at", []), {"move": [0, 0, _number(depth)]}]
    return depth
