"""Export options: a scene's resolved `outputs:` block merged with CLI flags, with the
defaults of schemas/outputs.schema.json filled in and checked once."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from pipeline.errors import CorpusError, Problem

VIDEO_FORMATS = ("mp4", "gif")
QUALITIES = ("draft", "final")  # the enum of outputs.quality in schemas/outputs.schema.json
MESH_FORMATS = ("obj", "ply", "stl")
MAX_FPS = 1000.0  # the `maximum` of fps and slow_motion in schemas/outputs.schema.json
MAX_SLOW_MOTION = 1000.0
FPS_UNIT = "frames per second"
SLOW_MOTION_UNIT = "times slower than real time"


@dataclass(frozen=True)
class ExportOptions:
    fps: float = 30.0
    slow_motion: float = 1.0  # playback this many times slower than real time
    size: tuple[int, int] = (1280, 720)
    frames: bool = False  # PNG sequence
    video: tuple[str, ...] = ()  # formats
    glb: bool = False
    meshes: str | None = None  # per-frame mesh format
    plots: bool | tuple[str, ...] = False
    camera: dict = field(default_factory=dict)
    shadows: bool = True
    quality: str = "final"  # draft | final (pipeline/export/render.py)
    show_time: bool = True
    show_gait: bool = True
    gait_window: float = 1.0  # seconds of gait history in the inset
    ground_tile: float | None = None  # checker tile edge, m (None: from the creature size)
    gif_width: int = 480
    compress_trajectory: bool = False  # deflate trajectory.npz (schemas/outputs.schema.json)
    quiet: bool = False

    @property
    def sample_rate(self) -> float:
        """Output frames per second of simulated time."""
        return self.fps * self.slow_motion

    @property
    def renders(self) -> bool:
        return self.frames or bool(self.video)


def _formats(value, allowed, what) -> tuple[str, ...]:
    if value is True:
        return allowed[:1]
    if not value:
        return ()
    items = (value,) if isinstance(value, str) else tuple(value)
    bad = [v for v in items if v not in allowed]
    if bad:
        raise CorpusError(f"outputs.{what}: unknown format {bad[0]!r} (use {', '.join(allowed)})")
    return tuple(dict.fromkeys(items))


def bounded_positive(value, limit: float, unit: str, where: str) -> float:
    """`value` as a number in (0, limit]; else a CorpusError at `where` (a flag such as `--fps`
    or a field such as `outputs.fps`). The limits keep the frame count and its arrays finite."""
    try:
        number = float(value)
        shown = f"{number:g}"
    except (TypeError, ValueError):
        number, shown = math.nan, repr(value)
    if not (math.isfinite(number) and number > 0):
        raise CorpusError(Problem(f"expected a positive number of {unit}, got {shown}", path=where))
    if number > limit:
        raise CorpusError(Problem(f"at most {limit:g} {unit}, got {shown}", path=where))
    return number


def quality(value, where: str) -> str:
    """`value` if it names a quality, else a CorpusError at `where` (a flag or a field)."""
    if value not in QUALITIES:
        raise CorpusError(Problem(f"expected one of {', '.join(QUALITIES)}, got {value!r}", path=where))
    return value


def resolve_options(options: dict | ExportOptions | None) -> ExportOptions:
    """ExportOptions from the merged dict `run`/`render` pass (outputs block + CLI flags)."""
    if isinstance(options, ExportOptions):
        return options
    o = dict(options or {})
    size = o.get("size", ExportOptions.size)
    if len(size) != 2 or min(int(size[0]), int(size[1])) < 16:
        raise CorpusError(f"outputs.size: expected [width, height] of at least 16 pixels, got {size}")
    video = _formats(o.get("video", False), VIDEO_FORMATS, "video")
    if "mp4" in video and (int(size[0]) % 2 or int(size[1]) % 2):
        raise CorpusError(f"outputs.size: H.264 in yuv420p needs an even width and height, "
                          f"got {size[0]}x{size[1]}")
    overlays = o.get("overlays", {}) or {}
    meshes = _formats(o.get("meshes", False), MESH_FORMATS, "meshes")
    plots = o.get("plots", False)
    return ExportOptions(
        fps=bounded_positive(o.get("fps", ExportOptions.fps), MAX_FPS, FPS_UNIT, "outputs.fps"),
        slow_motion=bounded_positive(o.get("slow_motion", 1.0), MAX_SLOW_MOTION, SLOW_MOTION_UNIT,
                                     "outputs.slow_motion"),
        size=(int(size[0]), int(size[1])),
        frames=bool(o.get("frames", False)),
        video=video,
        glb=bool(o.get("glb", False)), meshes=meshes[0] if meshes else None,
        plots=plots if isinstance(plots, bool) else tuple(plots),
        camera=dict(o.get("camera", {}) or {}), shadows=bool(o.get("shadows", True)),
        quality=quality(o.get("quality", ExportOptions.quality), "outputs.quality"),
        show_time=bool(overlays.get("time", True)), show_gait=bool(overlays.get("gait", True)),
        gait_window=float(overlays.get("gait_window", 1.0)),
        ground_tile=(o.get("ground") or {}).get("tile"), gif_width=int(o.get("gif_width", 480)),
        compress_trajectory=bool(o.get("compress_trajectory", False)),
        quiet=bool(o.get("quiet", False)))
