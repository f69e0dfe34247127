"""The recorded channel `ch_contact_force`: the contact force on every body now.

Use it as a Python controller of a scene, which runs at every frame boundary:

    controllers:
      - python: pipeline.physics.contact.channels:record_contact_forces

Each frame records an (nb, 6) array in world axes: [torque about the body origin; force],
the sum of ground, terrain, sticky, collision and attach forces on the body.
"""
from __future__ import annotations

import numpy as np

from pipeline.physics.contact.forces import contact_forces


def body_contact_forces(sim) -> np.ndarray:
    """(nb, 6) contact wrench on each body at the current state; changes no state."""
    from pipeline.physics import forward_kinematics

    model, data = sim.model, sim.data
    xpos, xrot, vbody = forward_kinematics(model, data.q, data.qd)
    fext = np.zeros((model.nbody, 6))
    scratch = np.empty_like(data.cstate)
    contact_forces(model.contact, data.time, data.cstate, scratch,
                   np.ascontiguousarray(xpos), np.ascontiguousarray(xrot),
                   np.ascontiguousarray(vbody), fext)
    return fext


def record_contact_forces(sim, t, params) -> None:
    sim.data.channels["contact_force"] = body_contact_forces(sim)
