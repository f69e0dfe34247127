"""Transform ops and quaternions against scipy's rotations, and units against exact
arithmetic, over random inputs (hypothesis)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from pipeline.spec.transforms import compose, matrix_from_quat, quat_from_matrix, split_scale
from pipeline.spec.units import to_si

FAST = settings(max_examples=200, deadline=None)
angles = st.floats(-720, 720, allow_nan=False)
axes = st.tuples(*[st.floats(-1, 1, allow_nan=False)] * 3).filter(lambda a: np.linalg.norm(a) > 1e-3)


@FAST
@given(st.lists(st.tuples(st.sampled_from("xyz"), angles), min_size=1, max_size=5),
       st.tuples(*[st.floats(-10, 10, allow_nan=False)] * 3))
def test_rotate_and_move_ops_compose_in_the_parent_frame(ops, move):
    # each op acts in the parent (world) frame after the ones before: R = R_n ... R_1
    T = compose([{"rotate": {name: math.radians(deg)}} for name, deg in ops] + [{"move": list(move)}])
    expected = Rotation.identity()
    for name, deg in ops:
        expected = Rotation.from_euler(name, deg, degrees=True) * expected
    expected = expected.as_matrix()
    assert T[:3, :3] == pytest.approx(expected, abs=1e-12)
    assert T[:3, 3] == pytest.approx(move, abs=1e-12)


@FAST
@given(axes, angles)
def test_quaternions_round_trip_and_agree_with_scipy(axis, deg):
    R = Rotation.from_rotvec(np.asarray(axis) / np.linalg.norm(axis) * math.radians(deg)).as_matrix()
    w, x, y, z = quat_from_matrix(R)
    assert w >= 0.0 and math.isclose(w * w + x * x + y * y + z * z, 1.0, rel_tol=1e-12)
    assert matrix_from_quat((w, x, y, z)) == pytest.approx(R, abs=1e-12)
    sx, sy, sz, sw = Rotation.from_matrix(R).as_quat()
    sign = 1.0 if sw >= 0 else -1.0
    assert (w, x, y, z) == pytest.approx((sign * sw, sign * sx, sign * sy, sign * sz), abs=1e-12)


@FAST
@given(st.tuples(*[st.floats(0.01, 10)] * 3), axes, angles)
def test_scale_before_rotation_splits_into_rotation_and_sizes(scale, axis, deg):
    rotate = {"rotate": {"axis": list(axis), "angle": math.radians(deg)}}
    R, t, s = split_scale([{"scale": list(scale)}, rotate, {"move": [1, 2, 3]}])
    assert s == pytest.approx(scale, rel=1e-12)
    expected = Rotation.from_rotvec(np.asarray(axis) / np.linalg.norm(axis) * math.radians(deg)).as_matrix()
    assert R == pytest.approx(expected, abs=1e-12)
    assert t == pytest.approx((1, 2, 3), abs=1e-12)


@FAST
@given(st.integers(-10**6, 10**6), st.integers(1, 10**6))
def test_fractions_with_units_are_exact_to_rounding(num, den):
    assert to_si(f"{num}/{den}cm", "length") == pytest.approx(num / den / 100, rel=1e-15, abs=1e-300)
    assert to_si(f"{num}/{den} ms", "time") == pytest.approx(num / den / 1000, rel=1e-15, abs=1e-300)
