"""The articulated-body core and the simulation loop.

Public functions (Python wrappers over the numba kernels; each returns fresh arrays, and
the dynamics reuse one workspace per model, pipeline.physics.calls):

    forward_dynamics(model, q, qd, tau, f_ext=None, qdd_prescribed=None) -> qdd      (ABA)
    prescribed_dynamics(model, q, qd, tau, qdd_prescribed, f_ext=None) -> (qdd, f_con)
    inverse_dynamics(model, q, qd, qdd, f_ext=None) -> tau                           (RNEA)
    mass_matrix(model, q) -> M                                                       (CRBA)
    forward_kinematics(model, q, qd=None) -> (xpos, xrot[, vbody])
    qdot(model, q, qd) -> dq/dt;  normalize_quaternions(model, q) -> q (a normalised copy)

The kernels behind them take `model.tree` and a `Workspace` (`make_workspace(nb, nv)`) and
write into preallocated arrays: `aba.aba`, `rnea.rnea`, `crba.crba`,
`kinematics.joint_pass`, `kinematics.qdot`, `kinematics.normalize_quaternions`.

f_ext is (nb, 6) in world axes: [torque about the body frame origin; force].
"""
from __future__ import annotations

import numpy as np

__all__ = ["forward_dynamics", "prescribed_dynamics", "inverse_dynamics", "mass_matrix",
           "forward_kinematics", "qdot", "normalize_quaternions", "make_workspace"]


def make_workspace(model):
    """Scratch arrays for the kernels of one model (one per thread / Data)."""
    from pipeline.physics.kinematics import make_workspace as _make

    return _make(model.nbody, model.nv)


def _fext(f_ext, nb, none):
    if f_ext is None:
        return none
    f = np.ascontiguousarray(f_ext, dtype=np.float64)
    if f.shape != (nb, 6):
        raise ValueError(f"f_ext must have shape ({nb}, 6), got {f.shape}")
    return f


def _vec(x, n, name):
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    return a


def _scratch(model):
    """pipeline.physics.calls.scratch(model), the module imported on first use like the
    kernels' modules."""
    global _CALLS
    if _CALLS is None:
        from pipeline.physics import calls

        _CALLS = calls
    return _CALLS.scratch(model)


_CALLS = None

# Each wrapper first hands the caller's arrays to the kernel as they are; a TypeError or
# ValueError from it means they are not float64 arrays of the model's shapes (numba checks
# that, pipeline.physics.calls), and the checked call after it converts them or says which
# is wrong. Checking in Python first would cost more than the dynamics of a small tree.


def _run_aba(model, q, qd, tau, f_ext, qdd_prescribed):
    sc = _scratch(model)
    nv = model.nv
    qdd = np.zeros(nv) if qdd_prescribed is None else np.array(qdd_prescribed, dtype=float)
    try:
        sc.forward(sc.ref, q, qd, tau, sc.no_fext if f_ext is None else f_ext, qdd)
    except (TypeError, ValueError):
        qdd = (np.zeros(nv) if qdd_prescribed is None
               else _vec(qdd_prescribed, nv, "qdd_prescribed").copy())
        sc.forward(sc.ref, _vec(q, model.nq, "q"), _vec(qd, nv, "qd"), _vec(tau, nv, "tau"),
                   _fext(f_ext, model.nbody, sc.no_fext), qdd)
    return qdd, sc.w


def forward_dynamics(model, q, qd, tau, f_ext=None, qdd_prescribed=None):
    """Joint accelerations (nv,) by the articulated-body algorithm. For a model with
    prescribed roots their accelerations come from qdd_prescribed (nv,; zeros if None)."""
    return _run_aba(model, q, qd, tau, f_ext, qdd_prescribed)[0]


