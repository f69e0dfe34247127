"""Rendering speed and image quality: our off-screen frames (pyvista/VTK) in `draft` and
`final` quality beside MuJoCo's `mujoco.Renderer`, same scene content, same resolution,
shadows on, in one run; and the PSNR of our frames against a 4x-supersampled reference.

    .venv/bin/python benchmarks/render.py [--scene scenes/roach_tripod.yaml] [--run RUN_DIR]
                                          [--size 1280x720] [--frames 60]
                                          [--psnr-scenes scenes/roach_tripod.yaml,scenes/box_drop.yaml]
                                          [--aa-table]

Speed: the bodies and their triangles are the roach's (compiled from the scene). MuJoCo gets
the same triangles as mesh geoms on mocap bodies, a checker floor and a shadow-casting light,
and all draw the same poses: from RUN_DIR/trajectory.npz when given, else the initial pose
gliding along x. Each renderer's figure is frames per second including the read-back of the
image into numpy, best of three passes (the least disturbed by other load).

Quality: for each PSNR scene, its initial pose from the speed benchmark's camera; each
quality's frame against the same renderer drawing 4x the width and height (16 samples per
pixel), box-filtered down — the PSNR of what aliasing leaves. No time label (text is drawn
at a fixed pixel size). `--aa-table` adds the anti-aliasing methods measured for the choice
of `final` (docs/export.md). Run it with PYTHONPATH at an older checkout to measure that
renderer's default frame (a FrameRenderer without `quality`).
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("MUJOCO_GL", "egl")

from pipeline.export.opengl import choose_backend  # noqa: E402

choose_backend()

import pipeline  # noqa: E402
from pipeline.compiler.build import build_model  # noqa: E402
from pipeline.export.ground import checker_for  # noqa: E402
from pipeline.export.meshes import body_parts, extent  # noqa: E402
from pipeline.export.poses import pose_matrices  # noqa: E402
from pipeline.export.render import FrameRenderer  # noqa: E402
from pipeline.export.shadows import KEY_LIGHT  # noqa: E402


def poses(model, run_dir, frames):
    """(F, B, 3) positions and (F, B, 4) wxyz orientations of the bodies to draw."""
    if run_dir:
        from pipeline.export.resample import frame_times, resample_poses
        from pipeline.recording import Recording

        rec = Recording.load(Path(run_dir) / "trajectory.npz")
        t = frame_times(rec.time, 30.0)[:frames]
        return resample_poses(rec.time, rec.body_pos, rec.body_quat, t)
    from pipeline.physics import forward_kinematics
    from scipy.spatial.transform import Rotation

    xpos, xrot = forward_kinematics(model, model.q0)[:2]
    xyzw = Rotation.from_matrix(np.asarray(xrot)).as_quat()
    quat = np.tile(xyzw[:, [3, 0, 1, 2]], (frames, 1, 1))
    pos = np.asarray(xpos)[None] + np.arange(frames)[:, None, None] * [0.001, 0, 0]
    return pos, quat


def mujoco_xml(parts_per_body, checker, size, width, height, offsamples) -> str:
    def fmt(a):
        return " ".join(f"{v:.6g}" for v in np.ravel(a))

    assets, bodies = [], []
    for b, parts in enumerate(parts_per_body):
        geoms = []
        for g, p in enumerate(parts):
            name = f"m{b}_{g}"
            assets.append(f'<mesh name="{name}" vertex="{fmt(p.vertices)}" face="{fmt(p.faces)}"/>')
            geoms.append(f'<geom type="mesh" mesh="{name}" rgba="{fmt(p.rgba)}" contype="0" '
                         f'conaffinity="0"/>')
        bodies.append(f'<body name="b{b}" mocap="true">{"".join(geoms)}</body>')
    half = 0.5 * (np.asarray(checker.hi) - np.asarray(checker.lo))
    centre = 0.5 * (np.asarray(checker.hi) + np.asarray(checker.lo))
    light = KEY_LIGHT / np.linalg.norm(KEY_LIGHT)
    return f"""<mujoco><visual><global offwidth="{width}" offheight="{height}"/>
<quality shadowsize="4096" offsamples="{offsamples}"/></visual>
<asset><texture name="grid" type="2d" builtin="checker" rgb1=".8 .82 .85" rgb2=".55 .6 .67"
 width="64" height="64"/><material name="grid" texture="grid"
 texrepeat="{fmt(half / checker.tile)}"/>{''.join(assets)}</asset>
