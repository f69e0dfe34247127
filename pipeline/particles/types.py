"""Resolved particle documents: frozen dataclasses in SI units, world z up.

A `ParticleCreature` is one `particles:` document (a creature, or a whole world such as
SeaWorld) with its masses, forces, sensors, actuators and optional FSM controller, already
placed in the world. Force membership is explicit: every force names the masses it acts on.
A particle scene is a `pipeline.spec.types.Scene` of ParticleCreatures whose environment holds
the `World` (`environment_of`); its time stepping is the Scene's `SimulationSettings`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.spec.types import Scene, Vec3, Where


@dataclass(frozen=True)
class PointMass:
    """Urban's SpherePointMass: a sphere of `radius` and `volume` with floor properties."""

    name: str
    mass: float
    radius: float
    volume: float
    pos: Vec3
    vel: Vec3 = (0.0, 0.0, 0.0)
    mu_s: float = 0.6
    mu_k: float = 0.5
    restitution: float = 0.6
    integrate: bool = True  # registered with the integrator (moves)
    rgba: tuple[float, float, float, float] = (0.8, 0.6, 0.4, 1.0)
    where: Where = Where()


@dataclass(frozen=True)
class Medium:
    """A fluid: quadratic drag relative to a flow field plus buoyancy.

    flow kinds: still · uniform (`velocity`) · waves (linear deep-water wave orbits under a
    surface, on top of a mean `velocity`: amplitude, period, wavelength, direction, surface).
    """

    name: str
    density: float
    drag: float  # drag coefficient C
    flow: str = "still"
    velocity: Vec3 = (0.0, 0.0, 0.0)
    amplitude: float = 0.0
    period: float = 1.0
    wavelength: float = 1.0
    direction: Vec3 = (1.0, 0.0, 0.0)
    surface: float = 0.0
    where: Where = Where()


@dataclass(frozen=True)
class World:
    """Global objects that creatures register their masses with (Urban passes them to every
    creature's constructor): gravity, the floor plane z = `floor_z`, and named fluid media."""

    gravity: Vec3 = (0.0, 0.0, -9.8)
    floor_z: float = 0.0
    envelope: float = 0.002  # collision envelope: deeper penetration is a missed event
    static_speed: float = 1e-3  # tangential speed below which static friction may hold
    rest_speed: float = 0.05  # normal speed below which a touching mass rests in contact
    min_substep: float = 1e-6  # backtracking stops halving here
    media: tuple[Medium, ...] = (Medium("air", 1.2, 0.5),)
    where: Where = Where()


@dataclass(frozen=True)
class Force:
    """One force object. `kind` and the meaning of `masses` / `values`:

    gravity, floor, nail: masses = members.
    fluid: masses = members, `medium` names a World medium.
    spring: masses = (a, b); values k, kd, rest.
    angle: masses = (a, joint, b); values k, kd, rest (rad); `reaction` on the joint mass.
    torque: masses = (end, joint); values torque; `axis` (world); `reaction` on the joint.
    constant: masses = members; values magnitude; `direction` (world) or `normal_of`
      (three masses whose triangle normal, oriented to start upward, is the direction).
    """

    kind: str
    name: str
    masses: tuple[int, ...]
    values: dict[str, float] = field(default_factory=dict)
    medium: str | None = None
    axis: Vec3 = (0.0, 1.0, 0.0)
    direction: Vec3 = (0.0, 0.0, 1.0)
    normal_of: tuple[int, int, int] | None = None
    reaction: bool = True
    where: Where = Where()


@dataclass(frozen=True)
class Sensor:
    """A sensor returning a level in [0, 1] (unless `clamp` is off). See docs/particles.md."""

    name: str
    kind: str  # height · leg_angle · speed · time_to_touchdown · food · position
    masses: tuple[int, ...]
    axis: Vec3 = (1.0, 0.0, 0.0)  # speed/position axis (world, after placement)
    up: Vec3 = (0.0, 0.0, 1.0)
    scale: float = 1.0
    offset: float = 0.0
    clamp: bool = True
    legacy_scaling: bool = True  # leg_angle: Urban's 0.5 + angle*pi/2 (saturates at 18.2 deg)
    height_sensor: str | None = None  # time_to_touchdown reads this height sensor's level
    where: Where = Where()


@dataclass(frozen=True)
class Actuator:
    """Maps a level in [0, 1] linearly onto a force parameter in [min, max]."""

    name: str
    force: str  # name of the force it drives
    param: str  # rest (spring, angle) · torque · magnitude (constant)
    min: float
    max: float
    level: float  # initial level, restored by reset
    where: Where = Where()


@dataclass(frozen=True)
class ParticleCreature:
    """One resolved `particles:` document. Mass indices in forces and sensors are local."""

    name: str
    masses: tuple[PointMass, ...]
    forces: tuple[Force, ...]
    sensors: tuple[Sensor, ...] = ()
    actuators: tuple[Actuator, ...] = ()
    controller: dict[str, Any] | None = None  # the FSM block (schemas/controller_fsm)
    world: World | None = None  # set when the document defines the world
    spawners: tuple[dict[str, Any], ...] = ()  # bubble columns (pipeline.particles.spawners)
    surfaces: tuple[dict[str, Any], ...] = ()  # render-only domes (model.extras["surfaces"])
    where: Where = Where()


def environment_of(world: World) -> dict[str, Any]:
    """`Scene.environment` of a particle scene: the World, and its floor as the flat ground the
    export stage draws (the keys of the environment schema that export reads)."""
    return {"ground": {"type": "flat", "z": world.floor_z}, "world": world}


def world_of(scene: Scene) -> World:
    """The World of a particle Scene (`environment_of`; the default World when it has none)."""
    world = (scene.environment or {}).get("world")
    return world if isinstance(world, World) else World()


def is_particle_scene(spec) -> bool:
    """A `pipeline.spec.types.Scene` of particle creatures or in a particle World."""
    return isinstance(spec, Scene) and (
        isinstance((spec.environment or {}).get("world"), World)
        or any(isinstance(c, ParticleCreature) for c in spec.creatures))
