"""Forward-dynamics speed: ours (numba ABA) beside Pinocchio's, in one run.

    .venv/bin/python benchmarks/aba.py [--quick]

Prints microseconds per forward-dynamics call for a 38-DOF hexapod-shaped tree and a
27-DOF humanoid-shaped tree: ours from a numba loop and per call from Python (the kernel
with preallocated arrays, and the allocating `forward_dynamics` wrapper), Pinocchio's
`pin.aba` per call from Python, and the ratios. Then the O(n) scaling exponent of our
ABA on revolute chains from 8 to 256 links (least-squares slope of log time vs log n).
Each figure is the best of several timed batches (the least disturbed by other load).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.trees import (chain_creature, hexapod_creature, humanoid_creature,  # noqa: E402
                              pinocchio_model, random_state, to_pin_q)
from pipeline.compile.build import build_model  # noqa: E402
from pipeline.physics import forward_dynamics  # noqa: E402
from pipeline.physics.aba import aba  # noqa: E402
from pipeline.physics.kinematics import make_workspace  # noqa: E402


@numba.njit(cache=True)
def _aba_loop(tree, gravity, q, qd, tau, fext, qdd, w, n):
    for _ in range(n):
        aba(tree, gravity, q, qd, tau, fext, qdd, w)


def best_us(fn, calls, batches):
    """Best time per call (us) over `batches` batches of `calls` calls."""
    best = np.inf
    for _ in range(batches):
        t0 = time.perf_counter()
        fn(calls)
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def measure(model, rng, calls, batches):
    import pinocchio as pin

    q, qd = random_state(model, rng, scale=0.5)
    tau = rng.normal(size=model.nv)
    fext = np.zeros((0, 6))
    qdd = np.zeros(model.nv)
    w = make_workspace(model.nbody, model.nv)
    tree, g = model.tree, model.gravity
    _aba_loop(tree, g, q, qd, tau, fext, qdd, w, 1)

    def kernel_calls(n):
        for _ in range(n):
            aba(tree, g, q, qd, tau, fext, qdd, w)

    def wrapper_calls(n):
        for _ in range(n):
            forward_dynamics(model, q, qd, tau)

    pm, _ = pinocchio_model(model)
    pd = pm.createData()
    pq = to_pin_q(model, q)
    ref = pin.aba(pm, pd, pq, qd, tau)
    kernel_calls(1)
    err = float(np.abs(qdd - ref).max() / max(1.0, np.abs(ref).max()))

    def pin_calls(n):
        for _ in range(n):
            pin.aba(pm, pd, pq, qd, tau)

    return {
        "ours, numba loop": best_us(lambda n: _aba_loop(tree, g, q, qd, tau, fext, qdd, w, n),
                                    calls, batches),
        "ours, kernel from Python": best_us(kernel_calls, calls, batches),
        "ours, forward_dynamics()": best_us(wrapper_calls, max(1, calls // 10), batches),
        "pinocchio pin.aba from Python": best_us(pin_calls, calls, batches),
    }, err


def scaling(rng, sizes, calls, batches):
    times = []
    for n in sizes:
        model = build_model(chain_creature(n))
        q, qd = random_state(model, rng, scale=0.5)
        tau = rng.normal(size=model.nv)
        qdd = np.zeros(model.nv)
        w = make_workspace(model.nbody, model.nv)
        fext = np.zeros((0, 6))
        k = max(10, calls * 8 // n)
        times.append(best_us(lambda m: _aba_loop(model.tree, model.gravity, q, qd, tau, fext,
                                                 qdd, w, m), k, batches))
    slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
    return times, float(slope)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = ap.parse_args(argv)
    calls, batches = (2000, 3) if args.quick else (20000, 7)
    rng = np.random.default_rng(0)
    print(f"numba {numba.__version__}; best of {batches} batches")
    header = f"{'tree':<16}{'DOF':>4}  {'method':<32}{'us/call':>9}{'vs pin':>8}"
    print(header)
    print("-" * len(header))
    for make in (hexapod_creature, humanoid_creature):
        model = build_model(make())
        res, err = measure(model, rng, calls, batches)
        pin_us = res["pinocchio pin.aba from Python"]
        for name, us in res.items():
            print(f"{model.tree_names[0]:<16}{model.nv:>4}  {name:<32}{us:>9.2f}{us / pin_us:>7.2f}x")
        print(f"{'':<22}(qdd agrees with Pinocchio to {err:.1e} relative)")
    sizes = [8, 16, 32, 64, 128, 256]
    times, slope = scaling(rng, sizes, calls // 4, batches)
    print("\nO(n) scaling, revolute chains, numba loop:")
    print("  " + "  ".join(f"n={n}: {t:.2f} us" for n, t in zip(sizes, times)))
    print(f"  fitted exponent {slope:.3f} (goal <= 1.15)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
