"""`ParticleSimulation`: the particle engine behind the shared Simulation interface.

    sim = compile_particles(scene_or_creature)   # ParticleScene, ParticleCreature or a path
    sim.step(n)                                  # n frames of dt
    recording = sim.run(duration)                # pipeline.recording.Recording

Each frame: every controller reads its sensors and sets actuator levels (Python), bubble
columns recycle, then the numba kernel advances dt in internal steps of h with floor events.
Point masses are the recording's "bodies" (identity orientation); q/qd are the stacked
positions/velocities; each FSM publishes `fsm_state` (its state index) and `fsm_<variable>`.
"""
from __future__ import annotations

import sys
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.control.fsm import FsmProgram, FsmRuntime, compile_fsm
from pipeline.errors import CorpusError, Problem, SimulationError
from pipeline.particles.arrays import INTEGRATOR_CODES, Live, ParticleArrays
from pipeline.particles.build import build_arrays
from pipeline.particles.integrators import advance
from pipeline.particles.quantities import upward_sign
from pipeline.particles.sensors import make_sensor, sensor_order
from pipeline.particles.spawners import BubbleColumn
from pipeline.particles.types import ParticleCreature, ParticleScene, World
from pipeline.physics.model import FIXED, GeomArrays, TreeArrays
from pipeline.recording import Recorder, Recording


@dataclass(frozen=True)
class ParticleModel:
    """What does not change while simulating, shaped like `pipeline.physics.model.Model` where
    the export stage reads it: every mass is a body carrying one sphere geom (`geoms`,
    `geom_meshes`), bodies group into creatures (`body_tree`, `tree_names`), and `tree` holds
    the masses (point masses have no joints: jtype fixed, q/qd are the stacked positions and
    velocities instead). `extras` for renderers:

    engine "particles" · fsm_states {creature: state names, indexed by ch_fsm_state} ·
    springs (ns, 2) int mass index pairs (draw cylinders) ·
    radius (n,) and rgba (n, 4) per mass · surfaces: list of {name, kind: "dome",
    ring: (i, j, k), height, sign, phase_channel, rgba} — draw with
    `pipeline.particles.surfaces.dome_mesh(body_pos[t, ring], phase, height, sign)` where
    phase is the recording channel `phase_channel` (0 when None).
    """

    arrays: ParticleArrays
    body_names: tuple[str, ...]
    creature_names: tuple[str, ...]
    creature_slices: tuple[slice, ...]
    integrator: str
    dt: float
    h: float
    duration: float
    geoms: GeomArrays
    geom_meshes: tuple
    tree: TreeArrays
    body_tree: np.ndarray
    extras: dict = field(default_factory=dict)

    @property
    def tree_names(self) -> tuple[str, ...]:
        return self.creature_names

    @property
    def nbody(self) -> int:
        return len(self.body_names)

    @property
    def nq(self) -> int:
        return 3 * self.nbody

    nv = nq

    @property
    def body_mass(self) -> np.ndarray:
        return self.arrays.mass

    @property
    def total_mass(self) -> float:
        return float(self.arrays.mass.sum())


@dataclass
class _Control:
    """One creature's controller: sensors -> FSM -> actuators."""

    creature: str
    sensors: list  # SensorFn in evaluation order
    order: list[int]
    program: FsmProgram
    runtime: FsmRuntime
    actuators: list[tuple[str, int, float, float]]  # (live field, slot, min, max)


@dataclass
class ParticleData:
    pos: np.ndarray
    vel: np.ndarray
    time: float
    live: Live
    counters: np.ndarray  # steps, force evaluations, backtracks, impacts
    channels: dict = field(default_factory=dict)


