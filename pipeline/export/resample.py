"""Output frame times and body poses resampled from a recording's own time samples.

Exports never re-simulate: every output frame is interpolated from the recorded body poses
(positions linearly, orientations by slerp), so the frame rate of a video or an animation is
independent of the simulation's `dt` and `record_every`.
"""
from __future__ import annotations

import math

import numpy as np

from pipeline.errors import CorpusError, Problem

MAX_OUTPUT_FRAMES = 10**6  # 9 hours at 30 fps: more is a mistyped rate, not a film


def frame_times(time: np.ndarray, fps: float, where: str = "outputs.fps") -> np.ndarray:
    """Times of the output frames: `round(fps * duration)` frames, one every 1/fps from the
    first recorded time (at least one frame, so a single-sample recording still exports).
    More than MAX_OUTPUT_FRAMES is an error at `where`, the setting that asked for them."""
    duration = float(time[-1] - time[0]) if len(time) else 0.0
    count = frame_count(fps, duration, where)
    return float(time[0]) + np.arange(count) / float(fps)


def frame_count(fps: float, duration: float, where: str = "outputs.fps") -> int:
    """How many output frames `duration` s at `fps` frames per simulated second takes."""
    if not (math.isfinite(fps) and fps > 0):
        raise CorpusError(Problem(f"expected a positive number of frames per second, got {fps:g}", path=where))
    count = fps * duration
    if not count <= MAX_OUTPUT_FRAMES:
        raise CorpusError(Problem(
            f"{fps:g} frames per simulated second over {duration:g} s is {count:.3g} frames, more "
            f"than the {MAX_OUTPUT_FRAMES:.0e} an export can take; lower the frame rate or the slow "
            "motion", path=where))
    return max(1, int(round(count)))


def _bracket(time: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the sample at or before each t and the fraction towards the next one."""
    i = np.clip(np.searchsorted(time, t, side="right") - 1, 0, max(len(time) - 2, 0))
    if len(time) < 2:
        return i, np.zeros_like(t)
    span = time[i + 1] - time[i]
    w = np.where(span > 0, (t - time[i]) / np.where(span > 0, span, 1.0), 0.0)
    return i, np.clip(w, 0.0, 1.0)


def slerp(qa: np.ndarray, qb: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Spherical interpolation of unit quaternions (..., 4) with weights w (...,), taking
    the shorter arc; nearly parallel pairs fall back to normalised linear interpolation."""
    dot = np.sum(qa * qb, axis=-1)
    qb = np.where(dot[..., None] < 0, -qb, qb)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin = np.sin(theta)
    close = sin < 1e-9
    safe = np.where(close, 1.0, sin)
    wa = np.where(close, 1.0 - w, np.sin((1.0 - w) * theta) / safe)
    wb = np.where(close, w, np.sin(w * theta) / safe)
    q = wa[..., None] * qa + wb[..., None] * qb
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def resample_poses(time, body_pos, body_quat, t):
    """Body positions (F,B,3) and wxyz orientations (F,B,4) at times t (F,)."""
    time = np.asarray(time, dtype=float)
    t = np.asarray(t, dtype=float)
    i, w = _bracket(time, t)
    j = np.minimum(i + 1, len(time) - 1)
    pos = body_pos[i] + w[:, None, None] * (body_pos[j] - body_pos[i])
    quat = slerp(body_quat[i], body_quat[j], np.broadcast_to(w[:, None], (len(t), body_quat.shape[1])))
    return pos, quat


def resample_series(time, values, t):
    """Any per-sample array (T, ...) linearly interpolated at times t."""
    time = np.asarray(time, dtype=float)
    values = np.asarray(values, dtype=float)
    i, w = _bracket(time, np.asarray(t, dtype=float))
    j = np.minimum(i + 1, len(time) - 1)
    w = w.reshape((-1,) + (1,) * (values.ndim - 1))
    return values[i] + w * (values[j] - values[i])
