"""The biped_walk controller's gait parameters scheduled by the desired speed (`by_speed`,
docs/biped.md, Speed schedule) and the style's weight: knots [V_d, value], linear between
them, evaluated in the kernel every frame; absent, the run records what it recorded
without them; bad knots are refused at the controller's entry."""
import numpy as np
import pytest

import pipeline
from pipeline.control.biped_frames import biped_tables, splines
from pipeline.control.biped_gait import CatmullRom
from pipeline.control.biped_machine import V_D, _schedule
from pipeline.control.biped_pd import rot_y, rot_z
from pipeline.control.biped_rig import FOOT, LOWER_LEG, slot
from pipeline.control.biped_torques import ALPHA, LEAN, PARAMS, SPEED, STYLE, STYLE_WEIGHT, _style
from pipeline.control.biped_walk_controller import _spline_table
from pipeline.errors import CorpusError
from tests.test_biped_style import EDITABLE, compiled, entry_line, refusal, walk_doc

LEAN_KNOTS = [[0.2, 0.0], [0.5, 0.12], [1.0, 0.02]]


def one_schedule(name: str, knots) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's table and counts with `name` scheduled by `knots` and nothing else."""
    schedule = np.zeros((len(PARAMS), 2, 4))
    scheduled = np.zeros(len(PARAMS), np.int64)
    i = PARAMS.index(name)
    schedule[i, :, :len(knots)] = np.array(knots).T
    scheduled[i] = len(knots)
    return schedule, scheduled


@pytest.mark.parametrize("v, lean", [(-0.6, 0.0), (0.2, 0.0), (0.35, 0.06), (0.5, 0.12), (0.8, 0.06),
                                     (1.0, 0.02), (1.7, 0.02)])
def test_a_schedule_is_linear_between_its_knots_and_held_beyond_them(v, lean):
    par = np.arange(len(PARAMS), dtype=float) + 0.5
    par[SPEED] = v
    before = par.copy()
    _schedule(*one_schedule("lean", LEAN_KNOTS), par)
    assert par[LEAN] == pytest.approx(lean, abs=1e-15)
    others = [i for i in range(len(PARAMS)) if i != LEAN]
    assert np.array_equal(par[others], before[others])


@pytest.mark.parametrize("stance", [0, 1])
def test_the_style_weight_blends_the_style_with_the_zero_gait(stance):
    """w style + (1 - w) zero gait: the stance knee toward knee_bend, the feet toward flat."""
    zero = np.stack([rot_z(0.1 * k) for k in range(22)])
    table = splines([[_spline_table(EDITABLE[name]) for name in STYLE]])[0]
    knee, ankle, swing = slot(stance, LOWER_LEG) - 1, slot(stance, FOOT) - 1, slot(1 - stance, FOOT) - 1
    bend = 0.4
    for phi in (0.0, 0.3, 1.0):
        values = {name: CatmullRom(EDITABLE[name])(phi) for name in STYLE}
        for w in (0.0, 0.25, 1.0):
            Rt = zero.copy()
            _style(table, np.ones(len(STYLE), np.bool_), phi, stance, w, bend, Rt)
            assert np.allclose(Rt[knee], rot_y(w * values["stance_knee"] + (1 - w) * bend), rtol=0, atol=1e-15)
            assert np.allclose(Rt[ankle], zero[ankle] @ rot_y(w * values["stance_ankle"]), rtol=0, atol=1e-15)
            assert np.allclose(Rt[swing], zero[swing] @ rot_y(w * values["swing_ankle"]), rtol=0, atol=1e-15)
            others = [k for k in range(22) if k not in (knee, ankle, swing)]
            assert np.array_equal(Rt[others], zero[others])


def test_the_scheduled_parameters_follow_the_desired_speed_in_the_run():
    """Each frame's lean is the schedule at that frame's V_d (ramping at 1 m/s^2 from the
    walk command at 0.2 s); alpha, not scheduled, keeps its scalar."""
    sim = compiled(walk_doc(1.5, by_speed={"lean": LEAN_KNOTS}))
    walk = sim.data.user["biped_walk"]["biped"]
    seen = []
    while sim.data.time < 1.5 - 1e-9:
        sim.step(50)  # the tick at the last frame's start set par from that frame's V_d
        assert walk.par[LEAN] == pytest.approx(np.interp(walk.s[V_D], *np.array(LEAN_KNOTS).T), abs=1e-15)
        assert walk.par[ALPHA] == 0.05
        seen.append(walk.par[LEAN])
    assert not walk.fell and min(seen) == 0.0 and max(seen) > 0.1


def test_a_schedule_at_the_scalars_values_records_the_run_without_one():
    """The scalars written as one-knot schedules (and the whole style, weighted 1): the same
    run to the bit; no by_speed block, nothing scheduled in the kernel's tables."""
    plain = compiled(walk_doc(2.5, style=EDITABLE, lean=0.1))
    assert not biped_tables(plain, plain.data.controllers).scheduled.any()
    scheduled = compiled(walk_doc(2.5, style=EDITABLE, by_speed={"lean": [[0.0, 0.1]],
                                                                 "style_weight": [[-1.0, 1.0], [2.0, 1.0]]}))
    counts = biped_tables(scheduled, scheduled.data.controllers).scheduled[0]
    assert counts[LEAN] == 1 and counts[STYLE_WEIGHT] == 2 and counts.sum() == 3
    a, b = plain.run(progress=False), scheduled.run(progress=False)
    for name in ("q", "qd", "body_pos", "body_quat"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert plain.data.user["biped_walk"]["biped"].steps >= 3


def test_bad_schedules_are_refused_with_the_controllers_location(tmp_path):
    """Knot speeds that do not increase, a parameter that cannot be scheduled, one given
    both as a value and scheduled."""
    doc = walk_doc(1.0, by_speed={"alpha": [[0.5, 0.05], [1.4, 0.06], [1.4, 0.07]]})
    problem, scene, text = refusal(tmp_path, doc)
    assert "by_speed.alpha: knot speeds [0.5, 1.4, 1.4] must increase" in problem.message
    assert problem.file == str(scene) and problem.line == entry_line(text, "controller: walk")
    scene.write_text(text.replace("alpha", "acceleration"))  # not a schedulable parameter
    with pytest.raises(CorpusError, match="acceleration"):
        pipeline.load(scene, allow_outside=True)
    problem, _, text = refusal(tmp_path, walk_doc(1.0, alpha=0.1, by_speed={"alpha": [[0.5, 0.05]]}))
    assert "biped_walk: alpha given both as a value and in by_speed" in problem.message
    assert problem.line == entry_line(text, "controller: walk")


def test_a_walk_command_to_a_scheduled_parameter_is_refused_at_its_entry(tmp_path):
    doc = walk_doc(1.0, by_speed={"lean": LEAN_KNOTS})
    doc["timeline"].append({"at": 0.5, "do": {"walk": {"lean": 0.2}}})
    problem, scene, text = refusal(tmp_path, doc, run=True)
    assert "walk: cannot set lean: scheduled by speed" in problem.message
    assert problem.file == str(scene) and problem.line == entry_line(text, "at: 0.5")
    assert problem.path == "timeline[1]"
