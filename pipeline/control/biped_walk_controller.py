"""`kind: biped_walk`: Coros's generalized biped walking controller (GBWC, thesis Ch. 5)
on the SIMBICON substrate (Ch. 2.4), for creatures named like creatures/biped.yaml.
docs/biped.md describes it; the digest is ../shared/research/seed-002-coros.md §3.

Each frame, in the released code's order (digest §3.2.5):
 1. state: world kinematics, COM, the feet's vertical ground forces; the stance machine
    (a step ends at swing-foot strike or phi >= 1, or early when the COM runs away);
 2. targets: the motion generator (zero gait plus style: lean ratios over the back and neck,
    stance-knee bend, the style block's trajectories over the phase), CCF-relative ankles
    and back, parent-relative arms, knees and toes;
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

from pipeline.control.biped_gait import CatmullRom
from pipeline.control.biped_machine import (BIG_TURN, C_SPEED, CHANNELS, COMMANDED, FELL, NSTATE, PAR, RECOVERIES,
                                            STANCE_YAW, STEPS, STRIKE_X, STRIKE_Y, STRUCK, SWING_START, TURN_GOAL,
                                            TURN_SIZE, biped_frame)
from pipeline.control.biped_pd import heading_of
from pipeline.control.biped_rig import SIDES, Frame, Rig
from pipeline.control.biped_torques import (H0, HEADING, MAX_F_COR, PARAMS, PHASE, STANCE, STARTING, STYLE,
                                            SWING_HEADING, WALKING)
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
    "heel_guard": True,      # walking forwards, no ankle share that loads a heel whose toes are off (biped_torques)
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
    # per-joint style trajectories over the phase (biped_torques.STYLE); an absent one keeps
    # the zero gait (and knee_bend)
    "style": {},
    "style_weight": 1.0,     # w: the style's targets blended w style + (1 - w) zero gait
    # parameters scheduled by V_d: knots [V_d, value], linear between them (biped_machine)
    "by_speed": {},
}
COMMAND_KEYS = ("mode", "speed", "heading", "step_time", "step_height", "step_width", "lean",
                "knee_bend", "alpha")


def _spline_table(knots) -> np.ndarray:
    """The (3, n) knots, values and tangents of a CatmullRom through knots, as the kernel reads them."""
    h = CatmullRom(knots)
    return np.array([h.t, h.v, h.m])


def _repeated_phase(params) -> str | None:
    """The first knot list (swing_height, style.*) with two knots at one phase, which no
    spline passes through, as a message."""
    lists = {"swing_height": params["swing_height"],
             **{f"style.{k}": v for k, v in params["style"].items()}}
    for name, knots in lists.items():
        phases = [float(t) for t, _ in knots]
        if len(set(phases)) < len(phases):
            return f"biped_walk.{name}: two knots at one phase ({sorted(phases)}); each phase may appear once"
    return None


def _bad_schedule(params, given) -> str | None:
    """The first by_speed schedule of a parameter also given as a scalar (`given`, the
    scene's keys), or whose knots' speeds do not increase, as a message."""
    both = sorted(set(params["by_speed"]) & set(given))
    if both:
        return f"biped_walk: {', '.join(both)} given both as a value and in by_speed; give one"
    for name, knots in params["by_speed"].items():
        speeds = [float(v) for v, _ in knots]
        if any(b <= a for a, b in zip(speeds, speeds[1:])):
            return f"biped_walk.by_speed.{name}: knot speeds {speeds} must increase"
    return None


class BipedWalk:
    """One biped's walking controller; part of the run's Data (copied with forks). Its run
    state is the float vector `s` (pipeline/control/biped_machine.py), which one kernel
    moves on by a frame: here at a frame boundary, inside the step loop at the frame
    starts of a stretch that needs no Python (`in_kernel`, pipeline/control/
    biped_frames.py). Commands change `p` and the parameters in `s`."""

    in_kernel = True

    def __init__(self, name: str, rig: Rig, params: dict, x_start: np.ndarray, heading0: float,
                 pelvis_height: float):
        self.name = name
        self.rig = rig
        self.p = params
        self.index = -1  # its row in the Simulation's Bipeds
        self.s = np.zeros(NSTATE)
        self.out = np.zeros(len(CHANNELS))  # the channels of its last frame
        self._strikes: list[tuple[float, str, float, float]] = []
        knots = params["swing_height"]
        self.knots = _spline_table(knots)
        self.knots_back = _spline_table([(t, v if t < 1.0 else 0.0) for t, v in knots])
        self.style = [_spline_table(params["style"][k]) if k in params["style"] else None for k in STYLE]
        s = self.s
        s[H0] = pelvis_height  # nominal pelvis height (falls, limp blend)
        s[HEADING] = s[SWING_HEADING] = s[STANCE_YAW] = heading0
        s[STARTING] = -1.0  # the future stance side while shifting weight to start
        s[WALKING] = params["mode"] == "walk"
        s[TURN_GOAL] = params["heading"]  # the heading being turned to (p["heading"] once started)
        s[SWING_START:SWING_START + 3] = x_start
        self._fill()
        self.names = [f"{name}_{k}" for k in CHANNELS]
        self.channel = dict(zip(CHANNELS, self.names))

    # ------------------------------------------------------------------ commands
    def command(self, args: dict) -> None:
        scheduled = sorted(set(args) & set(self.p["by_speed"]))
        if scheduled:
            raise CorpusError(f"walk: cannot set {', '.join(scheduled)}: scheduled by speed (biped_walk.by_speed)")
        for k, v in args.items():
            self.p[k] = v if k in ("mode", "recover") else float(v)
        if "speed" in args and not self.walking and float(args["speed"]) != 0.0:
            self.p["mode"] = "walk"
        if self.p["mode"] == "stand":
            self.s[WALKING] = 0.0
            self.s[STARTING] = -1.0
        if "heading" in args:
            size = abs(math.remainder(self.p["heading"] - self.heading, 2 * math.pi))
            self.s[TURN_SIZE] = size
            if size <= BIG_TURN or not self.walking:
                self.s[TURN_GOAL] = self.p["heading"]
        self._fill()

    def _fill(self) -> None:
        """The kernel's parameters from the current ones; the coronal force clamp scaled to
        the character (biped_rig.coronal_force_scale)."""
        p, s = self.p, self.s
        s[PAR:PAR + len(PARAMS)] = [float(p[k]) for k in PARAMS]
        s[PAR + MAX_F_COR] *= self.rig.coronal_scale
        s[C_SPEED:C_SPEED + len(COMMANDED)] = [float(p["mode"] == "walk") if k == "mode"
                                                else float(bool(p[k])) if k == "recover" else float(p[k])
                                                for k in COMMANDED]

    # ------------------------------------------------------------------ per frame
    def __call__(self, sim, t: float) -> None:
        d = sim.data
        biped_frame(sim.bipeds.tables, self.index, sim.model.tree, sim.sensors.kinematics(),
                    sim.sensors.contact_wrenches(), t, sim.dt, d.ctrl, d.forces.damping, self.s, self.out)
        if self.s[STRUCK]:
            self._strikes.append((t, SIDES[int(self.s[STANCE])], float(self.s[STRIKE_X]), float(self.s[STRIKE_Y])))
        self.publish(d.channels)

    def log_strikes(self, rows: np.ndarray) -> None:
        """Foot-strikes (time, stance side, x, y) that the step loop logged."""
        self._strikes += [(t, SIDES[int(side)], x, y) for t, side, x, y in rows.tolist()]

    def publish(self, channels: dict) -> None:
        channels.update(zip(self.names, self.out.tolist()))

    # ------------------------------------------------------------------ state, read
    @property
    def strikes(self) -> list[tuple[float, str, float, float]]:
        """(time, stance side, x, y) of every foot-strike: the new stance foot's place."""
        return list(self._strikes)

    @property
    def walking(self) -> bool:
        return bool(self.s[WALKING])

    @property
    def fell(self) -> bool:
        return bool(self.s[FELL])

    @property
    def stance(self) -> str:
        return SIDES[int(self.s[STANCE])]

    @property
    def phase(self) -> float:
        return float(self.s[PHASE])

    @property
    def steps(self) -> int:
        return int(self.s[STEPS])

    @property
    def recoveries(self) -> int:
        """Recovery steps taken from standing."""
        return int(self.s[RECOVERIES])

    @property
    def starting(self) -> str | None:
        return None if self.s[STARTING] < 0 else SIDES[int(self.s[STARTING])]

    @property
    def heading(self) -> float:
        """The slewed desired heading."""
        return float(self.s[HEADING])

    @property
    def par(self) -> np.ndarray:
        """The torque kernel's parameters (biped_torques.PARAMS)."""
        return self.s[PAR:PAR + len(PARAMS)]


def make_biped_walk_controller(sim, ref) -> BipedWalk:
    script = ref.script
    name = script.get("controller", "biped_walk")
    params = dict(DEFAULTS)
    given = script.get("biped_walk", {}) or {}
    params.update(given)
    problem = _repeated_phase(params) or _bad_schedule(params, given)
    if problem:
        raise CorpusError(located(problem, ref.where))
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
    controller = BipedWalk(name, rig, params, f.x[rig.b("right_foot")], heading0, float(f.x[pelvis, 2]))
    sim.data.user.setdefault("biped_walk", {})[creature] = controller
    s = controller.s
    R = f.R[pelvis]
    controller.out[:] = [s[STANCE], s[PHASE], s[WALKING], s[FELL], s[C_SPEED],
                         math.cos(heading0) * f.com_vel[0] + math.sin(heading0) * f.com_vel[1],
                         math.atan2(R[1, 0], R[0, 0]), heading0, s[STEPS]]
    controller.publish(sim.data.channels)
    return controller


def walk_command(sim, args: dict) -> None:
    """`walk: {speed, heading, step_time, step_height, step_width, lean, knee_bend, mode}`
    for the named (or only) biped_walk controller."""
    forward_to_controller(sim, "walk", "biped_walk", args)


register_controller_kind("biped_walk", make_biped_walk_controller)
register_command("walk", walk_command)
