"""outputs.quality: parsed and checked where it is given (a scene field or --quality)."""
from __future__ import annotations

import argparse

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.export.camera import direction
from pipeline.export.deforming import covered, deforming
from pipeline.export.ground import checker_for
from pipeline.export.look import look_for
from pipeline.export.meshes import body_parts
from pipeline.export.options import resolve_options
from pipeline.export.poses import pose_matrices
from pipeline.export.render import FrameRenderer
from pipeline.particles.model import build_model
from pipeline.run import export_flags
from test_export_fixtures import FLAT, walker_model, walker_recording

FINAL_PSNR_DB = 38.0  # final measured 38.66 dB here (2 jittered passes), draft 36.29


def test_quality_defaults_to_final_and_accepts_draft():
    assert resolve_options({}).quality == "final"
    assert resolve_options({"quality": "draft"}).quality == "draft"


@pytest.mark.parametrize("bad", ["best", "", None, 1])
def test_a_bad_quality_is_a_located_error(bad):
    with pytest.raises(CorpusError) as e:
        resolve_options({"quality": bad})
    assert str(e.value) == f"<input>: outputs.quality: expected one of draft, final, got {bad!r}"


def test_the_quality_flag_is_checked_and_named():
    assert export_flags(argparse.Namespace(quality="draft")) == {"quality": "draft"}
    with pytest.raises(CorpusError) as e:
        export_flags(argparse.Namespace(quality="fast"))
    assert str(e.value) == "<input>: --quality: expected one of draft, final, got 'fast'"


# --- what final frames look like -----------------------------------------------------------

def _psnr(image, reference) -> float:
    return 10 * np.log10(255.0 ** 2 / np.mean((np.asarray(image, float) - reference) ** 2))


def _frame(parts, world, checker, width, height, quality, pose, **kw):
    r = FrameRenderer(parts, world, checker, width, height, quality=quality, show_time=False, **kw)
    try:
        return r.render(*pose)
    finally:
        r.close()


def test_final_frames_are_anti_aliased():
    """Against the same renderer at 4 x 4 samples per pixel, box-filtered: final (4x MSAA)
    lands within what its edges leave; draft's stair-steps fall well short of it."""
    model, rec = walker_model(), walker_recording()
    parts, world = body_parts(model)
    checker = checker_for(FLAT, rec.body_pos, 0.08)
    pose = (pose_matrices(rec.body_pos[100], rec.body_quat[100]), (0.05, -0.3, 0.15),
            (0.05, 0.0, 0.03), (0, 0, 1))
    w, h, s = 160, 96, 4
    db = {}
    for quality in ("draft", "final"):
        big = _frame(parts, world, checker, s * w, s * h, quality, pose)
        reference = big.reshape(h, s, w, s, 3).mean(axis=(1, 3))
        db[quality] = _psnr(_frame(parts, world, checker, w, h, quality, pose), reference)
    assert db["final"] >= FINAL_PSNR_DB, db
    assert db["draft"] <= db["final"] - 2.0, db


def test_the_jellyfish_renders_under_water():
    """SeaWorld's look: water-coloured background and fog, the bright underside of the water
    surface in the top rows, the pink bell and tentacles in the middle."""
    scene = pipeline.load("scenes/jellyfish.yaml")
    model = build_model(scene)
    look = look_for(scene.environment)
    assert look.underwater and look.water_surface == 1.5
    pos = model.pos0[None]
    parts, world = body_parts(model)
    hidden = covered(model)
    parts = [[] if b in hidden else p for b, p in enumerate(parts)]
    shapes = deforming(model, pos, {}, np.zeros(1), np.zeros(1))
    checker = checker_for(scene.environment, pos, 0.45)
    focus = pos[0, :15].mean(axis=0)  # the jellyfish's masses
    eye = focus + 1.1 * direction(-70.0, look.elevation)
    image = _frame(parts, world, checker, 160, 90, "final", (pose_matrices(pos[0], np.tile(
        [1.0, 0, 0, 0], (len(pos[0]), 1))), eye, focus, (0, 0, 1)), look=look,
        deforming=shapes).astype(float)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    water = (b > r + 40) & (g > r + 30)  # blue-green, as WATER and its fog
    assert water.mean() > 0.5
    assert image[:8].mean() > image[30:40].mean() + 30  # the surface above the water
    lilac = (r > g + 8) & (b > g + 20)  # the jellyfish's pink through the blue water
    assert lilac[5:80, 60:100].sum() > 30  # its bell and tentacles, in the middle
    assert lilac[:, :50].sum() + lilac[:, 110:].sum() == 0


def test_soft_shadow_hulls_match_qhull():
    """The soft shadows' small-hull path (a box's eight points) against Qhull: the same
    corners, counter-clockwise."""
    from scipy.spatial import ConvexHull

    from pipeline.export.soft_shadows import SMALL_HULL, _hull

    rng = np.random.default_rng(3)
    for n in (3, 4, 8, 20, SMALL_HULL):
        for _ in range(50):
            points = rng.normal(size=(n, 2))
            hull = _hull(points)
            assert sorted(map(tuple, hull)) == sorted(map(tuple, points[ConvexHull(points).vertices]))
            x, y = hull[:, 0], hull[:, 1]
            assert np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0
    assert len(_hull(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]))) == 2  # edge-on: a line
