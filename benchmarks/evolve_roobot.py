"""Urban's roobot experiment (issue 16, docs/evolve.md): what runs of evolutions/roobot_ga.yaml
reached, beside the bundled hand-tuned parameter set.

    for s in 0 1 2 3 4 5; do
      corpus evolve evolutions/roobot_ga.yaml --seed $s --jobs 1 --no-video --out runs/seed$s &
    done; wait
    .venv/bin/python benchmarks/evolve_roobot.py runs/seed* [--plot docs/img/evolve_roobot.png]

Per run: the generations done, the first generation whose best individual hops the whole
60 s without the hip coming down (Urban: fewer than 100 generations), and the best so far
(fitness, forward distance, mean forward speed) at generations 100, 1000 and the last. Then
the bundled creatures/roobot.yaml set through the same evaluation. `--plot` overlays the
runs' best fitness per generation (Urban's Fig. 18).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sqlite3
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.evolve.evaluate import evaluate_individual  # noqa: E402
from pipeline.evolve.plot import plot_runs  # noqa: E402
from pipeline.evolve.spec import load_evolution  # noqa: E402

EVOLUTION = ROOT / "evolutions" / "roobot_ga.yaml"


def best_by_generation(db: sqlite3.Connection) -> list[tuple[int, float, dict]]:
    """(generation, best fitness so far, its metrics) for every finished generation; the best
    is replaced only by a strictly fitter individual, as in the run."""
    finished = [g for g, in db.execute("SELECT generation FROM generations ORDER BY generation")]
    by_generation: dict[int, list] = {}
    for g, f, m in db.execute("SELECT generation, fitness, metrics FROM evaluations WHERE status = 'ok' "
                              "ORDER BY generation, idx"):
        by_generation.setdefault(g, []).append((f, json.loads(m)))
    out, best, metrics = [], -np.inf, {}
    for g in finished:
        for f, m in by_generation.get(g, []):
            if f > best:
                best, metrics = f, m
        out.append((g, best, metrics))
    return out


def describe(g: int, best: float, m: dict, duration: float) -> str:
    return (f"gen {g}: fitness {best:.1f}, survived {m['survival']:.2f} s, forward {m['forward']:.2f} m "
            f"({m['forward'] / m['survival']:.3f} m/s)") if m else f"gen {g}: nothing valid"


def summarise(folder: Path, duration: float) -> int | None:
    db = sqlite3.connect(f"file:{folder / 'evolution.db'}?mode=ro", uri=True)
    rows = best_by_generation(db)
    db.close()
    stable = next((g for g, _, m in rows if m and m["survival"] >= duration - 1e-6), None)
    marks = [rows[k] for k in sorted({min(100, len(rows) - 1), min(1000, len(rows) - 1), len(rows) - 1})]
    print(f"{folder}: {len(rows) - 1} generations; best hops {duration:g} s from generation "
          f"{stable if stable is not None else '(not reached)'}")
    for g, best, m in marks:
        print(f"  {describe(g, best, m, duration)}")
    return stable


def bundled(duration: float) -> None:
    evo = load_evolution(EVOLUTION)
    params = yaml.safe_load((ROOT / "creatures/roobot.yaml").read_text())["controller"]["params"]
    genotype = np.array([params[name] for name in evo.space.names], float)
    setup = dataclasses.replace(evo.setup, time_limit=None)
    result = evaluate_individual((setup, evo.space.phenotype(genotype), 0))
    m = result["metrics"]
    print(f"bundled creatures/roobot.yaml set: fitness {result['fitness']:.1f}, survived {m['survival']:.2f} s, "
          f"forward {m['forward']:.2f} m ({m['forward'] / m['survival']:.3f} m/s)")
    start = evaluate_individual((setup, evo.space.phenotype(evo.space.start), 0))
    m = start["metrics"]
    print(f"guessed start of roobot_ga.yaml: fitness {start['fitness']:.2f}, survived {m['survival']:.2f} s, "
          f"forward {m['forward']:.2f} m")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="run folders of evolutions/roobot_ga.yaml")
    ap.add_argument("--plot", type=Path, help="write the runs' best fitness per generation here")
    args = ap.parse_args()
    duration = load_evolution(EVOLUTION).setup.duration
    stable = [summarise(folder, duration) for folder in args.runs]
    fast = sum(1 for g in stable if g is not None and g < 100)
    print(f"{fast} of {len(stable)} runs hop {duration:g} s in fewer than 100 generations "
          "(Urban: a stable gait in fewer than 100)")
    bundled(duration)
    if args.plot:
        plot_runs(args.runs, args.plot, title=f"roobot_ga: best fitness per generation, {len(args.runs)} runs")
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
