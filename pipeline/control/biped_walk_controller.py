"""`kind: biped_walk`: Coros's generalized biped walking controller (GBWC, thesis Ch. 5)
on the SIMBICON substrate (Ch. 2.4), for creatures named like creatures/biped.yaml.
docs/biped.md describes it; the digest is ../shared/research/seed-002-coros.md §3.

Each frame, in the released code's order (digest §3.2.5):
 1. state: world kinematics, COM, the feet's vertical ground forces; the stance machine
    (a step ends at swing-foot strike or phi >= 1);
 2. targets: the motion generator (zero gait plus style: lean ratios over the back and neck,
    stance-knee bend), CCF-relative ankles and back, parent-relative arms, knees and toes;
    the swing ankle's Cartesian path toward the inverted-pendulum foot placement and its
    two-link IK for the swing hip and knee;
 3. quaternion PD on every joint but the stance hip;
 4. gravity compensation J^T(-m g) for every link off the stance leg;
 5. velocity tuning: a virtual COM force through the stance leg's J^T;
 6. the stance hip: the torque that gives the pelvis its desired (heading) orientation.
Standing mode balances the COM over the feet's midpoint by the same virtual force on both
legs; `walk: {speed: ...}` starts a step once the COM has moved 40 % of the way to the
future stance foot, and a stop request stands again once the speed is small at a
foot-strike.
"""
from __future__ import annotations

import math

import numpy as np

from pipeline.control.biped_gait import CatmullRom, StanceMachine, ipm_step, two_link_ik
from pipeline.control.biped_pd import (ball_pd, clamp_norm, cross, exp_rot, heading_of, hinge_angle,
                                       log_rot, rot_z, universal_angles)
from pipeline.control.biped_rig import BALL_LIMITS, LEG, SIDES, Frame, Rig, mirror
from pipeline.control.commands import forward_to_controller, located, register_command, register_controller_kind
from pipeline.errors import CorpusError
from pipeline.physics.model import BALL, REVOLUTE

UP = np.array([0.0, 0.0, 1.0])
FD_TIME = 0.001  # s, the swing path's finite-difference step for desired joint rates
MAX_RATE = 5.0  # rad/s, their clamp
# Coros's body bend: fixed ratios of one sagittal lean angle (released code, digest §3.2.1)
LEAN_RATIO = {"pelvis": 1.0, "lower_back": 1.5, "torso": 2.5, "head": 3.0}

DEFAULTS = {
    "mode": "walk",          # walk | stand
    "speed": 0.0,            # V_d, m/s along the heading (negative walks backwards)
    "heading": 0.0,          # desired heading, rad (slewed at turn_rate)
    "step_time": 0.6,        # T, s
    "step_height": 0.0,      # extra swing-ankle height at mid-swing, m
    "step_width": 0.1,       # W, m between the feet
    "lean": 0.0,             # sagittal body bend, rad (forward positive)
    "knee_bend": 0.1,        # stance-knee target, rad
    "alpha": 0.05,           # IPM desired-velocity offset d' = d - alpha V_d
    "ipm_gain": 1.1,         # sagittal IPM gain, the released code's (1.0: falls within 4 s at 1 m/s)
    "ipm_gain_coronal": 1.0,  # coronal IPM gain (the released code: 1.3)
    "max_step": 0.6,         # step clamp, fraction of the leg length (thesis: 0.6 L)
    "k_v": 100.0,            # sagittal virtual-force gain, N s/m (thesis)
    "coronal_kp": 20.0,      # coronal COM PD, per kg (released code)
    "coronal_kd": 9.0,
    "max_force_sagittal": 60.0,
    "max_force_coronal": 100.0,
    "stand_kp": 1000.0,      # standing COM PD toward the feet's midpoint, N/m
    "stand_kd": 200.0,       # N s/m
    "stop_speed": 0.1,       # |v| below which a stop request stands at a foot-strike, m/s
    "turn_rate": 2.0,        # rad/s
    "kp_scale": 1.0,         # every kp (and kd = 2 sqrt(kp)); the generator sets mass ratios
    "ipm": True,             # layers, for ablations
    "gravity_compensation": True,
    "velocity_tuning": True,
    "swing_height": [[0.0, 0.0], [0.5, 0.11], [1.0, 0.01]],  # y(phi) above the stance height
}
COMMAND_KEYS = ("mode", "speed", "heading", "step_time", "step_height", "step_width", "lean",
                "knee_bend", "alpha")


