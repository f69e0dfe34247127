"""Where the humanoid's implicit Euler step goes: CPU time of each part of
`implicit_euler_step` (pipeline/physics/implicit.py), each called in a numba loop from the
state of dm_control's humanoid lying on the ground after --rest seconds at h = dt = 5 ms
(the scene `corpus convert --as scene` writes, zero controls), beside the whole step.

    .venv/bin/python benchmarks/step_parts.py [--rest 3] [--calls 20000]

Each part is timed by the CPU time of this thread (best of 9 loops of --calls calls), so
the figures move less with the load of shared cores than wall time would; the parts run
on the workspace the previous one left, as in a step. The load average is printed.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numba  # noqa: E402

import pipeline  # noqa: E402
from pipeline.physics.aba import articulated_passes, bias_accelerations, body_bias_forces  # noqa: E402
from pipeline.physics.contact.forces import contact_forces  # noqa: E402
from pipeline.physics.contact.linearize import ground_point_derivatives  # noqa: E402
from pipeline.physics.derivative import evaluate  # noqa: E402
from pipeline.physics.implicit import add_contact_inertias, implicit_euler_step  # noqa: E402
from pipeline.physics.kinematics import joint_pass  # noqa: E402
from step import convert  # noqa: E402  (benchmarks/step.py: the converted scene)


@numba.njit
def whole_step(st, lv, wk, y, cs, h, n):
    for _ in range(n):
        implicit_euler_step(st, lv, wk, 0.0, h, y, cs, wk.ynew)


@numba.njit
def forces(st, lv, wk, y, cs, h, n):
    for _ in range(n):
        evaluate(st, lv, wk, 0.0, 0.5 * h, y, cs, wk.cs_cand, wk.k[0], True)


@numba.njit
def kinematics(st, lv, wk, y, cs, h, n):
    nq, nv = st.nq, wk.tau.shape[0]
    for _ in range(n):
        joint_pass(st.tree, y[:nq], y[nq:nq + nv], wk.dyn, True)


@numba.njit
def contact(st, lv, wk, y, cs, h, n):
    w = wk.dyn
    for _ in range(n):
        wk.fext[:, :] = 0.0
        contact_forces(st.contact, 0.0, cs, wk.cs_cand, w.xpos, w.xrot, w.v, wk.fext, wk.shapes)


@numba.njit
def derivatives(st, lv, wk, y, cs, h, n):
    w = wk.dyn
    m = 0
    for _ in range(n):
        m = ground_point_derivatives(st.contact, cs, w.xpos, w.xrot, w.v, wk.lin_body,
                                     wk.lin_point, wk.lin_dfdp, wk.lin_dfdv)
    return m


@numba.njit
def bias(st, lv, wk, y, cs, h, n):
    for _ in range(n):
        body_bias_forces(st.tree, wk.fext, wk.dyn, wk.dyn.pA)


@numba.njit
def inertias(st, lv, wk, y, cs, h, n):
    m = ground_point_derivatives(st.contact, cs, wk.dyn.xpos, wk.dyn.xrot, wk.dyn.v,
                                 wk.lin_body, wk.lin_point, wk.lin_dfdp, wk.lin_dfdv)
    for _ in range(n):
        bias_accelerations(st.tree, lv.gravity, wk.dyn, wk.a0)
        add_contact_inertias(wk, m, h)


@numba.njit
def passes(st, lv, wk, y, cs, h, n):
    kv = wk.k[0][:wk.tau.shape[0]]
    for _ in range(n):
        articulated_passes(st.tree, lv.gravity, wk.tau, wk.diag, kv, wk.dyn)


PARTS = [("whole implicit step", whole_step),
         ("  forces (kinematics, contact, pushes, joint forces)", forces),
         ("    kinematics (joint_pass)", kinematics),
         ("    ground contact forces", contact),
         ("  contact derivatives (analytic, per touching point)", derivatives),
         ("  rigid-body bias forces", bias),
         ("  contact inertias and a0", inertias),
         ("  articulated-body passes", passes)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rest", type=float, default=3.0, help="seconds simulated before timing (default 3)")
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "corpus.toml").write_text("")
        _, doc = convert("humanoid", folder)
        sim = pipeline.compile(pipeline.load(dict(doc, controllers=[]), base_dir=folder))
    sim.step(round(args.rest / sim.dt))
    st, lv, wk = sim._statics, sim._live(), sim._work
    y, cs, h = sim.data.y.copy(), sim.data.cstate.copy(), sim.h
    for name, part in PARTS:
        extra = part(st, lv, wk, y, cs, h, 10)  # compiled
        best = float("inf")
        for _ in range(9):
            c0 = time.thread_time()
            part(st, lv, wk, y, cs, h, args.calls)
            best = min(best, time.thread_time() - c0)
        note = f" ({extra} points touching)" if extra is not None else ""
        print(f"{name:54s} {best / args.calls * 1e6:6.2f} us{note}")
    print(f"humanoid: {len(st.tree.parent)} bodies, {sim.model.nv} DOFs, {len(st.contact.point_body)} contact "
          f"points; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
