"""`Data`: every mutable part of an articulated run (MuJoCo's mjData), so a run copies, forks
and checkpoints as one object.

Besides the integrated state it holds what Python changes between frames: the controllers
(each one an object with its own state; none holds the simulation, which is passed to it at
every call), the timeline cursor, the random generator, motor programs, pushes and the
contact stage's non-integrated state. The Simulation keeps only what never changes while
simulating (the Model, the scene, the sorted timeline) and scratch arrays.
"""
from __future__ import annotations

import numpy as np

from pipeline.physics.forces import empty_pushes
from pipeline.physics.model import JointForceArrays, Model
from pipeline.runstate import RunState

EVENT_LOG_SIZE = 1024  # `record` events kept per run (later ones are counted, not kept)
class Data(RunState):
    """The state that changes while simulating.

    `q`, `qd`, `exp_rest` are views into one flat integrated vector `y`; assign into them
    (`data.q[:] = ...`). Motor programs: `motor_active/target/vel/end` per DOF. `forces`
    is this run's copy of the force constants (commands may change them), `gravity` the
    live gravity, `ctrl` the controllers' joint forces, `pushes` the active external
    pushes, `qdd_prescribed` the accelerations of prescribed joints, `cstate` the contact
    stage's non-integrated state. `counters`: derivative evaluations, accepted and rejected
    steps. `channels`: what controllers publish for recording. `user`: controller state.
    `controllers`: the scene's controllers, in scene order; `held`: those that returned HOLD
    since the last command (not called again until one runs). `next_command`: index of the
    next timeline command; `boundary_frame`: the last frame whose boundary ran. `rng`: the
    run's random generator (seeded by `simulation.seed`). `event_log`/`event_count`: the
    scene's `record` events so far; `stopped_by`: the index of the `stop` event that ended
    the run, or -1. `balance`: the run's energy balance (pipeline/physics/energy.py): the
    energy gained that no input gave, and the energy the inputs and dampers moved.
    """

    def __init__(self, model: Model, cstate0: np.ndarray, h0: float, seed: int = 0):
        nq, nv = model.nq, model.nv
        self.nq, self.nv = nq, nv
        self.y = np.concatenate([model.q0, model.qd0, model.forces.exp_rest]).astype(np.float64)
        self.time = 0.0
        self.frame = 0
        self.ctrl = np.zeros(nv)
        self.forces = JointForceArrays(*(np.array(a, dtype=np.float64) for a in model.forces))
        self.gravity = np.array(model.gravity, dtype=np.float64)
        self.motor_active = np.zeros(nv, np.int64)
        self.motor_target = np.zeros(nv)
        self.motor_vel = np.zeros(nv)
        self.motor_end = np.zeros(nv)
        self.pushes = empty_pushes()
        self.qdd_prescribed = np.zeros(nv)
        self.cstate = np.array(cstate0, dtype=np.float64)
        self.channels: dict = {}
        self.user: dict = {}
        self.controllers: list = []
        self.held: set = set()  # indices of controllers that returned HOLD since the last command
        self.next_command = 0
        self.boundary_frame = -1
        self.rng = np.random.default_rng(seed)
        self.event_log = np.zeros((EVENT_LOG_SIZE, 2))  # [time, event index] of `record` events
        self.event_count = np.zeros(1, np.int64)
        self.stopped_by: int = -1  # the `stop` event that ended the run, if one did
        self.counters = np.zeros(3, np.int64)
        self.h_next = np.array([h0, 1e-4])  # RKF45: next step, last accepted error
        self.qdd = np.zeros(nv)  # accelerations at the last frame boundary (Simulation.qdd())
        self.balance = np.zeros(2)  # energy gained that no input gave, energy moved (physics/frames.py)
        self.machine_slots = np.zeros(0)  # the fsm controllers' slots and states (control/fsm_frames.py)
        self.machine_states = np.zeros(0, np.int64)

    @property
    def q(self) -> np.ndarray:
        return self.y[:self.nq]

    @q.setter
    def q(self, value):
        self.y[:self.nq] = value

    @property
    def qd(self) -> np.ndarray:
        return self.y[self.nq:self.nq + self.nv]

    @qd.setter
    def qd(self, value):
        self.y[self.nq:self.nq + self.nv] = value

    @property
    def exp_rest(self) -> np.ndarray:
        return self.y[self.nq + self.nv:]

    @exp_rest.setter
    def exp_rest(self, value):
        self.y[self.nq + self.nv:] = value
