"""The gait's master oscillator under a linear speed ramp, as kernels: one frame's phase gain
(`ramp`), and the frames ahead of a stretch (`ramp_ahead`).

The schedule advances its phase with `ramp` at every frame it runs, and looks ahead over a
stretch with `ramp_ahead`, which repeats the same arithmetic frame after frame; both run
this one compiled function, so a stretch the step loop runs without the controller ends
on the phase and speed that frame-by-frame calls reach, to the bit (tests/test_gait_stretches.py).
"""
from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def ramp(s0: float, rate: float, limit: float, dt: float, cycletime: float) -> tuple[float, float, bool]:
    """(phase gained, speed reached, ramp ended) after dt at speed s0 ramping by `rate` per
    second toward `limit`. dphi/dt = 1 / (cycletime s(t)); for linear s the integral is exact:
    ln(s1/s0) / (cycletime rate), then dt / (cycletime s1) for what is left after the ramp."""
    if rate == 0:
        return dt / (cycletime * s0), s0, False
    ramp_dt = min(dt, max((limit - s0) / rate, 0.0))
    ended = ramp_dt < dt
    s1 = limit if ended else s0 + rate * ramp_dt
    gain = math.log(s1 / s0) / (cycletime * rate) if s1 != s0 else 0.0
    return gain + (dt - ramp_dt) / (cycletime * s1), s1, ended


@numba.njit(cache=True)
def ramp_ahead(t: float, phase: float, speed: float, rate: float, limit: float, cycletime: float,
               dlegtime: float, times: np.ndarray):
    """From time t, phase and speed, the state at each later frame time in `times`: the master
    phase, the speed, the ramp's rate (0 once it ended) and the phase each body segment's
    oscillators run ahead of the master (segment x dlegtime of the ramp, GaitSchedule.offsets)."""
    n = times.size
    phases, speeds, rates = np.empty(n), np.empty(n), np.empty(n)
    ahead = np.empty((n, 3))
    for k in range(n):
        gain, speed, ended = ramp(speed, rate, limit, times[k] - t, cycletime)
        t = times[k]
        phase += gain
        if ended:
            rate = 0.0
        phases[k], speeds[k], rates[k] = phase, speed, rate
        for seg in range(3):
            ahead[k, seg] = ramp(speed, rate, limit, seg * dlegtime, cycletime)[0]
    return phases, speeds, rates, ahead
