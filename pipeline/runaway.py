"""Runaway states: divergence that stays finite, caught like NaN (shared by both engines).

A step too large for a stiff spring can grow the state by orders of magnitude per frame
without ever overflowing (q = 1e257 rad was once published as a good run), and a state that
large later divides by zero inside a kernel. After every frame each engine compares every
coordinate and velocity with a bound derived from the scene, `FACTOR` times beyond anything
its motion can reach:

    L  the scene's size: how far bodies and their geometry reach from the world origin at
       the start (at least MIN_LENGTH)
    V  a speed no motion of the scene reaches: the larger of crossing L in one frame (L / dt;
       the recording could not even follow that) and the initial speeds plus falling across
       L plus falling for the whole run (|v0| + sqrt(2 g L) + g T)
    W  an angular speed: the larger of a turn per frame (2 pi / dt) and the initial one

    positions  |x| <= FACTOR (L + V T)     velocities          |v| <= FACTOR V
    angles     |a| <= FACTOR (2 pi + W T)  angular velocities  |w| <= FACTOR W

T is the scene's duration, or the time reached when a run goes on past it. Quaternions are
renormalised every step and need no bound. A state beyond its bound is reported like NaN:
its time, body, joint and value, and nothing is published.

Those bounds let a slower runaway through: gymnasium's ant under symplectic Euler at
MuJoCo's 10 ms bounces off the ground ever higher (21 m by 3 s) at speeds far inside V. The
articulated engine also checks energy (pipeline/physics/energy.py): after every frame the
step loop adds to the run's balance the mechanical energy the frame gained (kinetic,
gravitational, and the joints' spring, exponential-spring, limit and servo potentials) less
the work of the scene's inputs (controller torques, biases, motors, pushes) plus what the
joints' dampers dissipated. Contact only dissipates, so a run's balance, its `gain`, is the
integrator's error, and it may not exceed

    ENERGY_FACTOR M g L + FLOW_SHARE (the energy the inputs and dampers moved so far)

M the scene's mass, g its gravity (at least MIN_GRAVITY), L as above. The first term is what
a run's quadratures and the contact energy stored at the start can amount to at rest; the
second is the error of the frame trapezoids the balance takes the inputs and dissipation
by, which grows with what they move: the ant's ankles start outside their limits, and the
balance of their first 50 ms (1.46 kJ of limit damping) is off by +189 J under symplectic
Euler and -263 J under implicit Euler. The ant's balance reaches 237 J by 0.3 s and 589 J at
its bounce at t = 2.08 s, past its margin of 64 J + 25% of 1.61 kJ = 467 J; the largest
gains on the bundled scenes (whole runs): 1.08 kJ on biped_characters (its margin over
611 kJ), under 1e-3 J everywhere else, most of them negative (docs/simulation.md). A scene with a prescribed joint has no energy check: the work its
motion does is bounded by nothing. The particle engine has the bounds only.
"""
from __future__ import annotations

import math

import numpy as np

FACTOR = 100.0
MIN_LENGTH = 0.01  # m: a millimetre creature at the origin still gets a centimetre's room
ENERGY_FACTOR = 4.0
FLOW_SHARE = 0.25
MIN_GRAVITY = 1.0  # m/s^2: the energy margin's scale in a weightless scene

# what a state component is, which says its bound
POSITION, VELOCITY, ANGLE, ANGULAR_VELOCITY, UNBOUNDED = range(5)
UNITS = ("m", "m/s", "rad", "rad/s", "")


class RunawayBounds:
    """Per-component bounds of a state vector whose components are of the given `kinds`."""

    def __init__(self, kinds, *, length: float, dt: float, gravity: float, duration: float,
                 speed0: float = 0.0, angular_speed0: float = 0.0):
        self.kinds = np.asarray(kinds, np.int64)
        self.length = max(float(length), MIN_LENGTH)
        self.dt = float(dt)
        self.gravity = abs(float(gravity))
        self.duration = float(duration)
        self.speed0 = float(speed0)
        self.angular_speed0 = float(angular_speed0)
        self._horizon = math.nan
        self._limits = np.empty(0)

    def limits(self, t: float) -> np.ndarray:
        """The bound of every component for a run that has reached time t."""
        horizon = max(self.duration, t)
        if horizon != self._horizon:
            L, g = self.length, self.gravity
            v = max(L / self.dt, self.speed0 + math.sqrt(2 * g * L) + g * horizon)
            w = max(2 * math.pi / self.dt, self.angular_speed0)
            by_kind = FACTOR * np.array([L + v * horizon, v, 2 * math.pi + w * horizon, w, math.inf])
            self._limits = by_kind[self.kinds]
            self._horizon = horizon
        return self._limits

    def first_beyond(self, state: np.ndarray, t: float) -> int:
        """Index of the first component beyond its bound (or NaN), -1 when there is none."""
        beyond = ~(np.abs(state) <= self.limits(t))
        return int(np.argmax(beyond)) if beyond.any() else -1

    def describe(self, i: int, value: float, t: float) -> str:
        unit = UNITS[self.kinds[i]]
        unit = f" {unit}" if unit else ""
        return (f"{value:.3g}{unit}, beyond {self.limits(t)[i]:.3g}{unit}, {FACTOR:g} times what this "
                "scene's size, speeds and duration allow")



def energy_margin(mass: float, gravity: float, length: float, *, prescribed: bool) -> np.ndarray:
    """[energy (J), share of the energy moved] a run may gain that nothing in the scene gave
    it (the energy check above); infinite (no check) when a prescribed joint moves the scene,
    whose work nothing bounds."""
    if prescribed:
        return np.array([math.inf, 0.0])
    return np.array([ENERGY_FACTOR * mass * max(gravity, MIN_GRAVITY) * max(length, MIN_LENGTH), FLOW_SHARE])


def describe_margin(margin: np.ndarray, flow: float) -> str:
    return (f"beyond {margin[0] + margin[1] * flow:.3g} J: {ENERGY_FACTOR:g} times lifting the scene's mass "
            f"by its size ({margin[0]:.3g} J) and {margin[1]:.0%} of the {flow:.3g} J its inputs and dampers moved")
