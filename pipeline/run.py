"""One job: load → compile → simulate → export, into a run directory.

A run directory holds `scene.json` (the canonical expanded scene, loadable again),
`trajectory.npz`, the exports the scene asks for, and `manifest.json`, which is written
last: a directory with a manifest is complete. Everything is produced in a staging folder
beside the run directory and moved in only when the whole job succeeded, so a failed or
interrupted run never replaces or corrupts the outputs of an earlier one.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import CorpusError, Problem, raise_if_interrupted
from pipeline.fileio import atomic_write_text, check_folder_target, publish, remove_all_but, staging_folder
from pipeline.progress import frame_length

OUTPUT_ROOT = Path("outputs")


@dataclass
class RunResult:
    out_dir: Path
    manifest: dict
    files: list[Path] = field(default_factory=list)


def file_sha256(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def versions() -> dict:
    import numba
    import numpy

    import pipeline

    return {"corpus": pipeline.__version__, "python": platform.python_version(),
            "numpy": numpy.__version__, "numba": numba.__version__}


def default_out_dir(scene) -> Path:
    return OUTPUT_ROOT / scene.name


@dataclass
class PreparedRun:
    """A job checked and ready to simulate: its scene, where its outputs go, what it reads."""
    scene: object
    shown: Path  # the run directory as the user named it
    out_dir: Path  # ... absolute
    inputs: dict
    options: dict
    timings: dict
    extra_manifest: dict


def run_scene(source, out_dir: str | os.PathLike | None = None, *, export_options: dict | None = None,
              duration: float | None = None, quiet: bool = False, allow_outside: bool = False,
              extra_manifest: dict | None = None, base_dir: str | os.PathLike | None = None) -> RunResult:
    """Run one scene (a path, a dict, or an already loaded Scene) and export it.

    `export_options` are merged over the scene's `outputs:` block (CLI flags win); a dict's
    relative paths (and its Python controllers' modules) resolve against `base_dir`.
    Raises CorpusError for anything the user can fix; nothing in `out_dir` changes then.
    """
    import pipeline
    from pipeline.compile_watch import announced

    run = prepare_run(source, out_dir, export_options=export_options, duration=duration, quiet=quiet,
                      allow_outside=allow_outside, extra_manifest=extra_manifest, base_dir=base_dir)
    with staging_folder(run.out_dir, "the run directory") as stage, announced(quiet) as kernels:
        sim = timed(run.timings, "compile_s", kernels, lambda: pipeline.compile(run.scene))
        raise_if_interrupted()  # numba may have swallowed it while loading the kernels
        recording = timed(run.timings, "simulate_s", kernels,
                          lambda: sim.run(duration=duration, progress=None if not quiet else False))
        save_trajectory(run, recording, kernels, stage)
        return publish_run(run, sim, recording, kernels, stage)


def prepare_run(source, out_dir=None, *, export_options=None, duration=None, quiet=False, allow_outside=False,
                extra_manifest=None, base_dir=None) -> PreparedRun:
    """run_scene's checks before it compiles: the scene loaded, the run directory, the
    duration and the export options (a bad one fails now, not after a long simulation)."""
    from pipeline.export.options import resolve_options
    from pipeline.export.resample import frame_count
    from pipeline.spec.resolve import load_scene

    t0 = time.perf_counter()
    scene = source if hasattr(source, "simulation") else load_scene(source, allow_outside=allow_outside,
                                                                    base_dir=base_dir)
    timings = {"load_s": time.perf_counter() - t0}
    shown = Path(out_dir) if out_dir is not None else default_out_dir(scene)
    check_out_dir(shown)
    if duration is not None:
        check_duration(duration, scene.simulation)
    options = {**scene.outputs, **(export_options or {}), "quiet": quiet}
    frame_count(resolve_options(options).sample_rate,
                scene.simulation.duration if duration is None else duration,
                "--fps" if "fps" in (export_options or {}) else "outputs.fps")
    # every path is fixed before user code runs: a controller may change the working directory
    return PreparedRun(scene=scene, shown=shown, out_dir=shown.absolute(),
                       inputs={str(p): file_sha256(p) for p in scene.files}, options=options,
                       timings=timings, extra_manifest=dict(extra_manifest or {}))


def timed(timings: dict, phase: str, kernels, work):
    """work(), its wall time less numba's compiling (`kernels`, compile_watch.announced),
    which is reported apart, into timings[phase]."""
    t, compiling = time.perf_counter(), kernels.seconds
    result = work()
    timings[phase] = time.perf_counter() - t - (kernels.seconds - compiling)
    return result


def save_trajectory(run: PreparedRun, recording, kernels, stage: Path) -> None:
    """The recording as TRAJECTORY in the staging folder, compressed if the outputs ask,
    timed as `save_s`."""
    from pipeline.export.options import resolve_options

    compress = resolve_options(run.options).compress_trajectory
    timed(run.timings, "save_s", kernels, lambda: recording.save(stage / TRAJECTORY, compress=compress))


def publish_run(run: PreparedRun, sim, recording, kernels, stage: Path) -> RunResult:
    """Export a simulated run into its staging folder (fileio.staging_folder), where its
    recording was saved (as TRAJECTORY), then move it into the run directory with its
    manifest (module doc)."""
    from pipeline.export import export_run
    from pipeline.simulate.metrics import scene_metrics

    scene, timings = run.scene, run.timings
    atomic_write_text(stage / "scene.json", json.dumps(scene.source, indent=1, sort_keys=True))
    timed(timings, "export_s", kernels, lambda: export_run(recording, sim.model, scene, stage, run.options))
    timings["kernel_compile_s"] = kernels.seconds
    manifest = {
        "scene": scene.name,
        "seed": scene.simulation.seed,
        "dt": sim.dt,
        "simulated_time_s": float(recording.time[-1]) if len(recording.time) else 0.0,
        "inputs": run.inputs,
        "versions": versions(),
        "timings": {k: round(v, 4) for k, v in timings.items()},
        "stats": sim.stats() if hasattr(sim, "stats") else {},
        "metrics": scene_metrics(recording, sim.model),
        "files": sorted(p.name for p in stage.iterdir()),
        **run.extra_manifest,
    }
    raise_if_interrupted()  # an interrupt a library swallowed must not publish
    _publish(stage, run.out_dir, manifest)
    files = [run.out_dir / name for name in manifest["files"]] + [run.out_dir / "manifest.json"]
    return RunResult(out_dir=run.shown, manifest=manifest, files=files)


TRAJECTORY = "trajectory.npz"
RUN_FILES = ("manifest.json", "scene.json", TRAJECTORY)


def check_out_dir(out_dir: Path) -> None:
    """The run directory must be a folder that is new, empty or an earlier run: publishing
    replaces same-named files and folders, which must never hit a user's other files."""
    check_folder_target(out_dir, "the run directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not any((out_dir / f).exists() for f in RUN_FILES):
        raise CorpusError(Problem("is a folder that holds other files and no earlier run (no "
                                  "manifest.json, scene.json or trajectory.npz); choose a new or "
                                  "empty folder for --out", str(out_dir)))


def check_duration(duration: float, settings) -> None:
    """A --duration (or `duration=`) that overrides the scene's must be one it could say."""
    from pipeline.spec.checks import run_length, whole_frames

    if not (math.isfinite(duration) and duration > 0):
        raise CorpusError(Problem(f"expected a positive number of seconds, got {duration:g}", path="--duration"))
    wrong = run_length(duration, settings.dt, settings.h, settings.integrator) or whole_frames(duration, settings.dt)
    if wrong:
        raise CorpusError(Problem(wrong, path="--duration"))


def _publish(stage: Path, out_dir: Path, manifest: dict) -> None:
    """Move a finished staging folder's files into out_dir, the manifest last, so that the
    folder then holds exactly what the manifest lists.

    The old manifest goes first, so that until the new one lands the directory does not
    claim to be complete with a mix of old and new files; an earlier run's exports that
    this one did not make (its video, when this run has none) go before the new one lands.
    """
    (out_dir / "manifest.json").unlink(missing_ok=True)
    publish(stage, out_dir)
    remove_all_but(out_dir, set(manifest["files"]))
    atomic_write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True))


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="simulate a scene and export what it asks for",
                       description="Load, compile, simulate and export one scene into outputs/<scene>/ (or --out).")
    p.add_argument("scene", help="scene (or creature) YAML file")
    p.add_argument("--out", help="run directory (default: outputs/<scene name>/)")
    p.add_argument("--duration", type=float, help="simulated seconds (default: the scene's)")
    add_export_flags(p)
    p.add_argument("--allow-outside", action="store_true", help="allow includes outside the project")
    p.set_defaults(func=main)


