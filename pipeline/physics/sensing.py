"""The kernels behind the sensor API (pipeline/simulate/sensors.py), which controllers call
every frame: body poses and velocities, and the contact wrenches at the current state. Each
takes the simulation's tables and the sensors' scratch as one StructRef
(pipeline/physics/structs.py), since unboxing a tree, a workspace and the contact tables
array by array cost more than computing them on a humanoid.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.experimental import structref

from pipeline.physics.contact.bodies import make_shape_scratch
from pipeline.physics.contact.forces import contact_forces
from pipeline.physics.kinematics import joint_pass, make_workspace
from pipeline.physics.structs import Struct


@structref.register
class SensorTablesType(Struct):
    pass


class SensorTables(structref.StructRefProxy):
    """A model's tree and contact tables, and the sensors' scratch: a kinematics Workspace,
    the (nb, 6) contact wrenches, the collision scratch (contact.bodies.ShapeScratch) and a
    contact state the force pass may write (discarded)."""


structref.define_proxy(SensorTables, SensorTablesType,
                       ["tree", "contact", "work", "fext", "shapes", "cs_out"])


@numba.njit(cache=True)
def new_sensor_tables(tree, contact, work, fext, shapes, cs_out):
    """SensorTables(...), made by a cached kernel (structs.py)."""
    return SensorTables(tree, contact, work, fext, shapes, cs_out)


@numba.njit(cache=True)
def body_states(tables, q, qd):
    """Poses and body velocities of state (q, qd) into tables.work."""
    joint_pass(tables.tree, q, qd, tables.work, True)


@numba.njit(cache=True)
def contact_wrenches(tables, t, cstate):
    """Contact wrenches at the state `body_states` last wrote, into tables.fext."""
    fext = tables.fext
    for b in range(fext.shape[0]):
        for k in range(6):
            fext[b, k] = 0.0
    w = tables.work
    contact_forces(tables.contact, t, cstate, tables.cs_out, w.xpos, w.xrot, w.v, fext,
                   tables.shapes)


def scratch_sensor_tables(model, cstate0) -> SensorTables:
    """SensorTables of a compiled model over scratch of their own (a controller loop's):
    a kinematics workspace, the wrenches, the collision scratch and a contact state."""
    return new_sensor_tables(model.tree, model.contact, make_workspace(model.nbody, model.nv),
                             np.zeros((model.nbody, 6)), make_shape_scratch(), np.empty_like(cstate0))
