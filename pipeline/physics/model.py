"""The compiled, immutable model and the mutable simulation data (MuJoCo's split).

`Model` holds everything that does not change while simulating, as plain numpy arrays
grouped in NamedTuples so that numba kernels take them as one argument each. `Data` holds
the state that does. N individuals are N `Data` over one `Model`.

Indexing: bodies 0..nb-1 in topological order (parent index < child index, -1 = world).
Every body has exactly one joint, to its parent. Spatial vectors inside the kernels are
Featherstone-2008 style, angular first: motion [w; v], force [n; f].
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

# joint type codes (Model.tree.jtype)
FIXED, REVOLUTE, PRISMATIC, UNIVERSAL, BALL, FREE = range(6)
JOINT_TYPE_NAMES = ("fixed", "revolute", "prismatic", "universal", "ball", "free")
JOINT_NQ = (0, 1, 1, 2, 4, 7)
JOINT_NV = (0, 1, 1, 2, 3, 6)


class TreeArrays(NamedTuple):
    """Topology, joints and inertias of all trees of a scene (float64 / int64)."""

    parent: np.ndarray  # (nb,) parent body index, -1 for a root
    jtype: np.ndarray  # (nb,) joint type code
    jaxis: np.ndarray  # (nb, 2, 3) joint axes in the body frame (revolute/prismatic use [0])
    jpos: np.ndarray  # (nb, 3) body-frame origin in the parent frame at q = 0
    jrot: np.ndarray  # (nb, 3, 3) rotation parent <- body at q = 0
    qadr: np.ndarray  # (nb,) first index of the joint's q in the state vector
    vadr: np.ndarray  # (nb,) first index of the joint's qd
    mass: np.ndarray  # (nb,)
    com: np.ndarray  # (nb, 3) centre of mass in the body frame
    inertia: np.ndarray  # (nb, 3, 3) rotational inertia about the COM, body axes
    armature: np.ndarray  # (nv,) rotor inertia per DOF
    prescribed: np.ndarray  # (nb,) bool: joint acceleration given (root mode `prescribed`)


class JointForceArrays(NamedTuple):
    """Per-DOF force-element constants, `scale_by` already applied (float64)."""

    damping: np.ndarray  # (nv,)
    spring_k: np.ndarray  # (nv,)
    spring_rest: np.ndarray  # (nv,)
    exp_alpha: np.ndarray  # (nv,)
    exp_beta: np.ndarray  # (nv,)
    exp_rest: np.ndarray  # (nv,) initial exp-spring rest; the live one is Data.exp_rest
    limit_lower: np.ndarray  # (nv,) -inf when none
    limit_upper: np.ndarray  # (nv,) +inf when none
    limit_k: np.ndarray  # (nv,)
    limit_b: np.ndarray  # (nv,)
    bias: np.ndarray  # (nv,)
    servo_kp: np.ndarray  # (nv,)
    servo_kd: np.ndarray  # (nv,)
    servo_target: np.ndarray  # (nv,)


class GeomArrays(NamedTuple):
    """Shapes for contact and rendering (geom type codes in pipeline.compiler.geometry)."""

    body: np.ndarray  # (ng,) owning body, -1 for static world geometry
    type: np.ndarray  # (ng,)
    size: np.ndarray  # (ng, 3)
    pos: np.ndarray  # (ng, 3) in the body frame
    rot: np.ndarray  # (ng, 3, 3) body <- geom
    rgba: np.ndarray  # (ng, 4)
    colliding: np.ndarray  # (ng,) bool
    aabb_lo: np.ndarray  # (ng, 3) bounding box corners in the body frame (corpus contact points)
    aabb_hi: np.ndarray  # (ng, 3)


@dataclass(frozen=True)
class Model:
    """Immutable compiled scene. Build with `pipeline.compile`; never mutate arrays."""

    nq: int
    nv: int
    body_names: tuple[str, ...]
    joint_names: tuple[str, ...]  # one per body: the joint to its parent (named as the body)
    tree: TreeArrays
    forces: JointForceArrays
    geoms: GeomArrays
    gravity: np.ndarray  # (3,) m/s^2, world frame
    q0: np.ndarray  # (nq,) initial state
    qd0: np.ndarray  # (nv,)
    body_tree: np.ndarray  # (nb,) index of the tree (creature/obstacle) a body belongs to
    tree_names: tuple[str, ...]
    contact: object = None  # ContactArrays (pipeline.physics.contact), None when no contact
    geom_meshes: tuple = ()  # per geom: (vertices, faces) in the geom frame, for export
    extras: dict = field(default_factory=dict)  # stage-owned metadata (e.g. controller tables)

    @property
    def nbody(self) -> int:
        return len(self.body_names)

    @property
    def body_mass(self) -> np.ndarray:
        return self.tree.mass

    @property
    def total_mass(self) -> float:
        return float(self.tree.mass.sum())

    @property
    def joint_types(self) -> tuple[str, ...]:
        return tuple(JOINT_TYPE_NAMES[t] for t in self.tree.jtype)

    def mechanical_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        """Kinetic plus gravitational energy (J) of the state (q, qd); each engine's Model
        has this method, which the `mechanical_energy` metric calls."""
        from pipeline.physics import mechanical_energy

        return mechanical_energy(self, q, qd)

    def joint_qpos_slice(self, name: str) -> slice:
        i = self.joint_names.index(name)
        a = int(self.tree.qadr[i])
        return slice(a, a + JOINT_NQ[self.tree.jtype[i]])

    def joint_qvel_slice(self, name: str) -> slice:
        i = self.joint_names.index(name)
        a = int(self.tree.vadr[i])
        return slice(a, a + JOINT_NV[self.tree.jtype[i]])
