"""`Data`: every mutable part of an articulated run (MuJoCo's mjData), so a run copies, forks
and checkpoints as one object.

Besides the integrated state it holds what Python changes between frames: the controllers
(each one an object with its own state; none holds the simulation, which is passed to it at
every call), the timeline cursor, the random generator, motor programs, pushes and the
contact stage's non-integrated state. The Simulation keeps only what never changes while
simulating (the Model, the scene, the sorted timeline) and scratch arrays.
"""
from __future__ import annotations

import copy
import os
import pickle

import numpy as np

from pipeline.errors import CorpusError
from pipeline.fileio import atomic_path
from pipeline.physics.forces import empty_pushes
from pipeline.physics.model import JointForceArrays, Model

# A checkpoint is a pickle behind this header; the version changes with Data's fields.
CHECKPOINT_MAGIC = b"corpus-checkpoint 1\n"


class Data:
    """The state that changes while simulating.

    `q`, `qd`, `exp_rest` are views into one flat integrated vector `y`; assign into them
    (`data.q[:] = ...`). Motor programs: `motor_active/target/vel/end` per DOF. `forces`
    is this run's copy of the force constants (commands may change them), `gravity` the
    live gravity, `ctrl` the controllers' joint forces, `pushes` the active external
    pushes, `qdd_prescribed` the accelerations of prescribed joints, `cstate` the contact
    stage's non-integrated state. `counters`: derivative evaluations, accepted and rejected
    steps. `channels`: what controllers publish for recording. `user`: controller state.
    `controllers`: the scene's controllers, in scene order. `next_command`: index of the
    next timeline command; `boundary_frame`: the last frame whose boundary ran. `rng`: the
    run's random generator (seeded by `simulation.seed`).
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
        self.next_command = 0
        self.boundary_frame = -1
        self.rng = np.random.default_rng(seed)
        self.counters = np.zeros(3, np.int64)
        self.h_next = np.array([h0, 1e-4])  # RKF45: next step, last accepted error
        self.qdd = np.zeros(nv)  # accelerations at the last frame boundary (Simulation.qdd())

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

    def copy(self) -> "Data":
        """An independent copy: stepping either one never changes the other."""
        return copy.deepcopy(self)

    def save(self, path: str | os.PathLike) -> None:
        """Write a checkpoint atomically. Python controllers are stored by import path and
        re-imported by `load`; a checkpoint is for resuming your own runs (it is a pickle:
        never load one from a source you do not trust)."""
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(CHECKPOINT_MAGIC)
                pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Data":
        """Read a checkpoint written by `save` (assign it to `sim.data` to resume)."""
        return load_checkpoint(path, cls)


def load_checkpoint(path: str | os.PathLike, kind: type):
    """Unpickle a checkpoint of Data class `kind`; one located message if it is not one."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(CHECKPOINT_MAGIC))
            if head != CHECKPOINT_MAGIC:
                raise CorpusError(f"{path}: not a corpus checkpoint (or one of another version)")
            data = pickle.load(fh)
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read the checkpoint: {exc.strerror}") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise CorpusError(f"{path}: damaged checkpoint ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, kind):
        raise CorpusError(f"{path}: a checkpoint of {type(data).__name__}, not {kind.__name__}")
    return data
