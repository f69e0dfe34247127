"""An `evolution:` file -> `Evolution`, with every problem located at file:line:col.

Checks beyond the schema (schemas/evolution.schema.json): the base scene loads, every gene
path names a numeric field of it ("did you mean" otherwise; a typo would evolve nothing),
bounds are ordered and hold the start, the fitness expression names known metrics, metric
names exist. Nothing here imports user code: a `python:` fitness is imported when the run
starts.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.evolve.evaluate import Setup, Stop
from pipeline.evolve.paths import field_value
from pipeline.evolve.space import VectorSpace
from pipeline.spec.checks import did_you_mean, in_file_order
from pipeline.spec.loader import MDict, plain, read_file, where_of
from pipeline.spec.paths import set_path


@dataclass(frozen=True, eq=False)
class Evolution:
    name: str
    file: str  # the evolution file, absolute
    space: VectorSpace
    algorithm: str  # a key of pipeline.evolve.algorithms.ALGORITHMS
    settings: dict  # the algorithm's settings
    setup: Setup  # what a worker needs to evaluate an individual
    generations: int
    seed: int
    every: int  # write the best-so-far scene every this many generations (0: never)
    video: str  # best | all | none
    digest: str  # of its content (not comments) and the scene's files: a checkpoint belongs to one version
    scene_source: dict = field(default_factory=dict)  # the base scene's canonical document


def load_evolution(path, *, allow_outside: bool = False) -> Evolution:
    from pipeline.spec.documents import check_kind
    from pipeline.spec.includes import Includes, project_root
    from pipeline.spec.resolve import load_scene
    from pipeline.spec.schema import to_si, validate

    path = Path(path)
    doc = read_file(path)
    check_kind(doc, "evolution")
    problems = validate(doc, "evolution")
    if problems:
        raise CorpusError(problems)
    si = to_si(doc, "evolution")
    inc = Includes(project_root(path.resolve().parent), allow_outside)
    scene_path = inc.locate(doc["scene"], doc.value_mark("scene"), "scene")
    scene = load_scene(scene_path, allow_outside=allow_outside)
    problems = []
    space = _vector_space(doc["genotype"]["vector"], scene.source, problems)
    setup = _setup(doc, si, str(scene_path), problems)
    (algorithm, settings), = plain(doc["algorithm"]).items()
    if algorithm == "es" and settings.get("lambda", 6 * settings.get("mu", 16)) < settings.get("mu", 16) \
            and not settings.get("plus", False):
        problems.append(doc["algorithm"].value_mark("es").problem(
            "(mu, lambda) needs lambda >= mu: the mu survivors are chosen from the offspring", "algorithm.es"))
    if algorithm == "ga" and settings.get("elitism", 1) >= settings.get("population", 50):
        problems.append(doc["algorithm"].value_mark("ga").problem(
            "elitism must be smaller than the population", "algorithm.ga.elitism"))
    if problems:
        raise CorpusError(in_file_order(problems))
    outputs = doc.get("outputs", {})
    return Evolution(
        name=doc["evolution"], file=str(path.resolve()), space=space, algorithm=algorithm, settings=settings,
        setup=setup, generations=int(doc.get("generations", 100)), seed=int(doc.get("seed", 0)),
        every=int(outputs.get("every", 0)), video=outputs.get("video", "best"),
        digest=_digest(doc, scene), scene_source=scene.source)


def _digest(doc: MDict, scene) -> str:
    """What a run's results depend on: the evolution's content and every file of its scene."""
    h = hashlib.sha256(json.dumps(plain(doc), sort_keys=True).encode())
    for file in sorted(scene.files):
        h.update(Path(file).read_bytes())
    return h.hexdigest()


def _vector_space(block: MDict, scene_doc: dict, problems: list[Problem]) -> VectorSpace:
    prefix = block.get("prefix")
    names, paths, low, high, start = [], [], [], [], []
    genes = block["genes"]
    for name, gene in genes.items():
        here = f"genotype.vector.genes.{name}"
        gene_path = gene.get("path") or (f"{prefix}.{name}" if prefix else name)
        mark = gene.value_mark("path") if "path" in gene else genes.key_mark(name)
        try:
            value = field_value(scene_doc, gene_path)
        except (ValueError, CorpusError) as exc:  # CorpusError: a path that does not parse
            problems.append(mark.problem(f"gene path {gene_path!r}: {_message(exc)}", here))
            continue
        lo, hi = gene["bounds"]
        if not lo < hi:
            problems.append(gene.value_mark("bounds").problem(f"bounds [{lo}, {hi}]: lo must be below hi",
                                                              f"{here}.bounds"))
            continue
        if "start" in gene:
            value = gene["start"]
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(mark.problem(f"gene path {gene_path!r} holds {value!r}, not a number; "
                                         "give the gene a `start`", here))
            continue
        if not lo <= value <= hi:
            where = gene.value_mark("start") if "start" in gene else gene.value_mark("bounds")
            problems.append(where.problem(f"the start value {value} is outside the bounds [{lo}, {hi}]", here))
            continue
        try:  # what the path names must also be settable: `set_path` builds mappings only
            set_path(copy.deepcopy(scene_doc), gene_path, float(value))
        except CorpusError as exc:
            problems.append(mark.problem(f"gene path {gene_path!r} cannot be set: {_message(exc)} "
                                         "(inside `with:` a path can name mapping keys only)", here))
            continue
        names.append(name)
        paths.append(gene_path)
        low.append(lo)
        high.append(hi)
        start.append(value)
    mutation = block.get("mutation", {})
    return VectorSpace(tuple(names), tuple(paths), np.array(low, float), np.array(high, float),
                       np.array(start, float), sigma=float(mutation.get("sigma", 0.05)),
                       rate=float(mutation.get("rate", 1.0)), crossover_kind=block.get("crossover", "discrete"),
                       init=block.get("init", "start"))


def _message(exc: Exception) -> str:
    return exc.problems[0].message if isinstance(exc, CorpusError) else str(exc)


def _setup(doc: MDict, si: dict, scene: str, problems: list[Problem]) -> Setup:
    from pipeline.control.fsm import ExpressionError, compile_expression
    from pipeline.simulate.metrics import METRICS

    metrics = plain(doc.get("metrics", {}))
    for name, spec in metrics.items():
        kind = spec if isinstance(spec, str) else spec.get("metric")
        if kind not in METRICS:
            problems.append(doc["metrics"].value_mark(name).problem(
                f"unknown metric {kind!r}{did_you_mean(str(kind), METRICS)} (known: {', '.join(sorted(METRICS))})",
                f"metrics.{name}"))
    fitness = doc["fitness"]
    expression = fitness if isinstance(fitness, str) else None
    if expression is not None:
        try:
            compile_expression(expression, {n: i for i, n in enumerate([*metrics, "simulated_time"])})
        except ExpressionError as exc:
            problems.append(doc.value_mark("fitness").problem(
                f"{exc} (the fitness may use the names in `metrics` and simulated_time)", "fitness"))
    evaluation = si.get("evaluation", {})
    stop = evaluation.get("stop")
    if stop is not None and ("below" in stop) == ("above" in stop):
        problems.append(doc["evaluation"].value_mark("stop").problem(
            "stop needs exactly one of `below` and `above`", "evaluation.stop"))
        stop = None
    return Setup(
        scene=scene, duration=evaluation.get("duration"), chunk=float(evaluation.get("chunk", 0.5)),
        stop=Stop(stop["body"], "xyz".index(stop.get("quantity", "z")), float(stop.get("below", stop.get("above"))),
                  "above" in stop, where_of(doc["evaluation"]["stop"].value_mark("body"), "evaluation.stop.body"))
        if stop else None,
        time_limit=evaluation.get("time_limit"), metrics=metrics, fitness=expression,
        python=None if expression is not None else fitness["python"],
        where=where_of(doc.value_mark("fitness"), "fitness"))
