"""Timeline core commands: joint, motor (see test_forces_motor), push, velocity, gravity,
and when timeline entries fire."""
import numpy as np
import pytest

from pipeline.errors import CorpusError
from pipeline.spec.types import Where
from simulation_helpers import (Body, Command, Inertial, Joint, JointForces, Pose, creature,
                                free_body, momentum, simulate)


@pytest.mark.parametrize("integrator", ["rk4", "rkf45"])
def test_push_gives_impulse_and_angular_impulse(integrator):
    """No gravity: F for d seconds at a point r (body frame) changes momentum by F d and
    angular momentum about the world origin by (x + R r) x F d; the push ends mid-frame.
    The lever arm turns with the body by ~ tau d^2 / (2 I) = 2.5e-3 rad, which changes the
    angular impulse by ~ 1 - cos of that (3e-6 relative)."""
    size = (0.1, 0.1, 0.1)
    sim = simulate(creature(free_body(size=size, pos=(0.2, 0, 0))), gravity=0.0, dt=0.01,
                   h=0.001, integrator=integrator, atol=1e-12, rtol=1e-12)
    F = np.array([0.0, 0.3, 0.0])
    r = np.array([0.0, 0.0, 0.05])
    sim.command("push", {"body": "box", "force": F.tolist(), "point": r.tolist(),
                         "duration": 0.0234})
    assert sim.data.pushes.shape[0] == 1
    sim.step(5)
    P, L = momentum(sim)
    # rk4 is exact for a constant force; rkf45 is held to its 1e-12 tolerance
    assert np.allclose(P, F * 0.0234, rtol=1e-12, atol=1e-15 if integrator == "rk4" else 1e-13)
    assert np.allclose(L, np.cross(np.array([0.2, 0, 0]) + r, F) * 0.0234, rtol=1e-5, atol=1e-15)
    assert not np.allclose(L, np.cross(np.array([0.2, 0, 0]), F) * 0.0234, rtol=1e-2)
    assert sim.data.pushes.shape[0] == 0  # expired pushes are dropped at the frame boundary


def test_push_torque():
    sim = simulate(creature(free_body(size=(0.1, 0.2, 0.3))), gravity=0.0, dt=0.01,
                   integrator="rk4")
    sim.command("push", {"body": "box", "torque": [0.0, 0.0, 0.02], "duration": 0.01})
    sim.step()
    _, L = momentum(sim)
    assert np.allclose(L, [0, 0, 0.02 * 0.01], rtol=1e-12, atol=1e-18)


def test_velocity_adds_to_the_centre_of_mass_and_the_spin():
    corner = (0.05, 0.05, 0.05)
    sim = simulate(creature(free_body(size=(0.1, 0.1, 0.1), origin=corner,
                                      quat=(0.8, 0.0, 0.6, 0.0))), gravity=0.0)
    sim.command("velocity", {"body": "box", "linear": [1.0, 2.0, 3.0], "angular": [0, 0, 4.0]})
    P, L = momentum(sim)
    m = 1.0
    assert np.allclose(P, m * np.array([1.0, 2.0, 3.0]), rtol=1e-14)
    R = sim.body_rotation(0)
    assert np.allclose(R @ sim.data.qd[3:], [0, 0, 4.0], rtol=1e-14, atol=1e-15)


def test_velocity_needs_a_free_body():
    sim = simulate(creature(Body(name="arm", parent=None, placement=Pose(),
                                 joint=Joint(type="revolute", axes=((0, 0, 1),)),
                                 inertial=Inertial(mass=1.0, inertia=(1, 1, 1, 0, 0, 0)))))
    with pytest.raises(CorpusError, match="needs a free body"):
        sim.command("velocity", {"body": "arm", "linear": [1, 0, 0]})


@pytest.mark.parametrize("value, g", [(1.62, [0, 0, -1.62]), ("off", [0, 0, 0]),
                                      ([0.5, 0, -2.0], [0.5, 0, -2.0]), ("on", [0, 0, -9.8])])
def test_b10_gravity_command(value, g):
    sim = simulate(creature(free_body()), gravity=9.8, timeline=[(0.0, "gravity", "off")])
    sim.step()
    sim.command("gravity", value)
    assert np.allclose(sim.qdd()[:3], g, rtol=1e-15, atol=0)


def test_timeline_fires_in_the_first_frame_at_or_after_its_time():
    sim = simulate(creature(free_body()), gravity=9.8, dt=0.01,
                   timeline=[(0.0101, "gravity", 1.0), (0.03, "gravity", 2.0)])
    seen = []
    for _ in range(5):
        sim.step()
        seen.append(sim.data.gravity[2])
    # the command due at 0.0101 runs at the boundary t = 0.02 (the 3rd frame), 0.03 at t = 0.03
    assert seen == [-9.8, -9.8, -1.0, -2.0, -2.0]


def joint_body(scale_by="none"):
    return creature(Body(
        name="elbow", parent=None, placement=Pose(),
        joint=Joint(type="revolute", axes=((0, 0, 1),), forces=JointForces(damping=0.1,
                                                                             scale_by=scale_by)),
        inertial=Inertial(mass=2.0, inertia=(1, 1, 1, 0, 0, 0))))


def test_joint_command_sets_state_and_constants():
    sim = simulate(joint_body("mass"), gravity=0.0)
    sim.command("joint", {"joint": "elbow", "q": 0.4, "qd": -1.0, "damping": 0.5,
                          "servo_target": 0.25, "bias": 0.125, "exp_rest": 0.3})
    d = sim.data
    assert d.q[0] == 0.4 and d.qd[0] == -1.0 and d.exp_rest[0] == 0.3
    assert d.forces.damping[0] == 1.0  # scale_by: mass (2 kg) applies to new constants too
    assert d.forces.servo_target[0] == 0.25 and d.forces.bias[0] == 0.125
    assert sim.model.forces.damping[0] == 0.2  # the Model is never touched


def test_joint_command_on_a_free_joint_renormalises():
    sim = simulate(creature(free_body()), gravity=0.0)
    sim.command("joint", {"joint": "box", "q": [1, 2, 3, 2.0, 0, 0, 0]})
    assert np.array_equal(sim.data.q, [1, 2, 3, 1, 0, 0, 0])


def test_command_problems_point_at_the_timeline_entry():
    where = Where(file="scene.yaml", line=12, col=7, path="timeline[0].do.joint")
    sim = simulate(joint_body(), gravity=0.0,
                   timeline=[Command(at=0.0, action="joint", args={"joint": "knee", "q": 1},
                                     where=where)])
    with pytest.raises(CorpusError) as err:
        sim.step()
    assert str(err.value).startswith("scene.yaml:12:7: timeline[0].do.joint: no body named 'knee'")
    sim = simulate(joint_body(), gravity=0.0)
    with pytest.raises(CorpusError, match="unknown parameter"):
        sim.command("joint", {"joint": "elbow", "stiffness": 3})
    with pytest.raises(CorpusError, match="unknown command 'teleport'"):
        sim.command("teleport", {})
    with pytest.raises(CorpusError, match="expected 1 or 1 values"):
        sim.command("joint", {"joint": "elbow", "q": [1, 2]})


def test_the_joint_command_schema_lists_exactly_the_settable_fields():
    import json
    from pathlib import Path

    from pipeline.physics.forces import SETTABLE_FIELDS

    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas/commands.schema.json").read_text())
    assert set(schema["properties"]["joint"]["properties"]) == {"joint", "q", "qd", *SETTABLE_FIELDS}
