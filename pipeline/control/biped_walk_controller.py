"""`kind: biped_walk`: Coros's generalized biped walking controller (GBWC, thesis Ch. 5)
on the SIMBICON substrate (Ch. 2.4), for creatures named like creatures/biped.yaml.
docs/biped.md describes it; the digest is ../shared/research/seed-002-coros.md §3.

Each frame, in the released code's order (digest §3.2.5):
 1. state: world kinematics, COM, the feet's vertical ground forces; the stance machine
    (a step ends at swing-foot strike or phi >= 1, or early when the COM runs away);
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
foot-strike; standing, a recovery step starts when the capture point leaves the soles.
"""
from __future__ import annotations

import math

import numpy as np

from pipeline.control.biped_gait import CatmullRom, StanceMachine
from pipeline.control.biped_pd import heading_of, rot_z
from pipeline.control.biped_rig import FOOT, PELVIS, SIDES, Frame, Rig, slot
from pipeline.control.biped_torques import (H0, HEADING, HEADING_RATE, MAX_F_COR, PARAMS, PHASE, SPEED,
                                            STANCE, STARTING, SWING_HEADING, WALKING, biped_torques)
from pipeline.control.commands import forward_to_controller, located, register_command, register_controller_kind
from pipeline.errors import CorpusError

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
    "runaway_step": 0.7,     # a runaway step ends with the swing foot this far ahead (leg lengths; 0: never)
    "k_v": 350.0,            # sagittal virtual-force gain, N s/m
    "coronal_kp": 20.0,      # coronal COM PD, per kg (released code)
    "coronal_kd": 9.0,
    "max_force_sagittal": 60.0,
    "max_force_coronal": 100.0,
    "stand_kp": 1000.0,      # standing COM PD toward the feet's midpoint, N/m
    "stand_kd": 200.0,       # N s/m
    "stop_speed": 0.1,       # |v| below which a stop request stands at a foot-strike, m/s
    "turn_rate": 2.0,        # rad/s
    "turn_step": 0.785,      # rad: the most a step turns (the next foot's yaw from the stance foot's)
    "acceleration": 1.0,     # m/s^2: how fast V_d follows the speed command
    "kp_scale": 1.0,         # every kp (and kd = 2 sqrt(kp))
    "reference_mass": 70.4,  # kg: kp times the creature's mass over this (BipV3's); 0: off
    "ipm": True,             # layers, for ablations
    "gravity_compensation": True,
    "velocity_tuning": True,
    "twist_damping": 0.3,    # the root-controlled hips' twist damping, a fraction of the hip's kd
    "yaw_friction": 0.04,    # m: the stance foot holds yaw torques up to yaw_friction x its load (mu r)
    "recover": True,         # standing: step when the capture point leaves the feet (Coros §5.5)
    "recover_margin": 0.02,  # m inside the soles' edges
    # y(phi): the swing ankle's height above the stance ankle's, ending 1 cm above it. A step
    # backwards ends on the ground instead (its knots at phi >= 1 are 0): a foot swung forwards
    # lands toes-up, so its heel strikes and ends the step before phi = 1, but one swung
    # backwards hangs flat, and ending 1 cm above every backward step ended by time with the
    # foot in the air; the released leg then landed sliding back at 1-1.7 m/s, whose friction
    # (15-25 N s a step) held the walk at half its V_d (docs/biped.md, W2). Forwards the path
    # ending on the ground cost the robot and beast their stops (the strike lands short)
    "swing_height": [[0.0, 0.0], [0.5, 0.11], [1.0, 0.01]],
}
# turning, as the released code's TurnController (digest §3.2.6): a turn of more than
# BIG_TURN rad starts at the next foot-strike; while the heading is more than TURN_DONE rad
# from the command, V_d is clamped to TURN_SPEED, or TURN_SPEED_SHARP for turns over SHARP_TURN
BIG_TURN, TURN_DONE, SHARP_TURN = 1.0, 0.2, 2.5
TURN_SPEED, TURN_SPEED_SHARP = (-0.5, 0.6), (-0.2, 0.3)
# the COM runs away (the TurnController's test): faster than RUNAWAY x V_d and RUNAWAY_SPEED
RUNAWAY, RUNAWAY_SPEED = 1.5, 0.5
COMMAND_KEYS = ("mode", "speed", "heading", "step_time", "step_height", "step_width", "lean",
                "knee_bend", "alpha")


def _spline_table(knots) -> np.ndarray:
    """The (3, n) knots, values and tangents of a CatmullRom through knots, as the kernel reads them."""
    h = CatmullRom(knots)
    return np.array([h.t, h.v, h.m])


