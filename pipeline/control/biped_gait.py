"""The walking pieces of the biped controller that need no simulation (Coros 2010, Ch. 2.4
and 5; digest seed-002-coros.md §3): Catmull-Rom trajectories over the step phase,
inverted-pendulum foot placement and two-link analytic IK
(numba kernels, called every frame from pipeline/control/biped_torques.py).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.control.biped_pd import cross, dot, mm

G = 9.8


class CatmullRom:
    """A Catmull-Rom spline through knots (t_i, v_i), clamped to the end values outside
    them; the end tangents are one-sided differences (the thesis' trajectories)."""

    def __init__(self, knots):
        pts = sorted((float(t), float(v)) for t, v in knots)
        self.t = np.array([p[0] for p in pts])
        self.v = np.array([p[1] for p in pts])
        n = len(pts)
        m = np.zeros(n)
        for i in range(n):
            lo, hi = max(i - 1, 0), min(i + 1, n - 1)
            if hi > lo:
                m[i] = (self.v[hi] - self.v[lo]) / (self.t[hi] - self.t[lo])
        self.m = m

    def __call__(self, t: float) -> float:
        return catmull_rom(self.t, self.v, self.m, float(t))


@numba.njit(cache=True)
def catmull_rom(tk, v, m, t):
    """The spline of knots (tk, v) with tangents m at t (see CatmullRom)."""
    n = tk.shape[0]
    if t <= tk[0] or n == 1:
        return v[0]
    if t >= tk[n - 1]:
        return v[n - 1]
    i = np.searchsorted(tk, t, side="right") - 1
    h = tk[i + 1] - tk[i]
    s = (t - tk[i]) / h
    s2, s3 = s * s, s * s * s
    return ((2 * s3 - 3 * s2 + 1) * v[i] + (s3 - 2 * s2 + s) * h * m[i]
            + (-2 * s3 + 3 * s2) * v[i + 1] + (s3 - s2) * h * m[i + 1])


@numba.njit(cache=True)
def ipm_step(v, h, v_desired=0.0, alpha=0.05, gain=1.0, exact=True):
    """Where to put the next support point, ahead of the COM, so an inverted pendulum of
    height h moving at v comes to rest over it (Pratt & Tedrake; Coros Eq. 5.1):
    d = v sqrt(h/g + v^2/(4 g^2)) (exact) or v sqrt(h/g) (the thesis' small-d form),
    then d' = d - alpha V_d so the body keeps the desired speed."""
    root = h / G + (v * v / (4 * G * G) if exact else 0.0)
    return gain * v * math.sqrt(root) - alpha * v_desired


@numba.njit(cache=True)
def two_link_ik(hip, target, l1, l2, forward):
    """Thigh orientation (world <- thigh) and knee flexion putting the ankle at `target`.

    The thigh hangs along its -z axis and the knee bends about its y axis (flexion
    positive, the shin swinging backwards), so the knee points along `forward` projected
    off the leg line: the plane of the leg contains hip, target and forward (the IK plane;
    a style twist rotates `forward` about the leg line). Out-of-reach targets are pulled
    onto the reachable sphere."""
    L = target - hip
    norm = math.sqrt(dot(L, L))
    dist = min(max(norm, abs(l1 - l2) + 1e-6), l1 + l2 - 1e-6)
    u = L / max(norm, 1e-12)
    cos_k = (l1 * l1 + l2 * l2 - dist * dist) / (2 * l1 * l2)
    knee = math.pi - math.acos(min(1.0, max(-1.0, cos_k)))
    # the ankle in thigh axes for this knee angle
    a = np.array([-l2 * math.sin(knee), 0.0, -l1 - l2 * math.cos(knee)])
    a /= math.sqrt(dot(a, a))
    n = cross(forward, u)
    if math.sqrt(dot(n, n)) < 1e-9:  # leg along forward: any plane
        n = cross(u, np.array([0.0, 0.0, 1.0])) if abs(u[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    n /= math.sqrt(dot(n, n))
    y = np.array([0.0, 1.0, 0.0])
    world = np.empty((3, 3))
    local = np.empty((3, 3))
    world[:, 0], world[:, 1], world[:, 2] = u, n, cross(u, n)
    local[:, 0], local[:, 1], local[:, 2] = a, y, cross(a, y)
    return mm(world, local.T), knee
