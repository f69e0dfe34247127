"""Coros W4 (issue 18, digest seed-002-coros.md §8.1): the walking biped (scenes/biped_speeds.yaml,
V_d = 0.6 m/s) pushed on the torso's mass centre for 0.1 s, in 8 directions (the force's
angle from the heading, counter-clockwise) x 4 gait phases (the push 6.00, 6.15, 6.30 or
6.45 s after the start, in steady walking). A push is survived without a fall within 6 s
after it, and recovered when, besides, the mean COM speed along the heading from 4 to 6 s
after it (more than five steps later) is within 0.15 m/s of V_d.

    .venv/bin/python benchmarks/biped_push.py [--force 600]     # the recovery rate at one force
    .venv/bin/python benchmarks/biped_push.py --curve           # largest force recovered per direction
    .venv/bin/python benchmarks/biped_push.py --set ipm=0       # W14: the same without IPM foot placement
    .venv/bin/python benchmarks/biped_push.py --offset 5        # every push 5 ms later

--curve raises the force in 100 N steps per direction until a phase is not recovered; --set
changes a `walk` parameter before walking starts (repeatable); --offset moves every push by
some milliseconds (one push's outcome can turn on its timing to the millisecond).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402

DIRECTIONS = (0, 45, 90, 135, 180, 225, 270, 315)
PHASES = (0.0, 0.15, 0.3, 0.45)
SPEED = 0.6


def push(force: float, direction: float, phase: float, settings: dict, offset: float = 0.0) -> tuple[bool, bool]:
    """(survived, recovered) of one push, given offset s after its phase's time."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "biped_speeds.yaml"))
    walk = sim.data.user["biped_walk"]["biped"]
    walk.command(settings)
    at = 6.0 + phase + offset
    sim.step(int(round(at / sim.dt)))
    a = math.radians(direction) + walk.heading
    sim.command("push", {"body": "torso", "force": [force * math.cos(a), force * math.sin(a), 0.0],
                         "point": [0.0, 0.0, 0.13], "duration": 0.1})
    sim.step(int(round(4.0 / sim.dt)))
    x4 = sim.sensors.com()[0]
    sim.step(int(round(2.0 / sim.dt)))
    x6 = sim.sensors.com()[0]
    if walk.fell:
        return False, False
    h = walk.heading
    speed = ((x6 - x4)[0] * math.cos(h) + (x6 - x4)[1] * math.sin(h)) / 2.0
    return True, abs(speed - SPEED) <= 0.15


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", type=float, default=600.0, help="N (default 600)")
    ap.add_argument("--curve", action="store_true", help="largest force recovered per direction")
    ap.add_argument("--offset", type=float, default=0.0, help="ms added to every push's time")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a walk parameter, e.g. ipm=0")
    args = ap.parse_args()
    settings = {k: float(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    if args.curve:
        for d in DIRECTIONS:
            best = 0
            for f in range(100, 1001, 100):
                if not all(push(f, d, p, settings, args.offset / 1000)[1] for p in PHASES):
                    break
                best = f
            print(f"direction {d:3d} deg: recovered up to {best} N at every phase", flush=True)
        print(f"load {os.getloadavg()[0]:.1f}")
        return
    survived = recovered = 0
    for d in DIRECTIONS:
        row = [push(args.force, d, p, settings, args.offset / 1000) for p in PHASES]
        survived += sum(s for s, _ in row)
        recovered += sum(r for _, r in row)
        print(f"{args.force:.0f} N at {d:3d} deg: " + " ".join("R" if r else "s" if s else "F" for s, r in row)
              + "  (per phase: R recovered, s survived, F fell)", flush=True)
    n = len(DIRECTIONS) * len(PHASES)
    print(f"{args.force:.0f} N x 0.1 s: survived {survived}/{n}, recovered {recovered}/{n} "
          f"({100 * recovered / n:.0f} %){''.join(f', {k}={v:g}' for k, v in settings.items())}"
          f"{f', offset {args.offset:g} ms' if args.offset else ''}, "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
