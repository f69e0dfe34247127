"""Why the roach walked in circles (docs/roach.md, issue 15): the figure docs/img/roach_turn.png.

    .venv/bin/python benchmarks/roach_turn.py [-o docs/img/roach_turn.png] [--duration 2.5]

Runs roach_tripod three times: with the creature as the Appendix C script builds it (no
tarsal stops), the same with the gait's schedule mirrored (phase0 = 180 deg: the right
tripod steps first), and the bundled creature (a one-way stop on the middle legs' first
tarsal joints). Plots the abdomen's heading, and the middle legs' first tarsal joint
angle q_ml3(t) beside the mirror of its partner half a cycle later, -q_mr3(t + T/2).
Prints each run's heading change and net speed over t in [0.5, 2.5] s.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from tests.test_roach_walk import heading_change_deg, net_speed, yaw  # noqa: E402

HALF_CYCLE = 0.05  # s, the tripod's half cycle


def without_stops(folder: Path) -> Path:
    """creatures/roach.yaml without its tarsal stops, as the Appendix C script builds it."""
    text = (ROOT / "creatures/roach.yaml").read_text()
    text, n = re.subn(r",\n\s*limits: \{[^}]*\}\}[^\n]*", "}", text)
    assert n == 1, "expected the (mirrored) tarsal stop of creatures/roach.yaml"
    path = folder / "roach_no_stops.yaml"
    path.write_text(text)
    return path


def run(scene: str, duration: float, creature: Path | None = None, phase0: str | None = None):
    doc = {"scene": "roach_turn", "use": f"scenes/{scene}.yaml"}
    if creature:
        doc["creatures"] = [{"use": str(creature), "at": [{"move": [0, 0, "1.9cm"]}]}]
    if phase0:
        gait = {"speed": 1, "go": False, "phase0": phase0, "sticky_feet": scene == "roach_sticky"}
        doc["controllers"] = [{"use": "creatures/roach_gait.yaml", "creature": "roach",
                               "with": {"gait": gait}}]
    sim = pipeline.compile(pipeline.load(doc, base_dir=ROOT, allow_outside=creature is not None))
    rec = sim.run(duration=duration, progress=False)
    tarsus = [sim.model.joint_qpos_slice(f"leg_m{side}3").start for side in "lr"]
    return rec, rec.q[:, tarsus]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=str(ROOT / "docs/img/roach_turn.png"))
    ap.add_argument("--duration", type=float, default=2.5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare = without_stops(Path(tmp))
        runs = {"no stops (Appendix C)": run("roach_tripod", args.duration, bare),
                "no stops, mirrored schedule": run("roach_tripod", args.duration, bare, "180deg"),
                "tarsal stops (bundled)": run("roach_tripod", args.duration)}
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    for label, (rec, tarsus) in runs.items():
        b = rec.body_index("abdomen")
        turn = heading_change_deg(rec, 0.5, 2.5)
        print(f"{label:30s} turn over [0.5, 2.5] s {turn:+7.1f} deg, "
              f"net {100 * net_speed(rec):.2f} cm/s")
        axes[0].plot(rec.time, np.degrees(yaw(rec.body_quat[:, b])),
                     label=f"{label}: {turn:+.0f} deg")
    for ax, label in zip(axes[1:], ("no stops (Appendix C)", "tarsal stops (bundled)")):
        rec, tarsus = runs[label]
        k = int(round(HALF_CYCLE / (rec.time[1] - rec.time[0])))
        ax.plot(rec.time, tarsus[:, 0], label="q_ml3(t)")
        ax.plot(rec.time[:-k], -tarsus[k:, 1], label="-q_mr3(t + T/2)")
        ax.set_ylabel("rad")
        ax.set_title(f"middle legs' first tarsal joint, {label}")
        ax.legend(loc="lower right")
    axes[0].set_ylabel("abdomen heading (deg)")
    axes[0].set_title("roach_tripod from standing, gait from t = 0.2 s")
    axes[0].legend(loc="best", fontsize=8)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
