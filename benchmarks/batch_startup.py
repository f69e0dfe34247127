"""Job start-up of `corpus batch` (issue 20): 16 short jobs of dm_control's humanoid (as
`corpus convert --as scene` writes it; 0.1 s simulated each, outputs off, seeds 0-15) through
the local executor, and where each job's wall time goes, from each job's manifest.json.

    .venv/bin/python benchmarks/batch_startup.py [--jobs 1] [--n 16] [--duration 0.1] [--one-by-one]

The sweep's jobs run in groups, simulated together (pipeline/batch/group.py); a job's
simulate_s is then its share of its group's simulating. `--one-by-one` gives the batch a
timeout (an hour), under which every job runs alone: start-up of a job = its wall time (the
batch's summary) less its simulation (manifest timings.simulate_s); the jobs after each
worker's first are the figure (a worker's first job waits for its imports and loads the
kernels, pipeline/batch/warm.py). `--duration 50` gives jobs of about 0.36 s of simulating
each, the "short job" of issue 20's table.
Goals (issue 20): under 50 ms per job after the first; the batch's total wall within 1.2x
the sum of the simulations. There is no MuJoCo counterpart: the ratio is against our own
simulating time.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from import_mujoco import model_id, zoo  # noqa: E402
from pipeline.batch.runner import run_batch  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--duration", type=float, default=0.1)
    ap.add_argument("--one-by-one", action="store_true", help="every job alone (a --timeout of an hour)")
    args = ap.parse_args()
    source = next(p for p in zoo() if model_id(p) == "suite/humanoid")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "corpus.toml").write_text("")
        subprocess.run([sys.executable, "-m", "pipeline.cli", "convert", str(source), "--as", "scene", "-o",
                        str(folder / "humanoid.yaml")], check=True, capture_output=True)
        sweep = folder / "sweep.yaml"
        sweep.write_text(f"sweep: startup\nscene: humanoid.yaml\nparameters:\n"
                         f"  simulation.duration: [{args.duration}]\n"
                         f"  simulation.seed: {list(range(args.n))}\n"
                         f"  outputs: [{{frames: false, video: false, glb: false, plots: false}}]\n")
        t0 = time.perf_counter()
        result = run_batch([str(sweep)], folder / "out", jobs=args.jobs, quiet=True, force=True,
                           timeout=3600.0 if args.one_by_one else None)
        total = time.perf_counter() - t0
        rows = [r for r in result.rows if r["status"] == "done"]
        if len(rows) != args.n:
            raise SystemExit(f"jobs failed: {[r['message'] for r in result.rows if r['status'] != 'done'][:1]}")
        per = []
        for r in rows:
            t = json.loads((Path(r["out_dir"]) / "manifest.json").read_text())["timings"]
            per.append((r["wall_s"], t))
    sims = sum(t["simulate_s"] for _, t in per)
    head = (f"{args.n} humanoid jobs of {args.duration:g} s, --jobs {args.jobs}, load {os.getloadavg()[0]:.1f}: "
            f"total {total:.2f} s wall, simulations {sims:.2f} s (total / simulations {total / sims:.2f})")
    if not args.one_by_one:
        groups = sorted({t.get("together", 1) for _, t in per})
        compiling = max(t.get("kernel_compile_s", 0.0) for _, t in per)  # a group's jobs share one count
        print(f"{head}; in groups of {', '.join(map(str, groups))}; simulating per job {sims / args.n * 1e3:.0f} ms; "
              f"saving {sum(t.get('save_s', 0.0) for _, t in per):.2f} s in all"
              + (f"; numba compiling {compiling:.1f} s (a kernel not in the cache yet)" if compiling > 0.05 else ""))
        return
    startup = [wall - t["simulate_s"] for wall, t in per]
    later = sorted(startup)[:-args.jobs]  # all but the slowest starts (each worker's first job: kernel loading)
    firsts = sorted(range(len(per)), key=lambda i: startup[i])[-args.jobs:]
    rest = [t for i, (_, t) in enumerate(per) if i not in firsts]
    mean = {k: sum(t.get(k, 0.0) for t in rest) / len(rest) * 1e3
            for k in ("load_s", "compile_s", "export_s", "kernel_compile_s")}
    print(f"{head}; start-up per job after each worker's first: mean {1e3 * sum(later) / len(later):.0f} ms "
          f"(load {mean['load_s']:.0f} ms, compile {mean['compile_s']:.0f} ms, export {mean['export_s']:.0f} ms, "
          f"numba {mean['kernel_compile_s']:.0f} ms; the rest is handing the job over, the manifest "
          f"and publishing); the first job: {max(startup) * 1e3:.0f} ms; simulating per job "
          f"{sims / args.n * 1e3:.0f} ms")

if __name__ == "__main__":
    main()