def add_export_flags(p) -> None:
    """The flags `run` and `render` share (read back by export_flags)."""
    from pipeline.export.options import ExportOptions

    width, height = ExportOptions.size
    p.add_argument("--no-frames", action="store_true",
                   help="skip PNG frames and video (meshes, data and plots still export)")
    p.add_argument("--fps", type=float,
                   help=f"output frames per second (default: the scene's outputs.fps, else {ExportOptions.fps:g})")
    p.add_argument("--size", metavar="WIDTHxHEIGHT",
                   help=f"frame size in pixels (default: the scene's outputs.size, else {width}x{height})")
    p.add_argument("--quality", help="draft (fast) or final (anti-aliased, soft shadows; "
                   "the default, else the scene's outputs.quality)")
    p.add_argument("--quiet", action="store_true", help="no progress bars, notices or summary")


def export_flags(args) -> dict:
    """CLI flags shared by `run` and `render`, as export options."""
    from pipeline.export.options import FPS_UNIT, MAX_FPS, bounded_positive, quality

    options = {}
    if getattr(args, "quality", None) is not None:
        options["quality"] = quality(args.quality, "--quality")
    if getattr(args, "no_frames", False):
        options["frames"] = False
        options["video"] = False
    if getattr(args, "fps", None) is not None:
        options["fps"] = bounded_positive(args.fps, MAX_FPS, FPS_UNIT, "--fps")
    if getattr(args, "size", None):
        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
        except ValueError:
            raise CorpusError(Problem(f"expected WIDTHxHEIGHT such as 960x540, got {args.size!r}",
                                      path="--size")) from None
        options["size"] = [w, h]
    return options


