"""`kind: fsm` controllers of articulated creatures: Urban's finite-state machines
(pipeline/control/fsm.py) reading what `sim.sensors` reads and driving joints, ticked inside
the step loop (pipeline/control/fsm_machines.py, fsm_frames.py).

The script names its sensors and actuators beside the `fsm:` block (schemas/controller.schema.json):

    sensors:   {swing: {joint: upper, quantity: rate}, low: {body: foot, quantity: height}}
    actuators: {elbow: {joint: fore, set: servo_target, range: [-1.2, 1.2], level: 0.5}}

Each frame the machine ticks once: sensors -> levels, `always`, transitions or the state's
`do`, then every actuator level (clamped to [0, 1]) is mapped onto its range and written
into the run's Data. It publishes `<controller>_state` (the state's index) and
`<controller>_<variable>` for every variable.
"""
from __future__ import annotations

from pipeline.control.commands import located, register_controller_kind
from pipeline.control.fsm import compile_fsm
from pipeline.control.fsm_machines import sensor_row
from pipeline.errors import CorpusError


class FsmController:
    """One machine of the run: what it reads and drives, and its compiled program. Its
    slots and state are run state in Data, ticked by the Simulation's `Machines` (pipeline/
    control/fsm_frames.py): here at a frame boundary, inside the step loop at the frame
    starts of a stretch that needs no Python (`in_kernel`)."""

    in_kernel = True

    def __init__(self, name: str, sensors: list[dict], actuators: list[tuple], program, where):
        self.name = name
        self.sensors = sensors
        self.actuators = actuators  # (set, dof, level-0 value, level-1 value)
        self.program = program
        self.where = where
        self.index = -1  # its machine in the Simulation's Machines

    def channel_names(self) -> list[str]:
        return [f"{self.name}_state"] + [f"{self.name}_{v}" for v in self.program.variable_names]

    def __call__(self, sim, t: float) -> None:
        machines = sim.machines
        machines.tick(sim, self.index)
        machines.publish(sim.data)


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
            sensor_row(sim, s)  # unknown bodies and joints fail now, not mid-run
        except CorpusError as err:
            raise CorpusError(located(f"fsm sensor {sname!r}: {err.problems[0].message}", ref.where)) from None
    try:
        program = compile_fsm(script["fsm"], list(sensors), list(actuators),
                              [float(a.get("level", 0.0)) for a in actuators.values()])
    except CorpusError as err:
        raise CorpusError([p if p.file else located(p.message, ref.where, p.path)
                           for p in err.problems]) from None
    return FsmController(name, list(sensors.values()), bound, program, ref.where)


register_controller_kind("fsm", make_fsm_controller)