class BipedWalk:
    """One biped's walking controller; part of the run's Data (copied with forks). The
    stance machine, the start and stop triggers and fall detection live here; the torques
    are one kernel call (pipeline/control/biped_torques.py)."""

    def __init__(self, name: str, rig: Rig, params: dict, dt: float, x_start: np.ndarray,
                 heading0: float, pelvis_height: float):
        self.name = name
        self.rig = rig
        self.p = params
        self.par = np.zeros(len(PARAMS))
        self._fill_par()
        self.dt = dt
        self.machine = StanceMachine()
        self.heading = heading0          # slewed desired heading
        self.speed = 0.0                 # slewed desired speed (V_d)
        self.h0 = pelvis_height          # nominal pelvis height (falls, limp blend)
        self.swing_start = x_start.copy()
        self.walking = params["mode"] == "walk"
        self.starting: str | None = None  # future stance side while shifting weight to start
        self.start_com = np.zeros(3)
        self.fell = False
        self.recoveries = 0  # recovery steps taken from standing
        self.strikes: list[tuple[float, str, float, float]] = []
        knots = params["swing_height"]
        self.knots = _spline_table(knots)
        self.knots_back = _spline_table([(t, v if t < 1.0 else 0.0) for t, v in knots])
        self.target = np.zeros(3)  # the swing foot's placement (world)
        self.turn_goal = params["heading"]  # the heading being turned to (p["heading"] once started)
        self.turn_size = 0.0
        self.stance_yaw = heading0  # the stance foot's yaw at its strike
        self.frame = Frame(rig)
        self.st = np.zeros(SWING_HEADING + 1)  # the state the torque kernel reads (biped_torques.st)
        self.st[H0] = pelvis_height
        self.st[SWING_HEADING] = heading0
        self.channel = {k: f"{name}_{k}" for k in ("stance", "phase", "walking", "fell", "speed_command",
                                                      "com_speed", "heading", "heading_command", "steps")}

    # ------------------------------------------------------------------ commands
    def command(self, args: dict) -> None:
        for k, v in args.items():
            self.p[k] = v if k in ("mode", "recover") else float(v)
        if "speed" in args and not self.walking and float(args["speed"]) != 0.0:
            self.p["mode"] = "walk"
        if self.p["mode"] == "stand":
            self.walking = False
            self.starting = None
        if "heading" in args:
            size = abs(math.remainder(self.p["heading"] - self.heading, 2 * math.pi))
            self.turn_size = size
            if size <= BIG_TURN or not self.walking:
                self.turn_goal = self.p["heading"]
        self._fill_par()

    def _fill_par(self) -> None:
        """The kernel's parameters from the current ones; the coronal force clamp scaled to
        the character (biped_rig.coronal_force_scale)."""
        self.par[:] = [float(self.p[k]) for k in PARAMS]
        self.par[MAX_F_COR] *= self.rig.coronal_scale

    # ------------------------------------------------------------------ per frame
    def __call__(self, sim, t: float) -> None:
        rig, d, m, st = self.rig, sim.data, self.machine, self.st
        f = self.frame.update(sim.sensors)
        if f.touching or f.x[rig.idx[PELVIS], 2] < 0.5 * self.h0:
            self.fell = True
        self._slew_heading()
        turning = abs(math.remainder(self.p["heading"] - self.heading, 2 * math.pi)) > TURN_DONE
        # the released code's TurnController: slow down while turning, more for sharp turns
        lo, hi = TURN_SPEED_SHARP if self.turn_size > SHARP_TURN else TURN_SPEED
        # V_d follows the command at most `acceleration` m/s^2 (a step of 1.4 m/s from
        # standing spun the stance foot and fell within two steps)
        dv = self.p["acceleration"] * self.dt
        self.speed += max(-dv, min(dv, self.p["speed"] - self.speed)) if self.walking else -self.speed
        self.par[SPEED] = min(max(self.speed, lo), hi) if turning else self.speed
        if self.walking:
            if self._runaway(f):
                m.phase = 1.0  # the step ends now
            if m.advance(self.dt, self.p["step_time"], f.grf[SIDES.index(m.swing)]):
                self._foot_strike(f, t)
        elif self.p["mode"] == "walk":
            self._maybe_start(f)
        elif self.p["recover"] and self._off_balance(f):
            self._recovery_step(f)
        st[STANCE] = SIDES.index(m.stance)
        st[PHASE] = m.phase
        st[WALKING] = self.walking
        st[STARTING] = -1 if self.starting is None else SIDES.index(self.starting)
        st[HEADING] = self.heading
        # the swing foot lands facing where the pelvis will head halfway through its stance,
        # at most turn_step from the stance foot; its twist turns toward that at the turn
        # rate (a jump twisted the swing hip hard, root control put the reaction on the
        # stance foot; at twice the rate the reaction turned the pelvis the wrong way and
        # spun a stance foot on its heel)
        goal = self._turn_toward(self.p["turn_step"])
        step = self.p["turn_rate"] * self.dt
        st[SWING_HEADING] += max(-step, min(step, math.remainder(goal - st[SWING_HEADING], 2 * math.pi)))
        biped_torques(f.R, f.x, f.omega, f.body_com, f.com, f.com_vel, f.grf, rig.idx, rig.parent, rig.mass,
                      rig.total_mass, rig.jtype, rig.jvadr, rig.jaxes, rig.jgain, rig.jlimit, rig.jlimited,
                      rig.jmirror, rig.root_gains, rig.thigh, rig.shin, rig.sole, self.par, st, self.swing_start,
                      self.knots_back if self.speed < 0.0 else self.knots, d.ctrl, d.forces.damping,
                      self.target)
        self._publish(d.channels, f)

    def _turn_toward(self, most: float) -> float:
        """The heading being turned to, at most `most` from the stance foot's yaw."""
        err = math.remainder(self.turn_goal - self.stance_yaw, 2 * math.pi)
        return self.stance_yaw + max(-most, min(most, err))

    def _slew_heading(self) -> None:
        """Slew the desired heading at the turn rate toward the turn's goal, but while
        walking no further than half a turn step from the stance foot: the pelvis turns
        over the planted foot by the stance hip's twist, and a whole sharp turn at once
        twisted it 50-60 degrees, the foot rolled onto its edge or spun, and it fell."""
        goal = self._turn_toward(0.5 * self.p["turn_step"]) if self.walking else self.turn_goal
        err = math.remainder(goal - self.heading, 2 * math.pi)
        step = self.p["turn_rate"] * self.dt
        turn = max(-step, min(step, err))
        self.heading += turn
        self.st[HEADING_RATE] = turn / self.dt

    def _runaway(self, f: Frame) -> bool:
        """End the step early when the COM runs away with the swing foot already far ahead:
        the released code's BehaviourController::shouldAbort (past phi = 0.2, the swing
        foot 0.6 m ahead of the stance foot, about 0.7 of BipV3's leg, while the COM moves
        forwards faster than 0.2 m/s), taken only while the COM runs away as its
        TurnController judges it (faster than 1.5 V_d and 0.5 m/s), so a long stride at
        speed keeps its step. Pushed from behind late in a step, the swing foot landed
        short and the COM vaulted over it at 2 m/s; waiting for the next foot's strike, it
        landed with the pelvis dropped to 0.66 m and the knee bent 1.6 rad, whose
        straightening threw the biped off the ground (docs/biped.md, W4)."""
        m, rig = self.machine, self.rig
        if self.p["runaway_step"] <= 0.0 or m.phase <= 0.2:
            return False
        v = float(np.linalg.norm(f.com_vel[:2]))
        if v <= max(RUNAWAY * abs(self.par[SPEED]), RUNAWAY_SPEED):
            return False
        s = SIDES.index(m.swing)
        fwd = rot_z(self.heading)[:, 0]
        ahead = float((self._foot(f, m.swing) - self._foot(f, m.stance)) @ fwd)
        return ahead > self.p["runaway_step"] * (rig.thigh[s] + rig.shin[s]) and float(f.com_vel @ fwd) > 0.2

    def _foot(self, f: Frame, side: str) -> np.ndarray:
        return f.x[self.rig.idx[slot(SIDES.index(side), FOOT)]]

    def _yaw(self, f: Frame, side: str) -> float:
        return heading_of(f.R[self.rig.idx[slot(SIDES.index(side), FOOT)]])

    def _foot_strike(self, f: Frame, t: float) -> None:
        m = self.machine
        x = self._foot(f, m.stance)
        self.strikes.append((t, m.stance, float(x[0]), float(x[1])))
        # a sharp turn starts at a foot-strike, on the foot outside the turn
        err = math.remainder(self.p["heading"] - self.heading, 2 * math.pi)
        if abs(err) <= BIG_TURN or m.stance == ("right" if err > 0 else "left"):
            self.turn_goal = self.p["heading"]
        self.stance_yaw = self._yaw(f, m.stance)
        self.swing_start = self._foot(f, m.swing).copy()
        speed = float(np.linalg.norm(f.com_vel[:2]))
        if self.p["speed"] == 0.0 and speed < self.p["stop_speed"]:
            self.walking = False
            self.p["mode"] = "stand"

    def _off_balance(self, f: Frame) -> bool:
        """Standing: does the capture point (COM + v sqrt(h/g), where an inverted pendulum
        comes to rest) leave the feet's sole rectangle, shrunk by a margin (Coros §5.5: the
        COM near the support's edge or moving faster than epsilon)?"""
        heading = rot_z(self.heading)
        h = max(f.com[2] - min(self._foot(f, s)[2] for s in SIDES), 0.1)
        cp = heading.T @ (f.com + f.com_vel * math.sqrt(h / 9.8))
        ankles = np.array([heading.T @ self._foot(f, s) for s in SIDES])
        heel, front, right, left = self.rig.sole
        margin = self.p["recover_margin"]
        return not (ankles[:, 0].min() + heel + margin < cp[0] < ankles[:, 0].max() + front - margin
                    and ankles[:, 1].min() + right + margin < cp[1] < ankles[:, 1].max() + left - margin)

    def _recovery_step(self, f: Frame) -> None:
        """Walk at V_d = 0 until a foot-strike slow enough to stand again (Coros §5.5); the
        foot on the side the COM moves toward swings."""
        v_left = float(f.com_vel[:2] @ rot_z(self.heading)[:2, 1])
        self.walking = True
        self.machine.stance = "right" if v_left > 0 else "left"
        self.machine.phase = 0.0
        self.swing_start = self._foot(f, self.machine.swing).copy()
        self.stance_yaw = self._yaw(f, self.machine.stance)
        self.recoveries += 1

    def _maybe_start(self, f: Frame) -> None:
        """Start walking: shift the COM toward the future stance foot; the step (a
        foot-strike) begins once it has moved 40 % of the way (Coros §5.5)."""
        if self.starting is None:
            self.starting = "left" if self.p["step_width"] >= 0 else "right"
            self.start_com = f.com.copy()
            return
        foot = self._foot(f, self.starting)
        full = float(np.linalg.norm((foot - self.start_com)[:2]))
        moved = float(np.linalg.norm((f.com - self.start_com)[:2]))
        if full > 0 and moved >= 0.4 * full:
            self.walking = True
            self.machine.stance = self.starting
            self.machine.phase = 0.0
            self.swing_start = self._foot(f, self.machine.swing).copy()
            self.stance_yaw = self._yaw(f, self.starting)
            self.starting = None

    # ------------------------------------------------------------------ output
    def _publish(self, channels: dict, f: Frame) -> None:
        c, m = self.channel, self.machine
        R = f.R[self.rig.idx[PELVIS]]
        channels[c["stance"]] = float(SIDES.index(m.stance))
        channels[c["phase"]] = m.phase
        channels[c["walking"]] = float(self.walking)
        channels[c["fell"]] = float(self.fell)
        channels[c["speed_command"]] = float(self.p["speed"])
        channels[c["com_speed"]] = math.cos(self.heading) * f.com_vel[0] + math.sin(self.heading) * f.com_vel[1]
        channels[c["heading"]] = math.atan2(R[1, 0], R[0, 0])  # the pelvis's facing (x axis)
        channels[c["heading_command"]] = float(self.heading)
        channels[c["steps"]] = float(m.steps)


