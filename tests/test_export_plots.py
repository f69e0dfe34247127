"""Plots from a recording, and what happens without an OpenGL context."""
import ctypes.util

import numpy as np
import pytest
from PIL import Image

from pipeline.errors import CorpusError
from pipeline.export import export_run
from pipeline.export.opengl import APT_FIX, require_context
from pipeline.export.plots import write_plots
from pipeline.simulate.metrics import speed_series
from test_export_fixtures import FLAT, SPEED, walker_model, walker_recording


class Scene:
    name = "walker"
    environment = FLAT


def test_the_speed_plot_series_of_the_walker_is_its_glide_speed():
    # the torso glides along +x facing +x: along its path and along its heading alike
    _, along_path, along_heading = speed_series(walker_recording())
    assert np.allclose(along_path, SPEED, rtol=1e-9, atol=0)
    assert np.allclose(along_heading, SPEED, rtol=1e-9, atol=0)


def test_default_plot_set_and_channels(tmp_path):
    written = write_plots(walker_recording(), walker_model(), tmp_path, True)
    names = sorted(p.name for p in written)
    assert names == ["ch_leg_state.png", "ch_speed.png", "gait.png", "joint_angles.png",
                     "speed.png"]
    assert all(Image.open(p).format == "PNG" for p in written)


def test_gait_diagram_is_white_while_stepping_and_black_in_stance(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    (path,) = write_plots(walker_recording(), walker_model(), tmp_path, ["gait"])
    img = np.asarray(Image.open(path).convert("L"), float)
    # find the plotted area: the largest block of pure black/white pixels; leg 0 steps in
    # the first quarter second (sin > 0) and leg 1 stands, so their rows differ there
    dark = img < 30
    rows = np.flatnonzero(dark.mean(axis=1) > 0.3)
    cols = np.flatnonzero(dark.any(axis=0))
    top, bottom, left, right = rows.min(), rows.max(), cols.min(), cols.max()
    x = int(left + (right - left) * 0.1 / 2.0)  # t = 0.1 s on a 0..2 s axis
    upper = img[top + (bottom - top) // 4, x]
    lower = img[top + 3 * (bottom - top) // 4, x]
    assert upper > 225 and lower < 30


def test_unknown_plot_name_lists_what_exists(tmp_path):
    with pytest.raises(CorpusError, match="no plot or channel named wobble.*channels: leg_state, speed"):
        write_plots(walker_recording(), walker_model(), tmp_path, ["wobble"])


def test_without_opengl_frames_fail_with_a_fix_and_the_rest_is_written(tmp_path, monkeypatch):
    # hide every EGL driver from libglvnd, as on a machine without Mesa's EGL package;
    # VTK then falls back to OSMesa, so the case only arises where OSMesa is absent too
    if ctypes.util.find_library("OSMesa"):
        pytest.skip("libOSMesa is installed: VTK would still make a context")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("__EGL_VENDOR_LIBRARY_DIRS", "/nonexistent")
    monkeypatch.setenv("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    require_context.cache_clear()
    try:
        with pytest.raises(CorpusError) as err:
            export_run(walker_recording(), walker_model(), Scene(), tmp_path,
                       {"glb": True, "plots": ["speed"], "frames": True})
    finally:
        require_context.cache_clear()
    message = str(err.value)
    assert APT_FIX in message and "--no-frames" in message
    assert (tmp_path / "animation.glb").is_file()
    assert (tmp_path / "plots" / "speed.png").is_file()
    assert not (tmp_path / "frames").exists()
