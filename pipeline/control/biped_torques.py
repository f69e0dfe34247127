"""One frame of the biped controller's torques as a numba kernel over plain arrays (Coros
2010 Ch. 5, in the released code's order, digest §3.2.5): the motion generator's targets,
the swing leg toward the inverted-pendulum foot placement by two-link IK, quaternion PD,
gravity compensation, the virtual COM force and the stance hip's root control; then world
torques to generalized forces. The stance machine, triggers and falls
(pipeline/control/biped_machine.py) hand this kernel their state in `st` and the gait and
style parameters in `par`; docs/biped.md explains every layer.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.control.biped_gait import catmull_rom, ipm_step, two_link_ik
from pipeline.control.biped_pd import (ball_pd, clamp_norm, clip, clip_axes, cross, dot, exp_rot, heading_of,
                                       hinge_angle, log_rot, mirror, mm, mtm, mtv, mv, rot_y, rot_z, universal_angles)
from pipeline.control.biped_rig import (FOOT, HEAD, LOWER_ARM, LOWER_BACK, LOWER_LEG, PELVIS, TOES, TORSO,
                                        UPPER_ARM, UPPER_LEG, slot)
from pipeline.physics.model import BALL, REVOLUTE, UNIVERSAL

# par: the gait and style parameters (names as in the controller's YAML)
PARAMS = ("speed", "step_time", "step_height", "step_width", "lean", "knee_bend", "alpha",
          "ipm_gain", "ipm_gain_coronal", "max_step", "k_v", "coronal_kp", "coronal_kd",
          "max_force_sagittal", "max_force_coronal", "stand_kp", "stand_kd", "ipm",
          "gravity_compensation", "velocity_tuning", "yaw_friction", "twist_damping", "heel_guard",
          "style_weight")
(SPEED, STEP_TIME, STEP_HEIGHT, STEP_WIDTH, LEAN, KNEE_BEND, ALPHA, IPM_GAIN, IPM_GAIN_COR, MAX_STEP, K_V,
 COR_KP, COR_KD, MAX_F_SAG, MAX_F_COR, STAND_KP, STAND_KD, IPM, GC, VT, YAW_FRICTION, TWIST_DAMPING,
 HEEL_GUARD, STYLE_WEIGHT) = range(len(PARAMS))
# st: the controller's state: stance side (0 left, 1 right), phase, walking (0/1), the side
# the COM shifts toward before a first step (-1: none), the slewed desired heading, the
# nominal pelvis height, the desired heading's rate (rad/s), the heading the swing foot
# lands facing (the anticipatory foot plant of a turn)
STANCE, PHASE, WALKING, STARTING, HEADING, H0, HEADING_RATE, SWING_HEADING = range(8)
# the style trajectories over the phase (the controller's `style:` block), in their table's order
STYLE = ("stance_knee", "stance_ankle", "swing_ankle")
STANCE_KNEE, STANCE_ANKLE, SWING_ANKLE = range(len(STYLE))

G = 9.8
FD_TIME = 0.001  # s, the swing path's finite-difference step for desired joint rates
MAX_RATE = 5.0  # rad/s, their clamp (released code)
# Coros's body bend: fixed ratios of one sagittal lean angle (released code, digest §3.2.1)
LEAN_PELVIS, LEAN_LOWER_BACK, LEAN_TORSO, LEAN_HEAD = 1.0, 1.5, 2.5, 3.0
MIDFOOT = 0.03  # m, the foot's middle ahead of the ankle (standing balance target)


@numba.njit(cache=True)
def biped_torques(R, x, omega, body_com, com, com_vel, grf, idx, parent, mass, total_mass,
                  jtype, jvadr, jaxes, jgain, jlimit, jlimited, jmirror, root_gains, thigh, shin, sole,
                  par, st, swing_start, knots, style, styled, ctrl, damping, target):
    """Write this frame's joint forces into ctrl and the joints' damping (kd, which the
    implicit integrator takes at the step's end) into damping; target gets the swing
    foot's placement. grf: the vertical ground force on each foot (left, right), then its
    toes' part (left, right); sole: the
    foot's extent about the ankle (heel, front, right side, left side; foot axes); thigh
    and shin: each leg's lengths (left, right); style: the spline tables of STYLE, those
    with styled[i] given."""
    nb = R.shape[0]
    nj = jtype.shape[0]
    tau = np.zeros((nb, 3))  # world torque of every joint, acting on its child
    walking = st[WALKING] > 0.5
    stance = int(st[STANCE])
    pel = idx[PELVIS]
    ccf = rot_z(heading_of(R[pel]))
    fwd = ccf[:, 0].copy()
    left = ccf[:, 1].copy()

    # targets: world (character-frame) ones for the back, head and feet; parent-relative
    # for the rest; none for the stance hip, which root control drives
    Rt = np.empty((nj, 3, 3))
    world = np.zeros(nj, np.bool_)
    wdes = np.zeros((nj, 3))  # desired relative angular velocities, child axes
    lean = par[LEAN]
    Rt[LOWER_BACK - 1] = mm(ccf, rot_y(lean * LEAN_LOWER_BACK))
    Rt[TORSO - 1] = mm(ccf, rot_y(lean * LEAN_TORSO))
    Rt[HEAD - 1] = mm(ccf, rot_y(lean * LEAN_HEAD))
    world[LOWER_BACK - 1] = world[TORSO - 1] = world[HEAD - 1] = True
    knee = rot_y(par[KNEE_BEND])
    for s in range(2):
        # the feet flat, each with its own yaw: the universal ankle cannot yaw, and a flat
        # target in the pelvis's heading asks a foot whose leg is twisted from it for a
        # tilt (19 degrees at 40 degrees of twist and 20 of lean), which rolled the stance
        # foot onto its edge in turns
        world[slot(s, FOOT) - 1] = True
        Rt[slot(s, FOOT) - 1] = rot_z(heading_of(R[idx[slot(s, FOOT)]]))
        for part in (UPPER_ARM, LOWER_ARM, TOES, UPPER_LEG):
            Rt[slot(s, part) - 1] = np.eye(3)
        Rt[slot(s, LOWER_LEG) - 1] = knee
    if walking:
        _style(style, styled, st[PHASE], stance, par[STYLE_WEIGHT], par[KNEE_BEND], Rt)
        _swing_leg(R, x, com, com_vel, idx, thigh, shin, par, st, swing_start, knots, fwd, left,
                   Rt, wdes, target)
    for k in range(nj):
        if walking and k == slot(stance, UPPER_LEG) - 1:
            continue
        b = idx[k + 1]
        p = parent[b]
        R_des = mtm(R[p], Rt[k]) if world[k] else Rt[k]
        tau[b] = _pd(R[p], R[b], R_des, -wdes[k], jtype[k], jaxes[k], jgain[k], jlimit[k],
                     jlimited[k], jmirror[k])

    if par[GC] > 0.5:
        _gravity_compensation(x, body_com, idx, parent, mass, walking, stance, tau)
    extra = np.zeros(3)
    if par[VT] > 0.5 or not walking:
        extra = _virtual_force(R, x, body_com, com, com_vel, grf, idx, mass, total_mass, sole, par, st, fwd, left,
                               tau)
    _hips(R, omega, grf, idx, jtype, jaxes, jgain, root_gains, par, st, extra, tau)
    _apply(R, x, idx, parent, jtype, jvadr, jaxes, jgain, par, st, tau, ctrl, damping)


@numba.njit(cache=True)
def _style(style, styled, phi, stance, weight, knee_bend, Rt):
    """The style trajectories given replace their zero-gait targets at phase phi: the stance
    knee's bend (knee_bend's), the feet's pitch (toes down positive) about their own
    lateral axis; a weight w < 1 (style_weight) blends them, w style + (1 - w) zero gait.
    Pitch about the lateral axis is its own mirror image, so both sides take the same
    rotation."""
    for i in range(style.shape[0]):
        if not styled[i]:
            continue  # absent: today's target, untouched to the bit
        v = catmull_rom(style[i, 0], style[i, 1], style[i, 2], phi)
        if weight != 1.0:  # whole, the spline's value to the bit
            v = weight * v + (1.0 - weight) * (knee_bend if i == STANCE_KNEE else 0.0)
        if i == STANCE_KNEE:
            Rt[slot(stance, LOWER_LEG) - 1] = rot_y(v)
        else:
            foot = slot(stance if i == STANCE_ANKLE else 1 - stance, FOOT) - 1
            Rt[foot] = mm(Rt[foot], rot_y(v))


@numba.njit(cache=True)
def _swing_leg(R, x, com, com_vel, idx, thigh, shin, par, st, swing_start, knots, fwd, left, Rt, wdes,
               target):
    """The swing ankle's path toward the IPM foot placement, then two-link IK for the swing
    hip and knee, with desired rates by a finite difference along the path (Coros §5.3)."""
    stance = int(st[STANCE])
    swing = 1 - stance
    thigh, shin = thigh[swing], shin[swing]  # the swing leg's lengths
    stance_ankle = x[idx[slot(stance, FOOT)]]
    h = max(com[2] - stance_ankle[2], 0.1)
    v_sag, v_cor = dot(com_vel, fwd), dot(com_vel, left)
    side = 1.0 if swing == 0 else -1.0
    reach = par[MAX_STEP] * (thigh + shin)
    if par[IPM] > 0.5:
        sag = ipm_step(v_sag, h, par[SPEED], par[ALPHA], par[IPM_GAIN], True)
        cor = ipm_step(v_cor, h, 0.0, 0.0, par[IPM_GAIN_COR], True)
    else:  # ablation: a fixed stride L = V_d T centred under the COM
        sag, cor = 0.5 * par[SPEED] * par[STEP_TIME], 0.0
    sag = clip(sag, -reach, reach)
    cor = clip(cor + side * 0.5 * par[STEP_WIDTH], -reach, reach)
    target[:] = com + sag * fwd + cor * left
    hip = x[idx[slot(swing, UPPER_LEG)]]
    ground = stance_ankle[2]  # flat-footed stance ankle height
    phi = st[PHASE]
    # the IK plane (and with it the thigh's twist, so the foot's yaw) faces the heading the
    # foot should land with
    plane = rot_z(st[SWING_HEADING])[:, 0].copy()
    R_thigh, knee = _leg_at(phi, swing_start, target, ground, hip, thigh, shin, plane, par, knots)
    R_next, knee_next = _leg_at(phi + FD_TIME / par[STEP_TIME], swing_start, target, ground, hip, thigh,
                                shin, plane, par, knots)
    hip_k = slot(swing, UPPER_LEG) - 1
    knee_k = slot(swing, LOWER_LEG) - 1
    w_hip = log_rot(mtm(R_thigh, R_next)) / FD_TIME
    for i in range(3):
        wdes[hip_k, i] = clip(w_hip[i], -MAX_RATE, MAX_RATE)
    wdes[knee_k, 1] = clip((knee_next - knee) / FD_TIME, -MAX_RATE, MAX_RATE)
    Rt[knee_k] = rot_y(knee)
    Rt[hip_k] = mtm(R[idx[PELVIS]], R_thigh)


@numba.njit(cache=True)
def _leg_at(phi, start, target, ground, hip, thigh, shin, fwd, par, knots):
    phi = min(phi, 1.0)
    ankle = (1.0 - phi) * start + phi * target
    ankle[2] = ground + catmull_rom(knots[0], knots[1], knots[2], phi) + par[STEP_HEIGHT] * 4 * phi * (1 - phi)
    return two_link_ik(hip, ankle, thigh, shin, fwd)


@numba.njit(cache=True)
def _pd(Rp, Rc, R_des, dw, jt, axes, gain, limit, limited, mirrored):
    """World torque of a joint toward the relative target R_des (parent <- child) with dw
    the relative angular velocity's part to damp here (child axes). The damping -kd w
    itself acts in the engine (_apply): explicit at the frame rate it is unstable on light
    links (a 1 kg foot: kd dt / I = 6 at dt = 1 ms); only kd w_des stays here."""
    kp, kd, tmax = gain[0], gain[1], gain[2]
    R_rel = mtm(Rp, Rc)
    if jt == BALL:
        if limited:
            R_des = _ball_limit(R_des, limit, mirrored)
        return mv(Rc, clamp_norm(ball_pd(R_rel, R_des, dw, kp, kd), tmax))
    a1 = axes[0].copy()
    if jt == REVOLUTE:
        t = kp * (hinge_angle(R_des, a1) - hinge_angle(R_rel, a1)) - kd * dot(dw, a1)
        return clip(t, -tmax, tmax) * mv(Rc, a1)
    a2 = axes[1].copy()
    q1d, q2d = universal_angles(R_des, a1, a2)
    q1, q2 = universal_angles(R_rel, a1, a2)
    return clip(kp * (q1d - q1), -tmax, tmax) * mv(Rp, a1) + clip(kp * (q2d - q2), -tmax, tmax) * mv(Rc, a2)


@numba.njit(cache=True)
def _ball_limit(R_des, limit, mirrored):
    """Clamp a ball joint's target rotation vector to its limits (given for the left side;
    the engine limits scalar coordinates only)."""
    v = log_rot(mirror(R_des) if mirrored else R_des)
    for i in range(3):
        v[i] = clip(v[i], limit[i, 0], limit[i, 1])
    R = exp_rot(v)
    return mirror(R) if mirrored else R


@numba.njit(cache=True)
def _gravity_compensation(x, body_com, idx, parent, mass, walking, stance, tau):
    """tau_j += r x (m g) over every link off the stance leg (both legs while standing),
    for each joint between the link and the pelvis (Coros §5.4)."""
    nb = x.shape[0]
    m = mass.copy()
    for s in range(2):
        if s == stance or not walking:
            for part in (UPPER_LEG, LOWER_LEG, FOOT, TOES):
                m[idx[slot(s, part)]] = 0.0
    moment = np.zeros((nb, 3))
    for b in range(nb):
        if m[b] == 0.0:
            continue
        j = b
        while j >= 0:
            moment[j] += m[b] * (body_com[b] - x[j])
            j = parent[j]
    for k in range(1, idx.shape[0]):
        j = idx[k]
        tau[j, 0] += moment[j, 1] * G
        tau[j, 1] -= moment[j, 0] * G


@numba.njit(cache=True)
def _virtual_force(R, x, body_com, com, com_vel, grf, idx, mass, total_mass, sole, par, st, fwd, left, tau):
    """Velocity tuning (walking) or balance (standing): a virtual force on the COM through
    the stance leg's J^T, ankle -> knee -> hip (both legs while standing, split by their
    ground force). Walking or starting, the hip's share goes to the pelvis, since the hips
    are root-controlled then; returns that share.

    Standing, each ankle also carries the moment of the load on its foot about it, as if
    that load stood under the COM (along the heading, within the sole): without it the
    COM PD's rest point is where its pull balances gravity's tipping moment, about four
    times as far ahead as its target (kp h ~ 920 N m against m g = 690 N), beyond what the
    force clamp can hold, and the standing biped fell forward within 3 s."""
    walking = st[WALKING] > 0.5
    starting = st[STARTING] >= 0
    v_sag, v_cor = dot(com_vel, fwd), dot(com_vel, left)
    if walking:
        foot = x[idx[slot(int(st[STANCE]), FOOT)]]
        d_cor = dot(com - foot, left)
        f_sag = par[K_V] * (par[SPEED] - v_sag)
        f_cor = total_mass * (-par[COR_KP] * d_cor - par[COR_KD] * v_cor)
    else:
        if st[STARTING] >= 0:
            goal = x[idx[slot(int(st[STARTING]), FOOT)]].copy()
        else:
            goal = 0.5 * (x[idx[slot(0, FOOT)]] + x[idx[slot(1, FOOT)]])
        e = com - (goal + MIDFOOT * fwd)
        f_sag = -par[STAND_KP] * dot(e, fwd) - par[STAND_KD] * v_sag
        f_cor = -par[STAND_KP] * dot(e, left) - par[STAND_KD] * v_cor
    F = clip(f_sag, -par[MAX_F_SAG], par[MAX_F_SAG]) * fwd + clip(f_cor, -par[MAX_F_COR], par[MAX_F_COR]) * left
    total = 0.0
    for s in range(2):
        if not walking or s == int(st[STANCE]):
            total += max(grf[s], 0.0)
    if total == 0.0:
        total = 1.0
    root = np.zeros(3)
    chain = np.empty(5, np.int64)
    for s in range(2):
        if walking and s != int(st[STANCE]):
            continue
        Fs = F * (max(grf[s], 0.0) / total if not walking else 1.0)
        chain[0] = idx[slot(s, LOWER_LEG)]
        chain[1] = idx[slot(s, UPPER_LEG)]
        chain[2] = idx[PELVIS]
        chain[3] = idx[LOWER_BACK]
        chain[4] = idx[TORSO]
        for first in range(3):  # the ankle, knee and hip; each moves the links above it
            joint = idx[slot(s, FOOT)] if first == 0 else chain[first - 1]
            c = np.zeros(3)
            msum = 0.0
            for b in chain[first:]:
                c += mass[b] * body_com[b]
                msum += mass[b]
            torque = cross(c / msum - x[joint], Fs)
            if first == 2 and (walking or starting):
                root += torque
            elif first == 0 and grf[s] <= 0.0:
                continue  # the foot is not planted: no ankle torque (foot-roll guard)
            elif first == 0:
                # the ankle's share stays within what the loaded sole holds about the foot's
                # roll and pitch axes (the load times the half width, or the heel's or the
                # toes' distance from the ankle): more rolled the first stance foot 35
                # degrees onto its edge while the COM shifted toward it before the first
                # step, and in turns (the force along the pelvis's heading, the foot turned
                # from it) rolled the stance foot 60 degrees or lifted its heel at
                # mid-stance, and it spun on the edge
                n = grf[s]
                for i in range(2):
                    ax = R[joint][:, i].copy()
                    t = dot(torque, ax)
                    if i == 1 and t > 0.0 and walking and par[HEEL_GUARD] > 0.5 and par[SPEED] > 0.0 \
                            and grf[2 + s] <= 0.0:
                        # the foot-roll guard (Coros Ch. 5: no ankle share while the stance foot
                        # is not planted, its toes off the ground): the share that loads the heel
                        # of a foot whose toes bear no load holds the pressure on the heel. Pushed
                        # back and sideways, it held it on the heel's inner corner, where the foot
                        # holds no yaw: the stance foot and pelvis spun 70-120 degrees and the
                        # feet landed across each other (docs/biped.md, W4). Only while it drives
                        # the body along its walk (V_d > 0): walking backwards it is the brake, as
                        # the share that loads the front is walking forwards, and either dropped
                        # let the COM run away (to -1.65 m/s and a fall; to 1.7 m/s after a push
                        # from the front), the next foot placement being the only other brake
                        torque -= t * ax
                        continue
                    # the joint gets -torque: about x the load to the side balances it, about y the load ahead
                    lo, hi = (-0.5 * (sole[3] - sole[2]) * n, 0.5 * (sole[3] - sole[2]) * n) if i == 0 else (-n * sole[1], -n * sole[0])
                    torque -= (t - clip(t, lo, hi)) * ax
                tau[joint] -= torque
            else:
                tau[joint] -= torque  # the joint's child is below it
        if not walking and grf[s] > 0.0:
            ankle = idx[slot(s, FOOT)]
            r = clip(dot(com - x[ankle], fwd), sole[0], sole[1])
            tau[ankle] += (r * grf[s]) * left  # (r fwd) x (grf z) on the shank, as seen by the foot
    return root


@numba.njit(cache=True)
def _hips(R, omega, grf, idx, jtype, jaxes, jgain, root_gains, par, st, extra, tau):
    """Walking, the stance hip gives the pelvis its desired net torque:
    tau_stance = -tau_root - (the other root children's torques) (Eq. 2.3), all of it (the
    released code's split by the feet's ground-force shares loaded the trailing hip right
    after a strike, and the new stance foot, barely loaded yet, slid backwards 0.3 m per
    step). While the COM shifts toward the first stance foot, both hips share it by their
    feet's ground forces. Standing still, the hips keep their PD targets (legs straight
    below the pelvis): shared root control there set the feet's loads against the COM's
    side, the COM drifted toward the unloaded foot and the biped fell sideways a few
    seconds after stopping; and PD hips alone shift the weight by the ankles' roll, which
    rolled the first stance foot 35 degrees onto its edge before the first step."""
    walking = st[WALKING] > 0.5
    if not walking and st[STARTING] < 0:
        return
    kp, kd, tmax = root_gains[0], root_gains[1], root_gains[2]
    pel = idx[PELVIS]
    Rp = R[pel]
    R_root = mm(rot_z(st[HEADING]), rot_y(par[LEAN] * LEAN_PELVIS))
    w_err = omega[pel].copy()
    w_err[2] -= st[HEADING_RATE]  # the desired heading turns: track its rate, not rest
    # limited per axis of the pelvis, as the released code's limitTorque: limited as a vector,
    # a yaw error (which the stance foot's friction caps anyway, below) took the whole 200 N m
    # after sideways pushes and left none to keep the pelvis from pitching and rolling
    t_root = mv(Rp, clip_axes(kp * log_rot(mtm(Rp, R_root)) - kd * mtv(Rp, w_err), tmax)) + extra
    total = max(grf[0], 0.0) + max(grf[1], 0.0)
    if total <= 0.0:
        t_root[:] = 0.0  # no ground force: the pelvis cannot be pushed on
    hip0, hip1 = idx[slot(0, UPPER_LEG)], idx[slot(1, UPPER_LEG)]
    makeup = -t_root - tau[idx[LOWER_BACK]] - tau[hip0] - tau[hip1]
    for s in range(2):
        if walking:
            share = 1.0 if s == int(st[STANCE]) else 0.0
        else:
            share = max(grf[s], 0.0) / total if total > 0.0 else 0.5
        # what root control twists a hip about the axis the ankle cannot turn about (a
        # universal ankle's a1 x a2; the vertical for others) reaches the foot whole, and the
        # ground holds at most mu F_n r of its vertical part: more spins the foot, and the
        # stance with it. Clipped about the vertical alone, the hip's pitch and roll torques
        # (up to 200 N m) reached the foot about that axis when the leg leaned on the ankle,
        # and a flat stance foot under 650 N spun 35 degrees in 0.15 s in sharp turns
        add = share * makeup
        k = slot(s, FOOT) - 1
        lock = np.array([0.0, 0.0, 1.0])
        if jtype[k] == UNIVERSAL:
            lock = cross(mv(R[idx[slot(s, LOWER_LEG)]], jaxes[k, 0]), mv(R[idx[slot(s, FOOT)]], jaxes[k, 1]))
            lock /= math.sqrt(dot(lock, lock))
        t = dot(add, lock)
        most = par[YAW_FRICTION] * max(grf[s], 0.0) / max(abs(lock[2]), 0.5)
        add -= (t - clip(t, -most, most)) * lock
        h = idx[slot(s, UPPER_LEG)]
        tau[h] += add
        tau[h] = clamp_norm(tau[h], jgain[slot(s, UPPER_LEG) - 1, 2])


@numba.njit(cache=True)
def _apply(R, x, idx, parent, jtype, jvadr, jaxes, jgain, par, st, tau, ctrl, damping):
    """World joint torques -> generalized forces; a fallen biped goes limp (SIMBICON's
    blend-out by root height): its torques fade out, its joints keep their damping. (Lying
    undamped, a fallen biped's head spun up about the neck on the ground, 95 to 380 rad/s
    in 9 s, until the run stopped as a runaway; docs/biped.md.)"""
    h = x[idx[PELVIS], 2] / st[H0]
    scale = clip((h - 0.21) / 0.21, 0.0, 1.0)
    walking = st[WALKING] > 0.5
    stance = int(st[STANCE])
    for k in range(jtype.shape[0]):
        b = idx[k + 1]
        va = jvadr[k]
        n = 3 if jtype[k] == BALL else 1 if jtype[k] == REVOLUTE else 2
        hip = k == slot(0, UPPER_LEG) - 1 or k == slot(1, UPPER_LEG) - 1
        starting = not walking and st[STARTING] >= 0
        root_controlled = hip and (starting or (walking and k == slot(stance, UPPER_LEG) - 1))
        for i in range(n):
            damping[va + i] = 0.0 if root_controlled else jgain[k, 1]
        if root_controlled:
            # the twist (the thigh's long axis) keeps its damping: undamped, a stance leg
            # whose foot rolls onto an edge spins about it (the released code's optional
            # stance-hip damping)
            damping[va + 2] = par[TWIST_DAMPING] * jgain[k, 1]
        t = tau[b] * scale
        if jtype[k] == BALL:
            ctrl[va:va + 3] = mtv(R[b], t)
        elif jtype[k] == REVOLUTE:
            ctrl[va] = dot(t, mv(R[b], jaxes[k, 0]))
        else:
            ctrl[va] = dot(t, mv(R[parent[b]], jaxes[k, 0]))
            ctrl[va + 1] = dot(t, mv(R[b], jaxes[k, 1]))
