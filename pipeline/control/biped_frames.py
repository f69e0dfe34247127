"""The scene's `biped_walk` controllers in the step loop (pipeline/control/controlled_frames.py).

At each frame start inside the kernel every biped's frame (pipeline/control/biped_machine.py)
runs (`tick_bipeds`) from one kinematics and contact pass for all of them (`sense_bipeds`).
`Bipeds` is the Python side: a Simulation's stacked tables, sensor scratch and the packing
of the controllers' states for a call.
"""
from __future__ import annotations

import copy

import numba
import numpy as np

from pipeline.control.biped_machine import STANCE, STRIKE_X, STRIKE_Y, STRUCK, BipedTables, biped_frame
from pipeline.control.biped_torques import PARAMS
from pipeline.control.biped_walk_controller import BipedWalk
from pipeline.physics import sensing


@numba.njit(cache=True)
def sense_bipeds(sens, t, y, cstate, nv):
    """The one kinematics and contact pass every biped of a frame reads."""
    nq = y.shape[0] - 2 * nv
    sensing.body_states(sens, y[:nq], y[nq:nq + nv])
    sensing.contact_wrenches(sens, t, cstate)


@numba.njit(cache=True)
def tick_bipeds(bt, k0, k1, sens, t, dt, live, states, rows, strikes, nstrikes):
    """Bipeds k0 .. k1 - 1 tick at time t from the pass in sens, logging their foot-strikes."""
    for k in range(k0, k1):
        s = states[k]
        biped_frame(bt, k, sens.tree, sens.work, sens.fext, t, dt, live.ctrl, live.forces.damping, s, rows[k])
        if s[STRUCK] > 0.5:
            j = nstrikes[k]
            strikes[k, j, 0] = t
            strikes[k, j, 1] = s[STANCE]
            strikes[k, j, 2] = s[STRIKE_X]
            strikes[k, j, 3] = s[STRIKE_Y]
            nstrikes[k] = j + 1


def pack(walkers, frames: int) -> tuple:
    """The kernel's arrays of the controllers `walkers` for a call over `frames` frames:
    their states and last channels, room for their strikes and the strikes' counts."""
    n = len(walkers)
    return (np.array([c.s for c in walkers]), np.array([c.out for c in walkers]), np.empty((n, frames, 4)),
            np.zeros(n, np.int64))


def unpack(walkers, states, rows, strikes, nstrikes) -> None:
    """The kernel's arrays back into the controllers."""
    for k, c in enumerate(walkers):
        c.s[:] = states[k]
        c.out[:] = rows[k]
        c.log_strikes(strikes[k, :nstrikes[k]])


def biped_tables(sim, walkers) -> BipedTables:
    """The stacked tables of the BipedWalk controllers `walkers` on sim's model."""
    nb = sim.model.nbody
    rigs = [c.rig for c in walkers]
    n = len(rigs)

    def padded(name):
        """(rows of each rig's index list, zero-padded; their lengths)."""
        out, counts = np.zeros((n, nb), np.int64), np.zeros(n, np.int64)
        for k, r in enumerate(rigs):
            a = getattr(r, name)
            out[k, :a.shape[0]], counts[k] = a, a.shape[0]
        return out, counts

    def stack(name):
        return np.ascontiguousarray(np.stack([getattr(r, name) for r in rigs]))

    bodies, nbodies = padded("bodies")
    others, nothers = padded("others")
    knots = splines([[c.knots, c.knots_back] for c in walkers])
    style = splines([c.style for c in walkers])
    styled = np.array([[table is not None for table in c.style] for c in walkers], np.bool_).reshape(n, -1)
    schedule, scheduled = speed_schedules(walkers)
    return BipedTables(
        idx=stack("idx"), parent=rigs[0].parent, mass=stack("mass"),
        total_mass=np.array([r.total_mass for r in rigs]), bodies=bodies, nbodies=nbodies, others=others,
        nothers=nothers, feet=stack("feet"), jtype=stack("jtype"), jvadr=stack("jvadr"), jaxes=stack("jaxes"),
        jgain=stack("jgain"), jlimit=stack("jlimit"), jlimited=stack("jlimited"), jmirror=stack("jmirror"),
        root_gains=stack("root_gains"), thigh=stack("thigh"), shin=stack("shin"), sole=stack("sole"),
        knots=knots, style=style, styled=styled, schedule=schedule, scheduled=scheduled)


def speed_schedules(walkers) -> tuple[np.ndarray, np.ndarray]:
    """(n, len(PARAMS), 2, K) every controller's `by_speed` knots (V_d, value) per parameter,
    left-aligned; (n, len(PARAMS)) how many each has (0: not scheduled)."""
    width = max((len(knots) for c in walkers for knots in c.p["by_speed"].values()), default=1)
    schedule = np.zeros((len(walkers), len(PARAMS), 2, width))
    scheduled = np.zeros((len(walkers), len(PARAMS)), np.int64)
    for k, c in enumerate(walkers):
        for name, knots in c.p["by_speed"].items():
            i = PARAMS.index(name)
            schedule[k, i, :, :len(knots)] = np.array(knots, float).T
            scheduled[k, i] = len(knots)
    return schedule, scheduled


def splines(rows) -> np.ndarray:
    """(n, m, 3, K): row k's m spline tables (3, n_i) side by side, each padded to the
    widest by repeating its last knot, which evaluates as the last knot; None: zeros."""
    width = max((t.shape[1] for row in rows for t in row if t is not None), default=1)
    out = np.zeros((len(rows), len(rows[0]), 3, width))
    for k, row in enumerate(rows):
        for j, table in enumerate(row):
            if table is not None:
                out[k, j] = table[:, -1:]
                out[k, j, :, :table.shape[1]] = table
    return out


class Bipeds:
    """A Simulation's biped_walk controllers: their stacked tables, built once from the
    first controllers made, and the sensor scratch of this Simulation (a fork makes its
    own). Each controller keeps its own state (`s`, in Data with it); a kernel call packs
    them."""

    def __init__(self, sim, walkers):
        self.tables = biped_tables(sim, walkers)
        self.names = [name for c in walkers for name in c.names]
        self._scratch(sim)

    def _scratch(self, sim) -> None:
        self.sens = sensing.scratch_sensor_tables(sim.model, sim._cstate0)

    def fork(self, sim) -> "Bipeds":
        twin = copy.copy(self)
        twin._scratch(sim)
        return twin

    @staticmethod
    def walkers(data) -> list:
        return [c for c in data.controllers if isinstance(c, BipedWalk)]

    def publish(self, data) -> None:
        """Every biped's channels of its last tick."""
        for c in self.walkers(data):
            c.publish(data.channels)
