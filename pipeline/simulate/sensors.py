"""What a controller can read, the same for both engines (`sim.sensors`).

    body_pose(name)      -> (pos (3,), quat (4,) wxyz)          world frame
    body_velocity(name)  -> (linear (3,), angular (3,))          world frame, of the body origin
    body_contact(name)   -> (force (3,), touching)               contact force on the body, world
    com()                -> (pos (3,), vel (3,))                 centre of mass of every body
    joint(name)          -> (angle (n,), rate (n,))              per DOF of the joint named like its body
    joint_force(name)    -> (n,)                                 the joint's force elements now
    ground(x, y)         -> (height, normal (3,))                the ground surface under a point
    kinematics()         -> the whole kinematics pass (xpos, xrot, v of every body; articulated only)

Values are of the current state (a frame boundary, where controllers run). Kinematics and
contact are evaluated at most once per state: the caches are keyed by the state vectors, so
a command that sets q or a ground parameter between two reads is seen by the second.
"""
from __future__ import annotations

import numpy as np

from pipeline.errors import CorpusError
from pipeline.physics.contact.bodies import make_shape_scratch
from pipeline.physics.contact.state import GROUND_Z
from pipeline.physics.contact.surface import surface
from pipeline.physics.forces import joint_forces
from pipeline.physics.kinematics import make_workspace
from pipeline.physics import sensing


class Sensors:
    """Sensors of an articulated simulation; see the module doc."""

    def __init__(self, sim):
        self._sim = sim
        m = sim.model
        self._work = make_workspace(m.nbody, m.nv)
        self._key = None
        self._contact_key = None
        self._fext = np.zeros((m.nbody, 6))
        self._tables = sensing.new_sensor_tables(m.tree, m.contact, self._work, self._fext,
                                                make_shape_scratch(), np.empty_like(sim._cstate0))
        self._tau = np.zeros(m.nv)

    def _state(self):
        """World rotations, positions and body velocities of the current state (cached)."""
        d = self._sim.data
        key = (id(d), d.time, d.y.tobytes())
        if key != self._key:
            sensing.body_states(self._tables, d.q, d.qd)
            self._key = key
        return self._work

    def _body(self, name: str) -> int:
        return self._sim.body_index(name)

    def body_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        from pipeline.physics.spatial import rot_to_quat

        w = self._state()
        b = self._body(name)
        quat = np.zeros(4)
        rot_to_quat(w.xrot[b], quat)
        return w.xpos[b].copy(), quat

    def kinematics(self):
        """The kinematics pass of the current state, for controllers that read every body:
        `xpos` (nb, 3), `xrot` (nb, 3, 3), `v` (nb, 6) body-axes [w; v]. Shared: read it,
        never write it."""
        return self._state()

    def body_velocity(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        w = self._state()
        b = self._body(name)
        R = w.xrot[b]
        return R @ w.v[b, 3:], R @ w.v[b, :3]

    def contact_wrenches(self) -> np.ndarray:
        """(nb, 6) contact wrench on every body in world axes: [torque about the body
        origin; force], the sum of ground, terrain, sticky, collision and attach forces."""
        d = self._sim.data
        self._state()
        key = (self._key, d.cstate.tobytes())
        if key != self._contact_key:
            sensing.contact_wrenches(self._tables, d.time, d.cstate)
            self._contact_key = key
        return self._fext.copy()

    def body_contact(self, name: str) -> tuple[np.ndarray, bool]:
        f = self.contact_wrenches()[self._body(name), 3:]
        return f, bool(np.any(f != 0.0))

    def com(self) -> tuple[np.ndarray, np.ndarray]:
        tree = self._sim.model.tree
        w = self._state()
        mass = tree.mass
        R = w.xrot
        arm = np.einsum("bij,bj->bi", R, tree.com)
        pos = w.xpos + arm
        omega = np.einsum("bij,bj->bi", R, w.v[:, :3])
        vel = np.einsum("bij,bj->bi", R, w.v[:, 3:]) + np.cross(omega, arm)
        total = max(float(mass.sum()), 1e-300)
        return mass @ pos / total, mass @ vel / total

    def joint(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        sim = self._sim
        dofs, qpos = sim.joint_dofs(name)
        if dofs.size == 0:
            raise CorpusError(f"joint {name!r} is fixed: it has no angle or rate")
        d = sim.data
        angle = np.where(qpos >= 0, d.q[np.maximum(qpos, 0)], np.nan)
        return angle, d.qd[dofs].copy()

    def joint_force(self, name: str) -> np.ndarray:
        sim = self._sim
        dofs, _ = sim.joint_dofs(name)
        d = sim.data
        joint_forces(d.forces, sim.dof_qpos, d.q, d.qd, d.exp_rest, d.ctrl, self._tau)
        return self._tau[dofs].copy()

    def ground(self, x: float, y: float) -> tuple[float, np.ndarray]:
        c = self._sim.model.contact
        ground_z = float(self._sim.data.cstate[GROUND_Z])
        z, nx, ny, nz = surface(c.grid_h, c.grid_geom, ground_z, float(x), float(y))
        return float(z), np.array([nx, ny, nz])


def record_contact_forces(sim, t, params) -> None:
    """A Python controller recording `ch_contact_force` (nb, 6) every frame: add
    `{python: pipeline.simulate.sensors:record_contact_forces}` to a scene's controllers."""
    sim.data.channels["contact_force"] = sim.sensors.contact_wrenches()
