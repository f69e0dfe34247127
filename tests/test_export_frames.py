"""Off-screen frames, video and plots from a recording: counts, sizes, determinism, where
things land on screen, and the planar shadows' geometry."""
import numpy as np
import imageio_ffmpeg
import pytest
from PIL import Image

from pipeline.errors import CorpusError
from pipeline.export import export_run
from pipeline.export.ground import checker_for
from pipeline.export.meshes import body_parts
from pipeline.export.poses import pose_matrices
from pipeline.export.render import FrameRenderer
from pipeline.export.shadows import KEY_LIGHT
from test_export_fixtures import FLAT, SPEED, walker_model, walker_recording

OPTIONS = {"fps": 10, "size": [160, 96], "frames": True, "video": ["mp4", "gif"],
           "camera": {"mode": "fixed", "look_at": [0.05, 0, 0.03], "azimuth": -90,
                      "elevation": 20, "distance": 0.35}, "gif_width": 80, "quiet": True}


class Scene:
    name = "walker"
    environment = FLAT


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    outs = [tmp_path_factory.mktemp(f"run{i}") for i in range(2)]
    return [(out, export_run(walker_recording(), walker_model(), Scene(), out, OPTIONS))
            for out in outs]


def test_frame_and_video_counts_are_fps_times_duration(runs):
    out, written = runs[0]
    frames = sorted((out / "frames").glob("frame_*.png"))
    assert len(frames) == 10 * 2
    assert Image.open(frames[0]).size == (160, 96)
    reader = imageio_ffmpeg.read_frames(str(out / "video.mp4"))
    meta = next(reader)
    assert meta["codec"] == "h264" and meta["pix_fmt"].startswith("yuv420p")
    assert meta["size"] == (160, 96)
    assert sum(1 for _ in reader) == 20
    gif = Image.open(out / "video.gif")
    assert gif.n_frames == 20 and gif.size == (80, 48)
    assert set(written) == set(frames) | {out / "video.mp4", out / "video.gif"}


def test_rendering_twice_gives_identical_pngs(runs):
    (a, _), (b, _) = runs
    for name in ("frame_00000.png", "frame_00011.png", "frame_00019.png"):
        assert (a / "frames" / name).read_bytes() == (b / "frames" / name).read_bytes()


def test_torso_is_drawn_where_the_camera_projects_it():
    model, rec = walker_model(), walker_recording()
    parts, world = body_parts(model)
    r = FrameRenderer(parts, world, checker_for(FLAT, rec.body_pos, 0.08), 320, 192,
                      show_time=False)
    try:
        for k in (0, len(rec.time) - 1):
            m = pose_matrices(rec.body_pos[k], rec.body_quat[k])
            focus = np.array([0.05, 0.0, 0.03])
            img = r.render(m, focus + [0, -0.35, 0.12], focus, [0, 0, 1], rec.time[k])
            # the torso box's top face centre, projected by VTK's own camera transform
            top = rec.body_pos[k, 0] + [0, 0, 0.0095]
            ren = r.plotter.renderer
            ren.SetWorldPoint(*top, 1.0)
            ren.WorldToDisplay()
            x, y, _ = ren.GetDisplayPoint()
            red, green, blue = img[192 - 1 - int(round(y)), int(round(x))].astype(int)
            # torso colour (0.76, 0.55, 0.35) under lights: red > green > blue, clearly warm
            assert red > green > blue and red - blue > 60, (k, red, green, blue)
        assert rec.body_pos[-1, 0, 0] == pytest.approx(2 * SPEED, rel=1e-12)
    finally:
        r.close()


def test_shadow_points_lie_on_the_floor_along_the_light():
    model, rec = walker_model(), walker_recording()
    parts, world = body_parts(model)
    r = FrameRenderer(parts, world, checker_for(FLAT, rec.body_pos, 0.08), 64, 64,
                      quality="draft", show_time=False)
    try:
        m = pose_matrices(rec.body_pos[100], rec.body_quat[100])
        r._project_shadow(m)
        world_pts = np.einsum("nij,nj->ni", m[r.shadow_body, :3, :], r.shadow_local)
        flat = np.asarray(r.shadow.points)
        lift = 1e-4 * 0.02  # drawn this far above the floor (tile 2 cm) against z-fighting
        assert np.allclose(flat[:, 2], lift, rtol=0, atol=1e-15)
        flat = flat - [0, 0, lift]
        # the ray from each point to its shadow is parallel to the light direction
        cross = np.cross(world_pts - flat, KEY_LIGHT)
        height = world_pts[:, 2] - flat[:, 2]
        assert np.allclose(cross[height > 1e-6], 0.0, atol=1e-12)
    finally:
        r.close()


def test_odd_frame_size_is_refused_for_mp4(tmp_path):
    with pytest.raises(CorpusError, match="even width and height"):
        export_run(walker_recording(), walker_model(), Scene(), tmp_path,
                   {**OPTIONS, "size": [161, 96], "frames": False, "video": "mp4"})


def test_progress_bar_is_silent_when_stderr_is_not_a_terminal_or_quiet(monkeypatch):
    import io
    import sys

    from pipeline.export.frames import progress_bar

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar(5, quiet=False, desc="render") as bar:
        assert bar.disable
    tty = io.StringIO()
    tty.isatty = lambda: True
    monkeypatch.setattr(sys, "stderr", tty)
    with progress_bar(5, quiet=True, desc="render") as bar:
        assert bar.disable
    with progress_bar(5, quiet=False, desc="render") as bar:
        assert not bar.disable
