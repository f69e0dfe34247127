"""Rendering speed: our off-screen frames (pyvista/VTK) beside MuJoCo's `mujoco.Renderer`,
same scene content, same resolution, shadows on, in one run.

    .venv/bin/python benchmarks/render.py [--scene scenes/roach_tripod.yaml] [--run RUN_DIR]
                                          [--size 1280x720] [--frames 60]

The bodies and their triangles are the roach's (compiled from the scene). MuJoCo gets the
same triangles as mesh geoms on mocap bodies, a checker floor and a shadow-casting light,
and both draw the same poses: from RUN_DIR/trajectory.npz when given, else the initial
pose gliding along x. Each renderer's figure is frames per second including the read-back
of the image into numpy, best of three passes (the least disturbed by other load).
"""
from __future__ import annotations

import argparse
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="scenes/roach_tripod.yaml")
    ap.add_argument("--run", help="a run directory whose trajectory.npz supplies the poses")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=60)
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    model = build_model(pipeline.load(args.scene))
    pos, quat = poses(model, args.run, args.frames)
    frames = len(pos)
    parts, world = body_parts(model)
    matrices = pose_matrices(pos, quat)
    size = extent(parts, matrices[0])
    checker = checker_for({"ground": {"type": "flat", "z": 0.0}}, pos, size)
    focus = pos[:, 0].mean(axis=0)
    eye = focus + 4 * size * np.array([0.3, -0.85, 0.42])
    ntri = sum(len(p.faces) for b in parts for p in b)

    ours = FrameRenderer(parts, world, checker, width, height, shadows=True)
    gl = ours.plotter.ren_win.ReportCapabilities()
    renderer_name = next((line.split(":", 1)[1].strip() for line in gl.splitlines()
                          if "renderer string" in line), "?")
    drawers = {"corpus (pyvista/VTK, planar shadows)":
               lambda k: ours.render(matrices[k], eye, focus, (0, 0, 1), k / 30)}
    for samples, label in ((4, "mujoco.Renderer (default 4x MSAA)"),
                           (0, "mujoco.Renderer (no MSAA)")):
        drawers[label] = MujocoDrawer(mujoco_xml(parts, checker, size, width, height, samples),
                                      pos, quat, focus, eye, width, height)
    for draw in drawers.values():
        draw(0)  # the first frame builds GL state
    best = dict.fromkeys(drawers, 0.0)
    # passes alternate between renderers so that both meet the same load from other work
    for _ in range(3):
        for label, draw in drawers.items():
            best[label] = max(best[label], best_fps(draw, frames, passes=1))
    # MuJoCo's contexts first: closing VTK's window terminates the shared EGL display
    for draw in drawers.values():
        if isinstance(draw, MujocoDrawer):
            draw.r.close()
    ours.close()

    print(f"render benchmark: {model.nbody} bodies, {ntri} triangles, {width}x{height}, "
          f"{frames} frames, shadows on, OpenGL renderer: {renderer_name}")
    print(f"{'renderer':<40}{'frames/s':>10}")
    for label, fps in best.items():
        print(f"{label:<40}{fps:>10.1f}")
    labels = list(best)
    print(f"ratio corpus / mujoco (default): {best[labels[0]] / best[labels[1]]:.2f}  (goal >= 1); "
          f"corpus / mujoco (no MSAA): {best[labels[0]] / best[labels[2]]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
