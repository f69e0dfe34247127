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
BOX = ROOT / "scenes" / "box_drop.yaml"
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


def test_run_together_records_what_each_run_records():
    """box_drop with commands between frames, a controller that holds, a stop event and
    record_every 3, in four variants (the last runs away): each Recording as its own run's."""
    from pipeline.simulate.evaluate import simulation_for
    from pipeline.simulate.rollout import run_together

    base = {"simulation.record_every": 3,
            "timeline": [{"at": 0.0123, "do": {"velocity": {"body": "box", "linear": [0.3, 0, 0.5]}}},
                         {"at": 0.2, "do": {"push": {"body": "box", "force": [0, 4, 0], "duration": 0.05}}}],
            "controllers": [{"python": "simulation_controllers:stamp_and_hold"}],
            "events": [{"name": "landed", "when": {"body": "box", "below": 0.15}}]}
    variants = [{**base, "environment.gravity": g} for g in (9.8, 3.0, 1.62)]
    variants.append({**base, "timeline": [{"at": 0.0123, "do": {"velocity": {"body": "box", "linear": [0, 0, 1e7]}}}]})
    alone = []
    for overrides in variants:
        sim = simulation_for(BOX, overrides).fork()
        sim.reset()
        try:
            alone.append(sim.run(progress=False))
        except CorpusError as error:
            alone.append(str(error))
    sims = [simulation_for(BOX, overrides).fork() for overrides in variants]
    for sim in sims:
        sim.reset()
    together = run_together(sims)
    assert isinstance(alone[3], str) and str(together[3]) == alone[3]  # runs away, alone and together
    assert len({len(rec) for rec in together[:3]}) == 3  # each stops at its own time
    for rec, own, sim in zip(together[:3], alone, sims):
        assert sim.events[-1][1] == "landed" and rec.time[-1] == sim.data.time
        for key, value in own.arrays().items():
            np.testing.assert_array_equal(rec.arrays()[key], value, err_msg=key)


def test_run_together_refuses_simulations_of_other_shapes():
    from pipeline.simulate.rollout import run_together

    sims = [pipeline.compile(pipeline.load(PENDULUM)), pipeline.compile(pipeline.load(BOX))]
    with pytest.raises(CorpusError, match="layout"):
        run_together(sims)
