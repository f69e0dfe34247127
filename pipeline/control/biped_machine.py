"""One frame of Coros's walking controller as one numba kernel over plain arrays: the
stance machine, the start and stop triggers, the recovery step, fall detection and the
heading's slew (pipeline/control/biped_walk_controller.py documents the order), then the
torques (pipeline/control/biped_torques.py). The step loop calls it at every frame start
(pipeline/control/biped_frames.py), so a walking biped runs no Python inside a stretch.

A controller's whole run state is one float vector `s` (a row of the step loop's state
table): biped_torques' `st` first, then the machine's own state, the torque kernel's
`par` and the commanded values that are not in `par`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.biped_pd import fdot, heading_of, rot_z
from pipeline.control.biped_rig import FOOT, PELVIS, biped_kinematics, slot
from pipeline.control.biped_torques import (H0, HEADING, HEADING_RATE, PARAMS, PHASE, SPEED, STANCE, STARTING,
                                            STEP_TIME, STEP_WIDTH, SWING_HEADING, WALKING, biped_torques)

# s: biped_torques' st (STANCE .. SWING_HEADING), then the machine's state: the slewed V_d,
# the heading being turned to and the size of the commanded turn, the stance foot's yaw at
# its strike, fell (0/1), recovery steps, steps, whether this frame ended a step (and where
# the new stance foot struck), and three points: the swing foot at the step's start, the
# COM when a start began, the swing foot's placement (biped_torques' target)
(V_D, TURN_GOAL, TURN_SIZE, STANCE_YAW, FELL, RECOVERIES, STEPS, STRUCK, STRIKE_X,
 STRIKE_Y) = range(SWING_HEADING + 1, SWING_HEADING + 11)
SWING_START = STRIKE_Y + 1
START_COM = SWING_START + 3
TARGET = START_COM + 3
PAR = TARGET + 3  # biped_torques' par
# the commanded values beside par: V_d and heading as commanded, mode (1 walk, 0 stand)
# and the controller's parameters that only the machine reads
COMMANDED = ("speed", "heading", "mode", "acceleration", "runaway_step", "stop_speed", "turn_rate",
             "turn_step", "recover", "recover_margin")
(C_SPEED, C_HEADING, C_WALK, C_ACCELERATION, C_RUNAWAY_STEP, C_STOP_SPEED, C_TURN_RATE, C_TURN_STEP,
 C_RECOVER, C_RECOVER_MARGIN) = range(PAR + len(PARAMS), PAR + len(PARAMS) + len(COMMANDED))
NSTATE = C_RECOVER_MARGIN + 1
# the channels of a frame, in this order (`<controller>_<name>`)
CHANNELS = ("stance", "phase", "walking", "fell", "speed_command", "com_speed", "heading",
            "heading_command", "steps")

# the stance machine (SIMBICON, the released code's rule): a step ends when the swing foot
# strikes after half the step (its vertical ground force over STRIKE_FORCE N) or at phi = 1
MIN_PHASE, STRIKE_FORCE = 0.5, 20.0
# turning, as the released code's TurnController (digest §3.2.6): a turn of more than
# BIG_TURN rad starts at the next foot-strike; while the heading is more than TURN_DONE rad
# from the command, V_d is clamped to TURN_SPEED, or TURN_SPEED_SHARP for turns over SHARP_TURN
BIG_TURN, TURN_DONE, SHARP_TURN = 1.0, 0.2, 2.5
TURN_SPEED_LO, TURN_SPEED_HI = -0.5, 0.6
TURN_SPEED_SHARP_LO, TURN_SPEED_SHARP_HI = -0.2, 0.3
# the COM runs away (the TurnController's test): faster than RUNAWAY x V_d and RUNAWAY_SPEED
RUNAWAY, RUNAWAY_SPEED = 1.5, 0.5
TWO_PI = 2 * math.pi


class BipedTables(NamedTuple):
    """The bipeds of one simulation, stacked (k: the biped, in scene order), as their Rigs
    (pipeline/control/biped_rig.py) give them; `bodies` and `others` hold nbodies[k] and
    nothers[k] entries; `knots` the swing height's spline table forwards (0) and backwards
    (1), padded by repeating its last knot (which evaluates the same); `style` the style
    trajectories' tables (biped_torques.STYLE) padded alike, `styled` which were given;
    `schedule` each parameter's (biped_torques.PARAMS) knots [V_d, value] as rows V_d and
    value, its first `scheduled` columns used (0: not scheduled)."""

    idx: np.ndarray  # (n, 23)
    parent: np.ndarray  # (nb,)
    mass: np.ndarray  # (n, nb)
    total_mass: np.ndarray  # (n,)
    bodies: np.ndarray  # (n, nb)
    nbodies: np.ndarray  # (n,)
    others: np.ndarray  # (n, nb)
    nothers: np.ndarray  # (n,)
    feet: np.ndarray  # (n, 4)
    jtype: np.ndarray  # (n, 22)
    jvadr: np.ndarray
    jaxes: np.ndarray  # (n, 22, 2, 3)
    jgain: np.ndarray  # (n, 22, 3)
    jlimit: np.ndarray  # (n, 22, 3, 2)
    jlimited: np.ndarray
    jmirror: np.ndarray
    root_gains: np.ndarray  # (n, 3)
    thigh: np.ndarray  # (n, 2)
    shin: np.ndarray
    sole: np.ndarray  # (n, 4)
    knots: np.ndarray  # (n, 2, 3, K)
    style: np.ndarray  # (n, len(STYLE), 3, K')
    styled: np.ndarray  # (n, len(STYLE)) bool
    schedule: np.ndarray  # (n, len(PARAMS), 2, K'')
    scheduled: np.ndarray  # (n, len(PARAMS)) knot counts


@numba.njit(cache=True)
def remainder(x, y):
    """Python's math.remainder (IEEE 754: x - n y, n the nearest integer to x / y, ties to
    even), exactly, for finite x and y != 0."""
    ax, ay = abs(x), abs(y)
    m = np.fmod(ax, ay)
    c = ay - m
    if m < c:
        r = m
    elif m > c:
        r = -c
    else:
        r = m - 2.0 * np.fmod(0.5 * (ax - m), ay)
    return math.copysign(1.0, x) * r


@numba.njit(cache=True)
def limit(x, most):
    """x within +-most (Python's max(-most, min(most, x)), signed zeros included)."""
    y = x if x < most else most
    return y if y > -most else -most


@numba.njit(cache=True)
def advance_stance(s, dt, step_time, swing_grf):
    """Advance the step by dt; True when a new step began (the legs swapped)."""
    s[PHASE] += dt / step_time
    if s[PHASE] >= 1.0 or (s[PHASE] > MIN_PHASE and swing_grf > STRIKE_FORCE):
        s[STANCE] = 1.0 - s[STANCE]
        s[PHASE] = 0.0
        s[STEPS] += 1.0
        return True
    return False


@numba.njit(cache=True)
def biped_frame(bt, k, tree, work, wrench, t, dt, ctrl, damping, s, out):
    """Biped k's frame at time t from a kinematics pass `work` and the contact wrenches of
    the same state: its state s moves on, its joint forces go into ctrl and the joints'
    damping into damping, its channels (CHANNELS) into out."""
    nb = tree.parent.shape[0]
    R = np.empty((nb, 3, 3))
    x = np.empty((nb, 3))
    omega = np.empty((nb, 3))
    body_com = np.empty((nb, 3))
    com_state = np.empty(6)
    grf = np.zeros(4)  # each foot's vertical ground force, then its toes' part (biped_kinematics)
    idx = bt.idx[k]
    touching = biped_kinematics(tree, work, bt.mass[k], bt.bodies[k, :bt.nbodies[k]], wrench, bt.feet[k],
                                bt.others[k, :bt.nothers[k]], R, x, omega, body_com, com_state, grf)
    com, com_vel = com_state[:3], com_state[3:]
    if touching or x[idx[PELVIS], 2] < 0.5 * s[H0]:
        s[FELL] = 1.0
    par = s[PAR:PAR + len(PARAMS)]
    walking = s[WALKING] > 0.5
    _slew_heading(s, dt, walking)
    turning = abs(remainder(s[C_HEADING] - s[HEADING], TWO_PI)) > TURN_DONE
    # the released code's TurnController: slow down while turning, more for sharp turns
    sharp = s[TURN_SIZE] > SHARP_TURN
    lo = TURN_SPEED_SHARP_LO if sharp else TURN_SPEED_LO
    hi = TURN_SPEED_SHARP_HI if sharp else TURN_SPEED_HI
    # V_d follows the command at most `acceleration` m/s^2 (a step of 1.4 m/s from
    # standing spun the stance foot and fell within two steps)
    if walking:
        s[V_D] += limit(s[C_SPEED] - s[V_D], s[C_ACCELERATION] * dt)
    else:
        s[V_D] += -s[V_D]
    if turning:
        v = lo if lo > s[V_D] else s[V_D]
        par[SPEED] = hi if hi < v else v
    else:
        par[SPEED] = s[V_D]
    _schedule(bt.schedule[k], bt.scheduled[k], par)
    s[STRUCK] = 0.0
    if walking:
        if _runaway(bt, k, s, x, com_vel):
            s[PHASE] = 1.0  # the step ends now
        if advance_stance(s, dt, par[STEP_TIME], grf[1 - int(s[STANCE])]):
            _foot_strike(bt, k, s, R, x, com_vel)
    elif s[C_WALK] > 0.5:
        _maybe_start(bt, k, s, R, x, com, par[STEP_WIDTH])
    elif s[C_RECOVER] > 0.5 and _off_balance(bt, k, s, x, com, com_vel):
        _recovery_step(bt, k, s, R, x, com_vel)
    # the swing foot lands facing where the pelvis will head halfway through its stance,
    # at most turn_step from the stance foot; its twist turns toward that at the turn
    # rate (a jump twisted the swing hip hard, root control put the reaction on the
    # stance foot; at twice the rate the reaction turned the pelvis the wrong way and
    # spun a stance foot on its heel)
    goal = _turn_toward(s, s[C_TURN_STEP])
    s[SWING_HEADING] += limit(remainder(goal - s[SWING_HEADING], TWO_PI), s[C_TURN_RATE] * dt)
    knots = bt.knots[k, 1 if s[V_D] < 0.0 else 0]
    biped_torques(R, x, omega, body_com, com, com_vel, grf, idx, bt.parent, bt.mass[k], bt.total_mass[k],
                  bt.jtype[k], bt.jvadr[k], bt.jaxes[k], bt.jgain[k], bt.jlimit[k], bt.jlimited[k], bt.jmirror[k],
                  bt.root_gains[k], bt.thigh[k], bt.shin[k], bt.sole[k], par, s, s[SWING_START:SWING_START + 3],
                  knots, bt.style[k], bt.styled[k], ctrl, damping, s[TARGET:TARGET + 3])
    pelvis = R[idx[PELVIS]]
    out[0] = s[STANCE]
    out[1] = s[PHASE]
    out[2] = s[WALKING]
    out[3] = s[FELL]
    out[4] = s[C_SPEED]
    out[5] = math.cos(s[HEADING]) * com_vel[0] + math.sin(s[HEADING]) * com_vel[1]
    out[6] = math.atan2(pelvis[1, 0], pelvis[0, 0])  # the pelvis's facing (x axis)
    out[7] = s[HEADING]
    out[8] = s[STEPS]


@numba.njit(cache=True)
def _schedule(schedule, scheduled, par):
    """The parameters scheduled by speed (`by_speed`) at this frame's V_d: linear between
    their knots, held beyond the end ones."""
    for i in range(scheduled.shape[0]):
        n = scheduled[i]
        if n > 0:
            par[i] = np.interp(par[SPEED], schedule[i, 0, :n], schedule[i, 1, :n])


@numba.njit(cache=True)
def _turn_toward(s, most):
    """The heading being turned to, at most `most` from the stance foot's yaw."""
    return s[STANCE_YAW] + limit(remainder(s[TURN_GOAL] - s[STANCE_YAW], TWO_PI), most)


@numba.njit(cache=True)
def _slew_heading(s, dt, walking):
    """Slew the desired heading at the turn rate toward the turn's goal, but while walking
    no further than half a turn step from the stance foot: the pelvis turns over the
    planted foot by the stance hip's twist, and a whole sharp turn at once twisted it
    50-60 degrees, the foot rolled onto its edge or spun, and it fell."""
    goal = _turn_toward(s, 0.5 * s[C_TURN_STEP]) if walking else s[TURN_GOAL]
    turn = limit(remainder(goal - s[HEADING], TWO_PI), s[C_TURN_RATE] * dt)
    s[HEADING] += turn
    s[HEADING_RATE] = turn / dt


@numba.njit(cache=True)
def _foot(bt, k, x, side):
    return x[bt.idx[k, slot(side, FOOT)]]


@numba.njit(cache=True)
def _runaway(bt, k, s, x, com_vel):
    """End the step early when the COM runs away with the swing foot already far ahead:
    the released code's BehaviourController::shouldAbort (past phi = 0.2, the swing
    foot 0.6 m ahead of the stance foot, about 0.7 of BipV3's leg, while the COM moves
    forwards faster than 0.2 m/s), taken only while the COM runs away as its
    TurnController judges it (faster than 1.5 V_d and 0.5 m/s), so a long stride at
    speed keeps its step. Pushed from behind late in a step, the swing foot landed
    short and the COM vaulted over it at 2 m/s; waiting for the next foot's strike, it
    landed with the pelvis dropped to 0.66 m and the knee bent 1.6 rad, whose
    straightening threw the biped off the ground (docs/biped.md, W4)."""
    if s[C_RUNAWAY_STEP] <= 0.0 or s[PHASE] <= 0.2:
        return False
    v = math.sqrt(fdot(com_vel, com_vel, 2))
    fast = RUNAWAY * abs(s[PAR + SPEED])
    if v <= (RUNAWAY_SPEED if RUNAWAY_SPEED > fast else fast):
        return False
    stance = int(s[STANCE])
    swing = 1 - stance
    fwd = rot_z(s[HEADING])[:, 0].copy()
    ahead = fdot(_foot(bt, k, x, swing) - _foot(bt, k, x, stance), fwd, 3)
    return (ahead > s[C_RUNAWAY_STEP] * (bt.thigh[k, swing] + bt.shin[k, swing])
            and fdot(com_vel, fwd, 3) > 0.2)


@numba.njit(cache=True)
def _new_stance(bt, k, s, R, x, stance):
    """A step begins on `stance`: the swing foot's start and the stance foot's yaw."""
    s[STANCE] = stance
    s[SWING_START:SWING_START + 3] = _foot(bt, k, x, 1 - stance)
    s[STANCE_YAW] = heading_of(R[bt.idx[k, slot(stance, FOOT)]])


@numba.njit(cache=True)
def _foot_strike(bt, k, s, R, x, com_vel):
    stance = int(s[STANCE])
    foot = _foot(bt, k, x, stance)
    s[STRUCK] = 1.0
    s[STRIKE_X] = foot[0]
    s[STRIKE_Y] = foot[1]
    # a sharp turn starts at a foot-strike, on the foot outside the turn
    err = remainder(s[C_HEADING] - s[HEADING], TWO_PI)
    if abs(err) <= BIG_TURN or stance == (1 if err > 0 else 0):
        s[TURN_GOAL] = s[C_HEADING]
    _new_stance(bt, k, s, R, x, stance)
    if s[C_SPEED] == 0.0 and math.sqrt(fdot(com_vel, com_vel, 2)) < s[C_STOP_SPEED]:
        s[WALKING] = 0.0
        s[C_WALK] = 0.0


@numba.njit(cache=True)
def _off_balance(bt, k, s, x, com, com_vel):
    """Standing: does the capture point (COM + v sqrt(h/g), where an inverted pendulum
    comes to rest) leave the feet's sole rectangle, shrunk by a margin (Coros §5.5: the
    COM near the support's edge or moving faster than epsilon)?"""
    heading = rot_z(s[HEADING])
    z0, z1 = _foot(bt, k, x, 0)[2], _foot(bt, k, x, 1)[2]
    lowest = z1 if z1 < z0 else z0
    h = com[2] - lowest
    h = 0.1 if 0.1 > h else h
    point = com + com_vel * math.sqrt(h / 9.8)
    cp = np.empty(2)
    ankles = np.empty((2, 2))
    for i in range(2):
        cp[i] = fdot(heading[:, i].copy(), point, 3)
        for side in range(2):
            ankles[side, i] = fdot(heading[:, i].copy(), _foot(bt, k, x, side), 3)
    sole = bt.sole[k]
    heel, front, right, left = sole[0], sole[1], sole[2], sole[3]
    margin = s[C_RECOVER_MARGIN]
    return not (min(ankles[0, 0], ankles[1, 0]) + heel + margin < cp[0] < max(ankles[0, 0], ankles[1, 0]) + front - margin
                and min(ankles[0, 1], ankles[1, 1]) + right + margin < cp[1] < max(ankles[0, 1], ankles[1, 1]) + left - margin)


@numba.njit(cache=True)
def _recovery_step(bt, k, s, R, x, com_vel):
    """Walk at V_d = 0 until a foot-strike slow enough to stand again (Coros §5.5); the
    foot on the side the COM moves toward swings."""
    v_left = fdot(com_vel, rot_z(s[HEADING])[:, 1].copy(), 2)
    s[WALKING] = 1.0
    s[PHASE] = 0.0
    _new_stance(bt, k, s, R, x, 1 if v_left > 0 else 0)
    s[RECOVERIES] += 1.0


@numba.njit(cache=True)
def _maybe_start(bt, k, s, R, x, com, step_width):
    """Start walking: shift the COM toward the future stance foot; the step (a
    foot-strike) begins once it has moved 40 % of the way (Coros §5.5)."""
    if s[STARTING] < 0:
        s[STARTING] = 0.0 if step_width >= 0 else 1.0
        s[START_COM:START_COM + 3] = com
        return
    side = int(s[STARTING])
    start = s[START_COM:START_COM + 3]
    to_foot = _foot(bt, k, x, side) - start
    moved = com - start
    full = math.sqrt(fdot(to_foot, to_foot, 2))
    if full > 0 and math.sqrt(fdot(moved, moved, 2)) >= 0.4 * full:
        s[WALKING] = 1.0
        s[PHASE] = 0.0
        _new_stance(bt, k, s, R, x, side)
        s[STARTING] = -1.0
