"""The resolved specification: plain frozen dataclasses, SI units, no YAML left in them.

`pipeline.load` turns YAML (or a dict) into these; `pipeline.compile` turns them into a
`Model`. Everything here is already resolved: includes inlined, `mirror`/`repeat`
expanded, units converted to SI, transform lists composed into rigid placements,
defaults filled in. Each object keeps `where` (file, line, col) so that later stages can
still point at the YAML line a problem came from.

Conventions: world z up; quaternions (w, x, y, z); angles in radians; lengths in metres.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


@dataclass(frozen=True)
class Where:
    """Source location of a spec object, for error messages after loading."""

    file: str | None = None
    line: int | None = None
    col: int | None = None
    path: str = ""


@dataclass(frozen=True)
class Pose:
    """A rigid placement: the child frame's origin and orientation in its parent frame."""

    pos: Vec3 = (0.0, 0.0, 0.0)
    quat: Quat = (1.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Geom:
    """One shape of a body (its own shape or a `part`), placed in the body frame.

    `size` by shape (after all `scale` ops were folded in):
      box (full extents x, y, z) · sphere (radius,) · capsule (radius, length of the
      cylindrical section along local z) · cylinder (radius, length along z) ·
      ellipsoid (semi-axes a, b, c) · frustum (bottom radius, top radius, length along z,
      bottom at z=0) · mesh (scale x, y, z applied to the file's vertices) · plane ().
    """

    shape: str
    size: tuple[float, ...]
    pose: Pose = Pose()
    mesh_file: str | None = None  # absolute path, for shape == "mesh"
    density: float | None = None  # kg/m^3; None -> mass must be given
    mass: float | None = None  # overrides density when set
    inertial: bool = True  # corpus addpart flag: adds mass/inertia
    colliding: bool = True  # corpus flag: tested for contact
    rgba: tuple[float, float, float, float] = (0.8, 0.6, 0.4, 1.0)
    name: str = ""
    where: Where = Where()


@dataclass(frozen=True)
class Inertial:
    """Explicit mass properties (MJCF <inertial>), replacing the geometry-derived ones."""

    mass: float
    com: Vec3 = (0.0, 0.0, 0.0)  # body frame
    inertia: tuple[float, ...] = (0.0,) * 6  # about the COM, body axes: ixx iyy izz ixy ixz iyz


@dataclass(frozen=True)
class ExpSpring:
    """corpus exponential spring f = alpha (exp(beta x) - 1), odd-symmetric about `rest`."""

    alpha: float
    beta: float
    rest: float = 0.0


@dataclass(frozen=True)
class JointForces:
    """Force elements on one joint's degrees of freedom (per-DOF tuples for multi-DOF).

    Constants are as written; `scale_by` (corpus `springtype`) tells compile to multiply
    spring, damper and servo constants by the body mass (`mass`) or the mass of the whole
    subtree distal to the joint (`distal_mass`).
    """

    damping: float = 0.0
    spring_k: float = 0.0
    spring_rest: tuple[float, ...] = ()
    exp_spring: ExpSpring | None = None
    limit_lower: float | None = None
    limit_upper: float | None = None
    limit_k: float = 0.0
    limit_b: float = 0.0
    bias: float = 0.0
    servo_kp: float = 0.0
    servo_kd: float = 0.0
    servo_target: tuple[float, ...] = ()
    armature: float = 0.0  # rotor inertia added to the DOF's diagonal
    scale_by: str = "none"  # none | mass | distal_mass


@dataclass(frozen=True)
class Joint:
    """The joint from a body to its parent (or to the world for a tree's root).

    `type`: fixed · revolute · prismatic · universal (two axes) · ball · free.
    `axes` are unit vectors in the body frame (already converted from `frame: parent`).
    `q0`/`qd0` are the initial joint position/velocity in the joint's own layout:
      revolute/prismatic (1,) · universal (2,) · ball q (w,x,y,z), qd angular velocity in
      body frame (3,) · free q (x, y, z, w, qx, qy, qz) of the body frame in the parent
      frame, qd (vx, vy, vz, wx, wy, wz) linear velocity of the body origin then angular
      velocity, both in the body frame (Pinocchio's free-flyer convention).
    """

    type: str
    axes: tuple[Vec3, ...] = ()
    q0: tuple[float, ...] = ()
    qd0: tuple[float, ...] = ()
    forces: JointForces = JointForces()
    where: Where = Where()


@dataclass(frozen=True)
class Body:
    """One link: its geometry (first geom is the body's own shape, the rest `parts`),
    its joint, and its placement (body frame in the parent frame at q = 0)."""

    name: str
    parent: str | None  # None: root of a tree, jointed to the world
    placement: Pose
    joint: Joint
    geoms: tuple[Geom, ...] = ()
    inertial: Inertial | None = None
    sticky: bool = False
    where: Where = Where()


@dataclass(frozen=True)
class Creature:
    """One articulated tree (a creature, a free obstacle, or a static body)."""

    name: str
    bodies: tuple[Body, ...]  # topological order: every parent before its children
    root_mode: str = "free"  # free | fixed | prescribed
    prescribed: dict[str, Any] | None = None  # for root_mode == prescribed
    where: Where = Where()


@dataclass(frozen=True)
class Command:
    """One timed command of a scene timeline or a motor program (`at: t` / `do: {...}`)."""

    at: float
    action: str  # the single key under `do:`, e.g. "motor", "set", "sticky", "push"
    args: dict[str, Any] = field(default_factory=dict)
    where: Where = Where()


@dataclass(frozen=True)
class ControllerRef:
    """A controller script (YAML, resolved to a plain dict) or a Python callable."""

    kind: str  # "script" | "python"
    target: str | None = None  # creature name it drives
    script: dict[str, Any] | None = None
    python: str | None = None  # "package.module:function"
    params: dict[str, Any] = field(default_factory=dict)
    where: Where = Where()


@dataclass(frozen=True)
class SimulationSettings:
    duration: float = 1.0  # s of simulated time
    dt: float = 1.0 / 240.0  # frame step: control, timeline and recording boundary
    integrator: str = "rk4"  # symplectic_euler | euler | mckenna_euler | rk4 | rkf45
    h: float | None = None  # internal step (fixed) or initial step (rkf45); None -> dt
    atol: float = 1e-6
    rtol: float = 1e-6
    h_min: float = 1e-9
    h_max: float | None = None
    record_every: int = 1  # record every n-th frame
    seed: int = 0


@dataclass(frozen=True)
class Scene:
    """Everything one run needs. `environment` and `outputs` are resolved dicts owned by
    their stages (contact, export); `source` is the canonical expanded document, which
    `pipeline.load` accepts again (saved in run directories for `corpus render`)."""

    name: str
    creatures: tuple[Creature, ...]
    environment: dict[str, Any]
    controllers: tuple[ControllerRef, ...] = ()
    timeline: tuple[Command, ...] = ()
    events: tuple = ()  # pipeline.spec.events.Event
    simulation: SimulationSettings = SimulationSettings()
    outputs: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # every file read to build this scene (for hashes)
    where: Where = Where()
