"""The biped controller's view of a humanoid: which bodies play which part, its joints'
gains and limits, and the per-frame kinematic state it computes torques from.

A biped names its bodies like creatures/biped.yaml: `pelvis` (the free root),
`lower_back`, `torso`, `head` and, per side, `left_`/`right_` + `upper_arm`, `lower_arm`,
`upper_leg`, `lower_leg`, `foot`, `toes`. The joint of a body is the one to its parent.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.control.biped_pd import cross, mv
from pipeline.errors import CorpusError
from pipeline.physics.model import BALL, REVOLUTE, UNIVERSAL

SIDES = ("left", "right")
REFERENCE_LEG = 0.86  # m, BipV3's hip to ankle (0.40 + 0.46), which the force clamps were tuned on
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


def mass_ratio(mass: float, reference_mass: float) -> float:
    """Coros's kp factor M'/M for a character of mass M' against the one the gains were
    tuned on (M; 0: no scaling). The reference character itself, whose masses sum to M
    up to rounding, keeps the table as it is."""
    if reference_mass <= 0.0 or abs(mass / reference_mass - 1.0) < 1e-6:
        return 1.0
    return mass / reference_mass


def coronal_force_scale(ratio: float, leg: float, reference_leg: float) -> float:
    """The coronal virtual force's clamp for a character of mass ratio `ratio` (mass_ratio)
    and leg (hip to ankle) `leg` against the reference character's `reference_leg`: the
    clamp holds the COM's lateral offset over the stance foot against gravity's sideways
    pull, m g d / h, so it scales with the mass and inversely with the leg (h); BipV3
    (ratio 1, its own leg within 1e-6) keeps its 100 N."""
    if ratio == 1.0 and abs(leg / reference_leg - 1.0) < 1e-6:
        return 1.0
    return ratio * reference_leg / leg


def role(name: str) -> str:
    for side in SIDES:
        if name.startswith(side + "_"):
            return name[len(side) + 1:]
    return name


NEEDED = list(CENTRE) + [f"{s}_{p}" for s in SIDES for p in LIMB]
# positions in NEEDED (= Rig.idx): the centre, then per side (s = 0 left, 1 right)
# SIDE0 + 6 s + the limb part; the controller's joint k is the joint of body idx[k + 1]
PELVIS, LOWER_BACK, TORSO, HEAD = 0, 1, 2, 3
SIDE0 = 4
UPPER_ARM, LOWER_ARM, UPPER_LEG, LOWER_LEG, FOOT, TOES = range(6)


@numba.njit(cache=True)
def slot(side, part):
    return SIDE0 + 6 * side + part


class Rig:
    """Body indices, the joint table and masses of one biped in a compiled model, as plain
    arrays for the controller's kernels (pipeline/control/biped_torques.py)."""

    def __init__(self, sim, gains: dict, kp_scale: float = 1.0, reference_mass: float = 0.0,
                 creature: str = ""):
        model = sim.model
        self.tree = t = model.tree
        names = list(model.body_names)
        # with several bipeds in a scene the model names their bodies `creature/body`
        full = {n: f"{creature}/{n}" if f"{creature}/{n}" in names else n for n in NEEDED}
        missing = [n for n in NEEDED if full[n] not in names]
        if missing:
            raise CorpusError(f"biped_walk: the creature lacks the bodies {', '.join(missing)} "
                              "(a biped names its bodies like creatures/biped.yaml)")
        self.idx = np.array([names.index(full[n]) for n in NEEDED], np.int64)
        nj = len(NEEDED) - 1
        self.jtype = np.zeros(nj, np.int64)
        self.jvadr = np.zeros(nj, np.int64)
        self.jaxes = np.zeros((nj, 2, 3))
        self.jgain = np.zeros((nj, 3))  # kp, kd, max torque
        self.jlimit = np.zeros((nj, 3, 2))  # ball joints' target limits per axis (left side)
        self.jlimited = np.zeros(nj, np.int64)
        self.jmirror = np.zeros(nj, np.int64)  # right side: limits apply to the mirror image
        for k, n in enumerate(NEEDED[1:]):
            b = int(self.idx[k + 1])
            r = role(n)
            kp, kd, tmax = gains.get(r, DEFAULT_GAINS[r])
            jt = int(t.jtype[b])
            if jt not in (BALL, REVOLUTE, UNIVERSAL):
                raise CorpusError(f"biped_walk: body {n!r} needs a ball, revolute or universal joint")
            self.jtype[k], self.jvadr[k] = jt, int(t.vadr[b])
            self.jaxes[k] = np.asarray(t.jaxis[b], float)[:2]
            self.jgain[k] = kp, kd, tmax
            if r in BALL_LIMITS and jt == BALL:
                self.jlimit[k] = BALL_LIMITS[r]
                self.jlimited[k] = 1
            self.jmirror[k] = n.startswith("right_")
        kp, kd, tmax = gains.get("root", DEFAULT_GAINS["root"])
        self.root_gains = np.array([kp, kd, tmax])
        jpos = np.asarray(t.jpos, float)
        # per side (left, right): the swing leg's IK takes its own lengths (Coros's robot has
        # one knee 20 cm higher than the other)
        self.thigh = np.array([np.linalg.norm(jpos[self.b(f"{s}_lower_leg")]) for s in SIDES])
        self.shin = np.array([np.linalg.norm(jpos[self.b(f"{s}_foot")]) for s in SIDES])
        # only the biped's own bodies count (a scene may hold other creatures)
        parent = np.asarray(t.parent)
        pelvis = int(self.idx[PELVIS])
        own = np.zeros(model.nbody, bool)
        for b in range(model.nbody):
            j = b
            while j >= 0 and j != pelvis:
                j = int(parent[j])
            own[b] = j == pelvis
        self.mass = np.where(own, np.asarray(t.mass, float), 0.0)
        self.total_mass = float(self.mass.sum())
        self.parent = parent.astype(np.int64)
        self.bodies = np.flatnonzero(own).astype(np.int64)
        self.nbody = model.nbody
        self.feet = np.array([self.idx[slot(s, p)] for s in (0, 1) for p in (FOOT, TOES)], np.int64)
        # the sole's extent about the ankle (the foot's box: heel and front along x, sides
        # along y, in foot axes), where the standing balance may put each foot's pressure
        g = model.geoms
        mine = np.asarray(g.body) == self.idx[slot(0, FOOT)]
        if not mine.any():
            raise CorpusError("biped_walk: the creature's left_foot has no shape to stand on")
        lo, hi = np.asarray(g.aabb_lo)[mine], np.asarray(g.aabb_hi)[mine]
        self.sole = np.array([lo[:, 0].min(), hi[:, 0].max(), lo[:, 1].min(), hi[:, 1].max()])
        self.others = np.array([b for b in np.flatnonzero(own) if b not in self.feet], np.int64)
        ratio = mass_ratio(self.total_mass, reference_mass)
        self._scale_gains(kp_scale * ratio)
        # the torque limits scale with the mass as kp does, so a joint saturates at the same
        # angle error: with BipV3's 200 N m hips, heavy characters (r04 149 kg, r13 133 kg)
        # fell within 4 s, and the x1.3 (155 kg) walked 9 % slow (docs/biped.md, Characters)
        self.jgain[:, 2] *= ratio
        self.root_gains[2] *= ratio
        # with BipV3's 100 N the beast (124 kg, legs 0.65 m) swayed wider every step and fell
        # at 8.6 s; scaled by mass alone it fell at 16.9 s (docs/biped.md, Characters)
        self.coronal_scale = coronal_force_scale(ratio, float(np.mean(self.thigh + self.shin)),
                                                 REFERENCE_LEG) if reference_mass > 0.0 else 1.0

    def _scale_gains(self, scale: float) -> None:
        """Coros's gains for another character (the character editor's scaleGains): every
        kp times `scale` and kd = 2 sqrt(kp), but the toes keep their kd; the root's kp
        and kd times `scale`."""
        if scale == 1.0:
            return
        for k, n in enumerate(NEEDED[1:]):
            self.jgain[k, 0] *= scale
            if role(n) != "toes":
                self.jgain[k, 1] = 2.0 * math.sqrt(self.jgain[k, 0])
        self.root_gains[:2] *= scale

    def b(self, name: str) -> int:
        return int(self.idx[NEEDED.index(name)])