class ParticleSimulation:
    def __init__(self, model: ParticleModel, init: tuple, controls_factory, spawn_factory):
        self.model = model
        self._init = init
        self._controls_factory = controls_factory
        self._spawn_factory = spawn_factory
        self.reset()

    def reset(self) -> None:
        pos, vel, live = self._init
        self.data = ParticleData(pos.copy(), vel.copy(), 0.0,
                                 Live(*(a.copy() for a in live)), np.zeros(4, np.int64))
        self.controls: list[_Control] = self._controls_factory()
        self.spawners: list[BubbleColumn] = self._spawn_factory()
        self._apply_actuators()
        self._publish()

    def set_params(self, creature: str, params) -> None:
        """Replace a creature's FSM parameter vector (in `params:` order) before running."""
        for c in self.controls:
            if c.creature == creature:
                c.runtime = FsmRuntime(c.program, params)
                self._apply_actuators()
                return
        raise CorpusError(f"no controller drives a creature named '{creature}'")

    def _apply_actuators(self) -> None:
        live = self.data.live
        for c in self.controls:
            for (fld, slot, lo, hi), level in zip(c.actuators, c.runtime.actuator_levels()):
                getattr(live, fld)[slot] = lo + level * (hi - lo)

    def _publish(self) -> None:
        many = len(self.controls) > 1
        for c in self.controls:
            suffix = f"_{c.creature}" if many else ""
            self.data.channels["fsm_state" + suffix] = c.runtime.state
            for name in c.program.variable_names:
                self.data.channels[f"fsm_{name}{suffix}"] = c.runtime.variable(name)

    def _control(self) -> None:
        d = self.data
        if not self.controls:
            return
        pos, vel = d.pos.tolist(), d.vel.tolist()
        for c in self.controls:
            levels = [0.0] * len(c.sensors)
            for k in c.order:
                levels[k] = c.sensors[k](pos, vel, levels)
            c.runtime.tick(d.time, self.model.dt, levels)
        self._apply_actuators()

    def step(self, n: int = 1) -> None:
        """Advance n frames of dt: control, spawners, then the kernel."""
        m = self.model
        d = self.data
        method = INTEGRATOR_CODES[m.integrator]
        substeps = max(1, int(round(m.dt / m.h)))
        for _ in range(n):
            self._control()
            for sp in self.spawners:
                sp.frame(d.pos, d.vel, m.dt)
            t0 = d.time
            advance(m.arrays, d.live, method, d.pos, d.vel, t0, m.dt / substeps, substeps, d.counters)
            d.time = t0 + m.dt
            if not (np.isfinite(d.pos).all() and np.isfinite(d.vel).all()):
                bad = int(np.argmax(~np.isfinite(d.pos).all(1) | ~np.isfinite(d.vel).all(1)))
                raise SimulationError(Problem(
                    f"the simulation became unstable at t = {d.time:.6g} s: mass "
                    f"'{m.body_names[bad]}' has a non-finite state; lower simulation.h"))
            self._publish()

    def _sample(self, rec: Recorder) -> None:
        d = self.data
        nb = self.model.nbody
        quat = np.zeros((nb, 4))
        quat[:, 0] = 1.0
        rec.add(d.time, d.pos, quat, d.pos.ravel(), d.vel.ravel(), dict(d.channels))

    def run(self, duration: float | None = None, progress=None) -> Recording:
        """Simulate `duration` (default the scene's) from the current state and record."""
        m = self.model
        frames = int(round((m.duration if duration is None else duration) / m.dt))
        every = self.model.extras.get("record_every", 1)
        rec = Recorder(m.body_names, m.nq, m.nv)
        self._sample(rec)
        bar = None
        if progress is not False and (progress or sys.stderr.isatty()):
            from tqdm import tqdm
            bar = tqdm(total=frames, unit="frame", desc=m.extras.get("scene", "particles"))
        for k in range(1, frames + 1):
            self.step(1)
            if k % every == 0:
                self._sample(rec)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        return rec.finish()

    def stats(self) -> dict:
        s, f, b, i = (int(x) for x in self.data.counters)
        return {"steps": s, "force_evaluations": f, "backtracks": b, "impacts": i,
                "time": self.data.time}


def _controls(creatures, offsets, slots, arrays, world: World) -> list[_Control]:
    g = float(np.linalg.norm(world.gravity)) or 9.8
    out = []
    for ci, c in enumerate(creatures):
        if not c.controller:
            continue
        names = {s.name: k for k, s in enumerate(c.sensors)}
        fns = [make_sensor(s, int(offsets[ci]), arrays.radius, world.floor_z, g, names) for s in c.sensors]
        acts = []
        for a in c.actuators:
            kind, slot = slots[(ci, a.force)]
            fld = {"spring": "sp_rest", "angle": "an_rest", "torque": "tq_torque", "constant": "cf_mag"}[kind]
            acts.append((fld, slot, a.min, a.max))
        program = compile_fsm(c.controller, [s.name for s in c.sensors], [a.name for a in c.actuators],
                              [a.level for a in c.actuators])
        out.append(_Control(c.name, fns, sensor_order(c.sensors), program, FsmRuntime(program), acts))
    return out


def _fresh(controls: list[_Control]) -> list[_Control]:
    """The compiled controllers with new runtimes (initial state, variables and levels)."""
    return [dataclasses.replace(c, runtime=FsmRuntime(c.program)) for c in controls]


