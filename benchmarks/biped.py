"""Biped walking speed (Coros, issue 18): simulated seconds per wall second of one humanoid
(creatures/biped.yaml, 37 DOF) under the biped_walk controller in scenes/biped_walk.yaml,
on one core, numba cache warm, beside MuJoCo stepping dm_control's humanoid
(suite/humanoid.xml, 27 DOF, its own contacts, zero controls) at the same physics step, in
one run, as a ratio. The controller runs inside the step loop at every frame (dt), with no Python
between frames (pipeline/control/biped_frames.py).

    .venv/bin/python benchmarks/biped.py [--duration 2]

Goal (issue 18): at least 10x real time; the thesis ran at 1x in 2010 (ODE, 0.5 ms).
The machine is shared: each row also gives CPU seconds and the load average at its end.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402


def ours(duration: float):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "biped_walk.yaml"))
    sim.step(10)  # kernels loaded, controller warm
    frames = int(round(duration / sim.dt))
    w0, c0 = time.perf_counter(), time.process_time()
    sim.step(frames)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return wall, cpu, sim.h, sim.dt


def mujoco_humanoid(duration: float, h: float):
    import mujoco
    spec = importlib.util.find_spec("dm_control")
    xml = Path(next(iter(spec.submodule_search_locations))) / "suite" / "humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(xml))
    model.opt.timestep = h
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data)
    steps = int(round(duration / h))
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    return time.perf_counter() - w0, time.process_time() - c0, model.nv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=2.0, help="simulated seconds (default 2)")
    args = ap.parse_args()
    wall, cpu, h, dt = ours(args.duration)
    load = os.getloadavg()[0]
    print(f"corpus biped_walk (37 DOF, h = {h:g} s, controller every {dt:g} s): "
          f"{args.duration / wall:.2f} simulated s per wall s, {args.duration / cpu:.2f} per CPU s "
          f"({wall:.2f} s wall, {cpu:.2f} s CPU), "
          f"load {load:.1f}")
    mwall, mcpu, nv = mujoco_humanoid(args.duration, h)
    print(f"MuJoCo dm_control humanoid ({nv} DOF, h = {h:g} s): {args.duration / mwall:.1f} simulated s "
          f"per wall s, {args.duration / mcpu:.1f} per CPU s ({mwall:.2f} s wall, {mcpu:.2f} s CPU), "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"ratio corpus / MuJoCo (simulated s per second): wall {mwall / wall:.3f}, CPU {mcpu / cpu:.3f}")


if __name__ == "__main__":
    main()
