"""Discrete events inside the step loop: a scalar of the state crossing a level.

An event table is a float64 array (ne, 6), one row per event:
    kind (BODY_POSITION | JOINT_POSITION), index (body or q index), component (0..2),
    level, sign (+1: fires when the value rises above the level, -1: when it falls below),
    action (STOP: end the run there | RECORD: log the time and go on).
g = sign * (value - level) >= 0 while the condition holds; an event fires when g goes from
negative to non-negative over a step. The step loop then brackets the crossing time by
bisection, re-integrating from the step's start (`bisect`), so the run stops or logs within
`tol` of the true time and never inside a step that Python could see.

The particle engine's floor events use the same bisection on a predicate of its own
(pipeline/particles/integrators.py).
"""
from __future__ import annotations

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.kinematics import joint_pass

EV_KIND, EV_INDEX, EV_COMP, EV_LEVEL, EV_SIGN, EV_ACTION = range(6)
EV_COLUMNS = 6
BODY_POSITION, JOINT_POSITION = 0, 1
STOP, RECORD = 0, 1


@njit_no_refcounts
def event_values(tree, events, nq, y, w, g):
    """g[i] for every event at the state y (w: a kinematics workspace it may overwrite)."""
    if events.shape[0] == 0:
        return
    posed = False
    for i in range(events.shape[0]):
        kind = int(events[i, EV_KIND])
        if kind == BODY_POSITION:
            if not posed:
                joint_pass(tree, y[:nq], y[:0], w, False)
                posed = True
            value = w.xpos[int(events[i, EV_INDEX]), int(events[i, EV_COMP])]
        else:
            value = y[int(events[i, EV_INDEX])]
        g[i] = events[i, EV_SIGN] * (value - events[i, EV_LEVEL])


@njit_no_refcounts
def first_crossing(g_old, g_new):
    """Index of an event whose g went from < 0 to >= 0, or -1."""
    for i in range(g_new.shape[0]):
        if g_old[i] < 0.0 <= g_new[i]:
            return i
    return -1


@njit_no_refcounts
def bisect(lo, hi, crossed_at_mid):
    """One bisection step of a bracket [lo, hi] whose right end is past the event:
    returns the new (lo, hi) given whether the event had happened by the midpoint."""
    mid = 0.5 * (lo + hi)
    if crossed_at_mid:
        return lo, mid
    return mid, hi
