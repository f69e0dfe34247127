"""docs/img/biped_speeds.png: Coros W2 (issue 18, docs/biped.md): the COM speed along the
heading (mean over each 0.5 s) of each job of scenes/biped_speeds.yaml's sweep, 30 s from
standing, against the command; a run that falls ends with an x.

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
from pipeline.batch.sweep import jobs_from_file  # noqa: E402

SPEED = "timeline[0].do.walk.speed"


def w2_scenes() -> dict:
    """The sweep's scenes by commanded speed, as `corpus batch scenes/biped_speeds.yaml` runs them."""
    return {job.params[SPEED]: pipeline.load(job.source)
            for job in jobs_from_file(ROOT / "scenes" / "biped_speeds.yaml")}


def main(out: str) -> None:
    scenes = w2_scenes()
    fig, ax = plt.subplots(figsize=(10, 5))
    for i, (speed, scene) in enumerate(scenes.items()):
        sim = pipeline.compile(scene)
        walk = sim.data.user["biped_walk"]["biped"]
        rows = [(sim.data.time, sim.sensors.com()[0][0])]
        while sim.data.time < 30.0 - 1e-9 and not walk.fell:
            sim.step(500)
            rows.append((sim.data.time, sim.sensors.com()[0][0]))
        r = np.array(rows)
        t, v = r[1:, 0], np.diff(r[:, 1]) / np.diff(r[:, 0])
        color = plt.cm.viridis(i / (len(scenes) - 1))
        ax.plot(t, v, color=color, label=f"V_d = {speed:+.1f}" + (" (fell)" if walk.fell else ""))
        ax.axhline(speed, color=color, ls="--", lw=0.8)
        if walk.fell:
            ax.plot(t[-1], v[-1], "x", color=color, ms=9, mew=2)
        tail = r[:, 0] >= 20.0 - 1e-9
        mean = (r[tail][-1, 1] - r[tail][0, 1]) / 10.0 if not walk.fell else float("nan")
        print(f"V_d {speed:+.1f}: fell {walk.fell} at {sim.data.time:.1f} s, "
              f"mean COM speed over 20-30 s {mean:+.3f}")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("COM speed along x (m/s), 0.5 s means")
    ax.set_title("scenes/biped_speeds.yaml: COM speed against the commanded V_d (dashed)")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=80)


if __name__ == "__main__":
    main(sys.argv[1])
