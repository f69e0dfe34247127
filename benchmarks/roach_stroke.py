"""How far the roach's leg joints follow their motor programs in stance (issue 15, D4): per
leg and joint, the change of the joint angle over a stance against the change of its
spring's rest angle (what the program commands), and the mean lag q - rest, over steady
walking t in [1, 2.5] s of the bundled scenes.

    .venv/bin/python benchmarks/roach_stroke.py [roach_tripod.yaml roach_sticky.yaml]

With no-slip feet the body advances by what the stance legs actually sweep, so a joint
that makes only part of its programmed excursion shortens the stride. A diagnostic of the
model, not a speed: there is no peer figure to print beside it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402

LEGS = ("fl", "fr", "ml", "mr", "bl", "br")  # the order of the gait_swing channel


def stances(swing: np.ndarray) -> list[tuple[int, int]]:
    """(first, last + 1) frames of each whole stance (swing 0) longer than 20 frames."""
    runs, start = [], None
    for i, s in enumerate(swing):
        if s == 0 and start is None:
            start = i
        elif s != 0 and start is not None:
            if start > 0 and i - start > 20:
                runs.append((start, i))
            start = None
    return runs


def measure(scene: str, t0: float = 1.0, t1: float = 2.5):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / scene))
    m = sim.model
    sim.run(t0, progress=False)
    q, rest, swing = [], [], []
    for _ in range(int(round((t1 - t0) / sim.dt))):
        sim.step(1)
        q.append(sim.data.q.copy())
        rest.append(sim.data.y[m.nq + m.nv:].copy())
        swing.append(sim.data.channels["gait_swing"].copy())
    q, rest, swing = np.array(q), np.array(rest), np.array(swing)
    names = list(m.body_names)
    for k, leg in enumerate(LEGS):
        runs = stances(swing[:, k])
        cells = []
        for j in range(3):
            b = names.index(f"leg_{leg}{j}")
            qa, va = m.tree.qadr[b], m.tree.vadr[b]
            dq = np.mean([q[e - 1, qa] - q[s, qa] for s, e in runs])
            dr = np.mean([rest[e - 1, va] - rest[s, va] for s, e in runs])
            lag = np.mean([np.mean(q[s:e, qa] - rest[s:e, va]) for s, e in runs])
            cells.append(f"{dq:+.2f} / {dr:+.2f} ({lag:+.2f})")
        print(f"  {leg}  {len(runs):2d}   " + "   ".join(f"{c:>22}" for c in cells))


def main() -> None:
    for scene in sys.argv[1:] or ["roach_tripod.yaml", "roach_sticky.yaml"]:
        print(f"{scene}: per stance, joint change / rest change, rad (mean q - rest)")
        print("  leg  n   " + "   ".join(f"{'joint ' + str(j) + (' (coxa)', ' (femur)', ' (tibia)')[j]:>22}" for j in range(3)))
        measure(scene)


if __name__ == "__main__":
    main()
