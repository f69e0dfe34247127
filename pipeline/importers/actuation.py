"""MuJoCo `<motor>` actuators as a corpus Python controller.

A motor is a bias-free torque (or force) channel on one joint: force = gear * ctrl, with ctrl
clamped to ctrlrange. corpus creatures have no actuator element, so an import adds to the
scene one controller per actuated creature,

    controllers:
      - python: pipeline.importers.actuation:motors
        creature: humanoid
        params:
          actuators: [{name: abdomen_y, joint: abdomen_y, gear: 100, ctrlrange: [-1, 1]}, ...]
          ctrl: {abdomen_y: 0.3}           # constant commands (default 0), or
          policy: mypkg.policy:act         # called as act(sim, t, names) -> {name: u} or [u...]

and each frame it writes the joint forces into `Data.ctrl` (the controller joint-force
channel) for the actuated DOFs, and records the clamped commands as channel `ctrl`. Without a
policy the commands are constant: it returns HOLD, so it is called again only after a command
and the frames in between run in one kernel call.
"""
from __future__ import annotations

import numpy as np

from pipeline.control.python_ctrl import HOLD
from pipeline.errors import CorpusError, Problem

CONTROLLER = "pipeline.importers.actuation:motors"


def motor_controllers(creatures: list[dict], trees, actuators) -> list[dict]:
    """One `motors` controller item per creature that has actuators."""
    items = []
    for doc, links in zip(creatures, trees):
        names = {ln.name for ln in links}
        mine = [a.as_dict() for a in actuators if a.joint in names]
        if mine:
            # the creature is repeated in params: joint names of a creature that shares body
            # names with another are prefixed `creature/` in the compiled model
            items.append({"python": CONTROLLER, "creature": doc["creature"],
                          "params": {"creature": doc["creature"], "actuators": mine}})
    return items


def _plan(sim, params: dict):
    """(names, dof index per actuator, gear, lo, hi) resolved once against the model."""
    model = sim.model
    creature = params.get("creature")
    names, dofs, gear, lo, hi = [], [], [], [], []
    for a in params["actuators"]:
        joint = a["joint"]
        candidates = [joint] + ([f"{creature}/{joint}"] if creature else [])
        found = next((j for j in candidates if j in model.joint_names), None)
        if found is None:
            raise CorpusError(Problem(f"actuator {a['name']!r}: no joint {joint!r} in the model",
                                      path="controllers.params.actuators"))
        s = model.joint_qvel_slice(found)
        if s.stop - s.start != 1:
            raise CorpusError(Problem(f"actuator {a['name']!r}: joint {joint!r} has "
                                      f"{s.stop - s.start} DOF; a motor drives one"))
        names.append(a["name"])
        dofs.append(s.start)
        gear.append(float(a.get("gear", 1.0)))
        r = a.get("ctrlrange")
        lo.append(-np.inf if r is None else float(r[0]))
        hi.append(np.inf if r is None else float(r[1]))
    return names, np.array(dofs, np.int64), np.array(gear), np.array(lo), np.array(hi)


def motors(sim, t, params) -> None:
    """The per-frame controller (see the module docstring)."""
    if "_plan" not in params:
        params["_plan"] = _plan(sim, params)
        policy = params.get("policy")
        if policy:
            from pipeline.control.python_ctrl import load_callable

            params["_policy"] = load_callable(policy)
    names, dofs, gear, lo, hi = params["_plan"]
    if "_policy" in params:
        command = params["_policy"](sim, t, names)
    else:
        command = params.get("ctrl", {})
    if isinstance(command, dict):
        unknown = set(command) - set(names)
        if unknown:
            raise CorpusError(Problem(f"ctrl names unknown actuators: {', '.join(sorted(unknown))}"))
        u = np.array([float(command.get(n, 0.0)) for n in names])
    else:
        u = np.asarray(command, dtype=float)
        if u.shape != (len(names),):
            raise CorpusError(Problem(f"a policy must return {len(names)} commands, got "
                                      f"shape {u.shape}"))
    u = np.clip(u, lo, hi)
    ctrl = sim.data.ctrl
    ctrl[dofs] = 0.0
    np.add.at(ctrl, dofs, gear * u)
    sim.data.channels["ctrl"] = u
    return None if "_policy" in params else HOLD
