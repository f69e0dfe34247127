"""McKenna's gait controller for a hexapod: the oscillator schedule (gait_schedule.py) driving
each leg's step (`procom`) and stance (`retcom`) motor programs (thesis §3.2–3.3, Appendix C).

Runs at frame starts in Python, never inside the integrator (thesis §1.3): it reads the leg
sensors from `Data`, advances the schedule, and on every leg transition issues that leg's
program through the command registry (`motor`, `joint`, `sticky`, ...). Between transitions
and timers a frame only advances the oscillators, so without reflexes the controller tells
the simulation how many frames it may run in one kernel call and catches up their phases
after it (`quiet_frames`, `skip`); a run records the same to the bit either way. Program entries with
`at > 0` wait in the controller's own timer queue (corpus `timer *f cmd`) and fire in the
first frame whose time reaches them. Inside a program every `at`, motor `time` and push
`duration` is a fraction of the phase: protime for a step, the stance duration for a stance.

Published channels (recorded as `ch_<name>`), legs in the order FL, FR, ML, MR, BL, BR:
`gait_swing` (1 while a leg steps), `leg_state` (0 stance, 1 potential step, 2 step) and
`oscillator_phase` (each leg oscillator's phase in degrees).
"""
from __future__ import annotations

import copy
import heapq
import math
from typing import Any, Callable

import numpy as np

from pipeline.control.gait_schedule import LEGS, POTENTIAL, STANCE, Coast, GaitSchedule, GaitTiming
from pipeline.control.commands import (execute, forward_to_controller, located, register_command,
                                       register_controller_kind)
from pipeline.control.watch_frames import ANGLE, FORCE, Watch
from pipeline.errors import CorpusError, Problem
from pipeline.spec.units import to_si

Execute = Callable[[str, dict], None]

# command arguments that are durations, scaled by the phase inside a program
_PHASE_SCALED = {"motor": ("time",), "push": ("duration",)}


def _seconds(value, dimension: str) -> float:
    """A time or angle from a controller script in SI ("50ms", "180deg" as everywhere else)."""
    try:
        return to_si(value, dimension)
    except ValueError as err:
        raise CorpusError(f"gait: {err}") from None


def timing_from_script(gait: dict) -> GaitTiming:
    """GaitTiming from a `gait:` block (controller_gait.schema.json)."""
    explicit = {k: _seconds(gait[k], "time") for k in ("protime", "rettime", "cycletime", "dlegtime")
                if k in gait}
    timing = GaitTiming.from_metabolism(_seconds(gait.get("metabolism", 0.05), "time"), **explicit)
    timing.speed = float(gait.get("speed", 1.0))
    timing.deltaspeed = float(gait.get("deltaspeed", 0.0))
    timing.topspeed = float(gait.get("topspeed", 1.0))
    timing.bottomspeed = float(gait.get("bottomspeed", math.inf))
    timing.right_offset = _seconds(gait.get("right_offset", math.pi), "angle") / (2 * math.pi)
    timing.stance_time = gait.get("stance_time", "stance")
    return timing


def scale_program_entry(entry: dict, duration: float) -> tuple[float, str, dict]:
    """(delay s, action, args) of one program entry with its phase fractions made absolute."""
    (action, args), = entry["do"].items()
    args = copy.deepcopy(args)
    for key in _PHASE_SCALED.get(action, ()):
        if key in args:
            args[key] = float(args[key]) * duration
    return float(entry.get("at", 0.0)) * duration, action, args


