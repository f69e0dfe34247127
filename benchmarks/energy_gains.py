"""The energy check's figures (pipeline/runaway.py, docs/simulation.md): how much energy each
scene's run gains that nothing in it gave it, against its margin, weighed but never failed.

    .venv/bin/python benchmarks/energy_gains.py [scenes/*.yaml] [--integrator symplectic_euler --seconds 3]

For each scene: the largest balance reached (and when, sampled every 0.05 s), the balance at
the end, the energy the inputs and dampers moved, and the fixed part of its margin (4 M g L).
Not a speed figure: there is no peer to put beside it.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from pipeline.physics.frames import FLOW, GAIN  # noqa: E402


def gains(path: Path, integrator: str | None, seconds: float | None) -> str:
    doc = yaml.safe_load(path.read_text())
    if integrator:
        doc["simulation"]["integrator"] = integrator
    if seconds:
        doc["simulation"]["duration"] = seconds
    sim = pipeline.compile(pipeline.load(doc, base_dir=path.parent, allow_outside=True))
    if not hasattr(sim, "_energy_margin"):
        return f"{path.name}: the particle engine has no energy check"
    margin = float(sim._energy_margin[0])
    if not math.isfinite(margin):
        return f"{path.name}: no energy check (a prescribed joint)"
    sim._energy_margin = np.array([1e300, 0.0])  # weigh, never fail
    frames, chunk = round(sim.settings.duration / sim.dt), max(1, round(0.05 / sim.dt))
    top, when, done = -math.inf, 0.0, 0
    while done < frames and sim.data.stopped_by < 0:
        sim.step(min(chunk, frames - done))
        done += chunk
        if sim.data.balance[GAIN] > top:
            top, when = float(sim.data.balance[GAIN]), sim.data.time
    b = sim.data.balance
    return (f"{path.name}: largest gain {top:.3g} J at {when:.2f} s, at the end {b[GAIN]:.3g} J; moved "
            f"{b[FLOW]:.3g} J; margin {margin:.3g} J + {sim._margin()[1]:.0%} of what was moved")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*", type=Path, default=sorted((ROOT / "scenes").glob("*.yaml")))
    ap.add_argument("--integrator", help="run every scene with this integrator instead of its own")
    ap.add_argument("--seconds", type=float, help="simulate this long instead of the scene's duration")
    args = ap.parse_args()
    for path in args.scenes:
        print(gains(path, args.integrator, args.seconds), flush=True)


if __name__ == "__main__":
    main()
