"""docs/img/biped_speeds.png: Coros W2 (issue 18, docs/biped.md): the COM speed along the
heading (mean over each 0.5 s) of scenes/biped_speeds.yaml at each commanded speed of its
sweep, 30 s from standing, against the command; a run that falls ends with an x.

    .venv/bin/python benchmarks/biped_speeds_figure.py docs/img/biped_speeds.png
"""
import sys
from pathlib import Path

import matplotlib
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import pipeline  # noqa: E402

SPEEDS = (-0.6, -0.3, 0.0, 0.3, 0.6, 1.0, 1.4, 1.7)
fig, ax = plt.subplots(figsize=(10, 5))
for i, speed in enumerate(SPEEDS):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "biped_speeds.yaml"))
    walk = sim.data.user["biped_walk"]["biped"]
    sim.step(1)
    walk.command({"speed": speed})
    rows = [(sim.data.time, sim.sensors.com()[0][0])]
    while sim.data.time < 30.0 - 1e-9 and not walk.fell:
        sim.step(500)
        rows.append((sim.data.time, sim.sensors.com()[0][0]))
    r = np.array(rows)
    t, v = r[1:, 0], np.diff(r[:, 1]) / np.diff(r[:, 0])
    color = plt.cm.viridis(i / (len(SPEEDS) - 1))
    ax.plot(t, v, color=color, label=f"V_d = {speed:+.1f}" + (" (fell)" if walk.fell else ""))
    ax.axhline(speed, color=color, ls="--", lw=0.8)
    if walk.fell:
        ax.plot(t[-1], v[-1], "x", color=color, ms=9, mew=2)
    tail = r[:, 0] >= 20.0 - 1e-9
    mean = (r[tail][-1, 1] - r[tail][0, 1]) / 10.0 if not walk.fell else float("nan")
    print(f"V_d {speed:+.1f}: fell {walk.fell} at {sim.data.time:.1f} s, mean COM speed over 20-30 s {mean:+.3f}")
ax.set_xlabel("t (s)")
ax.set_ylabel("COM speed along x (m/s), 0.5 s means")
ax.set_title("scenes/biped_speeds.yaml: COM speed against the commanded V_d (dashed)")
ax.legend(fontsize=8, ncol=2, loc="upper left")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=80)
