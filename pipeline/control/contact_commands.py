"""Timeline commands of the contact stage: `sticky`, `material`, `ground`.

They write the live parameter block and sticky flags of `Data.cstate`
(pipeline/physics/contact/state.py) at a frame boundary, so the change takes effect from the
next step and a rejected step never sees a half-applied command. Registered with
pipeline.control.commands when this module is imported (the Simulation imports it, with the
core commands).
"""
from __future__ import annotations

from pipeline.compiler.environment import apply_ground, apply_material
from pipeline.control.commands import register_command
from pipeline.physics.contact import state as S


def _sticky(sim, args: dict) -> None:
    """corpus `bodygroundstick body on|off`; off releases the body's anchors."""
    b = sim.body_index(args["body"])
    sim.data.cstate[sim.model.contact.layout[S.LAYOUT_STICKY] + b] = 1.0 if args["on"] else 0.0


def _material(sim, args: dict) -> None:
    """Any `material:` field of the environment, e.g. {friction: 0} (corpus ground* commands)."""
    apply_material(sim.data.cstate[:S.N_PARAMS], args, "material")


def _ground(sim, args: dict) -> None:
    """corpus `ground on|off` and `groundz`."""
    apply_ground(sim.data.cstate[:S.N_PARAMS], args, "ground")


for _name, _handler in (("sticky", _sticky), ("material", _material), ("ground", _ground)):
    register_command(_name, _handler)
