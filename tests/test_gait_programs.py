"""The roach's step/stance motor programs as the gait controller issues them (kinematic).

Times inside programs are fractions of the phase (corpus `*f`): protime = 50 ms for steps,
the stance (T - protime) for stances. A recording executor stands in for the command
registry's target, so these tests check the schedule of commands, not the dynamics.
"""
from pathlib import Path

import pytest
import yaml

from pipeline.control.gait import GaitController, scale_program_entry
from pipeline.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]
DT = 1.0 / 2400.0


def roach_script(**gait):
    script = yaml.safe_load((ROOT / "creatures/roach_gait.yaml").read_text())
    script["gait"].update(gait)
    return script


def drive(script, duration):
    issued = []
    controller = GaitController(script, execute=lambda a, args: issued.append((t, a, args)))
    for k in range(int(round(duration / DT)) + 1):
        t = k * DT
        controller.update(t)
    return issued


def motor_calls(issued, joint):
    return [(t, args["etarget"], args["time"]) for t, action, args in issued
            if action == "motor" and args["joint"] == joint]


def test_scale_program_entry_makes_fractions_absolute():
    entry = {"at": 0.5, "do": {"motor": {"joint": "leg_fl1", "etarget": -0.3, "time": 0.5}}}
    assert scale_program_entry(entry, 0.05) == (0.025, "motor", {"joint": "leg_fl1", "etarget": -0.3, "time": 0.025})
    assert entry["do"]["motor"]["time"] == 0.5  # the script itself is not modified


def test_front_left_programs_in_the_tripod():
    issued = drive(roach_script(speed=1), 0.2)
    fl1 = motor_calls(issued, "leg_fl1")
    # step at 25 ms: lift in 1/5 of the step (10 ms), lower from mid-step (37.5 ms) over 25 ms;
    # stance at 75 ms over the 50 ms stance; the next step at 125 ms
    expected = [(0.025, 0.35, 0.01), (0.05, -0.3, 0.025), (0.075, -0.3, 0.05),
                (0.125, 0.35, 0.01), (0.15, -0.3, 0.025), (0.175, -0.3, 0.05)]
    assert len(fl1) == len(expected)
    for (t, target, dur), (te, targete, dure) in zip(fl1, expected):
        assert t == pytest.approx(te, abs=DT * 1.0001)
        assert target == targete and dur == pytest.approx(dure, rel=1e-12)
    fl0 = motor_calls(issued, "leg_fl0")
    assert [(round(t, 6), e, round(d, 9)) for t, e, d in fl0[:2]] == [(0.025, -0.7, 0.05), (0.075, -0.05, 0.05)]


def test_stance_program_stretches_with_the_cycle():
    issued = drive(roach_script(speed=3), 0.6)
    stances = [args["time"] for t, a, args in issued if a == "motor" and args["joint"] == "leg_bl0"
               and args["etarget"] == 0.3]
    assert stances and all(d == pytest.approx(0.3 - 0.05, rel=1e-12) for d in stances)
    fixed = drive(roach_script(speed=3, stance_time="rettime"), 0.6)
    stances = [args["time"] for t, a, args in fixed if a == "motor" and args["joint"] == "leg_bl0"
               and args["etarget"] == 0.3]
    assert stances and all(d == pytest.approx(0.05, rel=1e-12) for d in stances)


def test_every_leg_alternates_step_and_stance_targets():
    issued = drive(roach_script(speed=1), 1.0)
    script = roach_script()
    for leg, spec in script["gait"]["legs"].items():
        coxa = f"leg_{leg}0"
        step_target = next(e["do"]["motor"]["etarget"] for e in spec["step"] if e["do"]["motor"]["joint"] == coxa)
        stance_target = next(e["do"]["motor"]["etarget"] for e in spec["stance"] if e["do"]["motor"]["joint"] == coxa)
        targets = [e for _, e, _ in motor_calls(issued, coxa)]
        # 10 Hz: 10 steps per second; the last stance of the 75 ms-group starts after 1 s
        assert len(targets) in (19, 20)
        assert set(targets[0::2]) == {step_target} and set(targets[1::2]) == {stance_target}


def test_sticky_feet_follow_the_leg_state():
    issued = drive(roach_script(speed=1, sticky_feet=True), 0.1)
    sticky = [(round(t, 6), args["body"], args["on"]) for t, a, args in issued if a == "sticky"]
    assert (0.025, "leg_fl4", False) in sticky and (0.075, "leg_fl4", True) in sticky
    assert (0.075, "leg_fr4", False) in sticky


def test_gait_command_ramps_and_parks():
    issued = []
    controller = GaitController(roach_script(speed=4), execute=lambda a, args: issued.append(a))
    controller.command({"speed": 1, "time": 2.0})
    assert controller.schedule.timing.deltaspeed == pytest.approx(-1.5)
    controller.command({"go": False})
    assert controller.update(1.0) == []
    controller.command({"init": True, "go": True, "speed": 1000})
    assert controller.schedule.period == pytest.approx(100.0)


def test_faster_than_tripod_is_a_located_error():
    script = roach_script(topspeed=0.4)
    with pytest.raises(CorpusError, match="faster than the tripod"):
        GaitController(script, execute=lambda a, args: None)
