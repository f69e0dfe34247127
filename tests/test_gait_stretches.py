"""The gait controller lets the step loop run the frames between its transitions in one kernel
call (GaitStep.quiet_frames / skip): a run records the same to the bit as one that calls the
controller at every frame start, through gait starts, steps, stances, program timers, speed
ramps, record_every not dividing the stretches and a stop event inside a stretch."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.control.gait import GaitStep
from simulation_helpers import bundled_scene_doc

ROOT = Path(__file__).resolve().parents[1]


def run(doc, monkeypatch, calls):
    original = GaitStep.__call__

    def counted(self, sim, t):
        calls.append(t)
        return original(self, sim, t)

    monkeypatch.setattr(GaitStep, "__call__", counted)
    try:
        return pipeline.compile(pipeline.load(doc, base_dir=ROOT / "scenes")).run(progress=False)
    finally:
        monkeypatch.setattr(GaitStep, "__call__", original)


def run_both(doc, monkeypatch, stretched_calls, frame_calls):
    """The run with stretches, then the run calling the controller at every frame start."""
    stretched = run(doc, monkeypatch, stretched_calls)
    monkeypatch.setattr(GaitStep, "quiet_frames", lambda self, sim, most: 1)
    return stretched, run(doc, monkeypatch, frame_calls)


def assert_same_recordings(a, b):
    np.testing.assert_array_equal(a.time, b.time)
    for name in ("q", "qd", "body_pos", "body_quat"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.channels.keys() == b.channels.keys()
    for name, values in b.channels.items():
        np.testing.assert_array_equal(a.channels[name], values, err_msg=name)


GO = {"at": 0.05, "do": {"gait": {"go": True}}}
# the abdomen passes x = 8 mm at about 0.22 s, inside a stretch
FAR = {"name": "far", "when": {"body": "abdomen", "quantity": "x", "above": 0.008}, "do": "stop"}


@pytest.mark.parametrize("record_every, timeline, events", [
    (20, [GO], []),
    (3, [GO, {"at": 0.1, "do": {"gait": {"speed": 1.6, "time": 0.08}}},  # ramps up and down, each
         {"at": 0.2, "do": {"gait": {"speed": 1.1, "time": 0.05}}}], []),  # ending inside a stretch
    (3, [GO], [FAR]),
])
def test_stretches_record_what_frame_by_frame_records(monkeypatch, record_every, timeline, events):
    doc = bundled_scene_doc("roach_tripod", 0.3, record_every, timeline, events)
    stretched_calls, frame_calls = [], []
    stretched, by_frame = run_both(doc, monkeypatch, stretched_calls, frame_calls)
    frames = int(round(0.3 * 2400))
    if events:
        frames = int(by_frame.time[-1] * 2400) + 1  # the frame the stop ends counts as done
        assert 0.15 < by_frame.time[-1] < 0.28 and stretched.time[-1] == by_frame.time[-1]
    assert len(frame_calls) == frames + 1  # every frame start and the end's
    assert len(stretched_calls) < frames / 3  # the stretches skipped most starts
    ramping = [t for t in stretched_calls if 0.1 < t < 0.25]
    assert len(ramping) < 0.15 * 2400 / 3  # ramps too
    assert_same_recordings(stretched, by_frame)
    assert np.ptp(by_frame.channels["oscillator_phase"]) > 180  # the oscillators ran
    assert by_frame.channels["gait_swing"].max() == 1.0  # legs stepped


# reflexes that act in the tripod: the middle legs' femurs swing past -/+0.2 rad late in
# stance (their range is about +-0.24), the hind legs' femur torques fall below 50 uN m in
# parts of it (|torque| is about 0.1-0.2 mN m at most)
REFLEXES = {"reflexes": {"step": True, "load": True}, "legs": {
    "ml": {"step_reflex": {"joint": "leg_ml0", "angle": -0.2, "direction": "-"}},
    "mr": {"step_reflex": {"joint": "leg_mr0", "angle": 0.2, "direction": "+"}},
    "bl": {"load_reflex": {"joint": "leg_bl1", "force": 5e-5}},
    "br": {"load_reflex": {"joint": "leg_br1", "force": 5e-5}}}}


def test_stretches_with_reflexes_record_what_frame_by_frame_records(monkeypatch):
    """With reflexes on, the step loop watches their joints (pipeline/control/watch_frames.py)
    and ends a stretch at the frame start where one would act; the run records the same to the
    bit, and the reflexes change the walk."""
    doc = bundled_scene_doc("roach_tripod", 0.3, 3, [GO], [])
    plain = run(doc, monkeypatch, [])
    doc["controllers"][0]["with"]["gait"].update(REFLEXES)
    stretched_calls, frame_calls = [], []
    stretched, by_frame = run_both(doc, monkeypatch, stretched_calls, frame_calls)
    assert_same_recordings(stretched, by_frame)
    assert len(stretched_calls) < len(frame_calls) / 3
    assert not np.array_equal(plain.channels["gait_swing"], by_frame.channels["gait_swing"])
