"""The articulated engine's Simulation: immutable Model + mutable Data, stepped frame by frame.

Python runs only at frame boundaries (every `Scene.simulation.dt`): due timeline commands,
then controllers, then recording; the compiled step loop (`pipeline.physics.step.advance`)
covers the frame with the scene's integrator. Every mutable part of a run, controllers and
timeline cursor included, lives in `Data` (pipeline/simulate/data.py), so `sim.fork()` and
`sim.data = Data.load(path)` continue a run exactly.
"""
from __future__ import annotations

import copy
import operator

import numpy as np

from pipeline.compiler.build import as_scene, compile_model, force_scale
from pipeline.errors import CorpusError, Problem, SimulationError
from pipeline.physics import body_kinetic_energies
from pipeline.physics.derivative import Live, Statics, evaluate, make_work
from pipeline.physics.forces import PUSH_END
from pipeline.physics.integrators import INTEGRATORS
from pipeline.physics.model import (BALL, FREE, JOINT_NQ, JOINT_NV, JOINT_TYPE_NAMES, PRISMATIC, REVOLUTE,
                                    UNIVERSAL, Model)
from pipeline.control.biped_frames import Bipeds
from pipeline.control.fsm_controller import FsmController
from pipeline.control.controlled_frames import InKernel, advance_in_kernel, scene_order
from pipeline.control.fsm_frames import CONTROL_ERROR, Machines
from pipeline.control.python_ctrl import HOLD
from pipeline.control.watch_frames import WOKEN
from pipeline.physics.frames import GAINED, RUNAWAY, advance_frames_of, new_live_ref, new_step_tables
from pipeline.physics.step import (EVENT, N_ACCEPT, N_EVAL, N_REJECT, NONFINITE, OK, body_poses,
                                   trajectory_poses)
from pipeline import runaway as R
from pipeline.physics import events as E
from pipeline.progress import frame_progress
from pipeline.recording import Recorder, Recording
from pipeline.simulate.data import Data
from pipeline.simulate.sensors import Sensors
from pipeline.spec.loader import problem_at
from pipeline.spec.types import Scene, SimulationSettings

# the per-frame arrays controllers may write, which the step kernel reads as float64 vectors
_LIVE_ARRAYS = ("ctrl", "qdd_prescribed", "motor_target", "motor_vel", "motor_end", "gravity")
_live_arrays = operator.attrgetter(*_LIVE_ARRAYS)
_PROGRESS_STEPS = 100  # kernel calls a run is cut into at least, so its progress bar moves


def state_kinds(tree, nq: int, nv: int) -> np.ndarray:
    """What each component of the state y = [q | qd | exp_rest] is, which says its runaway
    bound (pipeline/runaway.py); quaternions and the rests of free and ball joints have none."""
    kinds = np.full(nq + 2 * nv, R.UNBOUNDED)
    for b, t in enumerate(tree.jtype):
        a, v = int(tree.qadr[b]), nq + int(tree.vadr[b])
        n = JOINT_NV[t]
        if t == FREE:
            kinds[a:a + 3] = R.POSITION
            kinds[v:v + 6] = [R.VELOCITY] * 3 + [R.ANGULAR_VELOCITY] * 3  # body-axes (v, w)
        elif t == BALL:
            kinds[v:v + 3] = R.ANGULAR_VELOCITY
        elif t in (REVOLUTE, UNIVERSAL, PRISMATIC):
            position, velocity = ((R.POSITION, R.VELOCITY) if t == PRISMATIC
                                  else (R.ANGLE, R.ANGULAR_VELOCITY))
            kinds[a:a + n] = position
            kinds[v:v + n] = velocity
            kinds[v + nv:v + nv + n] = position  # exp_rest
    return kinds


