"""Scenes built in Python for the integrator, force and simulation tests."""
from pathlib import Path

import numpy as np
import yaml

from pipeline.simulate.articulated import compile_simulation
from pipeline.spec.types import (Body, Command, Creature, ExpSpring, Geom, Inertial, Joint,
                                 JointForces, Pose, Scene, SimulationSettings)

NO_GROUND = {"ground": {"type": "none"}}


def scene(creatures, gravity=9.8, timeline=(), controllers=(), environment=None, **settings):
    env = dict(NO_GROUND if environment is None else environment)
    env["gravity"] = gravity
    if isinstance(creatures, Creature):
        creatures = (creatures,)
    timeline = tuple(c if isinstance(c, Command) else Command(at=c[0], action=c[1], args=c[2])
                     for c in timeline)
    return Scene(name="test", creatures=tuple(creatures), environment=env,
                 timeline=timeline, controllers=tuple(controllers),
                 simulation=SimulationSettings(**settings))


def simulate(creatures, **kwargs):
    return compile_simulation(scene(creatures, **kwargs))


def free_body(name="box", *, size=(0.01, 0.01, 0.01), origin=(0.0, 0.0, 0.0), pos=(0, 0, 0),
              quat=(1.0, 0.0, 0.0, 0.0), v=(0, 0, 0), w=(0, 0, 0), density=1000.0):
    """A free box whose body frame origin sits at `origin` in the box's centred frame.

    v, w: linear velocity of the centre of mass and angular velocity, both world axes;
    pos: world position of the centre of mass."""
    from pipeline.compiler.build import quat_to_matrix

    R = quat_to_matrix(quat)
    origin = np.asarray(origin, float)
    w_body = R.T @ np.asarray(w, float)
    # the body origin is at `origin` from the centre: v_o = v_c + w x (R origin)
    v_body = R.T @ np.asarray(v, float) + np.cross(w_body, origin)
    q0 = tuple(np.asarray(pos, float) + R @ origin) + tuple(quat)
    geom = Geom(shape="box", size=tuple(size), density=density, pose=Pose(tuple(-origin)))
    return Body(name=name, parent=None, placement=Pose(),
                joint=Joint(type="free", q0=q0, qd0=tuple(v_body) + tuple(w_body)),
                geoms=(geom,))


def creature(*bodies, name="c", root_mode="free"):
    return Creature(name=name, bodies=tuple(bodies), root_mode=root_mode)


def rod(name, parent, at, *, length=1.0, mass=1.0, axis=(0, 0, 1), q0=0.0, qd0=0.0,
        forces=JointForces(), jtype="revolute"):
    """A thin rod along +x from its joint at `at` (parent frame), mass and inertia given."""
    inertial = Inertial(mass=mass, com=(length / 2, 0.0, 0.0),
                        inertia=(1e-4 * mass, mass * length ** 2 / 12, mass * length ** 2 / 12,
                                 0.0, 0.0, 0.0))
    joint = Joint(type=jtype, axes=(tuple(axis),) if jtype != "fixed" else (),
                  q0=(q0,) if jtype != "fixed" else (), qd0=(qd0,) if jtype != "fixed" else (),
                  forces=forces)
    return Body(name=name, parent=parent, placement=Pose(tuple(at)), joint=joint,
                inertial=inertial)


def world_com(sim, q=None):
    """Centre-of-mass position of every body (nb, 3), world frame."""
    from pipeline.physics import forward_kinematics

    xpos, xrot = forward_kinematics(sim.model, sim.data.q if q is None else q)
    return xpos + np.einsum("bij,bj->bi", xrot, sim.model.tree.com)


def momentum(sim):
    """Total linear momentum and angular momentum about the world origin (world axes)."""
    from pipeline.physics import forward_kinematics

    m = sim.model
    xpos, xrot, vb = forward_kinematics(m, sim.data.q, sim.data.qd)
    P = np.zeros(3)
    L = np.zeros(3)
    for b in range(m.nbody):
        R = xrot[b]
        w = R @ vb[b, :3]
        c = xpos[b] + R @ m.tree.com[b]
        vc = R @ (vb[b, 3:] + np.cross(vb[b, :3], m.tree.com[b]))
        P += m.tree.mass[b] * vc
        L += R @ m.tree.inertia[b] @ R.T @ w + m.tree.mass[b] * np.cross(c, vc)
    return P, L


def energy(sim):
    """Kinetic + gravitational potential energy (world z up, g from Data)."""
    from pipeline.physics import mass_matrix

    M = mass_matrix(sim.model, sim.data.q)
    qd = sim.data.qd
    ke = 0.5 * qd @ M @ qd
    pe = -float(np.sum(sim.model.tree.mass * (world_com(sim) @ sim.data.gravity)))
    return ke, pe


__all__ = ["scene", "simulate", "free_body", "creature", "rod", "world_com", "momentum",
           "energy", "ExpSpring", "JointForces", "Command", "Inertial", "Body", "Joint", "Pose",
           "Geom", "Creature"]


def bundled_scene_doc(name: str, duration: float, record_every: int, timeline: list, events: list) -> dict:
    """scenes/<name>.yaml as a document, with this timeline, events, duration and record_every."""
    doc = yaml.safe_load((Path(__file__).resolve().parents[1] / "scenes" / f"{name}.yaml").read_text())
    doc["timeline"] = timeline
    doc["events"] = events
    doc["simulation"].update(duration=duration, record_every=record_every)
    return doc