class GaitController:
    """The gait controller of one hexapod: schedule + motor programs + reflex sensors.

    `execute(action, args)` runs one command (the simulation's command registry); `sensors`
    is a callable returning (step_reflex_fired, load_inhibited) boolean arrays, or None.
    """

    def __init__(self, script: dict, *, creature: str | None = None,
                 execute: Execute | None = None, where: Any = None):
        gait = script["gait"]
        self.name = script.get("controller", "gait")
        self.creature = creature or script.get("creature")
        self.legs = [gait["legs"][leg] for leg in LEGS]
        reflexes = gait.get("reflexes", {})
        try:
            self.schedule = GaitSchedule(
                timing_from_script(gait),
                phase0_deg=math.degrees(_seconds(gait.get("phase0", 0.0), "angle")),
                running=bool(gait.get("go", True)),
                step_reflex=bool(reflexes.get("step", False)),
                load_reflex=bool(reflexes.get("load", False)),
                neighbour_inhibition=bool(reflexes.get("neighbour_inhibition", False)))
        except CorpusError as err:
            raise CorpusError([_located(p, where) for p in err.problems]) from None
        self.sticky_feet = bool(gait.get("sticky_feet", False))
        self.execute = execute
        self._timers: list[tuple[float, int, str, dict]] = []
        self._seq = 0

    # -- per frame ---------------------------------------------------------------------
    def update(self, t: float, step_reflex_fired=None, load_inhibited=None,
               execute: Execute | None = None) -> list[tuple[int, str]]:
        """One frame at time t: due timers, then the schedule and the programs it starts.
        `execute` overrides the constructor's: a controller living in a simulation's Data is
        handed the simulation's command runner per call, so a forked Data never drives the
        simulation it was copied from."""
        execute = execute or self.execute
        self._fire_timers(t, execute)
        events = self.schedule.update(t, step_reflex_fired, load_inhibited)
        for leg, phase in events:
            self._start_program(t, leg, phase, execute)
        self._fire_timers(t, execute)
        return events

    def coast(self, times: np.ndarray, held: np.ndarray | None = None) -> Coast | None:
        """GaitSchedule.coast, also stopping at the first frame a program's timer fires."""
        ahead = self.schedule.coast(times, held)
        if ahead is None or not self._timers:
            return ahead
        return ahead._replace(quiet=min(ahead.quiet, int(np.searchsorted(times + 1e-12, self._timers[0][0]))))

    def channels(self) -> dict[str, np.ndarray]:
        s = self.schedule
        return {"gait_swing": s.swing(), "leg_state": s.state.astype(np.float64),
                "oscillator_phase": s.phase_deg()}

    def _start_program(self, t: float, leg: int, phase: str, execute: Execute) -> None:
        spec = self.legs[leg]
        if phase == "step":
            duration, program = self.schedule.timing.protime, spec["step"]
        else:
            duration, program = self.schedule.stance_duration(), spec["stance"]
        if self.sticky_feet and "foot" in spec:
            execute("sticky", {"body": spec["foot"], "on": phase == "stance"})
        for entry in program:
            delay, action, args = scale_program_entry(entry, duration)
            heapq.heappush(self._timers, (t + delay, self._seq, action, args))
            self._seq += 1

    def _fire_timers(self, t: float, execute: Execute) -> None:
        # a timer fires in the first frame whose time reaches it (corpus `timer`)
        while self._timers and self._timers[0][0] <= t + 1e-12:
            _, _, action, args = heapq.heappop(self._timers)
            execute(action, args)

    # -- the `gait` timeline command ---------------------------------------------------
    def command(self, args: dict) -> None:
        """corpus `speed`, `deltaspeed`, `topspeed`, `bottomspeed`, `gaitinit`, `gaitgo`."""
        s, tm = self.schedule, self.schedule.timing
        if "topspeed" in args:
            tm.topspeed = float(args["topspeed"])
            tm.check()
        if "bottomspeed" in args:
            tm.bottomspeed = float(args["bottomspeed"])
        if args.get("init"):
            s.init(phase0_deg=0.0)
            self._timers.clear()
        if "speed" in args:
            s.set_speed(float(args["speed"]), _seconds(args.get("time", 0.0), "time"))
        if "deltaspeed" in args:
            tm.deltaspeed, tm.speed_target = float(args["deltaspeed"]), None
        if "go" in args:
            s.running = bool(args["go"])
        reflexes = args.get("reflexes", {})
        s.step_reflex = reflexes.get("step", s.step_reflex)
        s.load_reflex = reflexes.get("load", s.load_reflex)
        s.neighbour_inhibition = reflexes.get("neighbour_inhibition", s.neighbour_inhibition)
        if "sticky_feet" in args:
            self.sticky_feet = bool(args["sticky_feet"])


