"""`kind: fsm` controllers of articulated creatures: Urban's finite-state machines
(pipeline/control/fsm.py) reading `sim.sensors` and driving joints.

The script names its sensors and actuators beside the `fsm:` block (schemas/controller.schema.json):

    sensors:   {swing: {joint: upper, quantity: rate}, low: {body: foot, quantity: height}}
    actuators: {elbow: {joint: fore, set: servo_target, range: [-1.2, 1.2], level: 0.5}}

Each frame the machine ticks once: sensors -> levels, `always`, transitions or the state's
`do`, then every actuator level (clamped to [0, 1]) is mapped onto its range and written
into the run's Data. It publishes `<controller>_state` (the state's index) and
`<controller>_<variable>` for every variable.
"""
from __future__ import annotations

import numpy as np

from pipeline.control.commands import located, register_controller_kind
from pipeline.control.fsm import FsmRuntime, compile_fsm
from pipeline.errors import CorpusError

_POSITION = {"x": 0, "y": 1, "z": 2}
_VELOCITY = {"vx": 0, "vy": 1, "vz": 2}


def read_sensor(sensors, spec: dict) -> float:
    """One sensor level from `sim.sensors` (see the schema's `sensor`)."""
    q = spec.get("quantity")
    if "com" in spec:
        pos, vel = sensors.com()
        key = spec["com"]
        return float(pos[_POSITION[key]] if key in _POSITION else vel[_VELOCITY[key]])
    if "joint" in spec:
        if q == "force":
            return float(sensors.joint_force(spec["joint"])[0])
        angle, rate = sensors.joint(spec["joint"])
        return float(angle[0] if q == "angle" else rate[0])
    body = spec["body"]
    if q in _POSITION or q in ("up", "height"):
        pos, quat = sensors.body_pose(body)
        if q in _POSITION:
            return float(pos[_POSITION[q]])
        if q == "height":
            return float(pos[2] - sensors.ground(pos[0], pos[1])[0])
        w, x, y, _ = quat
        return float(1.0 - 2.0 * (x * x + y * y))
    if q in _VELOCITY:
        return float(sensors.body_velocity(body)[0][_VELOCITY[q]])
    force, touching = sensors.body_contact(body)
    return float(touching) if q == "touching" else float(np.linalg.norm(force))


class FsmController:
    """One machine bound to its sensors and joints; part of the run's Data."""

    def __init__(self, name: str, sensors: list[dict], actuators: list[tuple], runtime: FsmRuntime):
        self.name = name
        self.sensors = sensors
        self.actuators = actuators  # (field, dof, lo, hi)
        self.runtime = runtime

    def __call__(self, sim, t: float) -> None:
        levels = [read_sensor(sim.sensors, s) for s in self.sensors]
        rt = self.runtime
        rt.tick(t, sim.dt, levels)
        d = sim.data
        for (field, dof, lo, hi), level in zip(self.actuators, rt.actuator_levels()):
            value = lo + level * (hi - lo)
            if field == "servo_target":
                d.forces.servo_target[dof] = value
            elif field == "exp_rest":
                d.exp_rest[dof] = value
            else:
                d.ctrl[dof] = value
        self.publish(d.channels)

    def publish(self, channels: dict) -> None:
        rt = self.runtime
        channels[f"{self.name}_state"] = float(rt.state)
        for v in rt.program.variable_names:
            channels[f"{self.name}_{v}"] = rt.variable(v)


def make_fsm_controller(sim, ref) -> FsmController:
    script = ref.script
    name = script.get("controller", "fsm")
    sensors = dict(script.get("sensors", {}))
    actuators = dict(script.get("actuators", {}))
    bound = []
    for aname, a in actuators.items():
        try:
            dofs, qpos = sim.joint_dofs(a["joint"])
        except CorpusError as err:
            raise CorpusError(located(f"fsm actuator {aname!r}: {err.problems[0].message}", ref.where)) from None
        if dofs.size != 1:
            raise CorpusError(located(f"fsm actuator {aname!r}: joint {a['joint']!r} has {dofs.size} "
                                      "degrees of freedom; an actuator drives a joint with one", ref.where))
        lo, hi = (float(v) for v in a["range"])
        bound.append((a["set"], int(dofs[0]), lo, hi))
    for sname, s in sensors.items():
        try:
            read_sensor(sim.sensors, s)  # unknown bodies and joints fail now, not mid-run
        except CorpusError as err:
            raise CorpusError(located(f"fsm sensor {sname!r}: {err.problems[0].message}", ref.where)) from None
    try:
        program = compile_fsm(script["fsm"], list(sensors), list(actuators),
                              [float(a.get("level", 0.0)) for a in actuators.values()])
    except CorpusError as err:
        raise CorpusError([p if p.file else located(p.message, ref.where, p.path)
                           for p in err.problems]) from None
    controller = FsmController(name, list(sensors.values()), bound, FsmRuntime(program))
    controller.publish(sim.data.channels)
    return controller


register_controller_kind("fsm", make_fsm_controller)