def prescribed_dynamics(model, q, qd, tau, qdd_prescribed=None, f_ext=None):
    """ABA with the accelerations of prescribed joints given (entries of qdd_prescribed,
    (nv,)). Returns (qdd, f_con): f_con (nb, 6) is the spatial constraint force on each
    prescribed body (McKenna Eq 45) in world axes [torque about the body origin; force],
    zero for other bodies."""
    qdd, w = _run_aba(model, q, qd, tau, f_ext, qdd_prescribed)
    mask = model.tree.prescribed.astype(bool)
    f_con = np.zeros((model.nbody, 6))
    R = w.xrot[mask]
    f_con[mask, :3] = np.einsum("bij,bj->bi", R, w.f[mask, :3])
    f_con[mask, 3:] = np.einsum("bij,bj->bi", R, w.f[mask, 3:])
    return qdd, f_con


def inverse_dynamics(model, q, qd, qdd, f_ext=None):
    """Joint forces (nv,) that produce qdd (RNEA)."""
    sc = _scratch(model)
    nv = model.nv
    tau = np.zeros(nv)
    try:
        sc.inverse(sc.ref, q, qd, qdd, sc.no_fext if f_ext is None else f_ext, tau)
    except (TypeError, ValueError):
        sc.inverse(sc.ref, _vec(q, model.nq, "q"), _vec(qd, nv, "qd"), _vec(qdd, nv, "qdd"),
                   _fext(f_ext, model.nbody, sc.no_fext), tau)
    return tau


def mass_matrix(model, q):
    """The joint-space mass matrix (nv, nv) at q (CRBA), armature included."""
    sc = _scratch(model)
    M = np.zeros((model.nv, model.nv))
    try:
        sc.mass(sc.ref, q, M)
    except (TypeError, ValueError):
        sc.mass(sc.ref, _vec(q, model.nq, "q"), M)
    return M


def forward_kinematics(model, q, qd=None):
    """World poses of the body frames, (xpos (nb, 3), xrot (nb, 3, 3)); with qd also the
    body spatial velocities vbody (nb, 6) = [w; v] in body axes (v of the body origin)."""
    from pipeline.physics.kinematics import joint_pass, make_workspace as _make

    w = _make(model.nbody, model.nv)
    q = _vec(q, model.nq, "q")
    if qd is None:
        joint_pass(model.tree, q, q[:0], w, False)
        return w.xpos.copy(), w.xrot.copy()
    joint_pass(model.tree, q, _vec(qd, model.nv, "qd"), w, True)
    return w.xpos.copy(), w.xrot.copy(), w.v.copy()


def qdot(model, q, qd):
    """dq/dt (nq,) for the state (q, qd) (quaternion rates for ball and free joints)."""
    from pipeline.physics.kinematics import qdot as _qdot

    out = np.zeros(model.nq)
    _qdot(model.tree, _vec(q, model.nq, "q"), _vec(qd, model.nv, "qd"), out)
    return out


def normalize_quaternions(model, q):
    """A copy of q with every ball/free quaternion rescaled to unit length."""
    from pipeline.physics.kinematics import normalize_quaternions as _norm

    out = _vec(q, model.nq, "q").copy()
    _norm(model.tree, out)
    return out


def body_kinetic_energies(model, q, qd) -> np.ndarray:
    """Kinetic energy (J) of every body (nb,) in the state (q, qd)."""
    return _kinetic(model.tree, forward_kinematics(model, q, qd)[2])


def _kinetic(tree, v) -> np.ndarray:
    omega, v_origin = v[:, :3], v[:, 3:]  # body axes
    v_com = v_origin + np.cross(omega, tree.com)
    return 0.5 * (tree.mass * np.einsum("bi,bi->b", v_com, v_com)
                  + np.einsum("bi,bij,bj->b", omega, tree.inertia, omega))


def mechanical_energy(model, q, qd) -> float:
    """Kinetic plus gravitational potential energy (J) of the state (q, qd), with the
    model's gravity and the potential's zero at z = 0."""
    xpos, xrot, v = forward_kinematics(model, q, qd)
    tree = model.tree
    com_world = xpos + np.einsum("bij,bj->bi", xrot, tree.com)
    potential = -float(tree.mass @ (com_world @ np.asarray(model.gravity, float)))
    return float(_kinetic(tree, v).sum() + potential)
