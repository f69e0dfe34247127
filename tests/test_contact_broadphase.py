"""The ground kernel skips bodies that are clear of the ground (`forces._ground`). The skip
must change nothing: forces and the contact state written are bit for bit those of
testing every point, on flat ground and on terrain, with sticky anchors near and far."""
import numpy as np
import pytest

from pipeline.physics.contact import state as S
from tests.contact_helpers import anchor, box_points, contact_setup, evaluate, params

# a terrain of bumps up to 3 mm on a 5 mm grid
GRID = (np.array([-0.05, -0.05, 0.005, 0.005]),
        0.003 * np.abs(np.sin(np.arange(21)[:, None] * 0.7 + np.arange(21)[None, :] * 1.3)))


def _scene(grid, sticky_max):
    """Four bodies: two boxes (corners) and a body with two spheres (radius 1 and 2 mm)."""
    bodies, centres, radii = [], [], []
    for b, size in ((0, (0.01, 0.004, 0.003)), (1, (0.002, 0.002, 0.006))):
        pb, pc, pr = box_points(b, size)
        bodies += pb
        centres += pc
        radii += pr
    bodies += [3, 2, 3]  # out of body order on purpose: assemble groups them
    centres += [np.array([0.001, 0.0, -0.002]), np.array([0.0, 0.0, -0.001]),
                np.array([-0.001, 0.0, 0.0])]
    radii += [0.002, 0.001, 0.0]
    p = params(material={"sticky": {"max_stretch": sticky_max}})
    sticky = [1.0, 0.0, 1.0, 1.0]
    kwargs = {} if grid is None else {"grid": grid}
    return contact_setup(p, sticky, (bodies, centres, radii), **kwargs)


def _random_pose(rng, nb, top):
    xpos = np.column_stack([rng.uniform(-0.02, 0.02, (nb, 2)), top + rng.uniform(-0.004, 0.012, nb)])
    xrot = np.array([np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(nb)])
    xrot *= np.sign(np.linalg.det(xrot))[:, None, None]
    vbody = rng.normal(0.0, 0.05, (nb, 6))
    return xpos, xrot, vbody


@pytest.mark.parametrize("grid", [None, GRID], ids=["flat", "terrain"])
@pytest.mark.parametrize("sticky_max", [0.001, 0.02])
def test_skipping_clear_bodies_changes_nothing(grid, sticky_max):
    arrays, cstate = _scene(grid, sticky_max)
    every_point = arrays._replace(group_reach=np.full_like(arrays.group_reach, np.inf))
    rng = np.random.default_rng(7)
    top = 0.0 if grid is None else grid[1].max()
    skipped = 0
    for trial in range(300):
        xpos, xrot, vbody = _random_pose(rng, 4, top)
        cs = cstate.copy()
        for i in range(len(arrays.point_body)):  # some anchors set, some near the points
            a = anchor(arrays, i)
            if rng.random() < 0.5:
                cs[a][:3] = rng.uniform(-0.02, 0.02, 3) * [1, 1, 0.1]
                cs[a.start + 3] = 1.0
            if rng.random() < 0.5:
                cs[a.start + 4:a.start + 7] = rng.uniform(-0.02, 0.02, 3)
                cs[a.start + 7] = 1.0
        f_fast, out_fast = evaluate(arrays, cs, xpos, xrot, vbody)
        f_all, out_all = evaluate(every_point, cs, xpos, xrot, vbody)
        np.testing.assert_array_equal(f_fast, f_all)
        np.testing.assert_array_equal(out_fast, out_all)
        clear = xpos[arrays.group_body, 2] - arrays.group_reach - top
        skipped += int(np.sum(clear > 0.0))
    assert skipped > 100  # the comparison covered skipped bodies, not only tested ones


def test_points_are_grouped_by_body():
    arrays, _ = _scene(None, 0.001)
    assert list(arrays.group_body) == [0, 1, 2, 3]
    assert list(np.diff(arrays.group_start)) == [8, 8, 1, 2]
    assert np.all(np.diff(arrays.point_body) >= 0)
    # body 3 keeps the order its points were given in: the sphere first, then the corner
    np.testing.assert_array_equal(arrays.point_radius[17:19], [0.002, 0.0])
    assert arrays.group_reach[3] == pytest.approx(np.sqrt(0.001 ** 2 + 0.002 ** 2) + 0.002, abs=2e-9)
    assert arrays.layout[S.LAYOUT_ATTACH] - arrays.layout[S.LAYOUT_ANCHORS] == S.ANCHOR_STRIDE * 19
