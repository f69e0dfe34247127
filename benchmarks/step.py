"""Whole step at MuJoCo's step size (issue 20): dm_control's humanoid (5 ms) and gymnasium's
ant (10 ms), converted by `corpus convert --as scene` (implicit Euler at h = dt on the
converted ground), falling onto and resting on the ground from their initial pose, beside
`mujoco.mj_step` on the same file, in one run, as a ratio of wall time per step.

    .venv/bin/python benchmarks/step.py [--seconds 3] [--repeat 3]

Rows: corpus `sim.step(n)` with the scene's controllers removed (zero controls, as MuJoCo's
ctrl = 0; the frames run in one kernel call, pipeline/physics/frames.py), the scene as
converted (its Python `motors` controller, which returns HOLD with constant commands), and
MuJoCo, and the first row again without the energy check (pipeline/runaway.py), whose cost
is printed. Each figure is the
best of --repeat runs from the initial state; the load average is printed beside it
(2 shared cores). Beside the wall time, the CPU time of the stepping thread (both run on
one thread): on shared cores it changes less with the load than the wall time does.
Goal (issue 20): corpus / MuJoCo <= 1.0.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import yaml  # noqa: E402

import pipeline  # noqa: E402
from import_mujoco import model_id, zoo  # noqa: E402

MODELS = {"humanoid": "suite/humanoid", "ant": "gym/ant"}


def convert(name: str, folder: Path) -> tuple[Path, dict]:
    source = next(p for p in zoo() if model_id(p) == MODELS[name])
    out = folder / f"{name}.yaml"
    subprocess.run([sys.executable, "-m", "pipeline.cli", "convert", str(source), "--as", "scene", "-o", str(out)],
                   check=True, capture_output=True)
    return source, yaml.safe_load(out.read_text())


def timed(run, repeat: int) -> tuple[float, float]:
    """(wall, thread CPU) seconds of run(), each the best of `repeat` calls."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.thread_time()
        run()
        cpu = min(cpu, time.thread_time() - c0)
        wall = min(wall, time.perf_counter() - t0)
    return wall, cpu


def ours(doc: dict, folder: Path, steps: int, repeat: int, weigh: bool = True) -> tuple[float, float]:
    sim = pipeline.compile(pipeline.load(doc, base_dir=folder))
    if not weigh:
        sim._energy_margin = np.array([np.inf, 0.0])  # as a scene whose input cannot be weighed
    sim.step(1)  # kernels loaded

    def run():
        sim.reset()
        sim.step(steps)
    return tuple(x / steps for x in timed(run, repeat))


def theirs(source: Path, steps: int, repeat: int) -> tuple[float, float]:
    m = mujoco.MjModel.from_xml_path(str(source))

    def run():
        d = mujoco.MjData(m)
        for _ in range(steps):
            mujoco.mj_step(m, d)
    return tuple(x / steps for x in timed(run, repeat))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="simulated seconds per run (default 3)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (default 3)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "corpus.toml").write_text("")
        for name in MODELS:
            source, doc = convert(name, folder)
            dt = doc["simulation"]["dt"]
            steps = round(args.seconds / dt)
            bare = dict(doc, controllers=[])
            (a, a_cpu), (b, _) = ours(bare, folder, steps, args.repeat), ours(doc, folder, steps, args.repeat)
            c, c_cpu = theirs(source, steps, args.repeat)
            unweighed, unweighed_cpu = ours(bare, folder, steps, args.repeat, weigh=False)
            load = os.getloadavg()[0]
            print(f"{name} (dt = h = {dt:g} s, {steps} steps, load {load:.1f}): corpus {a * 1e6:.1f} us/step "
                  f"(as converted, with its motors controller: {b * 1e6:.1f}), "
                  f"mj_step {c * 1e6:.1f} us/step; ratio corpus / MuJoCo {a / c:.2f} ({b / c:.2f} as converted); "
                  f"CPU time {a_cpu * 1e6:.1f} against {c_cpu * 1e6:.1f} us/step, ratio {a_cpu / c_cpu:.2f}; "
                  f"without the energy check {unweighed * 1e6:.1f} us/step, CPU {unweighed_cpu * 1e6:.1f} "
                  f"(the check costs {(a_cpu / unweighed_cpu - 1) * 100:+.0f}% CPU)")


if __name__ == "__main__":
    main()
