"""Batched rollouts (issue 20): N dm_control humanoids x 400 steps at MuJoCo's 5 ms, falling
from N perturbed starts, in one parallel kernel call (`pipeline.simulate.rollout`, numba
prange over the cores) beside `mujoco.rollout` with as many threads, in one run, as steps
per second and their ratio.

    .venv/bin/python benchmarks/rollout.py [--n 48] [--steps 400] [--threads 2] [--repeat 3]

corpus runs the scene `corpus convert --as scene` writes (implicit Euler at h = dt on the
converted ground; its motors controller holds at zero commands), MuJoCo the same file with
zero controls. Both record every step's state. The starts: the model's initial pose with
joint velocities ~ N(0, 0.5) rad/s (the same numbers for both, in each one's coordinates).
The two alternate --repeat times (best kept), so both meet the same load on shared cores;
the CPU time of all the process's threads is printed beside the wall time.
Goal (issue 20): corpus / MuJoCo >= 1.0 on 2 cores.
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
from mujoco import rollout as mj_rollout  # noqa: E402

import pipeline  # noqa: E402
from import_mujoco import model_id, zoo  # noqa: E402
from pipeline.simulate.rollout import rollout_states  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import numba

    numba.set_num_threads(args.threads)
    source = next(p for p in zoo() if model_id(p) == "suite/humanoid")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        scene = Path(tmp) / "humanoid.yaml"
        (Path(tmp) / "corpus.toml").write_text("")
        subprocess.run([sys.executable, "-m", "pipeline.cli", "convert", str(source), "--as", "scene", "-o",
                        str(scene)], check=True, capture_output=True)
        sim = pipeline.compile(pipeline.load(scene))
    m = mujoco.MjModel.from_xml_path(str(source))
    # joint velocities of the hinges (the same in both: the importer keeps MuJoCo's DOF order)
    hinge_qd = rng.normal(0.0, 0.5, (args.n, m.nv - 6))
    states = np.tile(sim.data.y, (args.n, 1))
    states[:, sim.model.nq + 6:sim.model.nq + sim.model.nv] = hinge_qd
    rollout_states(sim, states[:1], 2)  # kernel loaded

    datas = [mujoco.MjData(m) for _ in range(args.threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    d = mujoco.MjData(m)
    init = np.zeros((args.n, mujoco.mj_stateSize(m, spec)))
    for i in range(args.n):
        mujoco.mj_resetData(m, d)
        d.qvel[6:] = hinge_qd[i]
        mujoco.mj_getState(m, d, init[i], spec)
    control = np.zeros((args.n, args.steps, m.nu))
    mj_rollout.rollout(m, datas, init[:1], control[:1, :2])
    # the two alternate, so that both meet the same load on the shared cores
    best, best_mj = [float("inf")] * 2, [float("inf")] * 2
    runs = None
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        runs = rollout_states(sim, states, args.steps)
        best = [min(best[0], time.perf_counter() - t0), min(best[1], time.process_time() - c0)]
        t0, c0 = time.perf_counter(), time.process_time()
        mj_rollout.rollout(m, datas, init, control)
        best_mj = [min(best_mj[0], time.perf_counter() - t0), min(best_mj[1], time.process_time() - c0)]
    failed = sum(e is not None for e in runs.errors)
    steps = args.n * args.steps
    ours, theirs = steps / best[0], steps / best_mj[0]
    print(f"{args.n} humanoids x {args.steps} steps of 5 ms, {args.threads} threads, load "
          f"{os.getloadavg()[0]:.1f}: corpus rollout {ours:,.0f} steps/s ({best[0]:.3f} s, {failed} failed), "
          f"mujoco.rollout {theirs:,.0f} steps/s ({best_mj[0]:.3f} s); ratio corpus / MuJoCo {ours / theirs:.2f}; "
          f"CPU time (all threads) {best[1]:.3f} s against {best_mj[1]:.3f} s, steps per CPU second ratio "
          f"{best_mj[1] / best[1]:.2f}")


if __name__ == "__main__":
    main()
