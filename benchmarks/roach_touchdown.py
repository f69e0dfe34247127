"""When the walking roach's feet land in their step, and why (issue 15, D4; docs/roach.md).

    .venv/bin/python benchmarks/roach_touchdown.py [roach_tripod.yaml roach_sticky.yaml]

Per leg, over steady walking (t in [1, 2.5] s, frame by frame), from the frame its foot
lands (its tibia and tarsi carry more than 1 % of the weight after they carried none in
the step): how far into the 50 ms step it lands, the hip (coxa joint) height then, and
where the leg's lowest box corner would be with the leg at its springs' rest angles (the
program's posture at that instant, and at the step's end), from the body's pose at
touchdown. Negative: the program holds the foot that far below the ground, so the leg
lands before its rest angles get there. Then the standing roach (`roach_drop.yaml` at
0.6 s): each leg's hip height against the height its rest angles would give, and what
each joint's sag takes of it. A diagnostic of the model, not a speed: there is no peer
figure to print beside it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from benchmarks.roach_load import LEGS, box_corners  # noqa: E402
from pipeline.physics import forward_kinematics  # noqa: E402

STEADY = (1.0, 2.5)
LOADED = 0.01  # of the weight: a foot carrying more has landed


class Leg:
    """Leg `name`'s joints and contact bodies in a model."""

    def __init__(self, model, name: str):
        self.model = model
        self.joints = [model.body_names.index(f"leg_{name}{j}") for j in range(5)]
        self.feet = self.joints[2:]  # tibia and the two tarsi touch the ground

    def at_rest(self, q: np.ndarray, rest: np.ndarray, joints=None) -> np.ndarray:
        """q with `joints` (default all five) at their springs' rest angles."""
        q = q.copy()
        for b in self.joints if joints is None else joints:
            q[self.model.tree.qadr[b]] = rest[self.model.tree.vadr[b]]
        return q

    def lowest(self, q: np.ndarray) -> float:
        """Height of the leg's lowest box corner (flat ground at z = 0)."""
        xpos, xrot = forward_kinematics(self.model, q)
        return min((xpos[b] + box_corners(self.model, b) @ xrot[b].T)[:, 2].min() for b in self.feet)

    def hip(self, q: np.ndarray) -> float:
        return forward_kinematics(self.model, q)[0][self.joints[0], 2]


def step_end_rest(sim, leg: int) -> np.ndarray:
    """The rest angles (nv) the leg's step program ends at: every motor's last target."""
    rest = sim.data.y[sim.model.nq + sim.model.nv:].copy()
    gait, = sim.data.user["gait"].values()
    for entry in gait.legs[leg]["step"]:
        motor = entry["do"].get("motor")
        if motor:
            rest[sim.model.tree.vadr[sim.body_index(motor["joint"])]] = motor["etarget"]
    return rest


def touchdowns(scene: str) -> None:
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / scene))
    m = sim.model
    weight = m.total_mass * 9.8
    legs = [Leg(m, name) for name in LEGS]
    sim.run(STEADY[0], progress=False)
    # per stepping leg: its step's start, whether its foot has left the ground and landed
    step = [None] * len(LEGS)
    rows = [[] for _ in LEGS]
    for _ in range(int(round((STEADY[1] - STEADY[0]) / sim.dt))):
        sim.step(1)
        swing = sim.data.channels["gait_swing"]
        fz = sim.sensors.contact_wrenches()[:, 5]
        for k, leg in enumerate(legs):
            if not swing[k]:
                step[k] = None
                continue
            if step[k] is None:
                step[k] = {"t0": sim.data.time, "lifted": False, "landed": False}
            load = fz[leg.feet].sum() / weight
            if load == 0.0:
                step[k]["lifted"] = True
            elif step[k]["lifted"] and not step[k]["landed"] and load > LOADED:
                step[k]["landed"] = True  # the first landing only: a foot may touch again
                q, rest = sim.data.q, sim.data.y[m.nq + m.nv:]
                rows[k].append((sim.data.time - step[k]["t0"], leg.hip(q),
                                leg.lowest(leg.at_rest(q, rest)),
                                leg.lowest(leg.at_rest(q, step_end_rest(sim, k)))))
    print(f"{scene}: lands (ms into its 50 ms step), hip height, lowest corner at the rest "
          f"angles now / at the step's end (cm), mean of n steps in [{STEADY[0]}, {STEADY[1]}] s")
    for name, r in zip(LEGS, rows):
        t, hip, now, end = np.mean(r, axis=0) if r else [np.nan] * 4
        print(f"  {name}  n {len(r):2d}   lands {1000 * t:5.1f} ms   hip {100 * hip:.3f} cm   "
              f"rest posture {100 * now:+.3f} / {100 * end:+.3f} cm")


def standing_sag() -> None:
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_drop.yaml"))
    sim.run(0.6, progress=False)
    m, q = sim.model, sim.data.q
    rest = sim.data.y[m.nq + m.nv:]
    print("roach_drop at 0.6 s: hip height standing / with the leg at its rest angles (cm), "
          "and what each joint's sag (q - rest, rad) lowers the hip by (cm)")
    for name in LEGS[::2]:
        leg = Leg(m, name)

        def height(x):
            return leg.hip(x) - leg.lowest(x)
        lowered = [height(leg.at_rest(q, rest, [b])) - height(q) for b in leg.joints]
        sag = [q[m.tree.qadr[b]] - rest[m.tree.vadr[b]] for b in leg.joints]
        print(f"  {name}  {100 * height(q):.3f} / {100 * height(leg.at_rest(q, rest)):.3f}   "
              + "  ".join(f"j{j} {s:+.2f} rad {100 * d:.3f}" for j, (s, d) in enumerate(zip(sag, lowered))))


def main() -> None:
    for scene in sys.argv[1:] or ["roach_tripod.yaml", "roach_sticky.yaml"]:
        touchdowns(scene)
    standing_sag()


if __name__ == "__main__":
    main()
