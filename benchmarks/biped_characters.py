"""Coros's C1-C4 (issue 18; docs/biped.md, Characters): every generated character walks W1
from standing at 1 m/s x sqrt(leg / BipV3's leg) with the controller's defaults, for
20 m / V_d + 4 s or until it falls; one line each, then how many walked 20 m.

    .venv/bin/python benchmarks/biped_characters.py                  # all 20
    .venv/bin/python benchmarks/biped_characters.py biped_robot r07  # some

tests/test_biped_characters.py (slow) asserts the runs that reach their goals, with the
functions below.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402

BIPV3_LEG = 0.86  # hip to ankle, m
CHARACTERS = ["biped_small", "biped_large", "biped_robot", "biped_beast"] + [f"biped_crowd/r{i:02d}" for i in range(16)]


def walking_scene(creature, speed: float, duration: float, **walk) -> dict:
    """scenes/biped_w1.yaml for another creature file: from standing, walk at `speed`."""
    return {"scene": "character_walk",
            "environment": {"environment": "flat", "gravity": 9.8, "ground": {"type": "flat", "z": 0},
                            "material": {"friction": 0.8, "restitution": 1, "k": 100000, "b": 1000,
                                         "exp_alpha": 0, "max_depth": 0.05}},
            "creatures": [{"use": str(creature)}],
            "controllers": [{"controller": "walk", "kind": "biped_walk", "creature": creature.stem,
                             "biped_walk": {"mode": "stand", "speed": 0, "step_time": 0.6, "knee_bend": 0, **walk}}],
            "timeline": [{"at": 0, "do": {"walk": {"speed": speed}}}],
            "simulation": {"duration": duration, "dt": 0.001, "integrator": "implicit_euler", "h": 0.0005,
                           "record_every": 10}}


def leg_length(sim) -> float:
    """Hip to ankle, the mean of the two legs (m)."""
    pose = sim.sensors.body_pose
    return float(np.mean([np.linalg.norm(pose(f"{s}_upper_leg")[0] - pose(f"{s}_foot")[0]) for s in ("left", "right")]))


def walks_twenty_metres(path: Path) -> dict:
    """W1 for a character: from standing at 1 m/s x sqrt(leg / BipV3's leg) (Froude scaling;
    digest §8.2 C1) for 20 m / V_d + 4 s or until it falls: V_d, whether it fell, when the run
    ended, how far its COM went and its mean speed over the run's last 10 s."""
    probe = pipeline.compile(pipeline.load(path))
    speed = math.sqrt(leg_length(probe) / BIPV3_LEG)
    duration = math.ceil(10.0 * (20.0 / speed + 4.0)) / 10.0  # whole frames
    sim = pipeline.compile(pipeline.load(walking_scene(path, speed, duration)))
    walk = sim.data.user["biped_walk"][path.stem]
    x0 = sim.sensors.com()[0]
    trace = []
    while sim.data.time < duration - 1e-9 and not walk.fell:
        sim.step(100)
        trace.append((sim.data.time, *sim.sensors.com()[0][:2]))
    trace = np.array(trace)
    last = trace[trace[:, 0] >= trace[-1, 0] - 10.0]
    return {"speed": speed, "fell": walk.fell, "time": float(sim.data.time),
            "distance": float(trace[-1, 1] - x0[0]),
            "mean_speed": float(np.linalg.norm(last[-1, 1:] - last[0, 1:]) / (last[-1, 0] - last[0, 0]))}


def report(name: str, run: dict) -> None:
    print(f"{name}: V_d {run['speed']:.3f} m/s, {run['distance']:.2f} m in {run['time']:.1f} s, "
          f"{'fell' if run['fell'] else 'no fall'}, last 10 s {run['mean_speed']:.3f} m/s")


def main(names: list[str]) -> None:
    walked = 0
    for name in names or CHARACTERS:
        start = time.process_time()
        run = walks_twenty_metres(ROOT / "creatures" / f"{name}.yaml")
        report(Path(name).name, run)
        walked += not run["fell"] and run["distance"] >= 20.0
        print(f"    {time.process_time() - start:.1f} s CPU")
    print(f"{walked} of {len(names or CHARACTERS)} walked 20 m without a fall")


if __name__ == "__main__":
    main(sys.argv[1:])
