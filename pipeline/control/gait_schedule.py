"""McKenna's coupled-oscillator gait schedule for a hexapod, kinematic part (thesis §3.2, §4.2).

One master oscillator runs at the cycle period T = speed × cycletime; each leg's oscillator is
the master shifted by a phase offset: `dlegtime / T` of a cycle per segment behind the front
legs (so the wave of steps runs rear → front, Wilson's rules 1 and 5) plus half a cycle on the
right side (rule 2). A leg oscillator "triggers at its peak": when its phase passes 90°. The
leg then goes stance → potential stepping → stepping (unless a reflex inhibits it), steps for
the constant `protime` (rule 3) and returns to stance.

Phases are kept in cycles (1 cycle = 360°), unbounded, so a crossing of 90° is an integer
crossing of `phase - 1/4`; each leg remembers the next crossing it may still fire on, which
gives at most one trigger per leg per cycle even while T (and hence the offsets) changes.
It runs at frame starts, never inside the integrator (thesis §1.3): at the frames where legs
change state in Python, between them as a look-ahead (`coast`) over the frames a kernel call
runs without it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pipeline.control.gait_ramp import ramp, ramp_ahead
from pipeline.errors import CorpusError

LEGS = ("fl", "fr", "ml", "mr", "bl", "br")  # thesis leg numbers 0..5
SEGMENT = np.array([0, 0, 1, 1, 2, 2])  # front, middle, back
RIGHT = np.array([0, 1, 0, 1, 0, 1])
# immediate neighbours (front, back and across) for neighbour inhibition
NEIGHBOURS = ((1, 2), (0, 3), (3, 0, 4), (2, 1, 5), (5, 2), (4, 3))

STANCE, POTENTIAL, STEP = 0, 1, 2
STATE_NAMES = ("stance", "potential", "step")

# phase comparisons tolerate the rounding of summing many frame increments
_EPS = 1e-9


@dataclass
class GaitTiming:
    """Gait constants in seconds. `metabolism` sets protime = dlegtime = rettime and the
    top-speed cycle = 2 × metabolism (digest ambiguity #4); explicit values override it."""

    protime: float = 0.05
    rettime: float = 0.05
    cycletime: float = 0.1
    dlegtime: float = 0.05
    speed: float = 1.0  # cycle-time multiplier: 1 = top speed, 2 = half speed
    deltaspeed: float = 0.0  # change of `speed` per second of simulated time
    speed_target: float | None = None  # a ramp stops here
    topspeed: float = 1.0  # smallest allowed `speed` (fastest gait)
    bottomspeed: float = math.inf  # largest allowed `speed`
    right_offset: float = 0.5  # cycles added to the right legs' oscillators
    stance_time: str = "stance"  # retcom time base: "stance" (T - protime) | "rettime"

    @classmethod
    def from_metabolism(cls, metabolism: float, **overrides) -> "GaitTiming":
        m = float(metabolism)
        values = dict(protime=m, rettime=m, cycletime=2 * m, dlegtime=m)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def check(self) -> None:
        """C7: a cycle faster than the tripod would start legs before their neighbours landed."""
        problems = []
        for name in ("protime", "rettime", "cycletime", "dlegtime"):
            if not getattr(self, name) > 0:
                problems.append(f"gait {name} must be positive, got {getattr(self, name)}")
        if self.topspeed * self.cycletime < 2 * self.protime - 1e-12:
            problems.append(
                f"gait topspeed {self.topspeed} × cycletime {self.cycletime} s is shorter than "
                f"two steps ({2 * self.protime} s): frequencies faster than the tripod gait would "
                "trigger legs to step before their neighbours had completed their stepping")
        if self.stance_time not in ("stance", "rettime"):
            problems.append(f"gait stance_time must be 'stance' or 'rettime', got {self.stance_time!r}")
        if problems:
            raise CorpusError(problems)

    def clamp(self, speed: float) -> float:
        return min(max(speed, self.topspeed), self.bottomspeed)


class Coast(NamedTuple):
    """GaitSchedule.coast's look-ahead: at each frame time, the master phase, the speed, the
    ramp's rate and the legs' phase offsets; `quiet` frames pass before update() has more to do."""
    times: np.ndarray
    phases: np.ndarray
    speeds: np.ndarray
    rates: np.ndarray
    offsets: np.ndarray  # (frames, 6)
    quiet: int


class GaitSchedule:
    """Oscillators and leg states of one hexapod. `update(t)` once per frame returns the
    leg transitions of that frame as (leg index, "step" | "stance") in order."""

    def __init__(self, timing: GaitTiming, *, phase0_deg: float = 0.0, running: bool = True,
                 step_reflex: bool = False, load_reflex: bool = False,
                 neighbour_inhibition: bool = False):
        timing.check()
        self.timing = timing
        self.timing.speed = timing.clamp(timing.speed)
        self.running = running
        self.step_reflex = step_reflex
        self.load_reflex = load_reflex
        self.neighbour_inhibition = neighbour_inhibition
        self.init(phase0_deg=phase0_deg, t=0.0)

    # -- corpus gaitinit / gaitgo ------------------------------------------------------
    def init(self, *, phase0_deg: float = 0.0, t: float | None = None) -> None:
        """All legs in stance, master oscillator at phase0 (corpus `gaitinit`)."""
        if t is not None:
            self.t = t
        self.phase = phase0_deg / 360.0
        self.state = np.full(6, STANCE, dtype=np.int64)
        self.step_start = np.full(6, -math.inf)
        self.last_trigger = np.full(6, -math.inf)
        self._next_crossing = np.floor(self.leg_phase() - 0.25 + _EPS) + 1.0

    @property
    def period(self) -> float:
        return self.timing.speed * self.timing.cycletime

    def offsets(self) -> np.ndarray:
        """Leg oscillator phase offsets from the master, in cycles.

        The ipsilateral offset is a constant *time* (dlegtime per segment), so a leg's
        oscillator is the master oscillator `segment × dlegtime` ahead in time, plus half a
        cycle on the right. At constant speed that is `segment × dlegtime / T` cycles; while
        the speed ramps it keeps every leg's frequency between the ramp's end points, so no
        leg steps twice within the fastest cycle (C4).
        """
        ahead = [self._phase_gain(seg * self.timing.dlegtime) for seg in range(3)]
        return np.array([ahead[seg] for seg in SEGMENT]) + RIGHT * self.timing.right_offset

    def leg_phase(self) -> np.ndarray:
        """Unbounded phase of each leg oscillator in cycles."""
        return self.phase + self.offsets()

    def stance_duration(self) -> float:
        if self.timing.stance_time == "rettime":
            return self.timing.rettime
        return self.period - self.timing.protime

    # -- speed -------------------------------------------------------------------------
    def set_speed(self, speed: float, ramp_time: float = 0.0) -> None:
        """Jump to `speed`, or ramp linearly to it over `ramp_time` seconds."""
        target = self.timing.clamp(float(speed))
        if ramp_time > 0:
            self.timing.deltaspeed = (target - self.timing.speed) / ramp_time
            self.timing.speed_target = target
        else:
            self.timing.speed = target
            self.timing.deltaspeed = 0.0
            self.timing.speed_target = None

    def _limit(self) -> float:
        """Where the current ramp stops: `speed_target` or the bound it runs toward."""
        tm = self.timing
        return tm.clamp(tm.speed_target if tm.speed_target is not None else (
            tm.bottomspeed if tm.deltaspeed > 0 else tm.topspeed))

    def _phase_gain(self, dt: float) -> float:
        tm = self.timing
        return ramp(tm.speed, tm.deltaspeed, self._limit(), dt, tm.cycletime)[0]

    def _advance_speed_and_phase(self, dt: float) -> None:
        tm = self.timing
        gain, tm.speed, ended = ramp(tm.speed, tm.deltaspeed, self._limit(), dt, tm.cycletime)
        self.phase += gain
        if ended:
            tm.deltaspeed, tm.speed_target = 0.0, None

    # -- one frame ---------------------------------------------------------------------
    def update(self, t: float, step_reflex_fired=None, load_inhibited=None) -> list[tuple[int, str]]:
        """Advance to frame time t and return this frame's transitions.

        `step_reflex_fired[i]`: leg i's monitored joint passed its trigger angle;
        `load_inhibited[i]`: leg i's supporting joint force exceeds its threshold.
        """
        dt = t - self.t
        self.t = t
        events: list[tuple[int, str]] = []
        if not self.running:
            return events
        if dt > 0:
            self._advance_speed_and_phase(dt)
        for i in range(6):  # a step lasts exactly protime (Wilson rule 3)
            if self.state[i] == STEP and t >= self.step_start[i] + self.timing.protime - _EPS:
                self.state[i] = STANCE
                events.append((i, "stance"))
        psi = self.leg_phase()
        for i in range(6):
            if psi[i] - 0.25 >= self._next_crossing[i] - _EPS:
                self._next_crossing[i] = math.floor(psi[i] - 0.25 + _EPS) + 1.0
                self.last_trigger[i] = t
                if self.state[i] == STANCE:  # a trigger during a step is ignored
                    self.state[i] = POTENTIAL
        if self.step_reflex and step_reflex_fired is not None:
            for i in range(6):
                if self.state[i] == STANCE and step_reflex_fired[i]:
                    self.state[i] = POTENTIAL
        for i in range(6):
            if self.state[i] != POTENTIAL:
                continue
            if self.load_reflex and load_inhibited is not None and load_inhibited[i]:
                continue
            if self.neighbour_inhibition and any(self.state[j] == STEP for j in NEIGHBOURS[i]):
                continue
            self.state[i] = STEP
            self.step_start[i] = t
            events.append((i, "step"))
        return events

    def coast(self, times: np.ndarray, held: np.ndarray | None = None) -> Coast | None:
        """Look ahead over later frame times `times` (increasing) without changing anything:
        what update() would reach at each, and how many of them pass before the first at which
        update() would do more than advance the oscillators (a step ends, an oscillator
        triggers, an uninhibited potential leg steps; `held` marks the potential legs the load
        reflex holds, which the caller watches). The oscillators come from the same
        compiled arithmetic, frame after frame, that update() runs (gait_ramp.py), through
        speed ramps too, so a run that skips those calls stays identical to the bit."""
        tm = self.timing
        if not self.running:
            still = np.full(times.shape, self.phase)
            return Coast(times, still, np.full(times.shape, tm.speed), np.full(times.shape, tm.deltaspeed),
                         np.broadcast_to(self.offsets(), (times.size, 6)), times.size)
        for i in np.flatnonzero(self.state == POTENTIAL):
            if held is not None and held[i]:
                continue
            if not (self.neighbour_inhibition and any(self.state[j] == STEP for j in NEIGHBOURS[i])):
                return None
        phases, speeds, rates, ahead = ramp_ahead(self.t, self.phase, tm.speed, tm.deltaspeed, self._limit(),
                                                  tm.cycletime, tm.dlegtime, times)
        offsets = ahead[:, SEGMENT] + RIGHT * tm.right_offset
        ends = (self.state == STEP) & (times[:, None] >= self.step_start + tm.protime - _EPS)
        triggers = phases[:, None] + offsets - 0.25 >= self._next_crossing - _EPS
        busy = np.flatnonzero((ends | triggers).any(axis=1))
        return Coast(times, phases, speeds, rates, offsets, int(busy[0]) if busy.size else times.size)

    def coast_to(self, ahead: Coast, k: int) -> None:
        """Take the state update() would have reached at frame k of a stretch that coast()
        found quiet: only the clock, the master phase and the speed (and a ramp's end) move."""
        tm = self.timing
        self.t, self.phase, tm.speed = float(ahead.times[k]), float(ahead.phases[k]), float(ahead.speeds[k])
        if ahead.rates[k] == 0.0 and tm.deltaspeed != 0.0:
            tm.deltaspeed, tm.speed_target = 0.0, None

    def swing(self) -> np.ndarray:
        """1.0 for each leg that is stepping, in the order FL, FR, ML, MR, BL, BR."""
        return (self.state == STEP).astype(np.float64)

    def phase_deg(self) -> np.ndarray:
        """Each leg oscillator's phase in degrees, wrapped to [0, 360)."""
        return np.mod(self.leg_phase(), 1.0) * 360.0
