"""Plots from a recording, and what happens without an OpenGL context."""
import ctypes.util
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pipeline.errors import CorpusError
from pipeline.export import export_run
from pipeline.export.channels import describe, drawn_elsewhere
from pipeline.export.limbs import panels
from pipeline.export.opengl import APT_FIX, require_context
from pipeline.export.plots import write_plots
from pipeline.export.view import view_of
from pipeline.simulate.metrics import speed_series
from test_export_fixtures import FLAT, SPEED, walker_model, walker_recording

ROOT = Path(__file__).resolve().parents[1]


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
    # leg_state is the gait diagram: it is not drawn twice
    assert names == ["ch_speed.png", "gait.png", "height.png", "joint_angles.png", "speed.png"]
    assert all(Image.open(p).format == "PNG" for p in written)
    # asked for by name, a channel is drawn even when another plot shows it
    assert [p.name for p in write_plots(walker_recording(), walker_model(), tmp_path, ["leg_state"])] == \
        ["ch_leg_state.png"]


def test_joint_panels_are_the_limbs_of_each_creature_named_from_the_model():
    import pipeline
    from pipeline.simulate import compile_model

    roach = view_of(compile_model(pipeline.load(ROOT / "scenes/roach_tripod.yaml")))
    assert [(p.title, len(p.joints)) for p in panels(roach)] == [
        ("leg_fl", 5), ("leg_fr", 5), ("leg_ml", 5), ("leg_mr", 5), ("leg_bl", 5), ("leg_br", 5),
        ("thorax, head", 2)]
    humanoid = view_of(compile_model(pipeline.load(ROOT / "scenes/humanoid_terrain.yaml")))
    assert [p.title for p in panels(humanoid)] == [  # two limbs called "right": named by their ends
        "abdomen_z … pelvis", "right_hip_x … right_foot", "left_hip_x … left_foot",
        "right_shoulder1 … right_lower_arm", "left_shoulder1 … left_lower_arm"]
    # the walker's two legs hang from its torso, one joint each: one panel
    assert [(p.title, [j.name for j in p.joints]) for p in panels(view_of(walker_model()))] == [
        ("leg_l, leg_r", ["leg_l", "leg_r"])]


def test_channels_are_described_with_names_from_the_scene():
    import pipeline

    legs = describe("oscillator_phase", np.zeros((3, 6)))
    assert legs.columns == ("fl", "fr", "ml", "mr", "bl", "br") and legs.ylabel == "phase [deg]"
    swing = pipeline.load(ROOT / "scenes/swing_fsm.yaml")
    state = describe("pump_state", np.zeros(3), swing)
    assert state.levels == ("forward", "back", "coast") and state.title == "pump: state of its finite-state machine"
    roobot = pipeline.load(ROOT / "scenes/roobot_hop.yaml")
    assert describe("fsm_state", np.zeros(3), roobot).levels  # a particle creature's machine
    energy = describe("fsm_energy", np.zeros(3), pipeline.load(ROOT / "scenes/jellyfish.yaml"))
    assert energy.title == "jellyfish: finite-state machine variable energy" and energy.ylabel == "energy"
    assert describe("pump_pushes", np.zeros(3), swing).ylabel == "pushes"
    # a channel nobody describes keeps its own name and numbered columns
    other = describe("mine", np.zeros((3, 2)))
    assert other.title == "ch_mine" and other.columns == ("[0]", "[1]")
    assert all(drawn_elsewhere(n) for n in ("leg_state", "gait_swing", "gait_fl", "contact_force"))


def test_gait_diagram_is_white_while_stepping_and_black_in_stance(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    (path,) = write_plots(walker_recording(), walker_model(), tmp_path, ["gait"])
    img = np.asarray(Image.open(path).convert("L"), float)
    # find the plotted area: the largest block of pure black/white pixels; leg 0 steps in
    # the first quarter second (sin > 0) and leg 1 stands, so their rows differ there
    dark = img < 30
    rows = np.flatnonzero(dark.mean(axis=1) > 0.3)
    cols = np.flatnonzero(dark[rows].mean(axis=0) > 0.3)  # not the axis labels beside it
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
