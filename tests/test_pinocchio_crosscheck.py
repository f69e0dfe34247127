"""forward_dynamics (ABA), inverse_dynamics (RNEA) and mass_matrix (CRBA) against
Pinocchio on random trees of 1-40 bodies with every joint type, random states, torques,
external forces and armature: agreement within 1e-9 relative (issue 3)."""
import numpy as np
import pinocchio as pin
import pytest

from benchmarks.trees import (hexapod_creature, humanoid_creature, pin_fext, pinocchio_model,
                              random_creature, random_state, to_pin_q)
from pipeline.compiler.build import build_model
from pipeline.physics import (forward_dynamics, forward_kinematics, inverse_dynamics,
                              mass_matrix)

REL = 1e-9


def assert_rel(ours, ref):
    assert np.shape(ours) == np.shape(ref)
    if np.size(ref) == 0:
        return
    scale = max(1.0, float(np.abs(ref).max()))
    err = float(np.abs(np.asarray(ours) - np.asarray(ref)).max())
    assert err <= REL * scale, f"max error {err:.3g} vs scale {scale:.3g}"


def crosscheck(model, rng, n_states=3):
    pm, attach = pinocchio_model(model)
    pd = pm.createData()
    for _ in range(n_states):
        q, qd = random_state(model, rng)
        tau = rng.normal(size=model.nv)
        qdd_in = rng.normal(size=model.nv)
        fext = rng.normal(size=(model.nbody, 6))
        _, xrot = forward_kinematics(model, q)
        pq = to_pin_q(model, q)
        pf = pin_fext(model, pm, attach, xrot, fext)

        assert_rel(forward_dynamics(model, q, qd, tau, fext), pin.aba(pm, pd, pq, qd, tau, pf))
        assert_rel(forward_dynamics(model, q, qd, tau), pin.aba(pm, pd, pq, qd, tau))
        assert_rel(inverse_dynamics(model, q, qd, qdd_in, fext),
                   pin.rnea(pm, pd, pq, qd, qdd_in, pf))
        M = pin.crba(pm, pd, pq)
        assert_rel(mass_matrix(model, q), np.triu(M) + np.triu(M, 1).T)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 21, 30, 40])
@pytest.mark.parametrize("root", ["free", "fixed", "revolute", "ball"])
def test_random_trees_match_pinocchio(n, root):
    rng = np.random.default_rng(1000 * n + len(root))
    model = build_model(random_creature(rng, n, root=root, armature=0.3))
    model = model.__class__(**{**model.__dict__, "gravity": rng.normal(scale=5.0, size=3)})
    crosscheck(model, rng)


@pytest.mark.parametrize("joint", ["revolute", "prismatic", "universal", "ball", "free", "fixed"])
def test_single_joint_type_chains_match_pinocchio(joint):
    rng = np.random.default_rng(7)
    crosscheck(build_model(random_creature(rng, 6, joint_types=(joint,), root="free")), rng)


@pytest.mark.parametrize("make", [hexapod_creature, humanoid_creature])
def test_benchmark_creatures_match_pinocchio(make):
    model = build_model(make())
    assert model.nv == {"hexapod": 38, "humanoid": 27}[model.tree_names[0]]
    crosscheck(model, np.random.default_rng(3))


def test_several_trees_in_one_scene_match_pinocchio():
    """Creatures, a fixed-root arm and a lone free body side by side in one Model."""
    from pipeline.spec.types import Scene

    rng = np.random.default_rng(21)
    creatures = (random_creature(rng, 9, name="a", armature=0.2),
                 random_creature(rng, 6, root="fixed", name="b"),
                 random_creature(rng, 1, name="c"),
                 random_creature(rng, 5, root="ball", name="d"))
    model = build_model(Scene(name="s", creatures=creatures, environment={"gravity": 9.8}))
    assert list(model.tree.parent).count(-1) == 4
    crosscheck(model, rng)
