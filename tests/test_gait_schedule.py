"""Gait schedule tests C1–C7 of the McKenna digest §9.3 (kinematic: no dynamics needed).

Frames of 1/2400 s as in the thesis; protime = dlegtime = 50 ms (`metabolism 0.05`).
Expected trigger times follow from t = ((90° - offset) mod 360°)/360° · T (digest §4.4).
"""
import math

import numpy as np
import pytest

from pipeline.control.gait_schedule import (
    LEGS, NEIGHBOURS, POTENTIAL, STANCE, STEP, GaitSchedule, GaitTiming)
from pipeline.errors import CorpusError

DT = 1.0 / 2400.0
FL, FR, ML, MR, BL, BR = range(6)


def run(schedule, duration, speed_at=None):
    """Step the schedule frame by frame; return times, swing (T, 6), step starts per leg."""
    n = int(round(duration / DT))
    times = np.arange(n + 1) * DT
    swing = np.zeros((n + 1, 6))
    starts = {i: [] for i in range(6)}
    for k, t in enumerate(times):
        for leg, event in schedule.update(t):
            if event == "step":
                starts[leg].append(t)
        swing[k] = schedule.swing()
    return times, swing, {i: np.array(v) for i, v in starts.items()}


def tripod_schedule(speed):
    return GaitSchedule(GaitTiming.from_metabolism(0.05, speed=speed))


def test_metabolism_sets_all_times():
    tm = GaitTiming.from_metabolism(0.05)
    assert (tm.protime, tm.rettime, tm.dlegtime, tm.cycletime) == (0.05, 0.05, 0.05, 0.1)


def test_c1_tripod_at_top_speed():
    times, swing, starts = run(tripod_schedule(1.0), 1.0)
    # {FL, MR, BL} fire at 25 ms + k·100 ms, {FR, ML, BR} at 75 ms + k·100 ms
    for group, first in (((FL, MR, BL), 0.025), ((FR, ML, BR), 0.075)):
        for leg in group:
            expected = first + 0.1 * np.arange(len(starts[leg]))
            assert len(starts[leg]) == 10
            np.testing.assert_allclose(starts[leg], expected, atol=DT * 1.0001)
            np.testing.assert_allclose(np.diff(starts[leg]), 0.1, atol=DT * 1.0001)
    # after the first trigger exactly three legs swing at every frame, always a full tripod
    steady = times >= 0.075
    assert np.all(swing[steady].sum(axis=1) == 3)
    for row in swing[steady]:
        assert tuple(np.flatnonzero(row)) in ((FL, MR, BL), (FR, ML, BR))
    # swing 50 ms per step, duty factor 0.5
    for leg in range(6):
        frames_swinging = swing[times >= starts[leg][0], leg]
        assert frames_swinging[:240].sum() == pytest.approx(0.05 / DT, abs=1)
    duty = 1 - swing[times >= 0.1].mean(axis=0)
    np.testing.assert_allclose(duty, 0.5, atol=2 * DT / 0.9)


def test_c2_wave_gait_speed_3():
    times, swing, starts = run(tripod_schedule(3.0), 1.2)
    events = sorted((t, leg) for leg in range(6) for t in starts[leg])
    first_bl = [leg for _, leg in events].index(BL)
    wave = events[first_bl:first_bl + 12]
    assert [leg for _, leg in wave] == [BL, ML, FL, BR, MR, FR] * 2
    np.testing.assert_allclose(np.diff([t for t, _ in wave]), 0.05, atol=DT * 1.0001)
    steady = times >= events[0][0]
    assert np.all(swing[steady].sum(axis=1) == 1)
    duty = 1 - swing[times >= starts[BL][0]][: int(round(0.9 / DT))].mean(axis=0)
    np.testing.assert_allclose(duty, 1 - 0.05 / 0.3, atol=0.002)


