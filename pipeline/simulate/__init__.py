"""The simulation stage: one interface, two engines, one dispatch.

Every engine's `Simulation` offers

    sim.model            the compiled Model (immutable while simulating)
    sim.data             every mutable part of the run; data.copy() forks it,
                         data.save(path) / type(data).load(path) checkpoint it
    sim.step(n=1)        n frames of dt (commands and controllers at each frame start)
    sim.run(duration)    simulate and return the Recording (also kept as sim.recording)
    sim.fork()           a second simulation continuing from a copy of this one's Data
    sim.reset()          back to the compiled initial state
    sim.sensors          what controllers read (pipeline/simulate/sensors.py)
    sim.dt, sim.scene

The engines: `articulated` (Featherstone trees with penalty contact, pipeline/physics) and
`particles` (Urban's point masses and springs, pipeline/particles). `engine_of(spec)` is the
only place that tells them apart; the Python API, the CLI, export and batch all go through
`compile` and `compile_model` here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Engine:
    name: str
    accepts: Callable[[object], bool]   # spec -> is it this engine's?
    compile: Callable                   # spec -> Simulation
    model: Callable                     # spec -> Model, without preparing a simulation


def _is_particles(spec) -> bool:
    from pipeline.particles.types import ParticleCreature, is_particle_scene

    return isinstance(spec, ParticleCreature) or is_particle_scene(spec)


def _compile_particles(spec, **kwargs):
    from pipeline.particles.simulation import compile_particles

    return compile_particles(spec, **kwargs)


def _particle_model(spec):
    from pipeline.particles.model import build_model
    from pipeline.particles.simulation import as_scene

    return build_model(as_scene(spec))


def _compile_articulated(spec, **kwargs):
    from pipeline.simulate.articulated import compile_simulation

    return compile_simulation(spec, **kwargs)


def _articulated_model(spec):
    from pipeline.compiler.build import as_scene, build_model

    return build_model(as_scene(spec))


ENGINES = (
    Engine("particles", _is_particles, _compile_particles, _particle_model),
    Engine("articulated", lambda spec: True, _compile_articulated, _articulated_model),
)


def engine_of(spec) -> Engine:
    return next(e for e in ENGINES if e.accepts(spec))


def compile(spec, **kwargs):  # noqa: A001 - pipeline.compile
    """A resolved spec (Scene or Creature of either engine) -> its engine's Simulation."""
    return engine_of(spec).compile(spec, **kwargs)


def compile_model(spec):
    """The Model a spec compiles to, for export and `corpus render` (no Data)."""
    return engine_of(spec).model(spec)
