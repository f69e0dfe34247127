"""The frame sequence: PNG files and video streams from one renderer, with a progress bar."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

from pipeline.export.camera import camera_path
from pipeline.export.gait import stepping
from pipeline.export.options import ExportOptions
from pipeline.export.poses import pose_matrices
from pipeline.fileio import atomic_path

FRAME_NAME = "frame_{:05d}.png"


def progress_bar(total: int, quiet: bool, desc: str):
    """tqdm on stderr, silent under --quiet or when stderr is not a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="frame", leave=False,
                disable=quiet or not sys.stderr.isatty())


def write_png(path: Path, image: np.ndarray) -> Path:
    from PIL import Image

    with atomic_path(path) as tmp:
        Image.fromarray(image).save(tmp, format="PNG", compress_level=3)
    return path


def render_sequence(renderer, model, times, pos, quat, size: float,
                    opts: ExportOptions, out_dir: Path) -> list[Path]:
    """Render every output frame once; write the PNGs and feed each video writer."""
    from pipeline.export.video import GifWriter, Mp4Writer

    cam = camera_path(opts.camera, model, times, pos, quat, opts.sample_rate, size)
    matrices = pose_matrices(pos, quat)
    written: list[Path] = []
    with contextlib.ExitStack() as stack:
        writers = []
        for fmt in opts.video:
            target = out_dir / f"video.{fmt}"
            tmp = stack.enter_context(atomic_path(target))
            writer = (Mp4Writer(tmp, opts.fps, *opts.size) if fmt == "mp4"
                      else GifWriter(tmp, opts.fps, opts.gif_width))
            writers.append(writer)
            written.append(target)
        bar = stack.enter_context(progress_bar(len(times), opts.quiet, "render"))
        for k, t in enumerate(times):
            image = renderer.render(matrices[k], cam.eye[k], cam.focus[k], cam.up[k], float(t), k)
            if opts.frames:
                written.append(write_png(out_dir / "frames" / FRAME_NAME.format(k), image))
            for writer in writers:
                writer.append(image)
            bar.update()
        # writers close inside the atomic_path blocks so the renamed files are complete
        for writer in writers:
            writer.close()
    return written


def gait_overlay(channels, opts: ExportOptions, time):
    """(legs, stepping, times) for the inset, or None."""
    if not opts.show_gait:
        return None
    gait = stepping(channels)
    return None if gait is None else (gait[0], gait[1], np.asarray(time, float))
