"""In-memory evaluation overhead: N `pipeline.evaluate` calls of one scene in one process
against the same N simulations alone, and one `corpus run` of the scene beside them.

    .venv/bin/python benchmarks/evaluate.py [--scene scenes/roach_drop.yaml] [--calls 100]
                                            [--duration 0.05]

"simulation alone" is `sim.reset(); sim.run(duration)` on a Simulation compiled beforehand:
the floor any evaluation path can reach. The evaluate calls include everything a user pays
(the first call loads and compiles the scene, the others find it cached) and the metrics.
`--duration` shortens each run (default 0.05 s of the 1.5 s scene) so the per-call overhead
weighs as much as it can; pass the scene's own duration for the full runs. The `corpus run`
line is one process start, load, compile, simulate of the same duration and export without
frames or video (`--no-frames`: data, glTF and plots).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402

METRICS = {"forward": {"metric": "displacement", "axis": "x"}, "fell": {"metric": "fell"}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scene", default=str(ROOT / "scenes" / "roach_drop.yaml"))
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--duration", type=float, default=0.05)
    args = ap.parse_args()

    sim = pipeline.compile(pipeline.load(args.scene))
    sim.run(0.01, progress=False)  # loads (or compiles) the kernels for both timings
    start = time.perf_counter()
    for _ in range(args.calls):
        sim.reset()
        sim.run(args.duration, progress=False)
    alone = time.perf_counter() - start

    start = time.perf_counter()
    first = None
    for i in range(args.calls):
        pipeline.evaluate(args.scene, metrics=METRICS, duration=args.duration)
        if i == 0:
            first = time.perf_counter() - start
    evaluated = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.cli", "run", args.scene, "--out", out,
                        "--duration", str(args.duration), "--no-frames", "--quiet"], check=True)
        one_run = time.perf_counter() - start

    name = Path(args.scene).stem
    print(f"{name}: {args.calls} runs of {args.duration:g} s simulated, one process")
    print(f"{'simulation alone':38s} {alone:8.2f} s  ({alone / args.calls * 1e3:7.1f} ms per run)")
    print(f"{'pipeline.evaluate':38s} {evaluated:8.2f} s  ({evaluated / args.calls * 1e3:7.1f} ms per call;"
          f" the first {first * 1e3:.0f} ms)")
    print(f"{'ratio evaluate / simulation alone':38s} {evaluated / alone:8.3f}x  (goal <= 1.1x)")
    print(f"{'one `corpus run` (new process)':38s} {one_run:8.2f} s  "
          f"({one_run / (alone / args.calls):.0f}x one simulation alone)")


if __name__ == "__main__":
    main()
