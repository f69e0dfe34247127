"""Which legs step when: the stepping matrix behind gait diagrams (plots and the frame inset).

Two channel layouts are understood: the gait controller's `leg_state` (T, legs) with the
codes of pipeline.control.gait_schedule (stance, potential step, step), and one channel per
leg named `gait_<leg>` (T,) that is non-zero while the leg steps.
"""
from __future__ import annotations

import numpy as np

from pipeline.control.gait_schedule import LEGS, STEP


def _strip(name: str) -> str:
    return name[3:] if name.startswith("ch_") else name


def stepping(channels: dict) -> tuple[tuple[str, ...], np.ndarray] | None:
    """Leg names and a boolean (T, legs) matrix, True while a leg steps; None without gait
    channels."""
    chans = {_strip(k): np.asarray(v) for k, v in (channels or {}).items()}
    if "leg_state" in chans:
        state = chans["leg_state"].reshape(len(chans["leg_state"]), -1)
        legs = LEGS if state.shape[1] == len(LEGS) else tuple(f"leg{i}" for i in range(state.shape[1]))
        return legs, np.rint(state) == STEP
    per_leg = sorted(k for k in chans if k.startswith("gait_") and chans[k].ndim == 1)
    if not per_leg:
        return None
    return tuple(k[len("gait_"):] for k in per_leg), np.stack([chans[k] != 0 for k in per_leg], 1)