def event_table(events, model: Model, dof_qpos: np.ndarray) -> np.ndarray:
    """The step loop's (ne, 6) event table (pipeline/physics/events.py) of a scene's events."""
    table = np.zeros((len(events), E.EV_COLUMNS))
    for i, e in enumerate(events):
        b = model.body_names.index(e.body or e.joint)
        if e.body:
            kind, index, comp = E.BODY_POSITION, b, "xyz".index(e.quantity)
        else:
            va = int(model.tree.vadr[b])
            nv = JOINT_NV[model.tree.jtype[b]]
            if nv != 1 or dof_qpos[va] < 0:
                raise CorpusError(_at_where(e.where, f"event {e.name!r}: joint {e.joint!r} must "
                                                     "have one scalar coordinate"))
            kind, index, comp = E.JOINT_POSITION, int(dof_qpos[va]), 0
        table[i] = (kind, index, comp, e.level, 1.0 if e.rising else -1.0,
                    E.RECORD if e.action == "record" else E.STOP)
    return table


def _at_where(where, message: str) -> Problem:
    return Problem(message, file=where.file, line=where.line, col=where.col, path=where.path)


def compile_simulation(spec, **kwargs) -> Simulation:
    """pipeline.compile: Scene or Creature -> Simulation (Model + Data)."""
    scene = as_scene(spec)
    model, cstate0 = compile_model(scene)
    return Simulation(model, scene, cstate0, **kwargs)