def _located(problem: Problem, where) -> Problem:
    if where is None or problem.file is not None:
        return problem
    return Problem(problem.message, file=where.file, line=where.line, col=where.col,
                   path=where.path or problem.path)


class LegSensors:
    """The reflexes' inputs read from `sim.sensors` once per frame (thesis §4.2): a step
    reflex fires on the frame its joint angle crosses the trigger angle in the given
    direction; the load reflex compares |joint force| (every joint force element of that DOF:
    spring, damper, bias, ...) of the supporting joint with its threshold."""

    def __init__(self, sim, legs: list[dict], where=None):
        self.step = [self._joint(sim, leg.get("step_reflex"), where) for leg in legs]
        self.load = [self._joint(sim, leg.get("load_reflex"), where) for leg in legs]
        self.angle = np.array([float(leg["step_reflex"]["angle"]) if "step_reflex" in leg else 0.0
                               for leg in legs])
        self.sign = np.array([1.0 if leg.get("step_reflex", {}).get("direction", "+") == "+"
                              else -1.0 for leg in legs])
        self.force = np.array([float(leg["load_reflex"]["force"]) if "load_reflex" in leg
                               else math.inf for leg in legs])
        self._previous = None
        self.loaded = np.zeros(len(legs), bool)  # of the last read
        self._angles = np.array([i for i, j in enumerate(self.step) if j], np.int64)  # the legs Watch rows read
        self._dofs = np.array([sim.joint_dofs(j)[0][0] if j else -1 for j in self.load], np.int64)
        self._qpos = np.array([sim.joint_dofs(j)[1][0] if j else -1 for j in self.step], np.int64)

    @staticmethod
    def _joint(sim, reflex, where):
        if reflex is None:
            return None
        dofs, qpos = sim.joint_dofs(reflex["joint"])
        if dofs.size != 1 or qpos[0] < 0:
            raise CorpusError(located(f"gait reflex joint {reflex['joint']!r} must have one "
                                      "scalar coordinate", where))
        return reflex["joint"]

    def watch(self, state: np.ndarray, step_on: bool, load_on: bool) -> Watch:
        """What the step loop watches for over a stretch, as read() would read it at each start
        (pipeline/control/watch_frames.py): every step-reflex joint's side, waking for a leg in
        stance while the step reflex is on, and the load-reflex joint of each potential leg its
        load holds, waking when it no longer does."""
        held = np.flatnonzero(load_on & (state == POTENTIAL) & self.loaded & (self._dofs >= 0))
        a = self._angles
        return Watch(kind=np.r_[np.full(a.size, ANGLE), np.full(held.size, FORCE)].astype(np.int64),
                     index=np.r_[self._qpos[a], self._dofs[held]].astype(np.int64),
                     wakes=np.r_[step_on & (state[a] == STANCE), np.ones(held.size, bool)],
                     sign=np.r_[self.sign[a], np.ones(held.size)], level=np.r_[self.angle[a], self.force[held]],
                     side=np.r_[self._previous[a], np.zeros(held.size)])

    def watched(self, watch: Watch) -> None:
        """The sides the step loop reached over a stretch: the last start's, read() compares with."""
        self._previous[self._angles] = watch.side[:self._angles.size]

    def read(self, sim) -> tuple[np.ndarray, np.ndarray]:
        sensors = sim.sensors
        side = np.array([self.sign[i] * (sensors.joint(j)[0][0] - self.angle[i]) if j else -1.0
                         for i, j in enumerate(self.step)])
        previous = side if self._previous is None else self._previous
        fired = (previous <= 0) & (side > 0)
        self._previous = side
        loaded = np.array([j is not None and abs(sensors.joint_force(j)[0]) > self.force[i]
                           for i, j in enumerate(self.load)])
        self.loaded = loaded
        return fired, loaded