def test_c2_wave_gait_speed_4_gap_between_sides():
    _, swing, starts = run(tripod_schedule(4.0), 1.0)
    firsts = np.array([starts[leg][0] for leg in range(6)])
    # offsets FL/FR/ML/MR/BL/BR = 0/180/45/225/90/270 deg: BL 0, ML 50, FL 100, BR 200, MR 250, FR 300 ms
    # (BL's oscillator starts exactly at its peak, so its first trigger is one cycle later)
    expected = np.array([0.1, 0.3, 0.05, 0.25, 0.4, 0.2])
    np.testing.assert_allclose(firsts, expected, atol=DT * 1.0001)
    # FL ends 150 ms after the cycle start, BR starts 50 ms later; never more than one leg swings
    assert firsts[BR] - (firsts[FL] + 0.05) == pytest.approx(0.05, abs=DT * 1.0001)
    assert swing.sum(axis=1).max() == 1


@pytest.mark.parametrize("speed", [1.0, 1.25, 1.5, 2.0, 2.7, 3.0, 4.0, 6.0])
def test_c3_wilson_invariants(speed):
    T = 0.1 * speed
    times, swing, starts = run(tripod_schedule(speed), 3.0)
    # rule 1/5: ipsilateral neighbours step dleg = 50 ms apart, rear first
    for rear, front in ((BL, ML), (ML, FL), (BR, MR), (MR, FR)):
        later = starts[front][starts[front] > starts[rear][0]]
        n = min(len(later), len(starts[rear]))
        np.testing.assert_allclose(later[:n] - starts[rear][:n], 0.05, atol=DT * 1.0001)
    # rule 2: contralateral partners are T/2 apart
    for left, right in ((FL, FR), (ML, MR), (BL, BR)):
        merged = np.sort(np.concatenate([starts[left], starts[right]]))
        np.testing.assert_allclose(np.diff(merged), T / 2, atol=DT * 1.0001)
    # rule 3: the step duration is constant (50 ms = 120 frames)
    for leg in range(6):
        runs = np.diff(np.concatenate([[0], swing[:, leg], [0]]))
        lengths = np.flatnonzero(runs < 0) - np.flatnonzero(runs > 0)
        assert np.all(lengths[:-1] == 120)
    # rule 5: the front → back interval T - 2 dleg varies with the frequency
    next_back = starts[BL][starts[BL] > starts[FL][0]][0]
    assert next_back - starts[FL][0] == pytest.approx(T - 0.1 if T > 0.1 else T, abs=DT * 1.0001)
    # no two neighbours ever swing together
    for i, neighbours in enumerate(NEIGHBOURS):
        for j in neighbours:
            assert not np.any(swing[:, i] * swing[:, j])


def test_c4_smooth_transition_speed_4_to_1():
    schedule = tripod_schedule(4.0)
    n_ramp = int(round(2.0 / DT))
    times, swing, starts = [], [], {i: [] for i in range(6)}
    offsets = []
    for k in range(int(round(3.5 / DT)) + 1):
        t = k * DT
        if k == int(round(0.5 / DT)):
            schedule.set_speed(1.0, ramp_time=2.0)
        for leg, event in schedule.update(t):
            if event == "step":
                starts[leg].append(t)
        times.append(t)
        swing.append(schedule.swing())
        offsets.append(schedule.offsets() % 1.0)
    times, swing, offsets = np.array(times), np.array(swing), np.array(offsets)
    # the speed ramp is linear and ends at 1 (T = 0.1 s) at t = 2.5 s
    assert schedule.timing.speed == 1.0 and schedule.timing.deltaspeed == 0.0
    assert n_ramp == 4800
    # the offsets change continuously (< 0.25° per frame, the master moves 0.375–1.5°) while
    # the speed ramps; commanding
    # the ramp moves them once by the phase the ramp gains within 2 dlegtime (< 2°)
    step = np.abs(np.diff(offsets, axis=0))
    step = np.minimum(step, 1 - step) * 360
    command = int(round(0.5 / DT)) - 1
    assert np.delete(step, command, axis=0).max() < 0.25
    assert step[command].max() < 2.0
    # no leg triggers twice within the fastest cycle T_min = 0.1 s
    for leg in range(6):
        assert np.all(np.diff(starts[leg]) >= 0.1 - DT * 1.0001)
    # passes through the intermediate gait with two legs swinging, ends in the tripod
    in_swing = swing.sum(axis=1)
    assert np.any(in_swing[(times > 1.0) & (times < 2.4)] == 2)
    end = times >= 2.6
    assert np.all(in_swing[end] == 3)
    for row in swing[end]:
        assert tuple(np.flatnonzero(row)) in ((FL, MR, BL), (FR, ML, BR))


