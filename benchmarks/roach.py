"""Walking-roach simulation speed (McKenna D10): wall time and derivative evaluations per
1/1200 s of `scenes/roach_tripod.yaml` with the bundled integrator (implicit Euler,
h = 10 us) beside RK4 at the step where it is converged (2.5 us) and at the largest step
where it is stable (5 us), in one run, on one core, numba cache warm.

    .venv/bin/python benchmarks/roach.py [--duration 3] [--rk4-duration 0.5]

RK4 is timed over a shorter stretch (--rk4-duration) and scaled to --duration: its cost per
simulated second is steady once the roach walks. The thesis needed about 4 minutes of wall
time per 1/1200 s on its 1990 hardware (~100 evaluations per 1/1200 s with RKF45).
There is no peer figure here: MuJoCo or Pinocchio would simulate a different contact model,
so a ratio would not compare like with like.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from pipeline.physics.integrators import INTEGRATORS  # noqa: E402

THESIS_SECONDS_PER_1200TH = 240.0


def timed_run(integrator: str | None, h: float | None, duration: float):
    """Wall seconds and evaluations per 1/1200 s for `duration` of the tripod scene after a
    short warm-up run (the warm-up also compiles or loads the kernels)."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_tripod.yaml"))
    if integrator:
        sim.method, sim.h = INTEGRATORS[integrator], h
    sim.run(0.02, progress=False)
    evals0 = sim.stats()["derivative_evaluations"]
    start = time.perf_counter()
    sim.run(duration, progress=False)
    wall = time.perf_counter() - start
    evals = sim.stats()["derivative_evaluations"] - evals0
    return wall, evals / (duration * 1200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--rk4-duration", type=float, default=0.5)
    args = ap.parse_args()
    spec = pipeline.load(ROOT / "scenes" / "roach_tripod.yaml")
    model, scene = pipeline.compile(spec).model, spec.simulation
    rows = [(f"{scene.integrator}, h = {scene.h * 1e6:g} us (bundled)", None, None,
             args.duration)]
    rows += [(f"rk4, h = {h * 1e6:g} us", "rk4", h, args.rk4_duration) for h in (5e-6, 2.5e-6)]
    print(f"roach_tripod, {args.duration:g} s simulated ({model.nv} DOF, "
          f"{len(model.contact.point_body)} contact points)")
    print(f"{'integrator':34s} {'wall for ' + format(args.duration, 'g') + ' s':>14s} "
          f"{'evals / 1200th':>15s} {'vs bundled':>11s} {'vs thesis':>11s}")
    base = None
    for label, integrator, h, duration in rows:
        wall, per = timed_run(integrator, h, duration)
        wall *= args.duration / duration
        base = base or wall
        thesis = THESIS_SECONDS_PER_1200TH * 1200 * args.duration / wall
        scaled = "" if duration == args.duration else f" (from {duration:g} s)"
        print(f"{label:34s} {wall:12.1f} s {per:15.0f} {wall / base:10.2f}x {thesis:9.0f}x "
              f"faster{scaled}")


if __name__ == "__main__":
    main()
