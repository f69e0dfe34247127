"""The heading, COM speed and foot-strikes of a biped scene (issue 18, docs/biped.md):
docs/img/biped_walk.png of scenes/biped_walk.yaml (the default), docs/img/biped_turns.png of
scenes/biped_turns.yaml.

    .venv/bin/python benchmarks/biped_figure.py docs/img/biped_walk.png
    .venv/bin/python benchmarks/biped_figure.py docs/img/biped_turns.png scenes/biped_turns.yaml
"""
import sys
from pathlib import Path

import matplotlib
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import pipeline  # noqa: E402
scene = sys.argv[2] if len(sys.argv) > 2 else "scenes/biped_walk.yaml"
spec = pipeline.load(ROOT / scene)
sim = pipeline.compile(spec)
c = sim.data.user["biped_walk"]["biped"]
rows = []
while sim.data.time < sim.settings.duration - 1e-9:
    sim.step(10)
    ch = sim.data.channels
    rows.append((sim.data.time, ch["walk_heading"], ch["walk_heading_command"], ch["walk_com_speed"], ch["walk_speed_command"], *sim.sensors.com()[0][:2]))
L = np.array(rows)
fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
ax[0].plot(L[:, 0], np.degrees(L[:, 1]), label="pelvis heading"); ax[0].plot(L[:, 0], np.degrees(L[:, 2]), "--", label="slewed command")
ax[0].set_xlabel("t (s)"); ax[0].set_ylabel("heading (deg)"); ax[0].legend(); ax[0].set_title("heading")
ax[1].plot(L[:, 0], L[:, 3], label="COM speed along the command"); ax[1].plot(L[:, 0], L[:, 4], "--", label="V_d (walk speed)")
ax[1].set_xlabel("t (s)"); ax[1].set_ylabel("m/s"); ax[1].legend(); ax[1].set_title("COM speed")
ax[2].plot(L[:, 5], L[:, 6], "k-", lw=0.8, label="COM")
for t, side, x, y in c.strikes:
    ax[2].plot(x, y, "o" if side == "left" else "s", color="tab:blue" if side == "left" else "tab:red", ms=5)
ax[2].plot([], [], "o", color="tab:blue", label="left stance foot at strike"); ax[2].plot([], [], "s", color="tab:red", label="right")
ax[2].set_aspect("equal"); ax[2].set_xlabel("x (m)"); ax[2].set_ylabel("y (m)"); ax[2].legend(fontsize=8); ax[2].set_title("from above")
fig.suptitle(f"{scene}: {yaml.safe_load((ROOT / scene).read_text())['description']}")
fig.tight_layout(); fig.savefig(sys.argv[1], dpi=80)
print("fell", c.fell, "steps", c.steps)
