"""A particle creature's FSM controller (pipeline/control/fsm.py): what its machine is bound to
and its memory. The machines run inside the step kernel (pipeline/particles/machines.py); the
controller objects live in the run's `ParticleData` and hold its machine's slots and state
between kernel calls, so a run forks, checkpoints and resumes with them.
"""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.control.fsm import FsmProgram, FsmRuntime
from pipeline.particles.sensors import FsmSensor


@dataclass(frozen=True)
class FsmBinding:
    """What one creature's machine is bound to; compiled once per model (ParticleModel)."""

    creature: str
    sensors: tuple[FsmSensor, ...]
    order: tuple[int, ...]  # evaluation order (time-to-touchdown after the heights it reads)
    program: FsmProgram
    actuators: tuple[tuple[str, int, float, float], ...]  # (force kind, its slot, min, max)
    suffix: str = ""  # of the published channel names: "_<creature>" with several machines


class ParticleFsm:
    """One creature's machine and its memory: the FSM runtime's slots (sensor levels,
    actuator levels, params, variables, dt, t) and state."""

    def __init__(self, binding: FsmBinding, params=None):
        self.binding = binding
        self.runtime = FsmRuntime(binding.program, params)

    @property
    def creature(self) -> str:
        return self.binding.creature

    def channels(self) -> dict:
        """`fsm_state` (the state's index) and `fsm_<variable>`, suffixed per creature."""
        suffix = self.binding.suffix
        out = {"fsm_state" + suffix: self.runtime.state}
        for name in self.binding.program.variable_names:
            out[f"fsm_{name}{suffix}"] = self.runtime.variable(name)
        return out
