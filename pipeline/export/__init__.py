"""Export a Recording without re-simulating: animated glTF, per-frame meshes, PNG frames,
MP4/GIF video and plots. The single entry point is `export_run`.

    export_run(recording, model, scene, out_dir, options) -> list of written paths

`options` is the scene's resolved `outputs:` block merged with CLI flags (see
pipeline/export/options.py and docs/export.md). Files are written atomically.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError

__all__ = ["export_run"]


def export_run(recording, model, scene, out_dir, options) -> list[Path]:
    """Write what `options` asks for into out_dir; frames and video come last, so when no
    OpenGL context can be made the meshes and plots are already written."""
    from pipeline.export.deforming import deforming
    from pipeline.export.options import resolve_options
    from pipeline.export.plots import channels_of
    from pipeline.export.resample import frame_times, resample_poses

    from pipeline.export.look import look_for

    opts = resolve_options(options)
    out_dir = Path(out_dir)
    environment = getattr(scene, "environment", {}) or {}
    look = look_for(environment)
    if look.elevation is not None:
        opts = replace(opts, camera={"elevation": look.elevation, **opts.camera})
    written: list[Path] = []
    time = np.asarray(recording.time, float)
    if len(time) == 0:
        raise CorpusError("the recording has no samples: nothing to export")
    times = frame_times(time, opts.sample_rate)
    needs_poses = opts.glb or opts.meshes or opts.renders
    if needs_poses:
        from pipeline.export.camera import target_bodies
        from pipeline.export.ground import checker_for, terrain_of
        from pipeline.export.meshes import body_parts, extent
        from pipeline.export.poses import pose_matrices

        pos, quat = resample_poses(time, np.asarray(recording.body_pos, float),
                                   np.asarray(recording.body_quat, float), times)
        per_body, world = body_parts(model)
        # the creature the camera follows sets the camera distance and the checker tile
        followed = target_bodies(opts.camera.get("target", "com"), model, pos)
        size = extent([per_body[b] if b in set(followed) else [] for b in range(len(per_body))],
                      pose_matrices(pos[0], quat[0]))
        terrain = terrain_of(model, environment)
        channels = channels_of(recording)
        shapes = deforming(model, pos, channels, time, times)
    if opts.glb:
        from pipeline.export.ground import checker_mesh
        from pipeline.export.gltf import build_glb
        from pipeline.fileio import atomic_write_bytes

        floor = checker_for(environment, pos, size, opts.ground_tile, margin_sizes=2.0)
        data = build_glb(recording.body_names, per_body, world, times - times[0], pos, quat,
                         ground=checker_mesh(floor) if floor else (terrain.mesh() if terrain else None), name=scene_name(scene),
                         springs=next((d for d in shapes if d.faces is None), None),
                         spring_radius=0.01 * size)
        atomic_write_bytes(out_dir / "animation.glb", data)
        written.append(out_dir / "animation.glb")
    if opts.meshes:
        written += _frame_meshes(per_body, world, pos, quat, opts, out_dir)
    if opts.plots:
        from pipeline.export.plots import write_plots

        written += write_plots(recording, model, out_dir, opts.plots, scene)
    if opts.renders:
        from pipeline.export.frames import gait_overlay, render_sequence
        from pipeline.export.opengl import require_context
        from pipeline.export.render import FrameRenderer

        from pipeline.export.deforming import covered

        require_context()
        hidden = covered(model)
        renderer = FrameRenderer(
            [[] if b in hidden else parts for b, parts in enumerate(per_body)], world, checker_for(environment, pos, size, opts.ground_tile),
            *opts.size, terrain=terrain, shadows=opts.shadows, quality=opts.quality,
            look=look,
            show_time=opts.show_time, slow_motion=opts.slow_motion, gait=gait_overlay(channels, opts, time),
            gait_window=opts.gait_window, deforming=shapes)
        try:
            written += render_sequence(renderer, model, times, pos, quat, size, opts, out_dir)
        finally:
            renderer.close()
    return written


def scene_name(scene) -> str:
    return str(getattr(scene, "name", "") or "corpus")


def _frame_meshes(per_body, world, pos, quat, opts, out_dir: Path) -> list[Path]:
    from pipeline.export.frames import progress_bar
    from pipeline.export.meshes import posed_mesh
    from pipeline.export.poses import pose_matrices
    from pipeline.fileio import atomic_path

    matrices = pose_matrices(pos, quat)
    written = []
    with progress_bar(len(pos), opts.quiet, "meshes") as bar:
        for k in range(len(pos)):
            path = out_dir / "meshes" / f"frame_{k:05d}.{opts.meshes}"
            with atomic_path(path) as tmp:
                posed_mesh(per_body, world, matrices[k]).export(tmp, file_type=opts.meshes)
            written.append(path)
            bar.update()
    return written