class GaitStep:
    """The per-frame controller of a `kind: gait` script: reflex sensors, then the schedule.
    It holds no reference to the simulation (it is part of the run's Data and is copied with
    it); the simulation is passed in at every call."""

    def __init__(self, controller: GaitController, sensors: LegSensors, where):
        self.controller, self.sensors, self.where = controller, sensors, where
        self._ahead = None  # (first frame, Coast) that quiet_frames looked ahead over
        self.watch = None  # the joints the step loop watches over that stretch for the reflexes

    def __call__(self, sim, t: float) -> None:
        c = self.controller
        s = c.schedule
        fired, loaded = self.sensors.read(sim) if (s.step_reflex or s.load_reflex) else (None, None)
        c.update(t, fired, loaded, lambda action, args: execute(sim, action, args, self.where))
        sim.data.channels.update(c.channels())
        self._ahead = None

    def quiet_frames(self, sim, most: int) -> int:
        """How many frames from this one (just run, at most `most`) may pass before this
        controller has more to do than advance its oscillators. With reflexes on it also sets
        `watch`, the joints the step loop must watch for them (pipeline/control/watch_frames.py)."""
        s = self.controller.schedule
        d = sim.data
        self.watch = None
        if most <= 1 or s.t != d.time:
            return 1
        ahead = self.controller.coast(np.arange(d.frame + 1, d.frame + most) * sim.dt,  # the times d.time takes
                                      self.sensors.loaded if s.load_reflex else None)
        if ahead is None:
            return 1
        if s.step_reflex or s.load_reflex:
            self.watch = self.sensors.watch(s.state, s.step_reflex, s.load_reflex)
        self._ahead = (d.frame + 1, ahead)
        return 1 + ahead.quiet

    def skip(self, sim, first: int, n: int) -> dict[str, np.ndarray]:
        """Catch up the n frame starts from frame `first` that a kernel call passed (within
        what quiet_frames allowed); their channels (n rows) for the recording."""
        ahead, self._ahead = self._ahead, None
        if ahead is None or ahead[0] != first or n > ahead[1].quiet:
            raise RuntimeError("gait controller: frames skipped that quiet_frames did not allow")
        ahead = ahead[1]
        self.controller.schedule.coast_to(ahead, n - 1)
        if self.watch is not None:
            self.sensors.watched(self.watch)
        sim.data.channels.update(self.controller.channels())
        return {"oscillator_phase": np.mod(ahead.phases[:n, None] + ahead.offsets[:n], 1.0) * 360.0}


def make_gait_controller(sim, ref):
    """Controller factory for `kind: gait` scripts: binds the script to its creature."""
    script = ref.script
    creature = ref.target or script.get("creature")
    controller = GaitController(script, creature=creature, where=ref.where)
    for leg in controller.legs:
        for entry in leg["step"] + leg["stance"]:
            (action, args), = entry["do"].items()
            for key in ("joint", "body"):
                if key in args:
                    sim.body_index(args[key])  # unknown names fail now, not mid-walk
    sensors = LegSensors(sim, controller.legs, ref.where)
    sim.data.user.setdefault("gait", {})[creature] = controller
    sim.data.channels.update(controller.channels())
    return GaitStep(controller, sensors, ref.where)


def gait_command(sim, args: dict) -> None:
    """The `gait` timeline command: forwards to the named (or only) gait controller."""
    forward_to_controller(sim, "gait", "gait", args)


register_controller_kind("gait", make_gait_controller)
register_command("gait", gait_command)
