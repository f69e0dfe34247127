"""`corpus render RUN_DIR|SCENE`: export again from a saved trajectory, never simulating.

A run directory holds scene.json (the canonical expanded scene) and trajectory.npz; the
Model is rebuilt from the scene (compile only) so the meshes and masses match the run.
Given a scene file instead, its default run directory (outputs/<scene>/) is used. Exports
are staged beside the output folder and published together (pipeline/fileio.py).
"""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.errors import CorpusError, Problem


def add_parser(sub) -> None:
    from pipeline.run import add_export_flags

    p = sub.add_parser(
        "render", help="re-export a finished run (frames, video, glTF, plots) without simulating",
        description="Rebuild the model from RUN_DIR/scene.json, read RUN_DIR/trajectory.npz and "
                    "export what the scene's outputs block and the flags ask for.")
    p.add_argument("run", metavar="RUN_DIR|SCENE", help="a run directory, or a scene whose "
                   "default run directory (outputs/<scene>/) exists")
    p.add_argument("--out", help="write the exports here (default: the run directory)")
    p.add_argument("--frames", action="store_true", help="also write the PNG frame sequence")
    p.add_argument("--video", help="video formats, comma separated: mp4,gif")
    p.add_argument("--glb", action="store_true", help="also write animation.glb")
    p.add_argument("--meshes", choices=("obj", "ply", "stl"), help="also write per-frame meshes")
    p.add_argument("--plots", action="store_true", help="also write the plots")
    p.add_argument("--camera", choices=("fixed", "follow", "orbit"), help="camera mode")
    p.add_argument("--slow-motion", type=float, metavar="X",
                   help="play X times slower than real time (frames every 1/(fps X) s)")
    add_export_flags(p)
    p.set_defaults(func=main)


def run_directory(target: str) -> Path:
    path = Path(target)
    if path.is_dir():
        return path
    if path.is_file():
        import pipeline
        from pipeline.run import default_out_dir

        return default_out_dir(pipeline.load(path))
    raise CorpusError(f"{target}: no such run directory or scene file")


def render_options(scene_outputs: dict, args) -> dict:
    """The scene's outputs block, then the flags that add exports, then the shared run flags."""
    from pipeline.export.options import MAX_SLOW_MOTION, SLOW_MOTION_UNIT, bounded_positive
    from pipeline.run import export_flags

    options = dict(scene_outputs or {})
    if args.frames:
        options["frames"] = True
    if args.video:
        options["video"] = [v.strip() for v in args.video.split(",") if v.strip()]
    for flag in ("glb", "plots"):
        if getattr(args, flag):
            options[flag] = True
    if args.meshes:
        options["meshes"] = args.meshes
    if args.slow_motion is not None:
        options["slow_motion"] = bounded_positive(args.slow_motion, MAX_SLOW_MOTION, SLOW_MOTION_UNIT,
                                                  "--slow-motion")
    if args.camera:
        options["camera"] = {**(options.get("camera") or {}), "mode": args.camera}
    return {**options, **export_flags(args), "quiet": bool(args.quiet)}


# the outputs fields, named as their flags, that say how the exports look
RESTATED = ("fps", "size", "slow_motion", "quality")


def restate_outputs(source: dict, options: dict, args) -> dict:
    """The run's scene.json with the outputs fields the flags changed, so that it keeps
    describing the run directory's exports (after `render --fps 60` it says 60)."""
    outputs = dict(source.get("outputs") or {})
    for field in RESTATED:
        if getattr(args, field) is not None:
            outputs[field] = options[field]
    if args.camera:
        outputs["camera"] = {**(outputs.get("camera") or {}), "mode": args.camera}
    return {**source, "outputs": outputs}


def render_run(run_dir: Path, out_dir: Path, args) -> list[Path]:
    """Export from run_dir into out_dir. The exports are built in a staging folder beside
    out_dir and moved in only when all of them are written, so a failure or Ctrl-C leaves
    out_dir as it was (no partial frame sequence, no good file replaced)."""
    import pipeline
    from pipeline.errors import raise_if_interrupted
    from pipeline.export import export_run
    from pipeline.export.options import resolve_options
    from pipeline.export.resample import frame_count
    from pipeline.fileio import atomic_write_text, check_folder_target, publish, staging_folder
    from pipeline.recording import Recording

    check_folder_target(out_dir, "the export folder")
    scene_file, trajectory = run_dir / "scene.json", run_dir / "trajectory.npz"
    for needed in (scene_file, trajectory):
        if not needed.is_file():
            raise CorpusError(f"{needed}: missing; `corpus render` needs a finished run "
                              "directory (make one with `corpus run SCENE`)")
    try:
        json.loads(scene_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{scene_file}: cannot read the saved scene: {exc}") from None
    scene = pipeline.load(scene_file)  # by path, so its problems name scene.json
    if not hasattr(scene, "outputs"):  # a creature: `corpus run` always saves a scene
        raise CorpusError(Problem("expected the scene a run saved, but this is a creature document; "
                                  "re-run the scene with `corpus run`", str(scene_file), 1, 1))
    from pipeline.simulate import compile_model

    model = compile_model(scene)
    recording = Recording.load(trajectory)
    if tuple(recording.body_names) != tuple(model.body_names):
        raise CorpusError(f"{trajectory}: its bodies ({len(recording.body_names)}) do not match "
                          f"the model built from scene.json ({model.nbody}); re-run the scene")
    options = render_options(scene.outputs, args)
    opts = resolve_options(options)
    rate_flag = next((flag for flag, value in (("--slow-motion", args.slow_motion), ("--fps", args.fps))
                      if value is not None), "outputs.fps")
    frame_count(opts.sample_rate, float(recording.time[-1] - recording.time[0]) if len(recording) else 0.0,
                rate_flag)
    into_run = out_dir.resolve() == run_dir.resolve()
    with staging_folder(out_dir, "the export folder") as stage:
        written = export_run(recording, model, scene, stage, opts)
        if into_run:
            restated = restate_outputs(json.loads(scene_file.read_text(encoding="utf-8")), options, args)
            atomic_write_text(stage / "scene.json", json.dumps(restated, indent=1, sort_keys=True))
        raise_if_interrupted()  # an interrupt a library swallowed must not publish
        names = [item.name for item in stage.iterdir()]
        publish(stage, out_dir)
    if into_run:
        list_in_manifest(run_dir, names)
    return [out_dir / path.relative_to(stage) for path in written]


def list_in_manifest(run_dir: Path, names: list[str]) -> None:
    """Add exports rendered into a run directory to its manifest's files, which list
    everything the directory holds (a manifest that cannot be read is left alone)."""
    from pipeline.fileio import atomic_write_text

    path = run_dir / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = set(manifest["files"])
    except (OSError, ValueError, TypeError, KeyError):
        return
    manifest["files"] = sorted(files | set(names))
    atomic_write_text(path, json.dumps(manifest, indent=1, sort_keys=True))


def main(args) -> int:
    run_dir = run_directory(args.run)
    written = render_run(run_dir, Path(args.out) if args.out else run_dir, args)
    if not args.quiet:  # results on stdout; progress bars went to stderr
        print(f"rendered {run_dir}: {len(written)} files")
        for path in written[:20]:
            print(f"  {path}")
        if len(written) > 20:
            print(f"  ... and {len(written) - 20} more")
    return 0
