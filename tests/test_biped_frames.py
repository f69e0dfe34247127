"""The biped_walk controller ticks inside the step loop (pipeline/control/biped_frames.py):
a run records the same to the bit as one that ticks it at every frame boundary from
Python, through standing, the start trigger, steps, a turn, a push and its runaway step,
a stop, record_every not dividing the stretches, a stop event inside a stretch and forks."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from simulation_helpers import bundled_scene_doc

ROOT = Path(__file__).resolve().parents[1]


def walk_scene(duration: float, record_every: int, timeline: list, events: list) -> dict:
    return bundled_scene_doc("biped_walk", duration, record_every, timeline, events)


def compiled(doc, in_loop: bool):
    sim = pipeline.compile(pipeline.load(doc, base_dir=ROOT / "scenes"))
    if not in_loop:  # ticked from Python at every frame boundary, frame by frame
        for c in sim.data.controllers:
            c.in_kernel = False
    return sim


def assert_same_runs(a, b, sim_a, sim_b):
    assert np.array_equal(a.time, b.time)
    for name in ("q", "qd", "body_pos", "body_quat"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.channels.keys() == b.channels.keys()
    for name in a.channels:
        assert np.array_equal(a.channels[name], b.channels[name]), name
    walk_a, walk_b = (s.data.user["biped_walk"]["biped"] for s in (sim_a, sim_b))
    assert walk_a.strikes == walk_b.strikes
    assert np.array_equal(walk_a.s, walk_b.s)


PUSH = {"push": {"body": "torso", "force": [0, -600, 0], "duration": 0.1}}
# the pelvis passes x = 0.8 m inside a stretch
FAR = {"name": "far", "when": {"body": "pelvis", "quantity": "x", "above": 0.8}, "do": "stop"}


@pytest.mark.parametrize("record_every, timeline, events", [
    (10, [{"at": 0.5, "do": {"walk": {"speed": 0.6}}}, {"at": 2.0, "do": {"walk": {"heading": 0.5}}},
          {"at": 3.4, "do": PUSH}, {"at": 4.2, "do": {"walk": {"speed": 0}}}], []),
    (3, [{"at": 0.2, "do": {"walk": {"speed": 1.0}}}], [FAR]),
])
def test_the_step_loop_ticks_record_what_boundary_ticks_record(record_every, timeline, events):
    doc = walk_scene(5.0, record_every, timeline, events)
    looped, by_frame = compiled(doc, True), compiled(doc, False)
    a, b = looped.run(progress=False), by_frame.run(progress=False)
    assert_same_runs(a, b, looped, by_frame)
    walk = looped.data.user["biped_walk"]["biped"]
    assert len(walk.strikes) >= (2 if events else 6) and not walk.fell  # it walked
    if events:
        assert looped.events[-1][1] == "far" and a.time[-1] < 4.9


def test_a_forked_biped_goes_on_as_the_original():
    doc = walk_scene(3.0, 10, [{"at": 0.2, "do": {"walk": {"speed": 0.6}}}], [])
    sim = compiled(doc, True)
    sim.run(2.0, progress=False)
    twin = sim.fork()
    a, b = sim.run(1.0, progress=False), twin.run(1.0, progress=False)
    assert_same_runs(a, b, sim, twin)
    assert twin.data.user["biped_walk"]["biped"] is not sim.data.user["biped_walk"]["biped"]


def watch(name: str, sensors: dict, rule: str) -> dict:
    """An fsm controller on the biped that only records a variable."""
    return {"controller": name, "kind": "fsm", "creature": "biped", "sensors": sensors,
            "fsm": {"variables": {"v": 0}, "initial": "up", "states": {"up": {"do": [{"v": rule}]}}}}


def test_bipeds_and_fsm_machines_tick_in_one_loop_in_scene_order():
    """A scene with both ticks them in one step loop (pipeline/control/controlled_frames.py), in
    scene order: machines before and after the biped that read its knee's joint force (its
    torque of the same frame start is part of it) record what boundary ticks record, and the
    biped walks as it does alone."""
    doc = walk_scene(2.0, 10, [{"at": 0.2, "do": {"walk": {"speed": 0.6}}}], [])
    alone = compiled(doc, True)
    knee = {"k": {"joint": "left_lower_leg", "quantity": "force"}}
    doc["controllers"].insert(0, watch("before", knee, "k"))
    doc["controllers"].append(watch("after", knee, "k"))
    doc["controllers"].append(watch("low", {"h": {"body": "pelvis", "quantity": "height"}}, "h < 0.5"))
    looped, by_frame = compiled(doc, True), compiled(doc, False)
    assert (looped._loop().machines, looped._loop().bipeds) == (looped.machines, looped.bipeds)
    a, b = looped.run(progress=False), by_frame.run(progress=False)
    assert_same_runs(a, b, looped, by_frame)
    assert not np.array_equal(a.channels["before_v"], a.channels["after_v"])  # the order shows
    walker = looped.data.user["biped_walk"]["biped"]
    plain = alone.run(progress=False)
    for name in ("time", "q", "qd"):
        assert np.array_equal(getattr(plain, name), getattr(a, name)), name
    assert alone.data.user["biped_walk"]["biped"].strikes == walker.strikes and walker.strikes


def test_bipeds_run_together_as_each_runs_alone():
    """run_together steps the stretches of several biped runs in one parallel call: each
    records what its own run() records, a fall included."""
    from pipeline.simulate.rollout import run_together

    docs = [walk_scene(3.0, 10, [{"at": 0.2, "do": {"walk": {"speed": v}}}], []) for v in (0.6, -0.3, 1.0)]
    # the third is pushed over: 2000 N sideways for 0.2 s
    docs[2]["timeline"].append({"at": 1.5, "do": {"push": {"body": "torso", "force": [0, 2000, 0], "duration": 0.2}}})
    alone = [compiled(doc, True) for doc in docs]
    together = [compiled(doc, True) for doc in docs]
    recordings = run_together(together)
    for sim, twin, rec in zip(alone, together, recordings):
        assert_same_runs(sim.run(progress=False), rec, sim, twin)
    assert together[2].data.user["biped_walk"]["biped"].fell
    assert not together[0].data.user["biped_walk"]["biped"].fell
