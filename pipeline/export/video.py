"""Video files from rendered frames: H.264 MP4 in yuv420p (plays everywhere; needs even
width and height) and an animated GIF (downscaled, same frame times)."""
from __future__ import annotations

import os

import numpy as np
from PIL import Image


class Mp4Writer:
    """Streams frames into an MP4 at `path` (written under a temporary name by the caller);
    width and height must be even (checked with the options)."""

    def __init__(self, path: str | os.PathLike, fps: float, width: int, height: int,
                 quality_crf: int = 20):
        import imageio.v2 as imageio

        self.writer = imageio.get_writer(
            str(path), format="FFMPEG", mode="I", fps=fps, codec="libx264",
            pixelformat="yuv420p", macro_block_size=1,
            ffmpeg_params=["-crf", str(quality_crf), "-preset", "veryfast", "-threads", "1"],
            ffmpeg_log_level="error")

    def append(self, frame: np.ndarray) -> None:
        self.writer.append_data(frame)

    def close(self) -> None:
        self.writer.close()


class GifWriter:
    """Collects downscaled frames and writes an animated GIF with the frame delay 1/fps
    (GIF delays are whole hundredths of a second, so 30 fps plays at 1/0.03 s)."""

    def __init__(self, path: str | os.PathLike, fps: float, width: int):
        self.path, self.fps, self.width = path, fps, int(width)
        self.frames: list[Image.Image] = []

    def append(self, frame: np.ndarray) -> None:
        img = Image.fromarray(frame)
        if img.width > self.width:
            img = img.resize((self.width, round(img.height * self.width / img.width)),
                             Image.Resampling.LANCZOS)
        self.frames.append(img.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=0))

    def close(self) -> None:
        if not self.frames:
            return
        self.frames[0].save(self.path, format="GIF", save_all=True, append_images=self.frames[1:],
                            duration=max(20, round(1000.0 / self.fps)), loop=0, optimize=False)
