"""Batched rollouts (pipeline/simulate/rollout.py): N states of one model, or N models of one
shape, in one parallel kernel call, give bit for bit what stepping each Simulation alone
gives; a run that fails is reported with sim.step's message and leaves the others alone;
frames that need Python are refused."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.simulate.rollout import rollout, rollout_states

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = ROOT / "scenes" / "pendulum5.yaml"  # a push at 1.0 s on its timeline
FRAMES = 96  # 0.4 s at 1/240 s


def states(sim, n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.tile(sim.data.y, (n, 1))
    y[:, :sim.model.nq] += rng.uniform(-0.5, 0.5, (n, sim.model.nq))
    y[:, sim.model.nq:sim.model.nq + sim.model.nv] = rng.normal(0, 1, (n, sim.model.nv))
    return y


def test_n_states_of_one_model_step_as_each_alone():
    sim = pipeline.compile(pipeline.load(PENDULUM))
    y0 = states(sim, 5)
    runs = rollout_states(sim, y0, FRAMES, record_every=10)
    assert runs.errors == [None] * 5 and (runs.status == 0).all()
    assert runs.y.shape == (5, 11, sim.data.y.shape[0])
    assert np.allclose(runs.time, np.minimum(np.arange(11) * 10, FRAMES) / 240, rtol=0, atol=1e-15)
    for i in range(5):
        alone = sim.fork()
        alone.data.y[:] = y0[i]
        alone.step(FRAMES)
        assert np.array_equal(runs.sims[i].data.y, alone.data.y)
        assert np.array_equal(runs.y[i, -1], alone.data.y)
        assert (runs.sims[i].data.frame, runs.sims[i].time) == (FRAMES, alone.time)
        assert np.array_equal(runs.recording(i).body_pos[-1], alone.body_poses()[0])
    assert sim.data.frame == 0  # the template is not advanced


def test_n_models_of_one_shape():
    sims = [pipeline.compile(pipeline.load(PENDULUM)) for _ in range(2)]
    sims[1].command("gravity", 3.0)  # its own live inputs
    alone = [s.fork() for s in sims]
    runs = rollout(sims, FRAMES)
    for s, a in zip(runs.sims, alone):
        a.step(FRAMES)
        assert np.array_equal(s.data.y, a.data.y)
    assert not np.array_equal(runs.y[0, -1], runs.y[1, -1])


def test_a_failing_run_is_reported_and_the_others_go_on():
    sim = pipeline.compile(pipeline.load(PENDULUM))
    y0 = states(sim, 3)
    y0[1, sim.model.nq] = np.nan
    runs = rollout_states(sim, y0, FRAMES)
    assert runs.errors[0] is None and runs.errors[2] is None
    assert "simulation unstable at t = " in runs.errors[1] and "NaN/inf" in runs.errors[1]
    alone = sim.fork()
    alone.data.y[:] = y0[2]
    alone.step(FRAMES)
    assert np.array_equal(runs.sims[2].data.y, alone.data.y)


def test_frames_that_need_python_are_refused():
    sim = pipeline.compile(pipeline.load(PENDULUM))
    with pytest.raises(CorpusError, match="a timeline command falls inside the frames"):
        rollout_states(sim, states(sim, 2), 300)  # past the push at 1.0 s


def test_evaluate_batch_measures_each_variant_as_evaluate_does():
    from pipeline.simulate.evaluate import evaluate_batch

    variants = [{"environment.gravity": g} for g in (9.8, 3.0, 1.62)] + [{"environment.gravity": 3.0}]
    metrics = {"end": {"metric": "final_position", "body": "link4"}, "energy": "mechanical_energy"}
    batch = evaluate_batch(PENDULUM, variants, metrics, duration=0.4)
    alone = [pipeline.evaluate(PENDULUM, v, metrics, duration=0.4) for v in variants]
    assert batch == alone
    assert batch[1] == batch[3] and batch[0] != batch[1]
