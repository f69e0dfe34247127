"""Parameter sweeps: a `sweep:` block (inside a scene, or a file of its own naming a scene)
varies fields by their path and expands into named jobs.

    sweep:                          # inside a scene             # or a file of its own:
      mode: grid                    # grid | list | random       sweep: friction_speed
      parameters:                                                scene: ../scenes/roach_tripod.yaml
        environment.material.friction: [0.5, 0.7, 0.9]          mode: random
        simulation.seed: [0, 1]                                  samples: 8
                                                                 seed: 1
    mode list:   runs: [{path: value, ...}, ...]                 parameters:
    mode random: samples: N, seed: S, parameters:                  simulation.seed: {integers: [0, 1000]}
                 {uniform: [lo, hi]} | {choice: [...]} | {integers: [lo, hi]}

Paths address the scene's canonical expanded document (pipeline.spec.paths).
"""
from __future__ import annotations

import copy
import itertools
from pathlib import Path

import numpy as np

from pipeline.batch.jobs import Job, job_name
from pipeline.spec.paths import set_path
from pipeline.errors import CorpusError, Problem
from pipeline.spec.includes import Includes, project_root
from pipeline.spec.loader import MDict, plain

SCENE_SUFFIXES = (".yaml", ".yml")


def expand_parameters(block: dict) -> list[dict]:
    """The list of {path: value} assignments a sweep block stands for, in a stable order."""
    mode = block.get("mode", "grid")
    params = block.get("parameters", {})
    if mode == "grid":
        paths = list(params)
        return [dict(zip(paths, combo)) for combo in itertools.product(*(params[p] for p in paths))]
    if mode == "list":
        return [dict(run) for run in block.get("runs", [])]
    if mode == "random":
        rng = np.random.default_rng(block.get("seed", 0))
        runs = []
        for _ in range(block.get("samples", 1)):
            run = {}
            for path, dist in params.items():
                (kind, arg), = dist.items()
                if kind == "uniform":
                    run[path] = float(rng.uniform(arg[0], arg[1]))
                elif kind == "integers":
                    run[path] = int(rng.integers(arg[0], arg[1], endpoint=True))
                else:  # choice
                    run[path] = plain(arg[int(rng.integers(len(arg)))])
            runs.append(run)
        return runs
    raise CorpusError(f"sweep mode {mode!r}: expected grid, list or random")


def scene_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(sorted(f for f in p.rglob("*") if f.suffix in SCENE_SUFFIXES))
        elif p.exists():
            found.append(p)
        else:
            raise CorpusError(Problem("no such file or folder", str(p)))
    return found


def _is_runnable(doc) -> bool:
    return isinstance(doc, dict) and ("scene" in doc or isinstance(doc.get("sweep"), str))


def jobs_from_file(path: Path, *, allow_outside: bool = False) -> list[Job]:
    """Every job one file stands for: a plain scene is one job, a sweep many."""
    from pipeline.spec.loader import read_file
    from pipeline.spec.resolve import load_scene, validate_document

    doc = read_file(path)
    if isinstance(doc.get("sweep"), str):  # a sweep file naming its scene
        validate_document(path)
        includes = Includes(project_root(Path(path).resolve().parent), allow_outside)
        scene_path = includes.locate(doc["scene"], doc.value_mark("scene"), "scene")
        block = doc
    else:
        scene_path, block = path, doc.get("sweep")
    base = load_scene(scene_path, allow_outside=allow_outside)
    source = {k: v for k, v in base.source.items() if k != "sweep"}
    folder = str(Path(scene_path).resolve().parent)
    if not block:
        return [Job(base.name, source, base.files, {}, str(path), folder)]
    jobs, problems = [], []  # every variant's problems, not only the first one's
    for assignment in expand_parameters(block):
        try:
            scene_i = _variant(source, block, assignment, base.name, folder, allow_outside)
        except CorpusError as error:
            problems.extend(p for p in error.problems if p not in problems)
            continue
        jobs.append(Job(job_name(base.name, assignment), scene_i.source, base.files,
                        {p: plain(v) for p, v in assignment.items()}, str(path), folder))
    if problems:
        raise CorpusError(problems)
    return jobs


def _variant(source: dict, block, assignment: dict, scene_name: str, folder: str, allow_outside: bool):
    """The Scene of one variant; its problems point into the sweep (located_in_sweep)."""
    from pipeline.spec.resolve import load_scene

    doc = copy.deepcopy(source)
    variant = job_name(scene_name, assignment)
    for p, value in assignment.items():
        try:
            set_path(doc, p, plain(value))
        except CorpusError as error:
            raise located_in_sweep(error, block, variant, p) from None
    try:
        return load_scene(doc, allow_outside=allow_outside, base_dir=folder)
    except CorpusError as error:
        raise located_in_sweep(error, block, variant) from None


def located_in_sweep(error: CorpusError, block, variant: str, parameter: str = "") -> CorpusError:
    """A variant's problems are in its expanded document, which has no file: point them at
    the sweep `parameter` at fault, or the one that produced the field, else `parameters:`."""
    from pipeline.spec.resolve import DICT_FILE

    params = block.get("parameters") if isinstance(block, MDict) else None
    problems = []
    for p in error.problems:
        if p.file and Path(p.file).name != DICT_FILE:
            problems.append(p)
            continue
        swept = [parameter] if parameter in (params or {}) else [
            k for k in (params or {})
            if p.path == k or p.path.startswith((k + ".", k + "[")) or k.startswith((p.path + ".", p.path + "["))]
        if swept:
            mark, where = params.key_mark(swept[0]), f"parameters.{swept[0]}"
        else:  # mode list names its fields under runs:
            where = next((k for k in ("parameters", "runs") if k in block), "")
            mark = block.value_mark(where) if where else block.mark
        field = f" ({p.path})" if p.path and not swept else ""
        problems.append(mark.problem(f"sweep variant {variant}{field}: {p.message}", where))
    return CorpusError(problems)


def collect_jobs(paths: list[str], *, allow_outside: bool = False) -> tuple[list[Job], list[tuple[str, str]]]:
    """Jobs from files and folders. A file that cannot be loaded becomes an (origin, message)
    entry instead of stopping the batch; folders contribute only scene and sweep files."""
    from pipeline.spec.loader import read_file

    jobs: list[Job] = []
    invalid: list[tuple[str, str]] = []
    explicit = {Path(p) for p in paths}
    for f in scene_files(paths):
        try:
            if f not in explicit and not _is_runnable(read_file(f)):
                continue  # creatures and environments inside a scanned folder are not jobs
            jobs.extend(jobs_from_file(f, allow_outside=allow_outside))
        except CorpusError as e:
            invalid.append((str(f), str(e)))
    return jobs, invalid
