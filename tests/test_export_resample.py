"""Output frames are resampled from the recording's own samples (never re-simulated)."""
import numpy as np
import pytest

from pipeline.errors import CorpusError
from pipeline.export.camera import VIEW_ANGLE, camera_path, framing, smooth
from pipeline.export.gait import stepping
from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix
from pipeline.export.resample import frame_times, resample_poses, resample_series, slerp
from test_export_fixtures import DURATION, SPEED, walker_model, walker_recording


def z_rotation(angle):
    return np.array([np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)])


def test_frame_count_is_fps_times_duration():
    time = np.arange(481) / 240.0  # 2 s
    for fps in (24, 25, 30, 60):
        t = frame_times(time, fps)
        assert len(t) == fps * 2
        assert np.allclose(np.diff(t), 1.0 / fps, rtol=0, atol=1e-15)
        assert t[0] == 0.0


def test_fps_must_be_positive():
    with pytest.raises(CorpusError, match="fps"):
        frame_times(np.arange(3.0), 0)


def test_slerp_halfway_between_z_rotations_is_the_mean_angle():
    q = slerp(z_rotation(0.2), z_rotation(0.8), np.array(0.5))
    assert np.allclose(q, z_rotation(0.5), rtol=0, atol=1e-15)
    q = slerp(z_rotation(0.2), z_rotation(0.8), np.array(0.25))
    assert np.allclose(q, z_rotation(0.35), rtol=0, atol=1e-15)


def test_slerp_takes_the_short_way_round():
    # -q is the same rotation: interpolating towards it must not spin a full turn
    q = slerp(z_rotation(0.2), -z_rotation(0.4), np.array(0.5))
    assert np.allclose(quat_to_matrix(q), quat_to_matrix(z_rotation(0.3)), atol=1e-15)


def test_quat_to_matrix_rotates_x_onto_y_for_a_quarter_turn_about_z():
    assert np.allclose(quat_to_matrix(z_rotation(np.pi / 2)) @ [1, 0, 0], [0, 1, 0], atol=1e-15)


def test_poses_between_samples_interpolate_the_recorded_motion():
    rec = walker_recording()
    t = np.array([0.0, 1.0 / 480, 1.0, 1.5 + 1.0 / 480])
    pos, quat = resample_poses(rec.time, rec.body_pos, rec.body_quat, t)
    assert np.allclose(pos[:, 0, 0], SPEED * t, rtol=0, atol=1e-16)
    # the leg angle halfway between two samples is the mean of their angles (slerp)
    k = int(1.5 * 240)
    swing = 0.5 * np.sin(2 * np.pi * 2 * rec.time[[k, k + 1]])
    mid = swing.mean()
    assert np.allclose(quat[3, 1], [np.cos(mid / 2), 0, np.sin(mid / 2), 0], rtol=0, atol=1e-15)


def test_series_resampling_is_linear():
    time = np.array([0.0, 1.0, 3.0])
    values = np.array([[0.0, 1.0], [2.0, 1.0], [6.0, -1.0]])
    out = resample_series(time, values, np.array([0.5, 2.0, 3.0]))
    assert np.allclose(out, [[1.0, 1.0], [4.0, 0.0], [6.0, -1.0]], rtol=0, atol=1e-15)


def test_gait_channel_marks_step_state_only():
    legs, steps = stepping({"ch_leg_state": np.array([[0, 1, 2, 0, 0, 2]] * 3, float)})
    assert legs == ("fl", "fr", "ml", "mr", "bl", "br")
    assert steps[0].tolist() == [False, False, True, False, False, True]
    legs, steps = stepping({"gait_a": np.array([0, 1.0]), "gait_b": np.array([1.0, 0])})
    assert legs == ("a", "b") and steps.tolist() == [[False, True], [True, False]]
    assert stepping({"speed": np.zeros(3)}) is None