def _sphere_geoms(radius: np.ndarray, rgba: np.ndarray) -> tuple[GeomArrays, tuple]:
    """One sphere geom per mass, centred on it, for the export stage."""
    from pipeline.compiler.geometry import SPHERE, render_mesh
    from pipeline.spec.types import Geom

    n = radius.shape[0]
    size = np.zeros((n, 3))
    size[:, 0] = radius
    r3 = np.repeat(radius[:, None], 3, axis=1)
    geoms = GeomArrays(body=np.arange(n, dtype=np.int64), type=np.full(n, SPHERE, np.int64), size=size,
                       pos=np.zeros((n, 3)), rot=np.repeat(np.eye(3)[None], n, axis=0), rgba=rgba.copy(),
                       colliding=np.ones(n, np.bool_), aabb_lo=-r3, aabb_hi=r3)
    meshes = tuple(render_mesh(Geom("sphere", (float(r),))) for r in radius)
    return geoms, meshes


def _mass_tree(mass: np.ndarray) -> TreeArrays:
    n = mass.shape[0]
    z3 = np.zeros((n, 3))
    return TreeArrays(parent=np.full(n, -1, np.int64), jtype=np.full(n, FIXED, np.int64),
                      jaxis=np.zeros((n, 2, 3)), jpos=z3.copy(), jrot=np.repeat(np.eye(3)[None], n, axis=0),
                      qadr=3 * np.arange(n, dtype=np.int64), vadr=3 * np.arange(n, dtype=np.int64),
                      mass=mass.copy(), com=z3.copy(), inertia=np.zeros((n, 3, 3)), armature=np.zeros(0),
                      prescribed=np.zeros(n, np.bool_))


def _as_scene(spec) -> ParticleScene:
    if isinstance(spec, ParticleScene):
        return spec
    if isinstance(spec, ParticleCreature):
        return ParticleScene(name=spec.name, creatures=(spec,), world=spec.world or World())
    if isinstance(spec, (str, Path)):
        from pipeline.particles.spec import load_particle_scene
        return load_particle_scene(spec)
    raise CorpusError(f"cannot compile a {type(spec).__name__} with the particle engine")


def compile_particles(scene_or_creature) -> ParticleSimulation:
    """Build the arrays, controllers and initial state of a particle scene or creature."""
    scene = _as_scene(scene_or_creature)
    if scene.integrator not in INTEGRATOR_CODES:
        raise CorpusError(Problem(f"the particle engine integrates with {', '.join(INTEGRATOR_CODES)}, "
                                  f"not '{scene.integrator}'", scene.where.file, scene.where.line,
                                  scene.where.col, "simulation.integrator"))
    creatures = scene.creatures
    arrays, live, offsets, slots = build_arrays(creatures, scene.world)
    masses = [m for c in creatures for m in c.masses]
    names = [m.name for m in masses]
    if len(creatures) > 1:  # keep names unique across creatures
        names = [f"{c.name}.{m.name}" for c in creatures for m in c.masses]
    pos = np.array([m.pos for m in masses], dtype=np.float64).reshape(-1, 3)
    vel = np.array([m.vel for m in masses], dtype=np.float64).reshape(-1, 3)
    vel[arrays.on_nail != 0.0] = 0.0
    surfaces = [dict(s, ring=ring, sign=upward_sign(pos[list(ring)]),
                     phase_channel=(f"fsm_{s['phase']}" if s.get("phase") else None))
                for ci, c in enumerate(creatures) for s in c.surfaces
                for ring in [tuple(int(offsets[ci]) + i for i in s["ring"])]]
    extras = {"engine": "particles", "springs": arrays.sp_ends.copy(), "radius": arrays.radius.copy(),
              "rgba": np.array([m.rgba for m in masses]).reshape(-1, 4), "surfaces": surfaces,
              "record_every": scene.record_every, "scene": scene.name}
    controls = _controls(creatures, offsets, slots, arrays, scene.world)
    extras["fsm_states"] = {c.creature: c.program.state_names for c in controls}
    h = scene.h or scene.dt
    geoms, meshes = _sphere_geoms(arrays.radius, extras["rgba"])
    model = ParticleModel(arrays, tuple(names), tuple(c.name for c in creatures),
                          tuple(slice(int(o), int(o) + len(c.masses)) for o, c in zip(offsets, creatures)),
                          scene.integrator, scene.dt, h, scene.duration, geoms, meshes,
                          _mass_tree(arrays.mass),
                          np.repeat(np.arange(len(creatures)), [len(c.masses) for c in creatures]),
                          extras)

    def spawn():
        rng = np.random.default_rng(scene.seed)
        return [BubbleColumn(np.array([int(offsets[ci]) + i for i in sp["masses"]]), np.array(sp["at"]),
                             sp["spread"], sp["rate"], rng)
                for ci, c in enumerate(creatures) for sp in c.spawners]

    return ParticleSimulation(model, (pos, vel, live),
                              lambda: _fresh(controls), spawn)