<worldbody><light directional="true" castshadow="true" pos="{fmt(light * 10 * size)}" dir="{fmt(-light)}"/>
<geom type="plane" size="{fmt(half)} 0.1" pos="{fmt(centre)} {checker.z}" material="grid"/>
{''.join(bodies)}</worldbody></mujoco>"""


def best_fps(draw, frames, passes=3):
    best = 0.0
    for _ in range(passes):
        t = time.perf_counter()
        for k in range(frames):
            draw(k)
        best = max(best, frames / (time.perf_counter() - t))
    return best


class MujocoDrawer:
    """mujoco.Renderer drawing the same bodies (mocap) from the same camera."""

    def __init__(self, xml, pos, quat, focus, eye, width, height):
        import mujoco

        self.mj, self.pos, self.quat = mujoco, pos, quat
        self.m = mujoco.MjModel.from_xml_string(xml)
        self.d = mujoco.MjData(self.m)
        self.r = mujoco.Renderer(self.m, height, width)
        self.cam = mujoco.MjvCamera()
        self.cam.lookat[:] = focus
        offset = eye - focus
        self.cam.distance = float(np.linalg.norm(offset))
        self.cam.azimuth = float(np.degrees(np.arctan2(offset[1], offset[0])))
        self.cam.elevation = -float(np.degrees(np.arcsin(offset[2] / self.cam.distance)))

    def __call__(self, k):
        self.d.mocap_pos[:] = self.pos[k]
        self.d.mocap_quat[:] = self.quat[k]
        self.mj.mj_kinematics(self.m, self.d)
        self.r.update_scene(self.d, camera=self.cam)
        return self.r.render()


def _qualities() -> tuple:
    """The qualities this FrameRenderer knows: (None,) for one from before `quality`."""
    return ("draft", "final") if "quality" in inspect.signature(FrameRenderer).parameters else (None,)


def renderer(parts, world, checker, width, height, quality, **kw):
    return FrameRenderer(parts, world, checker, width, height, shadows=True,
                         **({} if quality is None else {"quality": quality}), **kw)


def box_filter(image: np.ndarray, s: int) -> np.ndarray:
    h, w = image.shape[0] // s, image.shape[1] // s
    return image.reshape(h, s, w, s, 3).mean(axis=(1, 3))


def psnr(image, reference) -> float:
    mse = float(np.mean((np.asarray(image, float) - reference) ** 2))
    return 10 * np.log10(255.0 ** 2 / mse) if mse > 0 else float("inf")


def scene_setup(path, width, height, frames, run=None):
    """Model, poses, parts, matrices, checker and the benchmark camera of a scene."""
    model = build_model(pipeline.load(path))
    pos, quat = poses(model, run, frames)
    parts, world = body_parts(model)
    matrices = pose_matrices(pos, quat)
    size = extent(parts, matrices[0])
    checker = checker_for({"ground": {"type": "flat", "z": 0.0}}, pos, size)
    focus = pos[:, 0].mean(axis=0)
    eye = focus + 4 * size * np.array([0.3, -0.85, 0.42])
    return model, pos, quat, parts, world, matrices, size, checker, focus, eye


SUPERSAMPLE = 4


def quality_table(paths, width, height, aa_table: bool) -> list[tuple[str, str, float, float]]:
    """(scene, method, PSNR dB, frames/s) rows; frames/s of one pose drawn repeatedly."""
    rows = []
    for path in paths:
        _, _, _, parts, world, matrices, _, checker, focus, eye = scene_setup(path, width, height, 1)
        pose = (matrices[0], eye, focus, (0, 0, 1))
        methods = {q or "default": (q, 1, None) for q in _qualities()}
        if aa_table and _qualities()[0] is not None:
            methods.update(aa_methods())
        references = {}
        for label, (quality, scale, draw) in methods.items():
            if quality not in references:
                big = renderer(parts, world, checker, SUPERSAMPLE * width, SUPERSAMPLE * height,
                               quality, show_time=False)
                references[quality] = box_filter(big.render(*pose), SUPERSAMPLE)
                big.close()
            make = lambda: renderer(parts, world, checker, scale * width, scale * height,  # noqa: E731
                                    quality, show_time=False)
            r = multisampled(make) if draw == "msaa" else make()
            frame = (lambda: r.render(*pose)) if draw in (None, "msaa") else (lambda: draw(r, pose))
            image = frame()
            fps = best_fps(lambda k: frame(), 4, passes=2)
            r.close()
            rows.append((Path(path).stem, label, psnr(image, references[quality]), fps))
    return rows


def aa_methods() -> dict:
    """The other anti-aliasing methods measured for `final`: label -> (quality, scale, draw),
    each on a `draft` renderer (one sample per pixel, so the reference is draft's)."""
    from pipeline.export.antialias import jittered
    def passes(offsets):
        def draw(r, pose):
            r.render(*pose)  # sets the pose and the camera
            return jittered(r.plotter.ren_win, r.plotter.camera, r.rows_up, r.size, offsets)
        return draw

    def fxaa(r, pose):
        r.plotter.renderer.SetUseFXAA(True)
        return r.render(*pose)

    rotated = ((-0.375, -0.125), (0.125, -0.375), (0.375, 0.125), (-0.125, 0.375))
    return {"draft + 3 jittered passes": ("draft", 1, passes(((-1 / 3, -1 / 6), (0.0, 1 / 3),
                                                             (1 / 3, -1 / 6)))),
            "draft + 4 jittered passes": ("draft", 1, passes(rotated)),
            "draft + 4x MSAA": ("draft", 1, "msaa"),
            "draft + FXAA": ("draft", 1, fxaa),
            "draft at 2x, box-filtered": ("draft", 2, lambda r, pose: box_filter(r.render(*pose), 2))}


def multisampled(make):
    """A renderer `make()` builds with a 4x multisampled window: the window's samples must
    be set before its first frame, which FrameRenderer draws as it is built."""
    import pyvista as pv

    show = pv.Plotter.show

    def show_multisampled(self, *args, **kwargs):
        self.ren_win.SetMultiSamples(4)
        return show(self, *args, **kwargs)
    pv.Plotter.show = show_multisampled
    try:
        return make()
    finally:
        pv.Plotter.show = show


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="scenes/roach_tripod.yaml")
    ap.add_argument("--run", help="a run directory whose trajectory.npz supplies the poses")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--psnr-scenes", default="scenes/roach_tripod.yaml,scenes/box_drop.yaml")
    ap.add_argument("--aa-table", action="store_true", help="also measure the AA methods")
    ap.add_argument("--no-speed", action="store_true", help="only the quality table")
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    if not args.no_speed:
        speed(args, width, height)
    paths = [p for p in args.psnr_scenes.split(",") if p]
    rows = quality_table(paths, width, height, args.aa_table)
    print(f"image quality at {width}x{height}: PSNR against the same renderer at "
          f"{SUPERSAMPLE}x{SUPERSAMPLE} samples per pixel, box-filtered (goal >= 35 dB)")
    print(f"{'scene':<16}{'frames':<30}{'PSNR dB':>9}{'frames/s':>10}")
    for scene, label, db, fps in rows:
        print(f"{scene:<16}{label:<30}{db:>9.2f}{fps:>10.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


def speed(args, width, height) -> None:
    model, pos, quat, parts, world, matrices, size, checker, focus, eye = scene_setup(
        args.scene, width, height, args.frames, args.run)
    frames = len(pos)
    ntri = sum(len(p.faces) for b in parts for p in b)
    drawers = {}
    ours = []
    for q in _qualities():
        r = renderer(parts, world, checker, width, height, q)
        ours.append(r)
        drawers[f"corpus {q or 'default'}"] = (lambda r: lambda k: r.render(matrices[k], eye, focus, (0, 0, 1),
                                                                            k / 30))(r)
    gl = ours[0].plotter.ren_win.ReportCapabilities()
    renderer_name = next((line.split(":", 1)[1].strip() for line in gl.splitlines()
                          if "renderer string" in line), "?")
    for samples, label in ((4, "mujoco.Renderer (default 4x MSAA)"),
                           (0, "mujoco.Renderer (no MSAA)")):
        drawers[label] = MujocoDrawer(mujoco_xml(parts, checker, size, width, height, samples),
                                      pos, quat, focus, eye, width, height)
    for draw in drawers.values():
        draw(0)  # the first frame builds GL state
    best = dict.fromkeys(drawers, 0.0)
    # passes alternate between renderers so that all meet the same load from other work
    for _ in range(3):
        for label, draw in drawers.items():
            best[label] = max(best[label], best_fps(draw, frames, passes=1))
    # MuJoCo's contexts first: closing VTK's window terminates the shared EGL display
    for draw in drawers.values():
        if isinstance(draw, MujocoDrawer):
            draw.r.close()
    for r in ours:
        r.close()

    print(f"render benchmark: {model.nbody} bodies, {ntri} triangles, {width}x{height}, "
          f"{frames} frames, shadows on, OpenGL renderer: {renderer_name}")
    print(f"{'renderer':<40}{'frames/s':>10}")
    for label, fps in best.items():
        print(f"{label:<40}{fps:>10.1f}")
    msaa = best["mujoco.Renderer (default 4x MSAA)"]
    for label in [k for k in best if k.startswith("corpus")]:
        print(f"ratio {label} / mujoco 4x MSAA: {best[label] / msaa:.2f}")
    print("goals: final >= 1, draft >= 2")


if __name__ == "__main__":
    sys.exit(main())
