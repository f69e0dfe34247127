"""What a recorded channel is, for its plot: a title, a y-axis label with its unit, a name
for each column, and names for the levels of a finite-state machine's state channel.

A Recording keeps channels as bare arrays; their meaning lives with the controller that
published them. The ones corpus publishes are described here, with names read from the
scene (an FSM's states, an imported model's actuators) or the gait controller's legs.
Channels another plot already draws are not plotted again: the gait channels are the gait
diagram, `contact_force` the contact plot.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.control.gait_schedule import LEGS

CONTACT_CHANNEL = "contact_force"
GAIT_CHANNELS = ("leg_state", "gait_swing")  # pipeline/export/gait.py also reads gait_<leg>


@dataclass(frozen=True)
class Description:
    title: str
    ylabel: str
    columns: tuple[str, ...] = ()  # one name per column; () for a single series
    levels: tuple[str, ...] = ()  # names of the integer values (an FSM state's index)
    ticks: tuple[float, ...] = ()  # y ticks, when the values have a natural scale


def drawn_elsewhere(name: str) -> bool:
    return name in GAIT_CHANNELS or name.startswith("gait_") or name == CONTACT_CHANNEL


def _machines(scene) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """Channel name -> (machine, what it is, the state names) for the finite-state machines
    of the scene: `<controller>_state` and `<controller>_<variable>` of the FSM controllers
    of articulated creatures, `fsm_state` and `fsm_<variable>` of particle creatures
    (suffixed `_<creature>` when several creatures have one). What it is: "state" or the
    variable's name."""
    out = {}
    for ref in getattr(scene, "controllers", ()) or ():
        script = ref.script or {}
        if script.get("kind") == "fsm":
            name, fsm = script.get("controller", "fsm"), script["fsm"]
            states = tuple(fsm["states"])
            out[f"{name}_state"] = (name, "state", states)
            out.update({f"{name}_{v}": (name, v, states) for v in fsm.get("variables", {})})
    driven = [c for c in getattr(scene, "creatures", ()) if getattr(c, "controller", None)]
    for c in driven:
        suffix, states = (f"_{c.name}" if len(driven) > 1 else ""), tuple(c.controller["states"])
        out["fsm_state" + suffix] = (c.name, "state", states)
        out.update({f"fsm_{v}{suffix}": (c.name, v, states) for v in c.controller.get("variables", {})})
    return out


def _actuators(scene) -> tuple[str, ...]:
    """The actuator names of an imported model's motors controller (its `ctrl` channel)."""
    for ref in getattr(scene, "controllers", ()) or ():
        if ref.python and ref.python.endswith(":motors"):
            return tuple(a["name"] for a in ref.params.get("actuators", ()))
    return ()


def describe(name: str, values: np.ndarray, scene=None) -> Description:
    width = int(np.prod(values.shape[1:], dtype=int))
    if name == "oscillator_phase" and width == len(LEGS):
        return Description("gait oscillator phase of each leg", "phase [deg]", LEGS, ticks=(0, 180, 360))
    if name == "ctrl":
        names = _actuators(scene)
        return Description("actuator commands (MuJoCo ctrl, before gear)", "ctrl [-]",
                           names if len(names) == width else ())
    machine = _machines(scene).get(name)
    if machine and machine[1] == "state":
        return Description(f"{machine[0]}: state of its finite-state machine", "state", levels=machine[2])
    if machine:
        return Description(f"{machine[0]}: finite-state machine variable {machine[1]}", machine[1])
    return Description(f"ch_{name}", name,
                       tuple(f"[{i}]" for i in range(width)) if width > 1 else ())
