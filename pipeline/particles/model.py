"""`ParticleModel`: what does not change while a particle scene simulates (the particle
engine's `pipeline.physics.model.Model`), built from a particle Scene by `build_model`.

`extras` for renderers: engine "particles" · fsm_states {creature: state names, indexed by
ch_fsm_state} · springs (ns, 2) int mass index pairs (draw cylinders) · radius (n,) and rgba
(n, 4) per mass · surfaces: list of {name, kind: "dome", ring: (i, j, k), height, sign,
phase_channel, rgba} — draw with `pipeline.particles.surfaces.dome_mesh(body_pos[t, ring],
phase, height, sign)` where phase is the recording channel `phase_channel` (0 when None).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pipeline.control.fsm import compile_fsm
from pipeline.errors import CorpusError, Problem
from pipeline.particles.arrays import Live, ParticleArrays
from pipeline.particles.build import build_arrays
from pipeline.particles.controller import FsmBinding
from pipeline.particles.machines import ControlArrays, control_arrays
from pipeline.particles.quantities import upward_sign
from pipeline.particles.sensors import fsm_sensors, sensor_order
from pipeline.particles.spawners import BubbleColumn
from pipeline.particles.types import ParticleCreature, world_of
from pipeline.physics.model import GeomArrays
from pipeline.spec.types import Scene


@dataclass(frozen=True)
class ParticleModel:
    """The compiled arrays, the initial state, and the names and shapes export draws: every
    mass is a body carrying one sphere geom; bodies group into creatures (`body_tree`,
    `tree_names`). Point masses have no joints: q / qd of the Recording are the stacked
    positions and velocities."""

    arrays: ParticleArrays
    body_names: tuple[str, ...]  # masses; `<creature>.<mass>` when the scene has several creatures
    body_tree: np.ndarray  # (n,) creature index of each mass
    tree_names: tuple[str, ...]  # creature names
    angle_names: tuple[str, ...]  # angle elements (sim.sensors.joint), named like the masses
    pos0: np.ndarray  # (n, 3) initial positions
    vel0: np.ndarray  # (n, 3) initial velocities
    live0: Live  # initial actuated force parameters
    controllers: tuple[FsmBinding, ...]  # one per creature with a controller
    control: ControlArrays  # the controllers as the step kernel runs them
    spawners: tuple[BubbleColumn, ...]
    geoms: GeomArrays
    geom_meshes: tuple
    extras: dict = field(default_factory=dict)

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

    def mechanical_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        """Kinetic plus gravitational energy (J) of the moving masses at stacked positions q
        and velocities qd (springs' elastic energy is not included)."""
        a = self.arrays
        moving = a.mass * a.integrated
        v = np.asarray(qd, float).reshape(-1, 3)
        x = np.asarray(q, float).reshape(-1, 3)
        kinetic = 0.5 * float(moving @ np.einsum("ni,ni->n", v, v))
        return kinetic - float((moving * a.on_gravity) @ (x @ a.gravity))


def build_model(scene: Scene) -> ParticleModel:
    """The arrays, initial state, controllers and drawables of a particle Scene."""
    creatures = scene.creatures
    bad = [c for c in creatures if not isinstance(c, ParticleCreature)]
    if bad:
        w = bad[0].where
        raise CorpusError(Problem("a scene with particle creatures must hold only particle creatures",
                                  w.file, w.line, w.col, w.path))
    world = world_of(scene)
    arrays, live, offsets, slots = build_arrays(creatures, world)
    masses = [m for c in creatures for m in c.masses]
    several = len(creatures) > 1  # keep names unique across creatures

    def scoped(c, name: str) -> str:
        return f"{c.name}.{name}" if several else name

    names = tuple(scoped(c, m.name) for c in creatures for m in c.masses)
    pos = np.array([m.pos for m in masses], dtype=np.float64).reshape(-1, 3)
    vel = np.array([m.vel for m in masses], dtype=np.float64).reshape(-1, 3)
    vel[arrays.on_nail != 0.0] = 0.0
    angle_names = [""] * arrays.an_ends.shape[0]
    for (ci, name), (kind, slot) in slots.items():
        if kind == "angle":
            angle_names[slot] = scoped(creatures[ci], name)
    surfaces = [dict(s, ring=ring, sign=upward_sign(pos[list(ring)]),
                     phase_channel=(f"fsm_{s['phase']}" if s.get("phase") else None))
                for ci, c in enumerate(creatures) for s in c.surfaces
                for ring in [tuple(int(offsets[ci]) + i for i in s["ring"])]]
    rgba = np.array([m.rgba for m in masses]).reshape(-1, 4)
    controllers = _controllers(creatures, offsets, slots, names, arrays, world)
    extras = {"engine": "particles", "springs": arrays.sp_ends.copy(), "radius": arrays.radius.copy(),
              "rgba": rgba, "surfaces": surfaces,
              "fsm_states": {b.creature: b.program.state_names for b in controllers}}
    spawners = tuple(BubbleColumn(np.array([int(offsets[ci]) + i for i in sp["masses"]]),
                                  np.array(sp["at"]), sp["spread"], sp["rate"])
                     for ci, c in enumerate(creatures) for sp in c.spawners)
    geoms, meshes = _sphere_geoms(arrays.radius, rgba)
    return ParticleModel(arrays, names, np.repeat(np.arange(len(creatures)), [len(c.masses) for c in creatures]),
                         tuple(c.name for c in creatures), tuple(angle_names), pos, vel, live,
                         controllers, control_arrays(controllers), spawners, geoms, meshes, extras)


def _controllers(creatures, offsets, slots, names, arrays, world) -> tuple[FsmBinding, ...]:
    g = float(np.linalg.norm(world.gravity)) or 9.8
    driven = [ci for ci, c in enumerate(creatures) if c.controller]
    out = []
    for ci in driven:
        c = creatures[ci]
        acts = []
        for a in c.actuators:
            kind, slot = slots[(ci, a.force)]
            acts.append((kind, slot, a.min, a.max))
        program = compile_fsm(c.controller, [s.name for s in c.sensors], [a.name for a in c.actuators],
                              [a.level for a in c.actuators])
        out.append(FsmBinding(c.name, fsm_sensors(c, int(offsets[ci]), arrays.radius, g),
                              tuple(sensor_order(c.sensors)), program, tuple(acts),
                              f"_{c.name}" if len(driven) > 1 else ""))
    return tuple(out)


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