def test_follow_camera_tracks_the_centre_of_mass_over_the_ground_at_its_median_height():
    rec, model = walker_recording(), walker_model()
    t = frame_times(rec.time, 30)
    pos, quat = resample_poses(rec.time, rec.body_pos, rec.body_quat, t)
    cam = camera_path({"mode": "follow", "azimuth": 90, "elevation": 0, "distance": 0.5,
                       "smoothing": 0.05},
                      model, t, pos, quat, 30, 0.1)
    # the legs' swing cancels: the COM moves along x at SPEED, z at the mass-weighted height
    com_z = (0.036 * 0.04 + 2 * 0.004 * 0.03 - 2 * 0.004 * 0.01 * np.cos(
        0.5 * np.sin(4 * np.pi * t))) / 0.044
    assert np.allclose(cam.focus[8:-8, 0], SPEED * t[8:-8], rtol=0, atol=1e-6)
    assert np.allclose(cam.eye - cam.focus, [0, 0.5, 0], rtol=0, atol=1e-15)
    assert np.allclose(cam.focus[:, 2], np.median(com_z), rtol=0, atol=1e-15)
    orbit = camera_path({"mode": "orbit", "orbit_speed": 90, "elevation": 0, "distance": 1,
                         "azimuth": 0}, model, t, pos, quat, 30, 0.1)
    k = 30  # one second later: a quarter turn
    assert np.allclose(orbit.eye[k] - orbit.focus[k], [0, 1, 0], rtol=0, atol=1e-12)


def test_framing_keeps_every_height_of_a_drop_in_the_picture():
    # box_drop: a 20 cm box (size 0.35 m) falls from 0.5 m and rests at 0.1 m; at the
    # median height and 2.5 x its size the first frames would crop it
    t = np.linspace(0, 1.5, 361)
    z = np.maximum(0.5 - 0.5 * 9.8 * t ** 2, 0.1)
    size, elevation = 0.35, 25.0
    height, distance = framing(z, float(np.median(z)), size, 2.5 * size, elevation)
    half = distance * np.tan(np.radians(VIEW_ANGLE / 2)) / np.cos(np.radians(elevation))
    assert distance > 2.5 * size
    assert np.all(np.abs(np.concatenate([z - size / 2, z + size / 2]) - height) <= half)
    # a creature that stays near its height keeps the usual framing
    assert framing(np.full(10, 0.012), 0.012, 0.08, 0.2, 25.0) == (0.012, 0.2)


def test_smoothing_keeps_a_straight_line_straight():
    # sigma 6 frames, kernel radius 4 sigma: frames 24 away from the ends see no edge
    line = np.stack([np.linspace(0, 1, 100)] * 3, 1)
    assert np.allclose(smooth(line, 30, 0.2)[24:-24], line[24:-24], rtol=0, atol=1e-12)


def test_unknown_camera_target_is_a_user_error():
    rec, model = walker_recording(), walker_model()
    with pytest.raises(CorpusError, match="no body named 'tail'"):
        camera_path({"target": "tail"}, model, rec.time[:2], rec.body_pos[:2], rec.body_quat[:2], 30, 1)
    assert DURATION == 2.0


def test_spring_cylinder_transform_spans_its_two_masses():
    from pipeline.export.deforming import segment_trs

    rng = np.random.default_rng(3)
    a = rng.normal(size=(50, 3))
    b = a + rng.normal(size=(50, 3))
    b[0] = a[0] + [0, 0, -2.0]  # straight down: the half-way quaternion degenerates
    b[1] = a[1] + [0, 0, 0.5]  # straight up: no rotation
    t, q, s = segment_trs(a, b, 0.1)
    xyzw = q[:, [3, 0, 1, 2]]
    rot = quat_to_matrix(xyzw)
    base = t + np.einsum("nij,nj->ni", rot, s * [0, 0, 0])
    tip = t + np.einsum("nij,nj->ni", rot, s * [0, 0, 1])
    rim = t + np.einsum("nij,nj->ni", rot, s * [1, 0, 0])
    assert np.allclose(base, a, rtol=0, atol=1e-12)
    assert np.allclose(tip, b, rtol=0, atol=1e-12)
    assert np.allclose(np.linalg.norm(rim - a, axis=1), 0.1, rtol=0, atol=1e-12)


def test_slow_motion_takes_frames_more_often_in_simulated_time():
    from pipeline.export.options import resolve_options

    opts = resolve_options({"fps": 25, "slow_motion": 4})
    t = frame_times(np.arange(241) / 240.0, opts.sample_rate)  # 1 s
    assert len(t) == 25 * 4
    assert np.allclose(np.diff(t), 1.0 / 100, rtol=0, atol=1e-15)
    with pytest.raises(CorpusError, match="outputs.slow_motion: expected a positive number of times slower"):
        resolve_options({"slow_motion": 0})
    with pytest.raises(CorpusError, match="even width and height"):
        resolve_options({"video": True, "size": [641, 360]})
