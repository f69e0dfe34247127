"""A particle creature's FSM controller (pipeline/control/fsm.py): sensors -> machine ->
actuators, once per frame. The controller objects live in the run's `ParticleData` and hold
no reference to the simulation, which is passed to every call (as for articulated controllers).
"""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.control.fsm import FsmProgram, FsmRuntime
from pipeline.particles.sensors import FsmSensor

# the `Live` field an actuator drives, by the kind of its force
ACTUATED_FIELD = {"spring": "sp_rest", "angle": "an_rest", "torque": "tq_torque", "constant": "cf_mag"}


@dataclass(frozen=True)
class FsmBinding:
    """What one creature's machine is bound to; compiled once per model (ParticleModel)."""

    creature: str
    sensors: tuple[FsmSensor, ...]
    order: tuple[int, ...]  # evaluation order (time-to-touchdown after the heights it reads)
    program: FsmProgram
    actuators: tuple[tuple[str, int, float, float], ...]  # (Live field, slot, min, max)
    suffix: str = ""  # of the published channel names: "_<creature>" with several machines


class ParticleFsm:
    """One creature's machine and its memory (FSM runtime and the last sensor levels)."""

    def __init__(self, binding: FsmBinding, params=None):
        self.binding = binding
        self.runtime = FsmRuntime(binding.program, params)
        self.levels = [0.0] * len(binding.sensors)

    @property
    def creature(self) -> str:
        return self.binding.creature

    def __call__(self, sim, t: float) -> None:
        """Read the sensors, tick the machine, set the actuated force parameters."""
        b = self.binding
        levels = self.levels
        for k in b.order:
            levels[k] = b.sensors[k].level(sim.sensors, levels)
        self.runtime.tick(t, sim.dt, levels)
        self.apply(sim.data.live)
        self.publish(sim.data.channels)

    def apply(self, live) -> None:
        """Map the machine's actuator levels onto their force parameters."""
        for (name, slot, lo, hi), level in zip(self.binding.actuators, self.runtime.actuator_levels()):
            getattr(live, name)[slot] = lo + level * (hi - lo)

    def publish(self, channels: dict) -> None:
        """`fsm_state` (the state's index) and `fsm_<variable>`, suffixed per creature."""
        suffix = self.binding.suffix
        channels["fsm_state" + suffix] = self.runtime.state
        for name in self.binding.program.variable_names:
            channels[f"fsm_{name}{suffix}"] = self.runtime.variable(name)
