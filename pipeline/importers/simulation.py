"""How a converted MuJoCo model runs as it comes: its `simulation:` block, its ground, and a
start clear of the ground.

MuJoCo steps its soft constraint contact with an implicit integrator at the model's own
timestep. corpus's default ground is McKenna's exponential penalty spring, which no step
near MuJoCo's survives (a 5 ms step lands a foot millimetres deep, where the spring pushes
with 1e7 N). So the converter writes a ground that matches MuJoCo's contact instead
(`ground_material`: a linear spring-damper from the plane's solref, sized for the model's
mass; docs/import.md) and:

- `dt`: MuJoCo's timestep (0.002 s when the file sets none), the rate its actuators and
  policies expect commands at;
- `integrator: implicit_euler` with `h` the largest of dt, dt/2, dt/4, ... (not below
  MIN_H) at which the converted scene runs its first second, controls at zero, without a
  SimulationError (`stable_h`): dt for all but one model of the importer zoo (the dog, whose
  light toes slide with explicit friction forces, needs dt/2; tests/test_import_run.py);
- `duration`: 1 s, made a whole number of frames.

MuJoCo also lets a model start inside its floor (gymnasium's humanoidstandup lies with its
arms 3.6 cm deep), which the penalty spring would answer with a force that ends the run in
its first step: a free creature whose contact spheres start below the ground is lifted
until they touch it, and a note in the file says by how much.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

MUJOCO_TIMESTEP = 0.002  # MuJoCo's default <option timestep>
MIN_H = 1e-4  # s: the smallest step stable_h tries
DURATION = 1.0  # s, before rounding up to whole frames
PENETRATION = 1e-3  # m: a start deeper than this into the ground is lifted clear


def simulation_block(timestep: float | None) -> dict:
    """The block with h = dt; `stable_h` then shortens h where the model needs it."""
    dt = MUJOCO_TIMESTEP if timestep is None else float(timestep)
    frames = math.ceil(DURATION / dt - 1e-9)
    return {"duration": _number(frames * dt), "dt": _number(dt), "integrator": "implicit_euler",
            "h": _number(dt)}


def stable_h(creatures: list, environment: dict, simulation: dict) -> float:
    """The largest h of dt, dt/2, dt/4, ... (at least MIN_H) at which a scene of these
    documents runs simulation["duration"] without a SimulationError."""
    import pipeline
    from pipeline.errors import SimulationError

    scene = pipeline.load({"scene": "stable_h", "environment": environment, "creatures": creatures},
                          allow_outside=True)
    h = float(simulation["dt"])
    while True:
        settings = replace(scene.simulation, duration=float(simulation["duration"]),
                           dt=float(simulation["dt"]), integrator="implicit_euler", h=h)
        try:
            pipeline.compile(scene, settings=settings).step(round(settings.duration / settings.dt))
            return _number(h)
        except SimulationError:
            if h / 2 < MIN_H:
                return _number(h)
            h /= 2


def ground_material(friction: float, timeconst: float, dampratio: float, mass: float) -> dict:
    """The ground's `material:` matching MuJoCo's soft contact with the plane (solref:
    time constant, damping ratio; negative: direct stiffness, damping per unit mass):
    a linear spring-damper sized for the model's whole mass, so one point carrying all
    of it sinks g tc^2 dr^2 (3.9 mm at MuJoCo's default 0.02 s, 1) and is critically
    damped, as MuJoCo's reference acceleration -b v - k d would have it. No restitution
    scaling (the damper takes the energy) and no exponential spring."""
    mass = max(float(mass), 1e-6)
    if timeconst > 0:
        k = mass / (timeconst * timeconst * dampratio * dampratio)
        b = 2.0 * mass / timeconst
    else:
        k, b = -timeconst * mass, -dampratio * mass
    return {"friction": _number(friction), "restitution": 1.0, "k": _number(k), "b": _number(b),
            "exp_alpha": 0.0}


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