class Frame:
    """World kinematics of one state: rotations R, joint positions x, angular velocities
    omega, body COMs and the whole-body COM com with its velocity com_vel; and from the
    contact wrenches, the vertical ground force on each foot (grf: left, right, foot and
    toes; then the toes' part of each: left, right) and whether any other body touches the
    ground: what a controller starts from (each frame's is biped_machine's, from the same
    `biped_kinematics`)."""

    def __init__(self, rig: Rig):
        nb = rig.nbody
        self.rig = rig
        self.R = np.empty((nb, 3, 3))
        self.x = np.empty((nb, 3))
        self.omega = np.empty((nb, 3))
        self.body_com = np.empty((nb, 3))
        self.com_state = np.empty(6)
        self.com = self.com_state[:3]
        self.com_vel = self.com_state[3:]
        self.grf = np.zeros(4)
        self.touching = False

    def update(self, sensors) -> Frame:
        """This frame's state from the sensor API's kinematics and contact wrenches (computed
        once per state for every controller: a crowd's controllers each redoing the whole
        model's kinematics made the 16-biped scene's cost grow with the square of the crowd)."""
        rig = self.rig
        wrench = sensors.contact_wrenches()
        self.touching = biped_kinematics(rig.tree, sensors.kinematics(), rig.mass, rig.bodies, wrench,
                                         rig.feet, rig.others, self.R, self.x, self.omega,
                                         self.body_com, self.com_state, self.grf)
        return self


@numba.njit(cache=True)
def biped_kinematics(tree, work, mass, bodies, wrench, feet, others, R, x, omega, body_com, com_state,
                     grf):
    """Fill a Frame's arrays for the creature's bodies from a kinematics pass's `work`;
    True when a body other than the feet and toes touches the ground."""
    total = 0.0
    com_state[:] = 0.0
    for b in bodies:
        R[b] = work.xrot[b]
        x[b] = work.xpos[b]
        omega[b] = mv(R[b], work.v[b, :3])
        arm = mv(R[b], tree.com[b])
        body_com[b] = x[b] + arm
        vel = mv(R[b], work.v[b, 3:]) + cross(omega[b], arm)
        com_state[:3] += mass[b] * body_com[b]
        com_state[3:] += mass[b] * vel
        total += mass[b]
    com_state /= total
    grf[0] = wrench[feet[0], 5] + wrench[feet[1], 5]
    grf[1] = wrench[feet[2], 5] + wrench[feet[3], 5]
    grf[2] = wrench[feet[1], 5]
    grf[3] = wrench[feet[3], 5]
    for b in others:
        if wrench[b, 3] != 0.0 or wrench[b, 4] != 0.0 or wrench[b, 5] != 0.0:
            return True
    return False
