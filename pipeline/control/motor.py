"""Motor programs (McKenna §5.1): move a joint's exponential-spring rest at constant speed.

`motor joint etarget value time` sets the rest velocity (target - rest) / time; the step
kernel integrates the rest with the rest of the state, ends every step exactly at the
program's end time, and there snaps the rest to the target and deactivates the program.
The program arrays (active, target, velocity, end) live in `Data` as plain numpy arrays,
one entry per DOF, so the kernel reads them and a rejected step leaves them untouched.
"""
from __future__ import annotations

import numpy as np


def start_motor(data, dofs, targets, duration: float, t: float) -> None:
    """Start (or restart) programs on `dofs` toward `targets` (same length) over `duration`.
    A zero duration is corpus's instantaneous rest change (a jump or a twitch)."""
    dofs = np.asarray(dofs, dtype=np.int64)
    targets = np.broadcast_to(np.asarray(targets, dtype=np.float64), dofs.shape)
    rest = data.exp_rest
    if duration <= 0.0:
        rest[dofs] = targets
        data.motor_active[dofs] = 0
        return
    data.motor_target[dofs] = targets
    data.motor_vel[dofs] = (targets - rest[dofs]) / duration
    data.motor_end[dofs] = t + duration
    data.motor_active[dofs] = 1


def stop_motor(data, dofs) -> None:
    """Cancel any program on `dofs`, leaving the rest where it is."""
    data.motor_active[np.asarray(dofs, dtype=np.int64)] = 0


def match_exp(data, dofs, qpos) -> None:
    """corpus `jointmatchexp`: rest := current joint position (cancels running programs)."""
    dofs = np.asarray(dofs, dtype=np.int64)
    stop_motor(data, dofs)
    data.exp_rest[dofs] = data.q[np.asarray(qpos, dtype=np.int64)]