class Simulation:
    def __init__(self, model: Model, scene: Scene, cstate0: np.ndarray,
                 settings: SimulationSettings | None = None):
        from pipeline.control import commands, contact_commands, python_ctrl  # noqa: F401  (they register)

        self.model = model
        self.scene = scene
        self.settings = settings or scene.simulation
        s = self.settings
        if s.integrator not in INTEGRATORS:
            raise CorpusError(problem_at(scene.where, f"unknown integrator {s.integrator!r}; expected "
                                         f"one of {', '.join(INTEGRATORS)}",
                                  "simulation.integrator"))
        if not s.dt > 0.0:
            raise CorpusError(problem_at(scene.where, f"dt must be positive, got {s.dt}", "simulation.dt"))
        self.dt = float(s.dt)
        self.method = INTEGRATORS[s.integrator]
        self.h = float(s.h) if s.h else self.dt
        self.h_max = float(s.h_max) if s.h_max else self.dt
        self._commands = commands
        self._cstate0 = np.asarray(cstate0, dtype=np.float64)
        tree = model.tree
        self._dof_body = np.repeat(np.arange(model.nbody), [JOINT_NV[t] for t in tree.jtype])
        dof_qpos = np.full(model.nv, -1, np.int64)
        for b, t in enumerate(tree.jtype):
            if JOINT_NQ[t] == JOINT_NV[t]:  # scalar coordinates: q index = DOF index offset
                dof_qpos[tree.vadr[b]:tree.vadr[b] + JOINT_NV[t]] = \
                    np.arange(tree.qadr[b], tree.qadr[b] + JOINT_NQ[t])
        self.dof_qpos = dof_qpos
        bodies = [b for c in scene.creatures for b in c.bodies][:model.nbody]
        self.force_scale = force_scale(tree.parent, tree.jtype, tree.vadr, model.nv, tree.mass,
                                       bodies)
        self._statics = Statics(tree=tree, contact=model.contact, dof_qpos=dof_qpos,
                                nq=model.nq)
        self._events = event_table(scene.events, model, dof_qpos)
        self._work = self._make_work()
        self._tables = new_step_tables(self._statics, self._work, self._events)
        self._live_kept = None  # (Live, its LiveRef)
        self._live_checked = None  # the live arrays _coerce_live_arrays last found right
        self._poses = (np.zeros((model.nbody, 3)), np.zeros((model.nbody, 4)))
        self._timeline = sorted(scene.timeline, key=lambda c: c.at)
        self.sensors = Sensors(self)
        self.machines = None  # the fsm controllers in the step loop (control/fsm_frames.py)
        self.bipeds = None  # the biped_walk controllers (control/biped_frames.py)
        self._in_kernel = None  # the machines and bipeds both, in scene order (control/controlled_frames.py)
        self._watching = []  # what the Python controllers of a stretch ask to watch (control/watch_frames.py)
        self.reset()
        self._runaway = self._runaway_bounds()
        self._energy_margin = self._margin()

    # -- state --------------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the compiled initial state: fresh Data, timeline cursor and controllers."""
        self.data = Data(self.model, self._cstate0, self.h, self.settings.seed)
        self._start_prescribed_roots()
        d = self.data
        d.controllers = [self._make_controller(ref) for ref in self.scene.controllers]
        machines = [c for c in d.controllers if isinstance(c, FsmController)]
        walkers = Bipeds.walkers(d)
        if walkers:
            if self.bipeds is None:
                self.bipeds = Bipeds(self, walkers)
            for k, c in enumerate(walkers):
                c.index = k
        if machines:
            if self.machines is None:
                self.machines = Machines(self, machines)
            for p, c in enumerate(machines):
                c.index = p
            d.machine_slots = self.machines.initial_slots.copy()
            d.machine_states = self.machines.initial_states.copy()
            self.machines.publish(d)
        if (machines or walkers) and self._in_kernel is None:
            self._in_kernel = InKernel(self.machines, self.bipeds, scene_order(d.controllers))
        self.recording = None

    def _runaway_bounds(self) -> R.RunawayBounds:
        """The scene's runaway bounds, from the initial state: how far bodies and their
        geometry reach from the origin, and how fast they start."""
        m = self.model
        kinds = state_kinds(m.tree, m.nq, m.nv)
        origin = np.linalg.norm(self.body_poses()[0], axis=1)  # of each body frame
        g = m.geoms
        own = g.body >= 0  # not the world's terrain
        reach = origin[g.body[own]] + np.linalg.norm(g.pos[own], axis=1) + np.linalg.norm(g.size[own], axis=1)
        y = np.abs(self.data.y)
        return R.RunawayBounds(kinds, length=max(origin.max(initial=0.0), reach.max(initial=0.0)), dt=self.dt,
                               gravity=float(np.linalg.norm(m.gravity)), duration=self.settings.duration,
                               speed0=float(y[kinds == R.VELOCITY].max(initial=0.0)),
                               angular_speed0=float(y[kinds == R.ANGULAR_VELOCITY].max(initial=0.0)))

    def _margin(self) -> np.ndarray:
        """[energy, share of the energy moved] a run may gain that nothing in the scene gave
        it (pipeline/runaway.py); infinite when the scene's input cannot be weighed."""
        tree = self.model.tree
        return R.energy_margin(float(tree.mass.sum()), self._runaway.gravity, self._runaway.length,
                               prescribed=bool(tree.prescribed.any()))

    def fork(self) -> "Simulation":
        """A second simulation of the same Model from a copy of this one's Data: both go on
        independently (compiled kernels, model and scratch layout are shared or rebuilt)."""
        twin = copy.copy(self)
        twin._work = self._make_work()
        twin._tables = new_step_tables(self._statics, twin._work, self._events)
        twin._live_kept = None
        twin._poses = (np.zeros((self.model.nbody, 3)), np.zeros((self.model.nbody, 4)))
        twin.sensors = Sensors(twin)
        twin.machines = self.machines and self.machines.fork(twin)
        twin.bipeds = self.bipeds and self.bipeds.fork(twin)
        twin._in_kernel = self._in_kernel and self._in_kernel.fork(twin.machines, twin.bipeds)
        twin.data = self.data.copy()
        twin.recording = None
        return twin

    def _make_work(self):
        m = self.model
        return make_work(m.nbody, m.nq, m.nv, self._cstate0.shape[0],
                         m.contact.point_body.shape[0], self._events.shape[0])

    @property
    def rng(self) -> np.random.Generator:
        return self.data.rng

    @property
    def events(self) -> list[tuple[float, str]]:
        """(time, name) of every event so far: the logged `record` ones, then the `stop`."""
        d = self.data
        names = [e.name for e in self.scene.events]
        n = min(int(d.event_count[0]), d.event_log.shape[0])
        out = [(float(t), names[int(i)]) for t, i in d.event_log[:n]]
        if d.stopped_by >= 0:
            out.append((d.time, names[d.stopped_by]))
        return out

    def _start_prescribed_roots(self) -> None:
        """A `root: {mode: prescribed, prescribed: {linear, angular}}` tree moves at those
        constant world velocities (of its root frame's origin); the kernel keeps them."""
        tree = self.model.tree
        for ci, creature in enumerate(self.scene.creatures):
            if creature.root_mode != "prescribed" or not creature.prescribed:
                continue
            b = int(np.flatnonzero(self.model.body_tree == ci)[0])
            if tree.jtype[b] != FREE:
                continue
            R = self.body_rotation(b)
            va = int(tree.vadr[b])
            for k, key in ((0, "linear"), (3, "angular")):
                world = np.asarray(creature.prescribed.get(key, (0.0, 0.0, 0.0)), float)
                self.data.qd[va + k:va + k + 3] = R.T @ world

    def _make_controller(self, ref):
        kind = ref.kind if ref.kind == "python" else (ref.script or {}).get("kind", ref.kind)
        try:
            return self._commands.controller_factory(kind, ref.where)(self, ref)
        except CorpusError as error:  # a joint its programs name that the scene lacks
            raise self._commands.at_entry(error, ref.where) from None

    @property
    def time(self) -> float:
        return self.data.time

    def body_index(self, name: str) -> int:
        try:
            return self.model.body_names.index(name)
        except ValueError:
            raise _unknown("body", name, self.model.body_names) from None

    def joint_dofs(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(DOF indices, q index of each DOF or -1) of the joint named like its body."""
        b = self.body_index(name)
        va = int(self.model.tree.vadr[b])
        dofs = np.arange(va, va + JOINT_NV[self.model.tree.jtype[b]])
        return dofs, self.dof_qpos[dofs]

    def body_rotation(self, b: int) -> np.ndarray:
        self._update_poses()
        return self._work.dyn.xrot[b].copy()

    def body_poses(self) -> tuple[np.ndarray, np.ndarray]:
        """World positions (nb, 3) and quaternions (nb, 4) of the body frames now."""
        self._update_poses()
        return self._poses[0].copy(), self._poses[1].copy()

    def _update_poses(self):
        body_poses(self.model.tree, self.data.q, self._work.dyn, *self._poses)

    def normalize(self) -> None:
        from pipeline.physics.kinematics import normalize_quaternions

        normalize_quaternions(self.model.tree, self.data.q)

    def qdd(self) -> np.ndarray:
        """Joint accelerations at the current state (one derivative evaluation, not counted)."""
        d = self.data
        ydot = np.zeros_like(d.y)
        w = self._work
        evaluate(self._statics, self._live(), w, d.time, d.time, d.y, d.cstate, w.cs_scratch,
                 ydot)
        d.qdd[:] = ydot[d.nq:d.nq + d.nv]
        return d.qdd.copy()

    def command(self, action: str, args=None, where=None) -> None:
        """Run one timeline command now (the same registry the timeline uses)."""
        self.data.held.clear()
        self._commands.execute(self, action, {} if args is None else args, where)

    # -- stepping -----------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance n frames of dt (commands and controllers at each frame start). Frames
        whose starts have nothing for Python to do (no controllers, no timeline command
        due) run in one kernel call (pipeline/physics/frames.py)."""
        left = int(n)
        while left > 0 and self.data.stopped_by < 0:
            self._boundary()
            k = self._quiet_frames(left)
            self._integrate(k)
            left -= k

    def _quiet_frames(self, most: int) -> int:
        """How many frames from this one (at most `most`) can run without Python at their
        starts: up to the next timeline command, and no further than every Python controller
        allows: 1 frame for one that runs every frame, what its `quiet_frames` says for one
        that can catch up the starts it missed (`skip`; the gait controller), while the step
        loop watches the joints it names (its `watch`, in self._watching; watch_frames.py).
        Controllers that returned HOLD wait for the next command; fsm controllers and bipeds
        tick in the step loop."""
        d = self.data
        k = most
        if d.next_command < len(self._timeline):
            due = self._timeline[d.next_command].at
            # boundary of frame f runs commands with at <= f dt + tol: frames d.frame + 1
            # .. d.frame + k - 1 must come before it
            k = min(k, int(np.floor((due - 1e-9 * self.dt) / self.dt)) - d.frame + 1)
        self._watching = []
        for i, c in enumerate(d.controllers):
            if k <= 1:
                break
            if i not in d.held and not getattr(c, "in_kernel", False):
                quiet = getattr(c, "quiet_frames", None)
                k = quiet(self, k) if quiet is not None else 1
                if getattr(c, "watch", None) is not None:
                    self._watching.append(c.watch)
        if self._watching and self._loop() is not None:
            k = 1  # the joints a controller asks to watch are watched only in the plain step loop
        return max(1, k)

    def run(self, duration: float | None = None, progress: bool | None = None) -> Recording:
        """Simulate `duration` (default the scene's) and return the recorded frames. On an
        instability it raises SimulationError and returns nothing. Stretches of frames that
        need no Python run in one kernel call, which records their frames itself."""
        nframes = self.frames_in(duration)
        rec = Recorder(self.model.body_names, self.model.nq, self.model.nv)
        self.recording = None
        d = self.data
        end = d.frame + nframes
        stretch = max(1, nframes // _PROGRESS_STEPS)
        with frame_progress(self.scene.name, nframes, self.dt, progress) as advanced:
            while d.frame < end and d.stopped_by < 0:  # a `stop` event ends the run
                self._boundary()
                self._record(rec)
                start = d.frame
                self._integrate(self._quiet_frames(min(end - d.frame, stretch)), rec)
                advanced(d.frame - start)
            self._boundary()
            self._record(rec, always=d.stopped_by >= 0)  # a `stop` event's state is recorded
        self.recording = rec.finish()
        return self.recording

    def frames_in(self, duration: float | None = None) -> int:
        """The frames `run(duration)` simulates (default: the scene's duration)."""
        duration = self.settings.duration if duration is None else float(duration)
        return max(0, int(np.ceil(duration / self.dt - 1e-9)))

    def _record(self, rec, always: bool = False) -> None:
        d = self.data
        if d.frame % self.settings.record_every and not always:
            return
        self._update_poses()
        rec.add(d.time, *self._poses, d.q, d.qd, d.channels)

    def _boundary(self) -> None:
        """Commands due at this frame's time, then controllers; once per frame."""
        d = self.data
        if d.boundary_frame == d.frame:
            return
        d.boundary_frame = d.frame
        t = d.time
        tol = 1e-9 * self.dt
        self._drop_ended_pushes()
        while (d.next_command < len(self._timeline)
               and self._timeline[d.next_command].at <= t + tol):
            c = self._timeline[d.next_command]
            d.next_command += 1
            d.held.clear()
            self._commands.execute(self, c.action, c.args, c.where)
        for i, (ref, controller) in enumerate(zip(self.scene.controllers, d.controllers)):
            if i in d.held:
                continue
            try:
                if controller(self, t) is HOLD:
                    d.held.add(i)
            except CorpusError as error:
                raise self._commands.at_entry(error, ref.where) from None
            self._coerce_live_arrays(ref)

    def _drop_ended_pushes(self) -> None:
        d = self.data
        if d.pushes.shape[0]:
            d.pushes = d.pushes[d.pushes[:, PUSH_END] > d.time + 1e-9 * self.dt]

    def _coerce_live_arrays(self, controller=None) -> None:
        """Make the arrays controllers write contiguous float64 of their fixed shapes; a wrong
        one is an error at the controller that left it (a ControllerRef), when known."""
        d = self.data
        checked = self._live_checked
        if checked is not None and all(map(operator.is_, _live_arrays(d), checked)):
            return  # the arrays checked last time (what most frames see)
        for name in _LIVE_ARRAYS:
            n = 3 if name == "gravity" else self.model.nv
            value = getattr(d, name)
            try:
                a = np.ascontiguousarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                a = None
            if a is not None and a.shape == (n,):
                setattr(d, name, a)
                continue
            got = f"shape {a.shape}" if a is not None else f"{type(value).__name__} {str(value)[:40]!r}"
            message = f"data.{name} must be {n} numbers (shape ({n},)), got {got}"
            if controller is None:
                raise SimulationError(message)
            who = f"python controller {controller.python!r}" if controller.python else f"{controller.kind} controller"
            raise SimulationError(self._commands.located(f"{who} left {message}", controller.where))
        self._live_checked = _live_arrays(d)

    def _live(self) -> Live:
        d = self.data
        self._coerce_live_arrays()
        d.pushes = np.ascontiguousarray(d.pushes, dtype=np.float64)
        return Live(forces=d.forces, gravity=d.gravity, ctrl=d.ctrl,
                    motor_active=d.motor_active, motor_target=d.motor_target,
                    motor_vel=d.motor_vel, motor_end=d.motor_end, pushes=d.pushes,
                    qdd_prescribed=d.qdd_prescribed)

    def _live_ref(self):
        """`_live()` as the LiveRef the step loop takes, kept while its arrays are the same."""
        live = self._live()
        kept = self._live_kept
        if kept is None or any(a is not b for a, b in zip(live, kept[0])):
            kept = self._live_kept = (live, new_live_ref(*live))
        return kept[1]

    def _integrate(self, frames: int = 1, rec: Recorder | None = None) -> None:
        """Integrate `frames` frames in one kernel call; their starts after the first must
        need no Python (see _quiet_frames), and those a run records go into `rec`. The
        runaway bounds are those of the last frame's end (bounds only widen with time)."""
        d = self.data
        s = self.settings
        fail = np.zeros(3)
        done = np.zeros(2, np.int64)
        limits = self._runaway.limits((d.frame + frames) * self.dt)
        every = int(s.record_every) if rec is not None else 0
        loop = self._loop()
        trace = self._new_trace(frames, rec is not None)
        args = (self.method, self.dt, d.frame, frames, self.h, float(s.atol), float(s.rtol),
                float(s.h_min), self.h_max, d.y, d.cstate, d.counters, d.h_next, fail,
                d.event_log, d.event_count, limits, d.balance, self._energy_margin, every)
        try:
            watching = self._watching if loop is None and frames > 1 else []
            if loop is None and not watching:
                status = advance_frames_of(self._tables, self._live_ref(), *args, 0, trace, done)
            else:
                status = advance_in_kernel(self, loop, watching, args, trace, done)
                status = OK if status == WOKEN else status  # ended early where a controller has work
        except ArithmeticError as exc:  # a state so large that a kernel divided by zero
            d.frame += int(done[0])
            d.time = d.frame * self.dt
            raise self._unstable(self._overflow(d.time + self.dt, exc)) from None
        self._conclude(frames, status, fail, done, trace, rec)

    def _new_trace(self, frames: int, recording: bool) -> np.ndarray:
        """The trace of a kernel call over `frames` frames from d.frame: a row for each start
        inside the stretch that a recording run records (its end's start is recorded after
        its boundary), q, qd, then the channels of the controllers in the step loop."""
        d = self.data
        every = int(self.settings.record_every) if recording else 0
        loop = self._loop()
        return np.empty(((d.frame + frames - 1) // every - d.frame // every if every else 0,
                         self.model.nq + self.model.nv + (len(loop.names) if loop else 0)))

    def _conclude(self, frames: int, status: int, fail: np.ndarray, done: np.ndarray, trace: np.ndarray,
                  rec: Recorder | None) -> None:
        """Put the outcome of a kernel call over `frames` frames from d.frame into Data and
        rec (its status, failure, frames and rows done, trace); raise its SimulationError."""
        d = self.data
        channels = self._skip_controllers(d.frame + 1, int(done[0]) - 1)
        if done[1]:
            self._record_trace(rec, trace[:done[1]], d.frame // int(self.settings.record_every) + 1, channels)
        d.frame += int(done[0])
        if frames > 1:  # the starts it covered had nothing to run
            d.boundary_frame = d.frame - 1
        if status == CONTROL_ERROR:
            d.time = float(fail[0])
            raise self.machines.error(int(fail[1]), int(fail[2]), d.time)
        error = self._settle(status, fail)
        if error is not None:
            raise error
        if frames > 1:  # what their starts would have dropped
            self._drop_ended_pushes()
        loop = self._loop()
        if loop is not None:
            loop.publish(d)

    def _loop(self) -> InKernel | None:
        """The controllers that tick in the step loop (fsm machines, bipeds), if any."""
        return self._in_kernel

    def _skip_controllers(self, first: int, n: int) -> dict[str, np.ndarray]:
        """Let the Python controllers whose quiet_frames allowed a stretch catch up the n frame
        starts from `first` that it passed; their channels at each of those starts (n rows)."""
        channels = {}
        if n > 0:
            d = self.data
            for i, c in enumerate(d.controllers):
                if i not in d.held and not getattr(c, "in_kernel", False):
                    channels.update(c.skip(self, first, n))
        return channels

    def _record_trace(self, rec: Recorder, rows: np.ndarray, first: int,
                      skipped: dict[str, np.ndarray]) -> None:
        """The step loop's trace (T, nq + nv [+ machine channels]) of every `record_every`-th
        frame from record number `first` into rec, with the channels of the controllers that
        skipped those starts (`skipped`, one row per frame start from the stretch's second)
        and the other channels as they stand (nothing else ran between)."""
        m = self.model
        n = rows.shape[0]
        pos, quat = np.empty((n, m.nbody, 3)), np.empty((n, m.nbody, 4))
        trajectory_poses(m.tree, rows, self._work.dyn, pos, quat)
        frames = (first + np.arange(n)) * self.settings.record_every
        nqv = m.nq + m.nv
        names = self._loop().names if rows.shape[1] > nqv else []
        row_channels = dict(zip(names, rows[:, nqv:].T))
        stretch = self.data.frame + 1  # the frame of each skipped channel's first row
        row_channels.update({name: values[frames - stretch] for name, values in skipped.items()})
        rec.add_rows(frames * self.dt, pos, quat, rows[:, :m.nq], rows[:, m.nq:nqv],
                     self.data.channels, row_channels)

    def _settle(self, status: int, fail: np.ndarray) -> SimulationError | None:
        """Put the step loop's outcome for frames already counted in d.frame into Data: the
        time reached, a `stop` event; or the SimulationError of a failure (for the caller to
        raise, or a rollout to report)."""
        d = self.data
        if status == EVENT:
            d.time = float(fail[0])
            d.stopped_by = int(fail[1])
        elif status == RUNAWAY:
            d.time = float(fail[0])
            return self._unstable(self._ran_away(int(fail[1])))
        elif status == GAINED:
            d.time = float(fail[0])
            return self._unstable(self._gained(float(fail[1])))
        elif status != OK:
            return self._unstable(self._failure(status, fail))
        else:
            d.time = d.frame * self.dt
        return None

    def _unstable(self, message: str) -> SimulationError:
        return SimulationError(problem_at(self.scene.where, message, "simulation"))

    def _component(self, i: int) -> tuple[int, str]:
        """(body, "q[i]" / "qd[dof]" / "exp_rest[dof]") of component i of the state y."""
        nq, nv = self.model.nq, self.model.nv
        tree = self.model.tree
        if i < nq:
            b = int(np.searchsorted(tree.qadr, i, side="right") - 1)
            # bodies without coordinates share their qadr with the next body: take the owner
            while JOINT_NQ[tree.jtype[b]] == 0 and b > 0:
                b -= 1
            return b, f"q[{i}]"
        dof = (i - nq) % nv
        return int(self._dof_body[dof]), f"qd[{dof}]" if i < nq + nv else f"exp_rest[{dof}]"

    def _failure(self, status: int, fail: np.ndarray) -> str:
        b, what = self._component(int(fail[1]))
        if status == NONFINITE:
            why = "the state became NaN/inf"
        else:
            why = (f"the step size fell below h_min = {self.settings.h_min:g} s "
                   f"(the error of {what} would not come down)")
        return (f"simulation unstable at t = {fail[0]:.9g} s: {why} in body {self.model.body_names[b]!r} "
                f"({what}){_ADVICE}")

    def _ran_away(self, i: int) -> str:
        b, what = self._component(i)
        d = self.data
        joint = f"joint {self.model.joint_names[b]!r} ({JOINT_TYPE_NAMES[self.model.tree.jtype[b]]})"
        return (f"simulation unstable at t = {d.time:.9g} s: the state ran away in body "
                f"{self.model.body_names[b]!r}, {joint}: {what} = "
                f"{self._runaway.describe(i, float(d.y[i]), d.time)}{_ADVICE}")

    def _gained(self, gain: float) -> str:
        """The energy check failed: name the body with the most kinetic energy."""
        m = self.model
        d = self.data
        b = int(np.argmax(body_kinetic_energies(m, d.q, d.qd)))
        joint = f"joint {m.joint_names[b]!r} ({JOINT_TYPE_NAMES[m.tree.jtype[b]]})"
        return (f"simulation unstable at t = {d.time:.9g} s: the state ran away in body "
                f"{m.body_names[b]!r}, {joint}: the run gained {gain:.3g} J of mechanical energy "
                f"that nothing in the scene gave it, {R.describe_margin(self._energy_margin, d.balance[1])}"
                f"{_ADVICE}")

    def _overflow(self, t1: float, exc: ArithmeticError) -> str:
        """The step kernel failed on numbers out of range: name the largest component."""
        y = self.data.y
        i = int(np.argmax(np.where(np.isfinite(y), np.abs(y), np.inf)))
        b, what = self._component(i)
        return (f"simulation unstable between t = {self.data.time:.9g} and {t1:.9g} s: the state grew "
                f"out of range ({type(exc).__name__} in the step), largest in body "
                f"{self.model.body_names[b]!r}, joint {self.model.joint_names[b]!r} ({what} = {y[i]:.3g})"
                f"{_ADVICE}")

    def stats(self) -> dict:
        """Integration counters, in total and per simulated second."""
        d = self.data
        out = {"simulated_time": d.time, "frames": d.frame,
               "derivative_evaluations": int(d.counters[N_EVAL]),
               "accepted_steps": int(d.counters[N_ACCEPT]),
               "rejected_steps": int(d.counters[N_REJECT])}
        for key in ("derivative_evaluations", "accepted_steps", "rejected_steps"):
            out[key + "_per_second"] = out[key] / d.time if d.time > 0 else 0.0
        return out


_ADVICE = "; try a smaller h or dt, a tighter rkf45 tolerance, or softer springs"


def _unknown(kind: str, name: str, known) -> Exception:
    return CorpusError(f"no {kind} named {name!r} (known: {', '.join(known)})")