class BipedWalk:
    """One biped's walking controller; part of the run's Data (copied with forks)."""

    def __init__(self, name: str, rig: Rig, params: dict, dt: float, x_start: np.ndarray,
                 heading0: float, pelvis_height: float):
        self.name = name
        self.rig = rig
        self.p = params
        self.dt = dt
        self.machine = StanceMachine()
        self.heading = heading0          # slewed desired heading
        self.h0 = pelvis_height          # nominal pelvis height (falls, limp blend)
        self.swing_start = x_start.copy()
        self.walking = params["mode"] == "walk"
        self.starting: str | None = None  # future stance side while shifting weight to start
        self.start_com = np.zeros(3)
        self.fell = False
        self.strikes: list[tuple[float, str, float, float]] = []
        self.height = CatmullRom(params["swing_height"])

    # ------------------------------------------------------------------ commands
    def command(self, args: dict) -> None:
        for k, v in args.items():
            self.p[k] = v if k == "mode" else float(v)
        if "speed" in args and not self.walking and float(args["speed"]) != 0.0:
            self.p["mode"] = "walk"
        if self.p["mode"] == "stand":
            self.walking = False
            self.starting = None

    # ------------------------------------------------------------------ per frame
    def __call__(self, sim, t: float) -> None:
        rig, p = self.rig, self.p
        d = sim.data
        f = Frame(rig, d.q, d.qd)
        wrench = sim.sensors.contact_wrenches()
        grf = {s: float(wrench[rig.b(f"{s}_foot"), 5] + wrench[rig.b(f"{s}_toes"), 5]) for s in SIDES}
        self._check_fall(f, wrench)
        self._slew_heading()
        if self.walking:
            swing = self.machine.swing
            if self.machine.advance(self.dt, p["step_time"], grf[swing]):
                self._foot_strike(f, t)
        elif p["mode"] == "walk":
            self._maybe_start(f)
        tau = np.zeros((rig.nbody, 3))  # world torque of every joint, acting on its child
        R_root = self._targets_and_pd(f, tau)
        if p["gravity_compensation"]:
            self._gravity_compensation(f, tau)
        root_extra = np.zeros(3)
        if p["velocity_tuning"] or not self.walking:
            root_extra = self._virtual_force(f, tau, grf)
        self._hips(f, tau, R_root, root_extra, grf)
        self._apply(sim, f, tau)
        self._publish(d.channels, f)

    def _check_fall(self, f: Frame, wrench: np.ndarray) -> None:
        rig = self.rig
        feet = {rig.b(f"{s}_{part}") for s in SIDES for part in ("foot", "toes")}
        touching = [b for b in range(rig.nbody) if b not in feet and np.any(wrench[b, 3:] != 0.0)]
        if f.x[rig.b("pelvis"), 2] < 0.5 * self.h0 or touching:
            self.fell = True

    def _slew_heading(self) -> None:
        err = math.remainder(self.p["heading"] - self.heading, 2 * math.pi)
        step = self.p["turn_rate"] * self.dt
        self.heading += max(-step, min(step, err))

    def _foot_strike(self, f: Frame, t: float) -> None:
        rig = self.rig
        m = self.machine
        x = f.x[rig.b(f"{m.stance}_foot")]
        self.strikes.append((t, m.stance, float(x[0]), float(x[1])))
        self.swing_start = f.x[rig.b(f"{m.swing}_foot")].copy()
        speed = float(np.linalg.norm(f.com_vel[:2]))
        if self.p["speed"] == 0.0 and speed < self.p["stop_speed"]:
            self.walking = False
            self.p["mode"] = "stand"

    def _maybe_start(self, f: Frame) -> None:
        """Start walking: shift the COM toward the future stance foot; the step (a
        foot-strike) begins once it has moved 40 % of the way (Coros §5.5)."""
        rig = self.rig
        if self.starting is None:
            self.starting = "left" if self.p["step_width"] >= 0 else "right"
            self.start_com = f.com.copy()
            return
        foot = f.x[rig.b(f"{self.starting}_foot")]
        full = float(np.linalg.norm((foot - self.start_com)[:2]))
        moved = float(np.linalg.norm((f.com - self.start_com)[:2]))
        if full > 0 and moved >= 0.4 * full:
            self.walking = True
            self.machine.stance = self.starting
            self.machine.phase = 0.0
            self.swing_start = f.x[rig.b(f"{self.machine.swing}_foot")].copy()
            self.starting = None

    # ------------------------------------------------------------------ targets and PD
    def _world_target(self, name: str, Rh: np.ndarray) -> np.ndarray:
        """CCF-relative target: the heading frame, bent by its share of the lean."""
        lean = self.p["lean"] * LEAN_RATIO.get(name, 0.0)
        return Rh @ exp_rot([0.0, lean, 0.0])

    def _targets_and_pd(self, f: Frame, tau: np.ndarray) -> np.ndarray:
        rig, p = self.rig, self.p
        ccf = rot_z(heading_of(f.R[rig.b("pelvis")]))
        desired = {}
        for name in ("lower_back", "torso", "head"):
            desired[name] = self._world_target(name, ccf)
        for s in SIDES:
            desired[f"{s}_foot"] = ccf  # feet flat, facing the heading
        rel = {f"{s}_{part}": np.eye(3) for s in SIDES for part in ("upper_arm", "lower_arm", "toes")}
        if not self.walking:  # standing: legs straight under the pelvis, plus root control
            rel.update({f"{s}_upper_leg": np.eye(3) for s in SIDES})
        stance = self.machine.stance if self.walking else None
        knee = exp_rot([0.0, p["knee_bend"], 0.0])
        for s in SIDES:
            if s == stance or not self.walking:
                rel[f"{s}_lower_leg"] = knee
        swing_hip = None
        rates: dict = {}  # desired relative angular velocities, child axes (left geometry)
        if self.walking:
            swing_hip = self._swing_leg(f, ccf, rel, rates)
        for name, j in rig.joints.items():
            if self.walking and name == f"{stance}_upper_leg":
                continue
            if name in desired:
                R_des = f.R[j.parent].T @ desired[name]
            elif name in rel:
                R_des = rel[name]
            elif swing_hip is not None and name == swing_hip[0]:
                R_des = swing_hip[1]
            else:
                continue
            tau[j.body] = self._pd(f, j, R_des, rates.get(name))
        return rot_z(self.heading) @ exp_rot([0.0, p["lean"] * LEAN_RATIO["pelvis"], 0.0])

    def _swing_leg(self, f: Frame, ccf: np.ndarray, rel: dict, rates: dict):
        """Swing ankle path toward the IPM foot placement, then two-link IK (Coros §5.3)."""
        rig, p, m = self.rig, self.p, self.machine
        fwd, left = ccf[:, 0], ccf[:, 1]
        stance_ankle = f.x[rig.b(f"{m.stance}_foot")]
        h = max(float(f.com[2] - stance_ankle[2]), 0.1)
        v_sag, v_cor = float(f.com_vel @ fwd), float(f.com_vel @ left)
        side = 1.0 if m.swing == "left" else -1.0
        leg = rig.thigh + rig.shin
        reach = p["max_step"] * leg
        if p["ipm"]:
            sag = ipm_step(v_sag, h, p["speed"], p["alpha"], p["ipm_gain"])
            cor = ipm_step(v_cor, h, 0.0, 0.0, p["ipm_gain_coronal"])
        else:  # ablation: a fixed stride L = V_d T centred under the COM
            sag, cor = 0.5 * p["speed"] * p["step_time"], 0.0
        sag = max(-reach, min(reach, sag))
        cor = max(-reach, min(reach, cor + side * 0.5 * p["step_width"]))
        target = f.com + sag * fwd + cor * left
        self.target = target
        hip = f.x[rig.b(f"{m.swing}_upper_leg")]
        ground = stance_ankle[2]  # flat-footed stance ankle height

        def leg_at(phi: float):
            phi = min(phi, 1.0)
            ankle = (1.0 - phi) * self.swing_start + phi * target
            ankle[2] = ground + self.height(phi) + p["step_height"] * 4 * phi * (1 - phi)
            return two_link_ik(hip, ankle, rig.thigh, rig.shin, fwd)

        # desired rates by a finite difference of the path over FD_TIME, clamped (released code)
        R_thigh, knee = leg_at(m.phase)
        R_next, knee_next = leg_at(m.phase + FD_TIME / p["step_time"])
        Rp = f.R[rig.b("pelvis")]
        w_hip = np.clip(log_rot(R_thigh.T @ R_next) / FD_TIME, -MAX_RATE, MAX_RATE)
        w_knee = max(-MAX_RATE, min(MAX_RATE, (knee_next - knee) / FD_TIME))
        rel[f"{m.swing}_lower_leg"] = exp_rot([0.0, knee, 0.0])
        rates[f"{m.swing}_lower_leg"] = np.array([0.0, w_knee, 0.0])
        rates[f"{m.swing}_upper_leg"] = w_hip
        return f"{m.swing}_upper_leg", Rp.T @ R_thigh

    def _pd(self, f: Frame, j, R_des: np.ndarray, w_des=None) -> np.ndarray:
        """World torque of joint j toward the relative target R_des (parent <- child) and
        the desired relative angular velocity w_des (desired child axes)."""
        Rp, Rc = f.R[j.parent], f.R[j.body]
        R_rel = Rp.T @ Rc
        # the damping -kd w acts in the engine (Data.forces.damping, set in _apply), where the
        # implicit integrator takes it at the step's end: explicit at the frame rate it is
        # unstable on light links (a 1 kg foot: kd dt / I = 6 at dt = 1 ms); only kd w_des
        # stays here
        w_rel = np.zeros(3) if w_des is None else -w_des
        if j.jtype == BALL:
            R_des = self._ball_limit(j, R_des)
            t_child = clamp_norm(ball_pd(R_rel, R_des, w_rel, j.kp, j.kd), j.max_torque)
            return Rc @ t_child
        if j.jtype == REVOLUTE:
            a = j.axes[0]
            err = hinge_angle(R_des, a) - hinge_angle(R_rel, a)
            t = j.kp * err - j.kd * float(w_rel @ a)
            return max(-j.max_torque, min(j.max_torque, t)) * (Rc @ a)
        a1, a2 = j.axes[0], j.axes[1]
        q1d, q2d = universal_angles(R_des, a1, a2)
        q1, q2 = universal_angles(R_rel, a1, a2)
        a1w, a2w = Rp @ a1, Rc @ a2
        t1 = j.kp * (q1d - q1)
        t2 = j.kp * (q2d - q2)
        lim = j.max_torque
        return max(-lim, min(lim, t1)) * a1w + max(-lim, min(lim, t2)) * a2w

    @staticmethod
    def _ball_limit(j, R_des: np.ndarray) -> np.ndarray:
        limits = BALL_LIMITS.get(j.role)
        if limits is None:
            return R_des
        left = mirror(R_des) if j.side == "right" else R_des
        v = log_rot(left)
        v = np.array([min(max(v[k], lo), hi) for k, (lo, hi) in enumerate(limits)])
        R = exp_rot(v)
        return mirror(R) if j.side == "right" else R

    # ------------------------------------------------------------------ J^T layers
    def _gravity_compensation(self, f: Frame, tau: np.ndarray) -> None:
        """tau_j += r x (m g) over every link off the stance leg, for each joint between
        the link and the pelvis (Coros §5.4): per joint, the weight of its subtree's
        links off the stance leg about the joint."""
        rig = self.rig
        keep = np.ones(rig.nbody)
        legs = (self.machine.stance,) if self.walking else SIDES
        for s in legs:
            keep[[rig.b(f"{s}_{p}") for p in LEG]] = 0.0
        m = rig.mass * keep
        A = rig.subtree  # A[j, b] = 1 when b is j or below it
        msub = A @ m
        moment = A @ (m[:, None] * f.body_com) - msub[:, None] * f.x
        weight = 9.8 * UP
        gc = np.cross(moment, weight)
        gc[rig.b("pelvis")] = 0.0
        tau += gc

    def _virtual_force(self, f: Frame, tau: np.ndarray, grf: dict) -> np.ndarray:
        """Velocity tuning (walking) or balance (standing): a virtual force on the COM
        through the stance leg's J^T, ankle -> knee -> hip; the hip's share goes to the
        pelvis (the stance hip is root-controlled). Returns that share."""
        rig, p = self.rig, self.p
        M = rig.total_mass
        ccf = rot_z(heading_of(f.R[rig.b("pelvis")]))
        fwd, left = ccf[:, 0], ccf[:, 1]
        v_sag, v_cor = float(f.com_vel @ fwd), float(f.com_vel @ left)
        if self.walking:
            stance = [self.machine.stance]
            foot = f.x[rig.b(f"{stance[0]}_foot")]
            d_cor = float((f.com - foot) @ left)
            f_sag = p["k_v"] * (p["speed"] - v_sag)
            f_cor = M * (-p["coronal_kp"] * d_cor - p["coronal_kd"] * v_cor)
        else:
            stance = list(SIDES)
            if self.starting is not None:
                goal = f.x[rig.b(f"{self.starting}_foot")]
            else:
                goal = 0.5 * (f.x[rig.b("left_foot")] + f.x[rig.b("right_foot")])
            goal = goal + 0.03 * fwd  # the foot's middle is ahead of the ankle
            e = f.com - goal
            f_sag = -p["stand_kp"] * float(e @ fwd) - p["stand_kd"] * v_sag
            f_cor = -p["stand_kp"] * float(e @ left) - p["stand_kd"] * v_cor
        f_sag = max(-p["max_force_sagittal"], min(p["max_force_sagittal"], f_sag))
        f_cor = max(-p["max_force_coronal"], min(p["max_force_coronal"], f_cor))
        F = f_sag * fwd + f_cor * left
        total = sum(max(grf[s], 0.0) for s in stance) or 1.0
        root = np.zeros(3)
        upper = ("pelvis", "lower_back", "torso")
        for s in stance:
            share = max(grf[s], 0.0) / total if len(stance) > 1 else 1.0
            Fs = share * F
            chain = [f"{s}_lower_leg", f"{s}_upper_leg", *upper]
            for joint, above in ((f"{s}_foot", chain), (f"{s}_lower_leg", chain[1:]),
                                 (f"{s}_upper_leg", chain[2:])):
                bs = [rig.b(n) for n in above]
                m = rig.mass[bs]
                c = m @ f.body_com[bs] / m.sum()
                torque = cross(c - f.x[rig.b(joint)], Fs)  # on the part above the joint
                if joint.endswith("upper_leg"):
                    root += torque
                elif joint.endswith("foot") and grf[s] <= 0.0:
                    continue  # the foot is not planted: no ankle torque (foot-roll guard)
                else:
                    tau[rig.b(joint)] -= torque  # the joint's child is below it
        return root

    def _hips(self, f: Frame, tau: np.ndarray, R_root: np.ndarray, extra: np.ndarray,
              grf: dict) -> None:
        """The stance hip (both hips while standing, split by their share of the vertical
        ground force) gives the pelvis its desired net torque:
        tau_stance = -tau_root - (the other root children's torques) (Eq. 2.3)."""
        rig = self.rig
        kp, kd, tmax = rig.root_gains
        pelvis = rig.b("pelvis")
        Rp = f.R[pelvis]
        t_root = Rp @ (kp * log_rot(Rp.T @ R_root)) - kd * f.omega[pelvis]
        t_root = clamp_norm(t_root, tmax) + extra
        total = max(grf["left"], 0.0) + max(grf["right"], 0.0)
        if total <= 0.0:
            t_root[:] = 0.0  # no ground force: the pelvis cannot be pushed on
        hips = {s: rig.b(f"{s}_upper_leg") for s in SIDES}
        children = [rig.b("lower_back")] + list(hips.values())
        makeup = -t_root - sum(tau[c] for c in children)
        if self.walking:
            # all of it on the stance hip (thesis Eq. 2.3): the released code's split by the
            # ground-force share loads the trailing hip right after a strike, and the new
            # stance foot, barely loaded yet, slid backwards 0.3 m per step
            tau[hips[self.machine.stance]] += makeup
        else:
            for s in SIDES:
                share = max(grf[s], 0.0) / total if total > 0 else 0.5
                tau[hips[s]] += share * makeup
        for s in SIDES:
            tau[hips[s]] = clamp_norm(tau[hips[s]], rig.joints[f"{s}_upper_leg"].max_torque)

    # ------------------------------------------------------------------ output
    def _apply(self, sim, f: Frame, tau: np.ndarray) -> None:
        """World joint torques -> generalized forces; a fallen biped goes limp (SIMBICON's
        blend-out by root height)."""
        rig = self.rig
        ctrl = sim.data.ctrl
        damping = sim.data.forces.damping
        h = f.x[rig.b("pelvis"), 2] / self.h0
        scale = min(1.0, max(0.0, (h - 0.21) / 0.21))
        root_controlled = {f"{s}_upper_leg" for s in SIDES} if not self.walking else \
            {f"{self.machine.stance}_upper_leg"}
        for name, j in rig.joints.items():
            n = 3 if j.jtype == BALL else 1 if j.jtype == REVOLUTE else 2
            damping[j.vadr:j.vadr + n] = 0.0 if name in root_controlled else j.kd * scale
            t = tau[j.body] * scale
            if j.jtype == BALL:
                ctrl[j.vadr:j.vadr + 3] = f.R[j.body].T @ t
            elif j.jtype == REVOLUTE:
                ctrl[j.vadr] = float(t @ (f.R[j.body] @ j.axes[0]))
            else:
                ctrl[j.vadr] = float(t @ (f.R[j.parent] @ j.axes[0]))
                ctrl[j.vadr + 1] = float(t @ (f.R[j.body] @ j.axes[1]))

    def _publish(self, channels: dict, f: Frame) -> None:
        n = self.name
        fwd = rot_z(self.heading)[:, 0]
        channels[f"{n}_stance"] = 0.0 if self.machine.stance == "left" else 1.0
        channels[f"{n}_phase"] = self.machine.phase
        channels[f"{n}_walking"] = float(self.walking)
        channels[f"{n}_fell"] = float(self.fell)
        channels[f"{n}_speed_command"] = float(self.p["speed"])
        channels[f"{n}_com_speed"] = float(f.com_vel @ fwd)
        channels[f"{n}_heading"] = heading_of(f.R[self.rig.b("pelvis")])
        channels[f"{n}_heading_command"] = float(self.heading)
        channels[f"{n}_steps"] = float(self.machine.steps)


