"""Walking-roach simulation speed (McKenna D10, issue 15): wall and CPU time and derivative
evaluations per 1/1200 s of the bundled `roach_tripod` and `roach_sticky` scenes, in one
run, on one core, numba cache warm; optionally RK4 at the step where it is converged
(2.5 us) and at the largest step where it is stable (5 us) for comparison.

    .venv/bin/python benchmarks/roach.py [--duration 3] [--rk4 --rk4-duration 0.5]

Goals: 3 s of roach_tripod in under 10 s and of roach_sticky in under 15 s. The machine
is shared, so each row also gives the process's CPU time and the load average at its end:
CPU time is what the run cost, wall time what it cost on this machine just now.
RK4 is timed over a shorter stretch (--rk4-duration) and scaled to --duration: its cost
per simulated second is steady once the roach walks. The thesis needed about 4 minutes
of wall time per 1/1200 s on its 1990 hardware with ~100 evaluations per 1/1200 s (RKF45).
There is no peer figure here: MuJoCo or Pinocchio would simulate a different contact
model, so a ratio would not compare like with like.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from pipeline.physics.integrators import INTEGRATORS  # noqa: E402

THESIS_EVALS_PER_1200TH = 100
THESIS_SECONDS_PER_1200TH = 240.0


def timed_run(scene: str, integrator: str | None, h: float | None, duration: float):
    """(wall s, CPU s, evaluations per 1/1200 s) for `duration` of a scene after a short
    warm-up run (the warm-up also compiles or loads the kernels)."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / scene))
    if integrator:
        sim.method, sim.h = INTEGRATORS[integrator], h
    sim.run(0.02, progress=False)
    evals0 = sim.stats()["derivative_evaluations"]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    sim.run(duration, progress=False)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    evals = sim.stats()["derivative_evaluations"] - evals0
    return wall, cpu, evals / (duration * 1200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--rk4", action="store_true", help="also time RK4 at 5 and 2.5 us")
    ap.add_argument("--rk4-duration", type=float, default=0.5)
    args = ap.parse_args()
    spec = pipeline.load(ROOT / "scenes" / "roach_tripod.yaml")
    model, scene = pipeline.compile(spec).model, spec.simulation
    bundled = f"{scene.integrator}, h = {scene.h * 1e6:g} us"
    rows = [(f"roach_tripod, {bundled}", "roach_tripod.yaml", None, None, args.duration, 10.0),
            (f"roach_sticky, {bundled}", "roach_sticky.yaml", None, None, args.duration, 15.0)]
    if args.rk4:
        rows += [(f"roach_tripod, rk4, h = {h * 1e6:g} us", "roach_tripod.yaml", "rk4", h,
                  args.rk4_duration, None) for h in (5e-6, 2.5e-6)]
    print(f"{args.duration:g} s simulated ({model.nv} DOF, {len(model.contact.point_body)} "
          f"contact points); thesis: ~{THESIS_EVALS_PER_1200TH} evaluations and "
          f"{THESIS_SECONDS_PER_1200TH:g} s per 1/1200 s")
    print(f"{'scene, integrator':38s} {'wall':>8s} {'CPU':>8s} {'goal':>6s} "
          f"{'evals/1200th':>13s} {'vs thesis':>10s} {'load avg':>9s}")
    for label, scene_file, integrator, h, duration, goal in rows:
        wall, cpu, per = timed_run(scene_file, integrator, h, duration)
        scale = args.duration / duration
        wall, cpu = wall * scale, cpu * scale
        faster = THESIS_SECONDS_PER_1200TH * 1200 * args.duration / wall
        scaled = "" if duration == args.duration else f" (from {duration:g} s)"
        print(f"{label:38s} {wall:7.1f}s {cpu:7.1f}s {'<' + format(goal, 'g') if goal else '':>6s} "
              f"{per:13.1f} {faster:8.0f}x {os.getloadavg()[0]:9.2f}{scaled}")


if __name__ == "__main__":
    main()
