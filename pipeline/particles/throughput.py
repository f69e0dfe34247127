"""Real-time factor of N roobots hopping side by side on one core (Urban ran five in real
time on a 2001 PC). `python -m pipeline.particles.throughput [N] [seconds]`."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import dataclasses

import pipeline
from pipeline.particles.simulation import compile_particles
from pipeline.particles.spec import resolve_particles, scene_of
from pipeline.particles.types import world_of
from pipeline.spec.loader import read_file
from pipeline.spec.types import Scene

ROOT = Path(__file__).resolve().parents[2]


def roobots_scene(n: int, seconds: float) -> Scene:
    """The roobot_hop scene with n roobots 1 m apart along y."""
    base = pipeline.load(ROOT / "scenes" / "roobot_hop.yaml")
    doc = read_file(ROOT / "creatures" / "roobot.yaml")
    creatures = tuple(resolve_particles(doc, name=f"roobot{i}", at=[{"move": [0, float(i), 0]}])
                      for i in range(n))
    settings = dataclasses.replace(base.simulation, duration=seconds)
    return scene_of(creatures, world_of(base), name=f"roobots_{n}", **dataclasses.asdict(settings))


def real_time_factor(n: int, seconds: float) -> float:
    sim = compile_particles(roobots_scene(n, seconds))
    sim.step(1)  # compile / load the numba cache outside the timing
    start = time.perf_counter()
    sim.step(int(round(seconds / sim.dt)))
    return seconds / (time.perf_counter() - start)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 5
    seconds = float(argv[1]) if len(argv) > 1 else 10.0
    rtf = real_time_factor(n, seconds)
    print(f"{n} roobots, {seconds:g} s simulated: real-time factor {rtf:.2f} "
          f"({'faster' if rtf >= 1 else 'slower'} than real time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