def make_biped_walk_controller(sim, ref) -> BipedWalk:
    script = ref.script
    name = script.get("controller", "biped_walk")
    params = dict(DEFAULTS)
    params.update(script.get("biped_walk", {}) or {})
    gains = {k: tuple(float(x) for x in (g["kp"], g["kd"], g.get("max_torque", 200.0)))
             for k, g in (script.get("gains", {}) or {}).items()}
    try:
        rig = Rig(sim, gains, float(params["kp_scale"]))
    except CorpusError as err:
        raise CorpusError(located(err.problems[0].message, ref.where)) from None
    f = Frame(rig, sim.data.q, sim.data.qd)
    pelvis = rig.b("pelvis")
    swing = "right"
    heading0 = heading_of(f.R[pelvis])
    params["heading"] = float(params["heading"])
    controller = BipedWalk(name, rig, params, sim.dt, f.x[rig.b(f"{swing}_foot")],
                           heading0, float(f.x[pelvis, 2]))
    creature = ref.target or script.get("creature")
    sim.data.user.setdefault("biped_walk", {})[creature] = controller
    controller._publish(sim.data.channels, f)
    return controller


def walk_command(sim, args: dict) -> None:
    """`walk: {speed, heading, step_time, step_height, step_width, lean, knee_bend, mode}`
    for the named (or only) biped_walk controller."""
    forward_to_controller(sim, "walk", "biped_walk", args)


register_controller_kind("biped_walk", make_biped_walk_controller)
register_command("walk", walk_command)