@pytest.mark.parametrize("speed", [1.0, 2.0, 3.0, 4.0])
def test_c5_trigger_at_90_degrees(speed):
    T = 0.1 * speed
    schedule = tripod_schedule(speed)
    offsets_deg = schedule.offsets() * 360
    _, _, starts = run(schedule, 2 * T)
    for leg in range(6):
        expected = ((90 - offsets_deg[leg]) % 360) / 360 * T
        if expected == 0:  # already at its peak at t = 0: the half-open crossing fires a cycle later
            expected = T
        assert starts[leg][0] == pytest.approx(expected, abs=DT * 1.0001), LEGS[leg]


def test_c6_step_reflex_sets_potential_stepping():
    schedule = GaitSchedule(GaitTiming.from_metabolism(0.05, speed=1000.0), step_reflex=True)
    fired = np.zeros(6, bool)
    assert schedule.update(DT, step_reflex_fired=fired) == []
    fired[ML] = True
    assert schedule.update(2 * DT, step_reflex_fired=fired) == [(ML, "step")]
    # off (the default): the same sensor reading does nothing
    quiet = GaitSchedule(GaitTiming.from_metabolism(0.05, speed=1000.0))
    assert quiet.update(DT, step_reflex_fired=fired) == []


def test_c6_load_reflex_holds_leg_in_stance_until_force_drops():
    schedule = GaitSchedule(GaitTiming.from_metabolism(0.05), load_reflex=True)
    loaded = np.zeros(6, bool)
    loaded[FL] = True
    for k in range(1, 100):  # FL triggers at 25 ms (frame 60) but stays loaded
        schedule.update(k * DT, load_inhibited=loaded)
    assert schedule.state[FL] == POTENTIAL and schedule.state[MR] == STEP
    loaded[FL] = False
    assert (FL, "step") in schedule.update(100 * DT, load_inhibited=loaded)


def test_neighbour_inhibition_delays_a_step():
    schedule = GaitSchedule(GaitTiming.from_metabolism(0.05, speed=1.0), neighbour_inhibition=True)
    schedule.state[FR] = STEP  # a disturbance: FL's neighbour is already stepping
    schedule.step_start[FR] = 0.0
    events = []
    for k in range(1, 121):
        events += [(k, e) for e in schedule.update(k * DT)]
    # FL triggers at 25 ms but waits until FR lands at 50 ms
    assert (120, (FL, "step")) in events and (120, (FR, "stance")) in events
    assert not any(e == (FL, "step") for k, e in events if k < 120)


def test_c7_faster_than_tripod_is_clamped_or_flagged():
    schedule = tripod_schedule(0.5)
    assert schedule.period == pytest.approx(0.1)
    schedule.set_speed(0.2)
    assert schedule.timing.speed == 1.0
    with pytest.raises(CorpusError, match="faster than the tripod"):
        GaitSchedule(GaitTiming.from_metabolism(0.05, topspeed=0.5))


def test_parked_gait_never_steps():
    _, swing, _ = run(tripod_schedule(1000.0), 2.0)
    assert swing.sum() == 0


def test_states_stay_in_the_machine():
    schedule = tripod_schedule(1.5)
    for k in range(2400):
        schedule.update(k * DT)
        assert set(schedule.state) <= {STANCE, STEP}
    assert math.isfinite(schedule.phase)
