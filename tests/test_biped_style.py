"""The biped_walk controller's style trajectories (docs/biped.md, Style): knots over the step
phase that replace the zero gait's stance knee (knee_bend) and the feet's flat pitch while
walking, evaluated in the kernel; absent, the run records what it recorded without them."""
from pathlib import Path

import numpy as np
import pytest
import yaml

import pipeline
from pipeline.control.biped_frames import biped_tables, splines
from pipeline.control.biped_gait import CatmullRom
from pipeline.control.biped_pd import hinge_angle, mm, rot_y, rot_z
from pipeline.control.biped_rig import FOOT, LOWER_LEG, UPPER_LEG, Frame, slot
from pipeline.control.biped_torques import STANCE, STYLE, _style
from pipeline.control.biped_walk_controller import _spline_table
from pipeline.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]
# three knots, so the spline is not a straight line between them
KNEE = [[0.0, 0.3], [0.5, 0.1], [1.0, 0.25]]
EDITABLE = yaml.safe_load((ROOT / "scenes" / "biped_style.yaml").read_text())["controllers"][0]["biped_walk"]["style"]


def walk_doc(duration: float, **biped_walk) -> dict:
    doc = yaml.safe_load((ROOT / "scenes" / "biped_walk.yaml").read_text())
    doc["controllers"][0]["biped_walk"].update(biped_walk)
    doc["timeline"] = [{"at": 0.2, "do": {"walk": {"speed": 0.6}}}]
    doc["simulation"].update(duration=duration)
    return doc


def compiled(doc):
    return pipeline.compile(pipeline.load(doc, base_dir=ROOT / "scenes"))


@pytest.mark.parametrize("stance", [0, 1])
def test_each_trajectory_replaces_its_target_and_only_that_one(stance):
    """_style on the zero gait's targets: the stance knee becomes the spline's bend, each
    foot keeps its yaw and pitches by its spline; every other target is untouched."""
    zero = np.empty((22, 3, 3))
    for k in range(22):
        zero[k] = rot_z(0.1 * k)  # distinct, so a target written to the wrong joint shows
    knots = {"stance_knee": KNEE, "stance_ankle": EDITABLE["stance_ankle"], "swing_ankle": EDITABLE["swing_ankle"]}
    table = splines([[_spline_table(knots[name]) for name in STYLE]])[0]  # padded as the kernel gets them
    for phi in (0.0, 0.2, 0.45, 0.8, 1.0):
        Rt = zero.copy()
        _style(table, np.ones(len(STYLE), np.bool_), phi, stance, 1.0, 0.4, Rt)
        knee, ankle, swing = (slot(stance, LOWER_LEG) - 1, slot(stance, FOOT) - 1, slot(1 - stance, FOOT) - 1)
        assert np.array_equal(Rt[knee], rot_y(CatmullRom(KNEE)(phi)))
        assert np.allclose(Rt[ankle], zero[ankle] @ rot_y(CatmullRom(knots["stance_ankle"])(phi)), rtol=0, atol=1e-15)
        assert np.allclose(Rt[swing], zero[swing] @ rot_y(CatmullRom(knots["swing_ankle"])(phi)), rtol=0, atol=1e-15)
        others = [k for k in range(22) if k not in (knee, ankle, swing)]
        assert np.array_equal(Rt[others], zero[others])
        # EditableWalking's two knots make a straight line: 0.2 -> 0.07 over the step
        assert CatmullRom(EDITABLE["stance_knee"])(phi) == pytest.approx(0.2 + (0.07 - 0.2) * phi, abs=1e-15)
        Rt = zero.copy()
        _style(table, np.zeros(len(STYLE), np.bool_), phi, stance, 0.5, 0.4, Rt)
        assert np.array_equal(Rt, zero)


def test_the_stance_knee_is_driven_to_the_spline_at_its_phase():
    """Walking with the velocity tuning off, the stance knee's generalized force is its PD
    spring alone: kp (q_d - q) with q_d the style spline at the frame's phase, not knee_bend."""
    sim = compiled(walk_doc(3.0, knee_bend=0.5, velocity_tuning=False, style={"stance_knee": KNEE}))
    walk = sim.data.user["biped_walk"]["biped"]
    rig = walk.rig
    frame = Frame(rig)
    spline = CatmullRom(KNEE)
    checked = []
    while sim.data.time < 1.6 and not walk.fell:
        frame.update(sim.sensors)
        R = frame.R.copy()
        sim.step(1)  # the tick at this frame's start used R; its phase and stance stay in walk
        if not walk.walking:
            continue
        stance = int(walk.s[STANCE])
        k = slot(stance, LOWER_LEG) - 1
        thigh, shin = rig.idx[slot(stance, UPPER_LEG)], rig.idx[k + 1]
        axis = rig.jaxes[k, 0]
        q = hinge_angle(R[thigh].T @ R[shin], axis)
        expected = rig.jgain[k, 0] * (hinge_angle(rot_y(spline(walk.phase)), axis) - q)
        assert abs(expected) < rig.jgain[k, 2]  # unclipped
        assert sim.data.ctrl[rig.jvadr[k]] == pytest.approx(expected, rel=1e-9, abs=1e-9)
        checked.append(walk.phase)
    assert not walk.fell and len(checked) > 500 and min(checked) < 0.05 and max(checked) > 0.9


def test_a_style_at_the_zero_gaits_values_records_the_run_without_one():
    """knee_bend 0 and flat feet written as style trajectories: the same run to the bit; no
    style block, no style in the kernel's tables."""
    plain = compiled(walk_doc(2.5))
    assert not biped_tables(plain, plain.data.controllers).styled.any()
    styled = compiled(walk_doc(2.5, style={name: [[0.0, 0.0]] for name in STYLE}))
    assert biped_tables(styled, styled.data.controllers).styled.all()
    a, b = plain.run(progress=False), styled.run(progress=False)
    for name in ("q", "qd", "body_pos", "body_quat"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert plain.data.user["biped_walk"]["biped"].steps >= 3


def refusal(tmp_path, doc: dict, run: bool = False) -> tuple:
    """doc written as a scene file, compiled (and run): the first problem it is refused
    with, the file and its text."""
    doc["creatures"][0]["use"] = str(ROOT / "creatures" / "biped.yaml")
    text = yaml.safe_dump(doc, sort_keys=False)
    scene = tmp_path / "s.yaml"
    scene.write_text(text)
    with pytest.raises(CorpusError) as err:
        sim = pipeline.compile(pipeline.load(scene, allow_outside=True))
        if run:
            sim.run(progress=False)
    return err.value.problems[0], scene, text


def entry_line(text: str, key: str) -> int:
    """The line of the scene text's first line holding key."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if key in line)


def test_two_knots_at_one_phase_are_refused_with_the_controllers_location(tmp_path):
    doc = walk_doc(1.0, style={"stance_knee": [[0, 0.2], [0.5, 0.1], [0.5, 0.3]]})
    problem, scene, text = refusal(tmp_path, doc)
    assert "style.stance_knee: two knots at one phase" in problem.message
    assert problem.file == str(scene) and problem.line == entry_line(text, "controller: walk")
    scene.write_text(text.replace("stance_knee", "swing_knee"))
    with pytest.raises(CorpusError, match="swing_knee"):
        pipeline.load(scene, allow_outside=True)
