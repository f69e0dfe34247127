"""Stretches of frames that end where a watched joint would wake a Python controller.

A controller whose frame starts are quiet unless a joint angle crosses a level upward or a
joint's force falls to a level (McKenna's step and load reflexes, pipeline/control/gait.py)
hands `Watch` rows to the Simulation with its quiet frames. The step loop
(pipeline/control/controlled_frames.py) reads them at every frame start but the first with
`woken`, as the controller would read its sensors there, and stops before the first start
where one wakes (status WOKEN, done[0] the frames done), so that frame's boundary runs the
controller.

ANGLE rows (q component `index`, `sign`, `level`) keep their side sign (q - level) of the last
start read in `side` and wake, if `wakes`, when it passes from <= 0 to > 0; FORCE rows (DOF
`index`) wake, if `wakes`, when |joint force| is no longer above `level`. A start where a row
wakes leaves every side as it was at the start before, the one the controller compares with.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.fsm_frames import CONTROL_ERROR
from pipeline.physics.forces import joint_forces

ANGLE, FORCE = 0, 1
WOKEN = CONTROL_ERROR + 1  # a status beyond the loops': a watch woke, nothing failed


class Watch(NamedTuple):
    """Rows of watched joints (module doc); `side` is the controller's own array, which the
    kernel moves on."""
    kind: np.ndarray  # int64: ANGLE | FORCE
    index: np.ndarray  # int64: q component (ANGLE) or DOF (FORCE)
    wakes: np.ndarray  # bool: whether the row may wake the controller in this stretch
    sign: np.ndarray
    level: np.ndarray
    side: np.ndarray


@numba.njit(cache=True)
def woken(kind, index, wakes, sign, level, side, forces, y, live, dof_qpos, tau) -> bool:
    """Whether a row wakes at the frame start whose state is y (forces: whether any row is a
    FORCE row); if none does, every ANGLE row's side becomes this start's."""
    nv = live.ctrl.shape[0]
    nq = y.shape[0] - 2 * nv
    if forces:
        joint_forces(live.forces, dof_qpos, y[:nq], y[nq:nq + nv], y[nq + nv:], live.ctrl, tau)
    for r in range(kind.shape[0]):
        if not wakes[r]:
            continue
        if kind[r] == ANGLE:
            if side[r] <= 0 and sign[r] * (y[index[r]] - level[r]) > 0:
                return True
        elif not abs(tau[index[r]]) > level[r]:
            return True
    for r in range(kind.shape[0]):
        if kind[r] == ANGLE:
            side[r] = sign[r] * (y[index[r]] - level[r])
    return False


def join(watches: list[Watch]) -> Watch:
    """The rows of several controllers' watches as one (their sides copied: `split` puts
    them back)."""
    return Watch(*(np.concatenate([getattr(w, f) for w in watches]) for f in Watch._fields))


def split(joined: Watch, watches: list[Watch]) -> None:
    """The sides the kernel reached back into each controller's own array."""
    start = 0
    for w in watches:
        w.side[:] = joined.side[start:start + w.side.shape[0]]
        start += w.side.shape[0]
