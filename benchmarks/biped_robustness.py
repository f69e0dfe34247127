"""Coros W9 and W11 (issue 18, digest seed-002-coros.md §8.1): the walking biped with every
kp x2 and x0.5 (kd = 2 sqrt(kp)), and with the IPM offset alpha in {0, 0.05, 0.1} (alpha = 0
only at |V_d| <= 0.4). Each variant walks 30 s from standing (scenes/biped_speeds.yaml);
printed: a fall, the mean COM speed over the last 10 s, and the cycle's symmetry (the mean
durations of left and right stances over the last 10 s).

    .venv/bin/python benchmarks/biped_robustness.py
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402

DURATION = 30.0
# (test, controller parameters fixed at compile time, runtime parameters, V_d)
VARIANTS = [("W9 kp x2", {"kp_scale": 2.0}, {}, 0.6),
            ("W9 kp x0.5", {"kp_scale": 0.5}, {}, 0.6),
            ("W11 alpha 0", {}, {"alpha": 0.0}, 0.3),
            ("W11 alpha 0.05", {}, {"alpha": 0.05}, 0.3),
            ("W11 alpha 0.05", {}, {"alpha": 0.05}, 0.6),
            ("W11 alpha 0.1", {}, {"alpha": 0.1}, 0.3),
            ("W11 alpha 0.1", {}, {"alpha": 0.1}, 0.6)]


def compiled(fixed: dict):
    """scenes/biped_speeds.yaml with the controller's compile-time parameters changed."""
    doc = yaml.safe_load((ROOT / "scenes" / "biped_speeds.yaml").read_text())
    doc.pop("sweep")
    doc["creatures"][0]["use"] = str(ROOT / "creatures" / "biped.yaml")
    doc["controllers"][0]["biped_walk"].update(fixed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scene.yaml"
        path.write_text(yaml.safe_dump(doc))
        return pipeline.compile(pipeline.load(path, allow_outside=True))


def walk(fixed: dict, runtime: dict, speed: float) -> tuple[bool, float, float, float]:
    """(fell, mean COM speed over the last 10 s, mean left and right stance durations)."""
    sim = compiled(fixed)
    c = sim.data.user["biped_walk"]["biped"]
    sim.step(1)  # the scene's t = 0 command, then ours
    c.command({"speed": speed, **runtime})
    sim.step(int(round((DURATION - 10.0) / sim.dt)) - 1)
    x0 = sim.sensors.com()[0]
    sim.step(int(round(10.0 / sim.dt)))
    x1 = sim.sensors.com()[0]
    strikes = [(t, side) for t, side, _, _ in c.strikes if t >= DURATION - 10.0]
    stance = {"left": [], "right": []}
    for (t0, side), (t1, _) in zip(strikes, strikes[1:]):
        stance[side].append(t1 - t0)
    return (c.fell, float(np.linalg.norm((x1 - x0)[:2]) / 10.0),
            float(np.mean(stance["left"] or [np.nan])), float(np.mean(stance["right"] or [np.nan])))


def main() -> None:
    for name, fixed, runtime, speed in VARIANTS:
        fell, v, left, right = walk(fixed, runtime, speed)
        print(f"{name:15s} V_d {speed:.1f} m/s: {'FELL' if fell else 'no fall'}, last 10 s {v:.3f} m/s, "
              f"stance left {left:.3f} s / right {right:.3f} s", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
