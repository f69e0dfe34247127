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
    stretched = run(doc, monkeypatch, stretched_calls)
    monkeypatch.setattr(GaitStep, "quiet_frames", lambda self, sim, most: 1)
    by_frame = run(doc, monkeypatch, frame_calls)
    frames = int(round(0.3 * 2400))
    if events:
        frames = int(by_frame.time[-1] * 2400) + 1  # the frame the stop ends counts as done
        assert 0.15 < by_frame.time[-1] < 0.28 and stretched.time[-1] == by_frame.time[-1]
    assert len(frame_calls) == frames + 1  # every frame start and the end's
    assert len(stretched_calls) < frames / 3  # the stretches skipped most starts
    ramping = [t for t in stretched_calls if 0.1 < t < 0.25]
    assert len(ramping) < 0.15 * 2400 / 3  # ramps too
    np.testing.assert_array_equal(stretched.time, by_frame.time)
    for name in ("q", "qd", "body_pos", "body_quat"):
        np.testing.assert_array_equal(getattr(stretched, name), getattr(by_frame, name), err_msg=name)
    assert stretched.channels.keys() == by_frame.channels.keys()
    for name, values in by_frame.channels.items():
        np.testing.assert_array_equal(stretched.channels[name], values, err_msg=name)
    assert np.ptp(by_frame.channels["oscillator_phase"]) > 180  # the oscillators ran
    assert by_frame.channels["gait_swing"].max() == 1.0  # legs stepped