def main(args) -> int:
    result = run_scene(args.scene, args.out, export_options=export_flags(args), duration=args.duration,
                       quiet=args.quiet, allow_outside=args.allow_outside)
    if not args.quiet:  # results on stdout (`corpus run x.yaml > log` keeps them); progress went to stderr
        print(summary(result))
    return 0


def summary(result: RunResult) -> str:
    """What the run did and the files it wrote, each of which exists."""
    m = result.manifest
    t = m["timings"]
    frames = m["stats"].get("frames")
    lines = [f"{m['scene']}: simulated {m['simulated_time_s']:.3f} s"
             + (f" ({frames} frames of {frame_length(m['dt'])})" if frames and m.get("dt") else "")
             + f" in {t['simulate_s']:.1f} s, exported in {t['export_s']:.1f} s"]
    if t.get("kernel_compile_s", 0) >= 0.05:
        lines.append(f"compiled kernels in {t['kernel_compile_s']:.1f} s (cached for later runs)")
    lines.append(f"wrote {result.out_dir}/")
    for path in result.files:
        if path.is_dir():
            inside = sorted(p.name for p in path.iterdir())
            listed = ", ".join(inside) if len(inside) <= 8 else f"{len(inside)} files"
            lines.append(f"  {path.name}/  ({listed})")
        else:
            lines.append(f"  {path.name}")
    return "\n".join(lines)