def make_biped_walk_controller(sim, ref) -> BipedWalk:
    script = ref.script
    name = script.get("controller", "biped_walk")
    params = dict(DEFAULTS)
    params.update(script.get("biped_walk", {}) or {})
    gains = {k: tuple(float(x) for x in (g["kp"], g["kd"], g.get("max_torque", 200.0)))
             for k, g in (script.get("gains", {}) or {}).items()}
    creature = ref.target or script.get("creature")
    try:
        rig = Rig(sim, gains, float(params["kp_scale"]), float(params["reference_mass"]), creature or "")
    except CorpusError as err:
        raise CorpusError(located(err.problems[0].message, ref.where)) from None
    f = Frame(rig).update(sim.sensors)
    pelvis = rig.b("pelvis")
    heading0 = heading_of(f.R[pelvis])
    params["heading"] = float(params["heading"])
    controller = BipedWalk(name, rig, params, sim.dt, f.x[rig.b("right_foot")],
                           heading0, float(f.x[pelvis, 2]))
    sim.data.user.setdefault("biped_walk", {})[creature] = controller
    controller._publish(sim.data.channels, f)
    return controller


def walk_command(sim, args: dict) -> None:
    """`walk: {speed, heading, step_time, step_height, step_width, lean, knee_bend, mode}`
    for the named (or only) biped_walk controller."""
    forward_to_controller(sim, "walk", "biped_walk", args)


register_controller_kind("biped_walk", make_biped_walk_controller)
register_command("walk", walk_command)
