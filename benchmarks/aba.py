"""Forward-dynamics speed: ours (numba ABA) beside Pinocchio's, in one run.

    .venv/bin/python benchmarks/aba.py [--quick]

Prints microseconds per forward-dynamics call for a 38-DOF hexapod-shaped tree and a
27-DOF humanoid-shaped tree: ours from a numba loop and per call from Python (the kernel
with preallocated arrays, and the `forward_dynamics` wrapper, which keeps one
workspace per model in a numba StructRef: pipeline.physics.calls), Pinocchio's
`pin.aba` per call from Python, and the ratios. Pinocchio's own C++ time is estimated as
its per-call time minus that of a one-joint model (the binding's fixed cost); compiling
Pinocchio's C++ benchmarks would need Eigen headers the wheel does not ship. Then the O(n) scaling exponent of our
ABA on revolute chains from 8 to 256 links (least-squares slope of log time vs log n).
Each figure is the best of several batches of thread CPU time (time.thread_time), so
that other processes on a busy machine disturb it as little as possible; "vs pin" divides
by the faster of Pinocchio's two ABA conventions.
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
from pipeline.compiler.build import build_model  # noqa: E402
from pipeline.physics import forward_dynamics  # noqa: E402
from pipeline.physics.aba import aba  # noqa: E402
from pipeline.physics.kinematics import make_workspace  # noqa: E402


@numba.njit  # not cached: numba's cache would keep an old `aba` inlined after it changes
def _aba_loop(tree, gravity, q, qd, tau, fext, qdd, w, n):
    for _ in range(n):
        aba(tree, gravity, q, qd, tau, fext, qdd, w)


def best_us(fns, calls, batches):
    """Best time per call (us) of each fn(n) over `batches` rounds of `calls` calls; the
    fns take turns within a round so that all see the same machine load."""
    best = [np.inf] * len(fns)
    for _ in range(batches):
        for k, fn in enumerate(fns):
            n = max(1, calls[k] if isinstance(calls, (list, tuple)) else calls)
            t0 = time.thread_time()
            fn(n)
            best[k] = min(best[k], (time.thread_time() - t0) / n)
    return [b * 1e6 for b in best]


def one_joint_pinocchio():
    """A one-revolute-joint pin.Model: what a pin.aba call costs beyond the dynamics."""
    import pinocchio as pin

    pm = pin.Model()
    j = pm.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "j")
    pm.appendBodyToJoint(j, pin.Inertia.FromBox(1.0, 0.1, 0.1, 0.1), pin.SE3.Identity())
    return pm


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

    def pin_calls(n, convention=pin.Convention.LOCAL):
        for _ in range(n):
            pin.aba(pm, pd, pq, qd, tau, convention)

    def pin_world_calls(n):
        pin_calls(n, pin.Convention.WORLD)

    p1 = one_joint_pinocchio()
    d1 = p1.createData()
    z1 = np.zeros(1)

    def pin_one_joint_calls(n):
        for _ in range(n):
            pin.aba(p1, d1, z1, z1, z1)

    us = best_us([lambda n: _aba_loop(tree, g, q, qd, tau, fext, qdd, w, n), kernel_calls,
                  wrapper_calls, pin_calls, pin_world_calls, pin_one_joint_calls],
                 [calls, calls, calls // 10, calls, calls, calls], batches)
    pin_best = min(us[3], us[4])
    return {
        "ours, numba loop": us[0],
        "ours, kernel from Python": us[1],
        "ours, forward_dynamics()": us[2],
        "pin.aba from Python, LOCAL": us[3],
        "pin.aba from Python, WORLD": us[4],
        "pinocchio, est. C++ (minus call)": pin_best - us[5],
    }, err, pin_best


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
        _aba_loop(model.tree, model.gravity, q, qd, tau, fext, qdd, w, 1)
        times.append(best_us([lambda m: _aba_loop(model.tree, model.gravity, q, qd, tau, fext,
                                                  qdd, w, m)], k, batches)[0])
    slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
    return times, float(slope)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = ap.parse_args(argv)
    calls, batches = (2000, 3) if args.quick else (20000, 7)
    rng = np.random.default_rng(0)
    import pinocchio as pin

    print(f"numba {numba.__version__}, pinocchio {pin.__version__}; best of {batches} batches "
          "of thread CPU time")
    header = f"{'tree':<16}{'DOF':>4}  {'method':<32}{'us/call':>9}{'vs pin':>8}"
    print(header)
    print("-" * len(header))
    for make in (hexapod_creature, humanoid_creature):
        model = build_model(make())
        res, err, pin_us = measure(model, rng, calls, batches)
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
