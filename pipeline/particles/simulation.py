"""`ParticleSimulation`: the particle engine behind the simulation stage's interface
(pipeline/simulate/__init__.py: model, data, step, run, recording, fork, reset, sensors).

    sim = compile_particles(scene_or_creature)   # a particle Scene, a ParticleCreature or a path
    sim.step(n)                                  # n frames of dt
    recording = sim.run(duration)                # pipeline.recording.Recording, also sim.recording

Each frame: every controller reads `sim.sensors` and sets actuator levels (Python), bubble
columns recycle, then the numba kernel advances dt in ceil(dt/h) equal sub-steps (never
longer than h) with floor events. Point masses are the recording's "bodies" (identity
orientation); q/qd are the stacked positions/velocities; each FSM publishes `fsm_state` (its
state index) and `fsm_<variable>`. Every mutable part of a run lives in `ParticleData`, so
`sim.fork()` and `sim.data = ParticleData.load(path)` continue a run exactly.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np

from pipeline.control.fsm import FsmRuntime
from pipeline.errors import CorpusError, SimulationError
from pipeline.particles.arrays import INTEGRATOR_CODES
from pipeline.particles.controller import ParticleFsm
from pipeline.particles.data import ParticleData
from pipeline.particles.integrators import advance
from pipeline.particles.model import ParticleModel, build_model
from pipeline.particles.sensors import ParticleSensors
from pipeline.particles.types import ParticleCreature, is_particle_scene
from pipeline.progress import frame_progress
from pipeline.recording import Recorder, Recording
from pipeline.runaway import POSITION, VELOCITY, RunawayBounds
from pipeline.spec.loader import problem_at
from pipeline.spec.types import Scene, SimulationSettings

_IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


def substeps(dt: float, h: float) -> int:
    """Internal steps per frame: the fewest equal ones no longer than h (the articulated
    engine's rule), so dt = 1/240 with h = 1 ms takes 5 steps of 0.833 ms."""
    return max(1, int(math.ceil(dt / h - 1e-9)))


class ParticleSimulation:
    def __init__(self, model: ParticleModel, scene: Scene, settings: SimulationSettings | None = None):
        self.model = model
        self.scene = scene
        self.settings = s = settings or scene.simulation
        if s.integrator not in INTEGRATOR_CODES:
            raise CorpusError(problem_at(scene.where, "the particle engine integrates with "
                                         f"{', '.join(INTEGRATOR_CODES)}, not '{s.integrator}'",
                                         "simulation.integrator"))
        if not s.dt > 0.0 or (s.h is not None and not s.h > 0.0):
            raise CorpusError(problem_at(scene.where, f"dt and h must be positive, got dt = {s.dt}, h = {s.h}",
                                         "simulation"))
        self.dt = float(s.dt)
        self.h = float(s.h) if s.h else self.dt
        self.substeps = substeps(self.dt, self.h)
        self.substep = self.dt / self.substeps
        self.method = INTEGRATOR_CODES[s.integrator]
        self.sensors = ParticleSensors(self)
        self.reset()
        n = self.model.nq
        reach = np.linalg.norm(model.pos0, axis=1) + model.arrays.radius
        self._runaway = RunawayBounds([POSITION] * n + [VELOCITY] * n, length=float(reach.max(initial=0.0)),
                                      dt=self.dt, gravity=float(np.linalg.norm(model.arrays.gravity)),
                                      duration=s.duration, speed0=float(np.abs(model.vel0).max(initial=0.0)))

    # -- state --------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the compiled initial state: fresh data, controllers and random generator."""
        self.data = ParticleData(self.model, self.settings.seed)
        self.data.controllers = [ParticleFsm(b) for b in self.model.controllers]
        for c in self.data.controllers:
            c.apply(self.data.live)
            c.publish(self.data.channels)
        self.recording = None

    def fork(self) -> "ParticleSimulation":
        """A second simulation of the same model from a copy of this one's data: both go on
        independently."""
        twin = copy.copy(self)
        twin.data = self.data.copy()
        twin.sensors = ParticleSensors(twin)
        twin.recording = None
        return twin

    @property
    def time(self) -> float:
        return self.data.time

    def set_params(self, creature: str, params) -> None:
        """Replace a creature's FSM parameter vector (in `params:` order), e.g. for evolution."""
        for c in self.data.controllers:
            if c.creature == creature:
                c.runtime = FsmRuntime(c.binding.program, params)
                c.apply(self.data.live)
                c.publish(self.data.channels)
                return
        raise CorpusError(f"no controller drives a creature named '{creature}'")

    # -- stepping -----------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance n frames of dt: controllers, spawners, then the kernel."""
        m = self.model
        d = self.data
        for _ in range(n):
            t0 = d.time
            for controller in d.controllers:
                controller(self, t0)
            for sp in d.spawners:
                sp.frame(d.pos, d.vel, self.dt, d.rng)
            advance(m.arrays, d.live, self.method, d.pos, d.vel, t0, self.substep, self.substeps,
                    d.counters)
            d.time = t0 + self.dt
            d.frame += 1
            self._check_state()

    def _check_state(self) -> None:
        """NaN/inf or a runaway (pipeline/runaway.py) is an error at the scene's `simulation:`
        naming the time, the mass and the coordinate."""
        d = self.data
        state = np.concatenate([d.pos.ravel(), d.vel.ravel()])
        i = self._runaway.first_beyond(state, d.time)
        if i < 0:
            return
        n = d.pos.size
        what = f"{'velocity' if i >= n else 'position'} {'xyz'[i % 3]}"
        mass = self.model.body_names[(i % n) // 3]
        why = ("has a non-finite state" if not np.isfinite(state[i])
               else f"ran away: {what} = {self._runaway.describe(i, float(state[i]), d.time)}")
        raise SimulationError(problem_at(self.scene.where, f"simulation unstable at t = {d.time:.6g} s: "
                                                           f"mass {mass!r} {why}; lower simulation.h", "simulation"))

    def run(self, duration: float | None = None, progress: bool | None = None) -> Recording:
        """Simulate `duration` (default the scene's) from the current state, recording every
        `record_every`-th frame; returns the Recording and keeps it as `sim.recording`."""
        duration = self.settings.duration if duration is None else float(duration)
        nframes = max(0, int(np.ceil(duration / self.dt - 1e-9)))
        m = self.model
        rec = Recorder(m.body_names, m.nq, m.nv)
        self.recording = None
        with frame_progress(self.scene.name, nframes, self.dt, progress) as advanced:
            self._record(rec)
            for _ in range(nframes):
                self.step(1)
                self._record(rec)
                advanced()
        self.recording = rec.finish()
        return self.recording

    def _record(self, rec: Recorder) -> None:
        d = self.data
        if d.frame % self.settings.record_every:
            return
        quat = np.broadcast_to(_IDENTITY, (self.model.nbody, 4))
        rec.add(d.time, d.pos, quat, d.pos.ravel(), d.vel.ravel(), dict(d.channels))

    def stats(self) -> dict:
        s, f, b, i = (int(x) for x in self.data.counters)
        return {"steps": s, "force_evaluations": f, "backtracks": b, "impacts": i,
                "time": self.data.time}


def as_scene(spec) -> Scene:
    """A particle Scene from a particle Scene, a ParticleCreature (in its own world) or a path."""
    from pipeline.particles.spec import scene_of

    if isinstance(spec, (str, Path)):
        from pipeline.spec.resolve import load_scene

        spec = load_scene(spec)
    if isinstance(spec, ParticleCreature):
        return scene_of(spec)
    if is_particle_scene(spec):
        return spec
    raise CorpusError(f"cannot compile a {type(spec).__name__} with the particle engine")


def compile_particles(spec, settings: SimulationSettings | None = None) -> ParticleSimulation:
    """Build the model and the initial state of a particle scene or creature."""
    scene = as_scene(spec)
    return ParticleSimulation(build_model(scene), scene, settings)
