"""One derivative evaluation of the full integrated state, as a numba kernel.

The integrated state is one flat vector y = [q (nq) | qd (nv) | exp_rest (nv)]: joint
positions, joint velocities, and the exponential-spring rest positions that motor programs
move at constant speed (McKenna §5.1: the rest velocity is handed to the integrator "with
the other derivatives"). `evaluate` returns y' = [qdot(q, qd) | qdd | rest velocity].

Order inside one evaluation (McKenna §1.3): body poses and velocities, external forces
(contact, pushes; gravity is applied by the ABA), joint forces into tau, then the
articulated-body algorithm.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pipeline.physics.aba import aba_after_joint_pass
from pipeline.physics.contact.bodies import make_shape_scratch
from pipeline.physics.contact.forces import contact_forces
from pipeline.physics.forces import joint_forces, push_forces
from pipeline.physics.kinematics import Workspace, joint_pass, make_workspace, qdot
from pipeline.physics.model import FREE
from pipeline.nrt import copy_into, njit_no_refcounts


class Statics(NamedTuple):
    """What a derivative evaluation reads and nothing changes while simulating."""

    tree: object  # TreeArrays
    contact: object  # ContactArrays
    dof_qpos: np.ndarray  # (nv,) int64: q index of a DOF's scalar coordinate, -1 for ball/free
    nq: int


class Live(NamedTuple):
    """Inputs Python may change at frame boundaries (commands, controllers); the kernels
    only read them, except the motor columns, which a committed step updates."""

    forces: object  # JointForceArrays (Data's own copy)
    gravity: np.ndarray  # (3,)
    ctrl: np.ndarray  # (nv,) controller joint forces
    motor_active: np.ndarray  # (nv,) int64: 1 while a motor program moves the rest
    motor_target: np.ndarray  # (nv,)
    motor_vel: np.ndarray  # (nv,) rest velocity while active
    motor_end: np.ndarray  # (nv,) time the program reaches its target
    pushes: np.ndarray  # (n, PUSH_COLUMNS), see pipeline.physics.forces
    qdd_prescribed: np.ndarray  # (nv,) prescribed joints' accelerations (free: world axes)


class Work(NamedTuple):
    """Scratch arrays of the step kernels, allocated once per Simulation."""

    dyn: Workspace
    fext: np.ndarray  # (nb, 6)
    tau: np.ndarray  # (nv,)
    qacc: np.ndarray  # (nq,) second derivative of q (McKenna's Euler)
    k: np.ndarray  # (6, n) stage derivatives
    ytmp: np.ndarray  # (n,) stage state
    ynew: np.ndarray  # (n,) candidate end-of-step state
    cs_cand: np.ndarray  # contact state to commit if the step is accepted
    cs_scratch: np.ndarray  # contact state written by the later stages (discarded)
    # the implicit step (pipeline.physics.implicit)
    stiff: np.ndarray  # (nv,) the joint elements' K = -dtau/dq (diagonal)
    damp: np.ndarray  # (nv,) their C = -dtau/dqd
    krest: np.ndarray  # (nv,) exponential springs' stiffness against their moving rest
    diag: np.ndarray  # (nv,) armature + h C + h^2 K of the joint elements
    a0: np.ndarray  # (nb, 6) body accelerations at zero joint accelerations
    touch6: np.ndarray  # (2, 6, 6) one body's linearised contact inertia, world and body axes
    touchf: np.ndarray  # (6,) and its wrench, world axes
    lin_body: np.ndarray  # (npoint,) int64 body of each linearised contact point
    lin_point: np.ndarray  # (npoint, 3) its world position
    lin_dfdp: np.ndarray  # (npoint, 3, 3) dF/dp
    lin_dfdv: np.ndarray  # (npoint, 3, 3) dF/dv
    # events (pipeline.physics.events): g before and after a step, and the step's start
    ev_old: np.ndarray  # (ne,)
    ev_new: np.ndarray  # (ne,)
    y_old: np.ndarray  # (n,)
    cs_old: np.ndarray  # contact state at the step's start
    motor_old: np.ndarray  # (nv,) int64 motor_active at the step's start
    y_frame: np.ndarray  # (n,) y at the frame's start (the energy balance, physics/energy.py)
    motor_work: np.ndarray  # (2,) the motors' work since the frame's start, and at the step's
    shapes: object  # ShapeScratch of body-body collisions


def make_work(nb: int, nq: int, nv: int, ncstate: int, npoint: int, nevent: int = 0) -> Work:
    n = nq + 2 * nv
    z = np.zeros
    return Work(dyn=make_workspace(nb, nv), fext=z((nb, 6)), tau=z(nv),
                qacc=z(nq), k=z((6, n)), ytmp=z(n), ynew=z(n),
                cs_cand=z(ncstate), cs_scratch=z(ncstate),
                stiff=z(nv), damp=z(nv), krest=z(nv), diag=z(nv), a0=z((nb, 6)),
                touch6=z((2, 6, 6)), touchf=z(6),
                lin_body=z(npoint, np.int64), lin_point=z((npoint, 3)),
                lin_dfdp=z((npoint, 3, 3)), lin_dfdv=z((npoint, 3, 3)),
                ev_old=z(nevent), ev_new=z(nevent), y_old=z(n), cs_old=z(ncstate),
                motor_old=z(nv, np.int64), y_frame=z(n), motor_work=z(2), shapes=make_shape_scratch())


@njit_no_refcounts
def prescribed_accelerations(tree, w, qd, given, qdd):
    """qdd entries of prescribed joints (the ABA reads them); the others are overwritten.

    A prescribed free root is given world-frame accelerations [a of the body origin;
    angular]; its body-frame rates follow from R^T and the rotation of the body axes:
    v' = R^T a - w x v, w' = R^T alpha (zero `given` keeps the world velocities constant).
    Other prescribed joints take `given` as their joint accelerations.
    """
    copy_into(given, qdd)
    for b in range(tree.parent.shape[0]):
        if not tree.prescribed[b] or tree.jtype[b] != FREE:
            continue
        va = tree.vadr[b]
        R = w.xrot[b]  # compile prescribes roots only: body axes -> world
        wx, wy, wz = qd[va + 3], qd[va + 4], qd[va + 5]
        vx, vy, vz = qd[va], qd[va + 1], qd[va + 2]
        for k in range(3):
            qdd[va + k] = R[0, k] * given[va] + R[1, k] * given[va + 1] + R[2, k] * given[va + 2]
            qdd[va + 3 + k] = (R[0, k] * given[va + 3] + R[1, k] * given[va + 4]
                               + R[2, k] * given[va + 5])
        qdd[va] -= wy * vz - wz * vy
        qdd[va + 1] -= wz * vx - wx * vz
        qdd[va + 2] -= wx * vy - wy * vx


@njit_no_refcounts
def evaluate(st, lv, wk, t, ts, y, cs_in, cs_out, ydot, forces_only=False):
    """ydot = dy/dt at (t, y); contact state is read from cs_in and written to cs_out.

    Pushes are switched on and off by the time `ts`: the midpoint of the current step,
    which never contains a switching time (the step loop ends steps there), so every stage
    of a step sees the same forces, also the stage at the step's end.

    forces_only: stop once the forces are known (body poses and velocities in wk.dyn,
    contact and push forces in wk.fext, joint forces in wk.tau) and leave ydot alone; the
    implicit step solves for the accelerations itself. (A function of its own for that
    half, called or inlined, made every evaluation ~0.8 us slower.)
    """
    nq = st.nq
    nv = lv.ctrl.shape[0]
    q = y[:nq]
    qd = y[nq:nq + nv]
    rest = y[nq + nv:]
    w = wk.dyn
    joint_pass(st.tree, q, qd, w, True)
    fext = wk.fext
    fext[:, :] = 0.0
    contact_forces(st.contact, t, cs_in, cs_out, w.xpos, w.xrot, w.v, fext, wk.shapes)
    push_forces(lv.pushes, ts, w.xpos, w.xrot, fext)
    joint_forces(lv.forces, st.dof_qpos, q, qd, rest, lv.ctrl, wk.tau)
    if forces_only:
        return
    qdd = ydot[nq:nq + nv]
    prescribed_accelerations(st.tree, w, qd, lv.qdd_prescribed, qdd)
    aba_after_joint_pass(st.tree, lv.gravity, wk.tau, fext, qdd, w)
    qdot(st.tree, q, qd, ydot[:nq])
    for j in range(nv):
        ydot[nq + nv + j] = lv.motor_vel[j] if lv.motor_active[j] != 0 else 0.0
