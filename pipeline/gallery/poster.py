"""Poster frames: the middle frame of a run's video (or of its PNG frames), shrunk to a JPEG
and embedded in the page as a data: URI, so the page needs no image files of its own and a
run folder keeps exactly the files its manifest lists."""
from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np

WIDTH = 480  # px: a card's width on a wide screen, at 1x
_cache: dict[tuple, str | None] = {}  # (path, mtime_ns, size) -> data URI: a batch redraws its page per job


def poster_uri(source: Path) -> str | None:
    """A JPEG data URI of the middle frame of `source` (a video, or a folder of PNG frames);
    None when it cannot be read (a video still being written, a codec ffmpeg lacks)."""
    try:
        stat = source.stat()
    except OSError:
        return None
    key = (str(source.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _cache:
        image = _middle_png(source) if source.is_dir() else _middle_video_frame(source)
        _cache[key] = None if image is None else _jpeg_uri(image)
    return _cache[key]


def _middle_png(folder: Path) -> np.ndarray | None:
    from PIL import Image

    frames = sorted(folder.glob("*.png"))
    if not frames:
        return None
    try:
        with Image.open(frames[len(frames) // 2]) as image:
            return np.asarray(image.convert("RGB"))
    except OSError:
        return None


def _middle_video_frame(video: Path) -> np.ndarray | None:
    import imageio_ffmpeg

    try:
        probe = imageio_ffmpeg.read_frames(str(video))
        meta = next(probe)  # the header only: closing stops ffmpeg before it decodes on
        probe.close()
        seek = ["-ss", f"{meta['duration'] / 2:.3f}"] if meta.get("duration") else []
        reader = imageio_ffmpeg.read_frames(str(video), input_params=seek)
        width, height = next(reader)["size"]
        frame = next(reader, None)
        reader.close()
    except (OSError, RuntimeError, StopIteration, KeyError):
        return None
    if frame is None:
        return None
    return np.frombuffer(frame, np.uint8).reshape(height, width, 3)


def _jpeg_uri(image: np.ndarray) -> str:
    from PIL import Image

    picture = Image.fromarray(image)
    if picture.width > WIDTH:
        picture = picture.resize((WIDTH, round(picture.height * WIDTH / picture.width)), Image.LANCZOS)
    buf = io.BytesIO()
    picture.save(buf, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
