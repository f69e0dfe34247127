"""An individual as a scene file that `corpus run` replays, and its video.

The scene is the base scene's canonical document (includes as absolute paths) with the
individual's overrides, the evaluation's duration and the individual's simulation seed, so
`corpus run best.yaml` simulates what the evaluation simulated (past its stop condition,
which a scene of the particle engine cannot express: the header says where it stopped).
"""
from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from pipeline.fileio import atomic_write_text
from pipeline.spec.assets import ASSET_ROOT
from pipeline.spec.loader import plain
from pipeline.spec.paths import set_path


def individual_scene(evo, genotype, seed: int) -> dict:
    doc = copy.deepcopy(evo.scene_source)
    for path, value in evo.space.phenotype(genotype).items():
        set_path(doc, path, plain(value))
    set_path(doc, "simulation.seed", int(seed))
    if evo.setup.duration is not None:
        set_path(doc, "simulation.duration", float(evo.setup.duration))
    return doc


def write_individual(path: Path, evo, best, metrics: dict | None = None) -> Path:
    """best: a checkpoint.Best. Writes the scene YAML with a header saying what it is."""
    schema = os.path.relpath(ASSET_ROOT / "schemas" / "scene.schema.json", Path(path).resolve().parent)
    lines = [f"# yaml-language-server: $schema={schema}",
             f"# {evo.name} (corpus evolve {Path(evo.file).name}, seed {evo.seed}): the best individual "
             f"up to generation {best.generation}",
             f"# (generation {best.generation}, individual {best.index}), fitness {best.fitness!r}"]
    if metrics:
        lines.append("# metrics: " + ", ".join(f"{k} = {v!r}" for k, v in metrics.items()))
    if evo.setup.stop is not None:
        s = evo.setup.stop
        lines.append(f"# its evaluation stopped when {s.body} {'xyz'[s.axis]} went "
                     f"{'above' if s.rising else 'below'} {s.level:g} m; this replay runs the full duration")
    body = yaml.safe_dump(individual_scene(evo, best.genotype, best.seed), sort_keys=False, width=100)
    atomic_write_text(path, "\n".join(lines) + "\n" + body)
    return Path(path)


def write_genotype(path: Path, evo, best) -> Path:
    """The individual's genotype as YAML that the space reads back exactly (`from_data`)."""
    data = {"evolution": evo.name, "generation": best.generation, "index": best.index, "seed": best.seed,
            "fitness": float(best.fitness), "genotype": evo.space.to_data(best.genotype)}
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False))
    return Path(path)


def render(scene_file: Path, out_dir: Path) -> Path:
    """`corpus run` of a best scene into `out_dir` (video, glTF, plots as the scene asks)."""
    from pipeline.run import run_scene

    return run_scene(scene_file, out_dir, quiet=True).out_dir
