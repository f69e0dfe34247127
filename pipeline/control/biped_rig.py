"""The biped controller's view of a humanoid: which bodies play which part, its joints'
gains and limits, and the per-frame kinematic state it computes torques from.

A biped names its bodies like creatures/biped.yaml: `pelvis` (the free root),
`lower_back`, `torso`, `head` and, per side, `left_`/`right_` + `upper_arm`, `lower_arm`,
`upper_leg`, `lower_leg`, `foot`, `toes`. The joint of a body is the one to its parent.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pipeline.errors import CorpusError
from pipeline.physics.kinematics import joint_pass, make_workspace
from pipeline.physics.model import BALL, REVOLUTE, UNIVERSAL

SIDES = ("left", "right")
LIMB = ("upper_arm", "lower_arm", "upper_leg", "lower_leg", "foot", "toes")
CENTRE = ("pelvis", "lower_back", "torso", "head")
LEG = ("upper_leg", "lower_leg", "foot", "toes")

# BipV3's PD table (Cartwheel-3D ZeroWalk, digest §2.2): kp, kd, max torque (N m).
DEFAULT_GAINS = {
    "root": (1000.0, 200.0, 200.0),
    "lower_back": (75.0, 17.0, 100.0),
    "torso": (75.0, 17.0, 100.0),
    "head": (10.0, 3.0, 200.0),
    "upper_arm": (15.0, 5.0, 200.0),
    "lower_arm": (5.0, 1.0, 200.0),
    "upper_leg": (300.0, 35.0, 200.0),
    "lower_leg": (300.0, 35.0, 1000.0),
    "foot": (50.0, 15.0, 100.0),
    "toes": (2.0, 0.2, 100.0),
}
# BipV3's ball-joint limits per axis (x forward roll, y pitch, z twist, left side), rad;
# the engine limits scalar coordinates only, so the controller clamps its targets to these.
BALL_LIMITS = {
    "lower_back": ((-0.6, 0.6),) * 3,
    "torso": ((-0.6, 0.6),) * 3,
    "head": ((-0.6, 0.6),) * 3,
    "upper_arm": ((-1.5, 1.5), (-3.0, 3.0), (-3.0, 3.0)),
    "upper_leg": ((-1.0, 1.0), (-1.9, 1.3), (-1.0, 1.0)),
}


def role(name: str) -> str:
    for side in SIDES:
        if name.startswith(side + "_"):
            return name[len(side) + 1:]
    return name


def mirror(R: np.ndarray) -> np.ndarray:
    """The left-right mirror image of a rotation (reflection across the x-z plane)."""
    M = np.diag([1.0, -1.0, 1.0])
    return M @ R @ M


@dataclass
class Joint:
    body: int
    parent: int
    jtype: int
    vadr: int
    qadr: int
    axes: np.ndarray  # (2, 3) local axes (revolute: [0]; universal: a1 in parent, a2 in child)
    kp: float
    kd: float
    max_torque: float
    role: str
    side: str  # "left" | "right" | ""


class Rig:
    """Body indices, joints and masses of one biped in a compiled model."""

    def __init__(self, sim, gains: dict, kp_scale: float = 1.0, where=None):
        model = sim.model
        self.tree = model.tree
        names = list(model.body_names)
        needed = list(CENTRE) + [f"{s}_{p}" for s in SIDES for p in LIMB]
        missing = [n for n in needed if n not in names]
        if missing:
            raise CorpusError(f"biped_walk: the creature lacks the bodies {', '.join(missing)} "
                              "(a biped names its bodies like creatures/biped.yaml)")
        self.index = {n: names.index(n) for n in needed}
        t = self.tree
        self.mass = np.asarray(t.mass, float)
        self.total_mass = float(self.mass.sum())
        self.joints: dict[str, Joint] = {}
        for n in needed[1:]:
            b = self.index[n]
            r = role(n)
            kp, kd, tmax = gains.get(r, DEFAULT_GAINS[r])
            kp *= kp_scale
            if kp_scale != 1.0 and r != "toes":
                kd = 2.0 * math.sqrt(kp)  # Coros: kd = 2 sqrt(kp) after mass scaling
            jt = int(t.jtype[b])
            if jt not in (BALL, REVOLUTE, UNIVERSAL):
                raise CorpusError(f"biped_walk: body {n!r} needs a ball, revolute or universal joint")
            self.joints[n] = Joint(b, int(t.parent[b]), jt, int(t.vadr[b]), int(t.qadr[b]),
                                   np.asarray(t.jaxis[b], float), kp, kd, tmax, r,
                                   n.split("_")[0] if n.split("_")[0] in SIDES else "")
        kp, kd, tmax = gains.get("root", DEFAULT_GAINS["root"])
        self.root_gains = (kp * kp_scale, kd * kp_scale, tmax)
        jpos = np.asarray(t.jpos, float)
        self.thigh = float(np.linalg.norm(jpos[self.index["left_lower_leg"]]))
        self.shin = float(np.linalg.norm(jpos[self.index["left_foot"]]))
        self.subtree = np.zeros((model.nbody, model.nbody))  # [j, b]: b is j or below j
        for b in range(model.nbody):
            j = b
            while j >= 0:
                self.subtree[j, b] = 1.0
                j = int(t.parent[j])
        self.work = make_workspace(model.nbody, model.nv)
        self.nbody = model.nbody

    def b(self, name: str) -> int:
        return self.index[name]


class Frame:
    """World kinematics of one state: rotations, joint positions, angular velocities, body
    COMs and the whole-body COM with its velocity."""

    def __init__(self, rig: Rig, q: np.ndarray, qd: np.ndarray):
        w = rig.work
        joint_pass(rig.tree, q, qd, w, True)
        self.R = w.xrot.copy()
        self.x = w.xpos.copy()
        self.omega = np.einsum("bij,bj->bi", self.R, w.v[:, :3])
        vel = np.einsum("bij,bj->bi", self.R, w.v[:, 3:])
        arm = np.einsum("bij,bj->bi", self.R, np.asarray(rig.tree.com, float))
        self.body_com = self.x + arm
        body_vel = vel + np.cross(self.omega, arm)
        m = rig.mass
        self.com = m @ self.body_com / rig.total_mass
        self.com_vel = m @ body_vel / rig.total_mass
