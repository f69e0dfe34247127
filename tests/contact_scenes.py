"""Scenes built in Python for the simulated contact tests (no YAML needed)."""
import math

import numpy as np

from pipeline.simulate.articulated import compile_simulation
from pipeline.spec.types import (Body, Command, Creature, Geom, Joint, Pose, Scene,
                                 SimulationSettings)

FLAT_ENV = {"gravity": 9.8, "ground": {"type": "flat", "z": 0.0},
            "material": {"friction_model": "coulomb", "friction": 0.7, "restitution": 0.5, "k": 0.0, "b": 0.0,
                         "exp_alpha": 17.5, "exp_beta": 3000.0, "max_depth": 0.01}}


def quat_y(angle):
    return (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)


def free_body(name, shape, size, pos, quat=(1.0, 0.0, 0.0, 0.0), v=(0.0, 0.0, 0.0),
              w=(0.0, 0.0, 0.0), sticky=False, density=1000.0, root="free"):
    """One free (or fixed) body; v, w are world-frame velocities at the body origin."""
    R = _quat_matrix(quat)
    qd = tuple(R.T @ np.asarray(v, float)) + tuple(R.T @ np.asarray(w, float)) if root == "free" else ()
    body = Body(name=name, parent=None, placement=Pose(tuple(pos), tuple(quat)),
                joint=Joint(type="free", qd0=qd),
                geoms=(Geom(shape=shape, size=tuple(size), density=density),), sticky=sticky)
    return Creature(name=name, bodies=(body,), root_mode=root)


def _quat_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def simulation(creatures, env=FLAT_ENV, duration=1.0, dt=1 / 2400, h=1e-5, integrator="rk4",
               timeline=(), controllers=()):
    scene = Scene(name="contact_test", creatures=tuple(creatures), environment=env,
                  timeline=tuple(Command(at=t, action=a, args=args) for t, a, args in timeline),
                  controllers=tuple(controllers),
                  simulation=SimulationSettings(duration=duration, dt=dt, h=h,
                                                integrator=integrator))
    return compile_simulation(scene)
