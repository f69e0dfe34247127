"""Joint force elements and external pushes, evaluated inside every derivative evaluation.

Joint forces act per degree of freedom and are summed into the generalized force `tau`
(McKenna's Q, Eq 38): controller torque, constant bias, damper, linear spring, corpus's
exponential spring (Eq 8, two-sided), limit spring/damper past the lower/upper bound and a
PD servo. Constants arrive already multiplied by the `scale_by` mass (compile does that);
they live in `Data.forces` so timeline commands can change them while simulating.

Position-dependent elements need a scalar coordinate, so they act only on the DOFs of
revolute, prismatic and universal joints (`dof_qpos >= 0`); velocity elements (damper,
servo kd, bias, ctrl) act on every DOF, including ball and free joints.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts

# columns of the push table (Data.pushes, one row per active push)
PUSH_BODY, PUSH_FX, PUSH_FY, PUSH_FZ, PUSH_NX, PUSH_NY, PUSH_NZ, PUSH_PX, PUSH_PY, PUSH_PZ, \
    PUSH_START, PUSH_END = range(12)
PUSH_COLUMNS = 12


@njit_no_refcounts
def exp_spring_force(alpha, beta, delta):
    """Restoring force of corpus's exponential spring at displacement `delta` from its rest.

    |f| = alpha (e^{beta |delta|} - 1), directed against the displacement, so the joint
    spring is odd-symmetric: a potential well whose width beta and strength alpha set.
    expm1 keeps the small-displacement force (~ alpha beta delta) accurate.
    """
    mag = alpha * math.expm1(beta * abs(delta))
    if delta > 0.0:
        return -mag
    if delta < 0.0:
        return mag
    return 0.0


@njit_no_refcounts
def joint_forces(forces, dof_qpos, q, qd, exp_rest, ctrl, tau):
    """tau[j] = every joint force element on DOF j (written, not accumulated)."""
    for j in range(tau.shape[0]):
        v = qd[j]
        f = ctrl[j] + forces.bias[j] - forces.damping[j] * v - forces.servo_kd[j] * v
        iq = dof_qpos[j]
        if iq >= 0:
            x = q[iq]
            f -= forces.spring_k[j] * (x - forces.spring_rest[j])
            if forces.exp_alpha[j] != 0.0:
                f += exp_spring_force(forces.exp_alpha[j], forces.exp_beta[j], x - exp_rest[j])
            if x < forces.limit_lower[j]:
                f += forces.limit_k[j] * (forces.limit_lower[j] - x) - forces.limit_b[j] * v
            elif x > forces.limit_upper[j]:
                f -= forces.limit_k[j] * (x - forces.limit_upper[j]) + forces.limit_b[j] * v
            f += forces.servo_kp[j] * (forces.servo_target[j] - x)
        tau[j] = f


@njit_no_refcounts
def push_forces(pushes, t, xpos, xrot, fext):
    """Add every push active at time t (start <= t < end) to fext (nb, 6), world axes,
    [torque about the body origin; force]. The force acts at `point` (body frame)."""
    for i in range(pushes.shape[0]):
        p = pushes[i]
        if not (p[PUSH_START] <= t < p[PUSH_END]):
            continue
        b = int(p[PUSH_BODY])
        R = xrot[b]
        # lever arm from the body origin to the point of application, in world axes
        rx = R[0, 0] * p[PUSH_PX] + R[0, 1] * p[PUSH_PY] + R[0, 2] * p[PUSH_PZ]
        ry = R[1, 0] * p[PUSH_PX] + R[1, 1] * p[PUSH_PY] + R[1, 2] * p[PUSH_PZ]
        rz = R[2, 0] * p[PUSH_PX] + R[2, 1] * p[PUSH_PY] + R[2, 2] * p[PUSH_PZ]
        fx, fy, fz = p[PUSH_FX], p[PUSH_FY], p[PUSH_FZ]
        fext[b, 0] += p[PUSH_NX] + ry * fz - rz * fy
        fext[b, 1] += p[PUSH_NY] + rz * fx - rx * fz
        fext[b, 2] += p[PUSH_NZ] + rx * fy - ry * fx
        fext[b, 3] += fx
        fext[b, 4] += fy
        fext[b, 5] += fz


def empty_pushes() -> np.ndarray:
    return np.zeros((0, PUSH_COLUMNS))


# Names of the force constants (JointForceArrays fields) a `joint` command may set; the
# position-dependent ones need a scalar coordinate; the scaled ones are multiplied by the
# joint's `scale_by` mass, as compile does for the constants written in the creature.
SETTABLE_FIELDS = ("damping", "spring_k", "spring_rest", "exp_alpha", "exp_beta", "exp_rest",
                   "limit_lower", "limit_upper", "limit_k", "limit_b", "bias", "servo_kp",
                   "servo_kd", "servo_target")
POSITION_FIELDS = ("spring_k", "spring_rest", "exp_alpha", "exp_beta", "exp_rest",
                   "limit_lower", "limit_upper", "limit_k", "limit_b", "servo_kp",
                   "servo_target")
SCALED_FIELDS = ("damping", "spring_k", "exp_alpha", "servo_kp", "servo_kd")
