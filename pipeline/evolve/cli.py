"""`corpus evolve EVOLUTION.yaml`: run an evolution into an output folder;
`corpus evolve --plot RUN_DIR...`: overlay the fitness curves of finished runs.

The folder (default outputs/evolve/<name>-seed<seed>) gets evolution.db, checkpoint.pkl,
fitness.png, best.yaml (the best individual as a scene `corpus run` replays),
best_genotype.yaml, best/generation-NNNN.yaml every `outputs.every` generations, and the
best scene's run (video) in best_run/. A folder that holds a run is never overwritten:
`--resume` continues it.
"""
from __future__ import annotations

import sys
from pathlib import Path

from pipeline.errors import CorpusError, Problem

OUTPUT_ROOT = Path("outputs") / "evolve"


def add_parser(sub) -> None:
    p = sub.add_parser("evolve", help="evolve scene parameters (an evolution: file) on local workers or Dask",
                       description="Run an evolution file: generations of individuals evaluated in parallel, "
                                   "logged to SQLite, checkpointed after every generation.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="an evolution YAML file (or, with --plot, run folders)")
    p.add_argument("--out", help="output folder (default outputs/evolve/<name>-seed<seed>)")
    p.add_argument("--jobs", type=int, help="workers (default: one per core)")
    p.add_argument("--executor", default="local", help="local (default) or dask")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786) for --executor dask")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    p.add_argument("--generations", type=int, help="generations after generation 0 (default: the file's)")
    p.add_argument("--seed", type=int, help="the run's seed (default: the file's)")
    p.add_argument("--no-video", action="store_true", help="write the best scenes but do not run them for video")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-generation lines")
    p.add_argument("--allow-outside", action="store_true", help="allow includes outside the project")
    p.add_argument("--plot", action="store_true", help="PATHs are run folders: overlay their fitness curves")
    p.add_argument("-o", "--output", help="with --plot: the PNG to write (default fitness.png)")
    p.set_defaults(func=main)


def main(args) -> int:
    if args.plot:
        from pipeline.evolve.plot import plot_runs

        missing = [p for p in args.paths if not (Path(p) / "evolution.db").is_file()]
        if missing:
            raise CorpusError([Problem("not a corpus evolve folder (no evolution.db)", p) for p in missing])
        print(plot_runs([Path(p) for p in args.paths], Path(args.output or "fitness.png")), file=sys.stderr)
        return 0
    if len(args.paths) != 1:
        raise CorpusError(Problem("give one evolution file (several paths only with --plot)", path="PATH"))
    return run(args)


def run(args) -> int:
    import dataclasses

    from pipeline.batch.executors import make_executor
    from pipeline.evolve.run import evolve
    from pipeline.evolve.spec import load_evolution
    from pipeline.evolve.workers import Workers

    evo = load_evolution(args.paths[0], allow_outside=args.allow_outside)
    if args.seed is not None:
        if args.seed < 0:
            raise CorpusError(Problem(f"must be >= 0, got {args.seed}", path="--seed"))
        evo = dataclasses.replace(evo, seed=args.seed)
    generations = evo.generations if args.generations is None else args.generations
    if generations < 0:
        raise CorpusError(Problem(f"must be >= 0, got {generations}", path="--generations"))
    out = Path(args.out) if args.out else OUTPUT_ROOT / f"{evo.name}-seed{evo.seed}"
    check_out(out, args.resume)
    preflight(evo)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with Workers(lambda: make_executor(args.executor, args.jobs, args.scheduler)) as executor:
            checkpoint = evolve(evo, out, executor, generations=generations, resume=args.resume, quiet=args.quiet)
    except KeyboardInterrupt:
        from pipeline.evolve.checkpoint import FILE

        held = "nothing yet" if not (out / FILE).exists() else "the last finished generation"
        print(f"interrupted: {out / FILE} holds {held}; `corpus evolve {args.paths[0]} --out {out} --resume` "
              "goes on from there", file=sys.stderr)
        raise
    finish(evo, out, checkpoint, video=not args.no_video, quiet=args.quiet)
    return 0


def check_out(out: Path, resume: bool) -> None:
    from pipeline.fileio import check_folder_target
    from pipeline.gallery import check_page_target

    check_folder_target(out, "the evolution's folder")
    has_run = (out / "evolution.db").exists()
    if has_run and not resume:
        raise CorpusError(Problem("holds a run already: pass --resume to continue it, or choose another --out",
                                  str(out)))
    if not has_run and out.is_dir() and any(out.iterdir()) and not resume:
        raise CorpusError(Problem("is not empty and holds no evolution: choose another --out", str(out)))
    check_page_target(out)


def preflight(evo) -> None:
    """Problems every individual would hit, found once before any worker starts: the stop
    body, and a python fitness that does not import."""
    from pipeline.simulate.evaluate import simulation_for
    from pipeline.spec.checks import did_you_mean

    setup = evo.setup
    if setup.stop is not None:
        names = simulation_for(setup.scene).model.body_names
        if setup.stop.body not in names:
            w = setup.stop.where
            raise CorpusError(Problem(f"no body named {setup.stop.body!r} in the scene"
                                      f"{did_you_mean(setup.stop.body, names)}", w.file, w.line, w.col, w.path))
    if setup.python:
        from pipeline.control.python_ctrl import load_callable

        load_callable(setup.python, setup.where)


def finish(evo, out: Path, checkpoint, *, video: bool, quiet: bool) -> None:
    from pipeline.evolve.outputs import render, write_genotype, write_individual
    from pipeline.evolve.plot import plot_runs
    from pipeline.gallery import write_gallery

    plot_runs([out], out / "fitness.png")
    best = checkpoint.best if checkpoint else None
    if best is None:
        write_gallery(out)
        print(f"{evo.name}: no individual was evaluated successfully; see {out / 'evolution.db'}", file=sys.stderr)
        return
    scene = write_individual(out / "best.yaml", evo, best, best.metrics)
    write_genotype(out / "best_genotype.yaml", evo, best)
    if video and evo.video != "none":
        scenes = [scene] + (sorted((out / "best").glob("generation-*.yaml")) if evo.video == "all" else [])
        for s in scenes:
            render(s, out / ("best_run" if s == scene else f"best_run_{s.stem}"))
    write_gallery(out)
    if not quiet:
        print(f"{evo.name}: best fitness {best.fitness:.6g} (generation {best.generation}, individual "
              f"{best.index}) -> {out}, {out / 'index.html'}", file=sys.stderr)
