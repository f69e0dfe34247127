"""`ParticleSimulation`: the particle engine behind the simulation stage's interface
(pipeline/simulate/__init__.py: model, data, step, run, recording, fork, reset, sensors).

    sim = compile_particles(scene_or_creature)   # a particle Scene, a ParticleCreature or a path
    sim.step(n)                                  # n frames of dt
    recording = sim.run(duration)                # pipeline.recording.Recording, also sim.recording

Each frame: every creature's FSM reads its sensors and sets actuator levels, bubble columns
recycle, then the integrator advances dt in ceil(dt/h) equal sub-steps (never longer than h)
with floor events: all inside one numba call for a run of frames (pipeline/particles/frames.py). Point masses are the recording's "bodies" (identity
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
from pipeline.control.fsm_code import raise_error
from pipeline.particles.controller import ParticleFsm
from pipeline.particles.data import ParticleData
from pipeline.particles.frames import CONTROL_ERROR, DONE, RUNAWAY, STOPPED, run_frames, scratch
from pipeline.particles.machines import apply_all, read_sensors
from pipeline.particles.model import ParticleModel, build_model
from pipeline.particles.sensors import ParticleSensors
from pipeline.particles.types import ParticleCreature, is_particle_scene
from pipeline.progress import frame_progress
from pipeline.particles.spawners import column_arrays, draw_releases
from pipeline.recording import Recording
from pipeline.runaway import POSITION, VELOCITY, RunawayBounds
from pipeline.spec.loader import problem_at
from pipeline.spec.types import Scene, SimulationSettings

_IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])
NO_STOP = (-1, 0, 0.0, 0)  # (body index, axis, level, rising) of `frames`' stop condition
CHUNK = 5000  # frames per kernel call: progress and Ctrl-C between them


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
        self.columns, self.sources = column_arrays(model.spawners)
        self.reset()
        n = self.model.nq
        reach = np.linalg.norm(model.pos0, axis=1) + model.arrays.radius
        self.runaway = RunawayBounds([POSITION] * n + [VELOCITY] * n, length=float(reach.max(initial=0.0)),
                                      dt=self.dt, gravity=float(np.linalg.norm(model.arrays.gravity)),
                                      duration=s.duration, speed0=float(np.abs(model.vel0).max(initial=0.0)))

    # -- state --------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Back to the compiled initial state: fresh data, controllers and random generator
        (seeded by `seed`, default `simulation.seed`: the same as compiling with that seed)."""
        self.data = ParticleData(self.model, self.settings.seed if seed is None else seed)
        self.data.controllers = [ParticleFsm(b) for b in self.model.controllers]
        self._controllers_changed()
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
                self._controllers_changed()
                return
        raise CorpusError(f"no controller drives a creature named '{creature}'")

    def sensor_levels(self, creature: str) -> dict:
        """{sensor name: level} of a creature's FSM sensors in the current state."""
        for p, c in enumerate(self.data.controllers):
            if c.creature == creature:
                own = np.array(c.runtime.slots, np.float64)
                err = read_sensors(self.model.control, p, self.data.pos, self.data.vel,
                                   self.model.arrays.floor[0], own)
                if err:
                    raise_error(err)
                program = c.binding.program
                return dict(zip(program.slot_names[:program.n_sensors], own.tolist()))
        raise CorpusError(f"no controller drives a creature named '{creature}'")

    def _controllers_changed(self) -> None:
        """Actuated forces and published channels from the machines' current levels."""
        slots, _ = self._memory()
        apply_all(self.model.control, slots, self.data.live)
        self._publish()

    def _memory(self) -> tuple[np.ndarray, np.ndarray]:
        """The machines' slots, all in one array, and their states (what the kernel takes)."""
        ctrls = self.data.controllers
        slots = np.array([v for c in ctrls for v in c.runtime.slots], np.float64)
        return slots, np.array([c.runtime.state for c in ctrls], np.int64)

    def _remember(self, slots: np.ndarray, states: np.ndarray) -> None:
        for c, base, state in zip(self.data.controllers, self.model.control.code.prog[:, 0], states):
            n = len(c.runtime.slots)
            c.runtime.slots = slots[base:base + n].tolist()
            c.runtime.state = int(state)
        self._publish()

    def _publish(self) -> None:
        for c in self.data.controllers:
            self.data.channels.update(c.channels())

    # -- stepping -----------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance n frames of dt: controllers, spawners, then the integrator, in one kernel
        call (pipeline/particles/frames.py)."""
        self.frames(n)

    def param_vectors(self, params: dict) -> dict | None:
        """{creature: its machine's parameter vector} from {(creature index in the scene,
        param name): value} over the compiled values, or None when one does not name a
        parameter of the machine of that creature."""
        vectors = {}
        for (index, name), value in params.items():
            if index >= len(self.scene.creatures):
                return None
            creature = self.scene.creatures[index].name
            c = next((c for c in self.data.controllers if c.creature == creature), None)
            names = c.binding.program.param_names if c else ()
            if name not in names:
                return None
            vector = vectors.setdefault(creature, list(c.runtime.slots[c.binding.program.param_slice]))
            vector[names.index(name)] = float(value)
        return vectors

    def frames(self, n: int, record: bool = False, stop: tuple = NO_STOP, progress=None,
               first: bool = True) -> tuple:
        """Advance n frames; with `record`, the Recording of the start (when `first`) and
        every `record_every`-th frame, ending at the first recorded frame that meets `stop`
        (body index, axis, level, rising; NO_STOP: none). Returns (Recording or None,
        stopped)."""
        m, d = self.model, self.data
        slots, states = self._memory()
        every = self.settings.record_every if record else 0
        first = record and first
        rows = (d.frame + n) // every - d.frame // every + (first and d.frame % every == 0) if record else 0
        var_slots = np.array([base + c.runtime.program.slot_names.index(v) for c, base in
                              zip(d.controllers, m.control.code.prog[:, 0])
                              for v in c.runtime.program.variable_names], np.int64)
        rec = (np.empty(rows), np.empty((rows, m.nbody, 3)), np.empty((rows, m.nbody, 3)),
               np.empty((rows, len(states)), np.int64), np.empty((rows, len(var_slots))))
        stop = np.array(stop, np.float64)
        stack, work = scratch(m.arrays, m.control)
        nrec, done, status = 0, 0, DONE
        try:
            while done < n or first:
                count = min(n - done, CHUNK)
                t_next = d.time + self.dt
                horizon = max(self.settings.duration, t_next)
                limits = self.runaway.limits(t_next)
                generator = d.rng.bit_generator.state
                releases, jitter = draw_releases(d.spawners, count, self.dt, d.rng)
                status, did, d.time, d.frame, written, err = run_frames(
                    m.arrays, m.control, d.live, self.method, d.pos, d.vel, d.time, d.frame, self.dt,
                    self.substep, self.substeps, d.counters, slots, states, count, limits, horizon, first,
                    every, stop, var_slots, *(r[nrec:] for r in rec), self.columns, self.sources,
                    releases, jitter, stack, work)
                if did < count and d.spawners:  # draw again only what the frames done used
                    d.rng.bit_generator.state = generator
                    draw_releases(d.spawners, did, self.dt, d.rng)
                nrec += written
                done += did
                first = False
                if progress is not None:
                    progress(did)
                if status == CONTROL_ERROR:
                    raise_error(err)
                if status == RUNAWAY:
                    self.check_state()
                if status == STOPPED:
                    break
        finally:
            self._remember(slots, states)
        if not record:
            return None, status == STOPPED
        return self.recording_of(d, *(r[:nrec] for r in rec)), status == STOPPED

    def recording_of(self, data, time, pos, vel, states, variables) -> Recording:
        """The Recording of records a kernel wrote for a run of `data` (its machines name
        the channels)."""
        m = self.model
        channels, k = {}, 0
        for p, c in enumerate(data.controllers):
            suffix = c.binding.suffix
            channels["fsm_state" + suffix] = states[:, p].copy()
            for name in c.runtime.program.variable_names:
                channels[f"fsm_{name}{suffix}"] = variables[:, k].copy()
                k += 1
        quat = np.broadcast_to(_IDENTITY, (len(time), m.nbody, 4)).copy()
        return Recording(time, m.body_names, pos, quat, pos.reshape(len(time), -1).copy(),
                         vel.reshape(len(time), -1), channels)

    def check_state(self) -> None:
        """NaN/inf or a runaway (pipeline/runaway.py) is an error at the scene's `simulation:`
        naming the time, the mass and the coordinate."""
        d = self.data
        state = np.concatenate([d.pos.ravel(), d.vel.ravel()])
        i = self.runaway.first_beyond(state, d.time)
        if i < 0:
            return
        n = d.pos.size
        what = f"{'velocity' if i >= n else 'position'} {'xyz'[i % 3]}"
        mass = self.model.body_names[(i % n) // 3]
        why = ("has a non-finite state" if not np.isfinite(state[i])
               else f"ran away: {what} = {self.runaway.describe(i, float(state[i]), d.time)}")
        raise SimulationError(problem_at(self.scene.where, f"simulation unstable at t = {d.time:.6g} s: "
                                                           f"mass {mass!r} {why}; lower simulation.h", "simulation"))

    def run(self, duration: float | None = None, progress: bool | None = None) -> Recording:
        """Simulate `duration` (default the scene's) from the current state, recording every
        `record_every`-th frame; returns the Recording and keeps it as `sim.recording`."""
        duration = self.settings.duration if duration is None else float(duration)
        nframes = max(0, int(np.ceil(duration / self.dt - 1e-9)))
        self.recording = None
        with frame_progress(self.scene.name, nframes, self.dt, progress) as advanced:
            self.recording, _ = self.frames(nframes, record=True, progress=advanced)
        return self.recording

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
