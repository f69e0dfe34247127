"""Batch throughput: speed-up of 8 roach jobs at --jobs 2 over --jobs 1, and the per-job
overhead of the Dask executor against the local one, measured in one run.

    .venv/bin/python benchmarks/batch.py [--scene scenes/roach_tripod.yaml] [--duration 0.5]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pipeline.batch.runner import run_batch

REPO = Path(__file__).resolve().parents[1]


def sweep_file(folder: Path, scene: Path, duration: float, n: int) -> Path:
    path = folder / "bench_sweep.yaml"
    path.write_text(f"sweep: bench\nscene: {scene.resolve()}\nparameters:\n"
                    f"  simulation.duration: [{duration}]\n"
                    f"  simulation.seed: {list(range(n))}\n"
                    f"  outputs: [{{frames: false, video: false, glb: false, plots: false}}]\n")
    return path


def timed(paths, out, **kwargs) -> float:
    t = time.perf_counter()
    result = run_batch(paths, out, quiet=True, force=True, allow_outside=True, **kwargs)  # sweep file in /tmp
    wall = time.perf_counter() - t
    bad = [r for r in result.rows if r["status"] != "done"]
    if bad:
        raise SystemExit(f"benchmark job failed: {bad[0]['name']}: {bad[0]['message']}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default=str(REPO / "scenes/roach_tripod.yaml"))
    ap.add_argument("--duration", type=float, default=0.5, help="simulated seconds per job")
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sweep = str(sweep_file(tmp, Path(args.scene), args.duration, args.jobs))
        timed([sweep], tmp / "warm", jobs=1, executor="local")  # fill numba's cache first
        one = timed([sweep], tmp / "j1", jobs=1)
        two = timed([sweep], tmp / "j2", jobs=2)
        tiny = str(sweep_file(tmp, Path(args.scene), 0.01, args.jobs))
        local = timed([tiny], tmp / "tl", jobs=2)
        dask = timed([tiny], tmp / "td", jobs=2, executor="dask")
    print(f"scene {Path(args.scene).name}, {args.jobs} jobs of {args.duration} s simulated")
    print(f"{'--jobs 1':>24}: {one:8.2f} s")
    print(f"{'--jobs 2':>24}: {two:8.2f} s   speed-up {one / two:.2f}x (goal >= 1.6x)")
    print(f"{'tiny jobs, local -j2':>24}: {local:8.2f} s   {local / args.jobs * 1e3:7.1f} ms/job")
    print(f"{'tiny jobs, dask -j2':>24}: {dask:8.2f} s   {dask / args.jobs * 1e3:7.1f} ms/job "
          f"(dask overhead {(dask - local) / args.jobs * 1e3:+.1f} ms/job, incl. cluster start)")


if __name__ == "__main__":
    main()
