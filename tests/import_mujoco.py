"""MuJoCo's side of the importer tests: the model zoo shipped in dm_control and gymnasium,
random states, and the conversion between MuJoCo's and corpus's coordinates.

State conventions: MuJoCo's free joint qvel is (linear velocity of the body origin in WORLD
axes, angular velocity in BODY axes); corpus (Pinocchio's free flyer) has both in body axes.
Hinge/slide coordinates differ by the joint's `ref` (corpus q = 0 is MuJoCo qpos0).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import mujoco
import numpy as np

from pipeline.importers.frames import quat_to_mat


def _warn(message: str) -> None:
    import warnings

    warnings.warn(f"MuJoCo: {message}", RuntimeWarning, stacklevel=2)


# MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the working folder (the
# repository root under pytest; random states make it warn of huge accelerations): pytest
# collects warnings instead
mujoco.set_mju_user_warning(_warn)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # locate without importing (dm_control is heavy)
    return Path(next(iter(spec.submodule_search_locations)))


def zoo() -> list[Path]:
    """Every MJCF model file of the dm_control suite and gymnasium's MuJoCo assets."""
    suite = sorted((_package_dir("dm_control") / "suite").glob("*.xml"))
    gym = sorted((_package_dir("gymnasium") / "envs" / "mujoco" / "assets").glob("*.xml"))
    return suite + gym


def model_id(path: Path) -> str:
    return f"{path.parent.name if path.parent.name != 'assets' else 'gym'}/{path.stem}"


def bare_mujoco(path):
    """MjModel with contacts, constraints, springs, dampers and actuators off: what is left
    is the rigid-body dynamics under gravity and applied joint forces."""
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(path))
    off = mujoco.mjtDisableBit
    m.opt.disableflags |= (off.mjDSBL_CONTACT | off.mjDSBL_CONSTRAINT | off.mjDSBL_SPRING
                           | off.mjDSBL_DAMPER | off.mjDSBL_ACTUATION)
    return m


def random_state(m, rng):
    """qpos (hinge/slide offsets in ±1, random unit quaternions, free positions ±1 m),
    qvel and applied joint forces ~ N(0, 1)."""
    qpos = m.qpos0.copy()
    for j in range(m.njnt):
        a, t = m.jnt_qposadr[j], m.jnt_type[j]
        if t in (2, 3):  # slide, hinge
            qpos[a] += rng.uniform(-1, 1)
        elif t == 1:  # ball
            q = rng.normal(size=4)
            qpos[a:a + 4] = q / np.linalg.norm(q)
        else:  # free
            qpos[a:a + 3] += rng.uniform(-1, 1, 3)
            q = rng.normal(size=4)
            qpos[a + 3:a + 7] = q / np.linalg.norm(q)
    return qpos, rng.normal(size=m.nv), rng.normal(size=m.nv)


def to_corpus(links, qpos, qvel, qfrc):
    """MuJoCo (qpos, qvel, qfrc_applied) -> corpus (q, qd, tau) for the importer's links
    (same DOF order: the importer keeps MuJoCo's body and joint order)."""
    q, qd, tau = [], [], []
    qi = vi = 0
    for ln in links:
        t = ln.joint.type
        if t in ("revolute", "prismatic"):
            q.append(qpos[qi] - ln.joint.offset)
            qd.append(qvel[vi])
            tau.append(qfrc[vi])
            qi, vi = qi + 1, vi + 1
        elif t == "ball":
            q += list(qpos[qi:qi + 4])
            qd += list(qvel[vi:vi + 3])
            tau += list(qfrc[vi:vi + 3])
            qi, vi = qi + 4, vi + 3
        elif t == "free":
            R = quat_to_mat(qpos[qi + 3:qi + 7])
            q += list(qpos[qi:qi + 7])
            qd += list(R.T @ qvel[vi:vi + 3]) + list(qvel[vi + 3:vi + 6])
            # the generalized force dual to a body-axes velocity is a body-axes force
            tau += list(R.T @ qfrc[vi:vi + 3]) + list(qfrc[vi + 3:vi + 6])
            qi, vi = qi + 7, vi + 6
    return np.array(q), np.array(qd), np.array(tau)


def qacc_to_mujoco(links, q, qd, qdd):
    """corpus joint accelerations -> MuJoCo's qacc. A free joint's linear part: MuJoCo
    differentiates the world-axes velocity, d/dt (R v_b) = R (dv_b/dt + w x v_b)."""
    out = qdd.copy()
    qi = vi = 0
    for ln in links:
        nq, nv = {"revolute": (1, 1), "prismatic": (1, 1), "ball": (4, 3), "free": (7, 6),
                  "fixed": (0, 0)}[ln.joint.type]
        if ln.joint.type == "free":
            R = quat_to_mat(q[qi + 3:qi + 7])
            v, w = qd[vi:vi + 3], qd[vi + 3:vi + 6]
            out[vi:vi + 3] = R @ (qdd[vi:vi + 3] + np.cross(w, v))
        qi, vi = qi + nq, vi + nv
    return out
