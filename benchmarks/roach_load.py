"""Where the walking roach's weight goes and which feet slip (docs/roach.md, issue 15): the
figure docs/img/roach_load.png and its numbers.

    .venv/bin/python benchmarks/roach_load.py [-o docs/img/roach_load.png] [--duration 2.5]
        [--scene roach_tripod --scene roach_sticky ...] [--friction coulomb] [--phases]
        [--density abdomen=100 --density thorax=3000 ...]

Runs each scene with the contact wrench of every body recorded every fourth frame
(`pipeline.simulate.sensors:record_contact_forces`) and reports, over steady walking
(t in [1, 2.5] s), per leg:

* its ground force while in stance (tibia and tarsi; the hind legs stand partly on the
  tibia's distal corner), as a share of the roach's weight;
* the slip of its touching corners: the horizontal velocity, along the abdomen's heading,
  of every box corner of the tibia and the foot (the contact points, digest §3.3) that
  touches the ground (below 30 um) in two consecutive samples, in cm per 50 ms stance.
  Negative: the foot slips backward (the leg pushes harder than its grip); positive: it
  is dragged forward (the leg brakes). The foot's body origin is not used: the tarsus
  rolls about its corners, which moved it 0.1 cm per stance without any slip;
* its ground force along the abdomen's heading in stance (+ pulls or pushes the body
  forward, - brakes), % of the weight, and the yaw moment of its ground force about the
  centre of mass in the first and the second half of its stance (uN m, + turns the roach
  left): the thesis's account of the tripod's wiggle ("The front supporting leg acts as a
  tractor, pulling the center of mass forward, and towards the point of support"; the rear
  leg turns the body the front leg's way early in stance and the other way late in it);
* the centre of mass ahead of the middle and hind feet, the net speed over [0.5, 2.5] s,
  the heading change as in tests/test_roach_walk.py and the abdomen's largest |pitch|.

`--density BODY=KG_M3` walks a throwaway body instead of the bundled one: the named
bodies of creatures/roach.yaml at another density (docs/roach.md, "The tractor"). Before
walking, the body's geometry against that account (`force_lines`): where each left leg's
line from foot to hip crosses the midline at the start and the end of a stance (the
programs' step-end and stance-end postures, unloaded), against the centre of mass, and how
one tripod standing in the initial posture would share the weight.

With `--phases`, per leg also its ground force (vertical and along the heading, % of weight)
through its 0.1 s cycle in 10 ms bins from the start of its step (0-50 ms step, 50-100 ms
stance): where each leg touches and pushes or brakes. These are frame-start samples of the
contact law; the implicit step acts with the force at the step's end, and the samples of
all bodies add up to a few % of the weight forward where their time average must be 0
(printed), so differences of that size are not resolved.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from tests.test_roach_walk import heading_change_deg, net_speed, roll_pitch  # noqa: E402

LEGS = ("fl", "fr", "ml", "mr", "bl", "br")
STEADY = (1.0, 2.5)
STANCE = 0.05  # s, a tripod stance
TOUCH = 3e-5  # m: a corner this close to the ground carries load (the ground spring's depth is ~1 um)


def compile_scene(scene: str, friction: str | None = None,
                  densities: dict[str, float] | None = None):
    """The scene's Simulation with contact forces recorded; `friction` replaces its
    ground's friction model (`coulomb`: corpus's sliding law), `densities` {body: kg/m^3}
    the creature's."""
    doc = {"scene": "roach_load", "use": f"scenes/{scene}.yaml",
           "simulation": {"record_every": 4}}
    if friction:
        doc["environment"] = {"use": "environments/flat.yaml",
                              "with": {"material": {**_sticky(scene), "friction_model": friction}}}
    if densities:
        doc["creatures"] = [dict(c, **{"with": {"bodies": [{"name": b, "density": rho}
                                                           for b, rho in densities.items()]}})
                            for c in _items(scene, "creatures")]
    recorder = {"python": "pipeline.simulate.sensors:record_contact_forces"}
    spec = pipeline.load({**doc, "controllers": [*_items(scene, "controllers"), recorder]},
                         base_dir=ROOT)
    return pipeline.compile(spec)


def _items(scene: str, key: str) -> list:
    """The scene's `controllers` or `creatures` items as written (a `use` chain's last
    word), so that a recorder can be added to them or a creature's bodies overridden."""
    import yaml

    path = ROOT / "scenes" / f"{scene}.yaml"
    while True:
        doc = yaml.safe_load(path.read_text())
        if key in doc:
            return [dict(c, use=f"creatures/{Path(c['use']).name}") if "use" in c else c
                    for c in doc[key]]
        path = path.parent / doc["use"]


def _sticky(scene: str) -> dict:
    """The scene's own sticky-foot material, kept when the friction model is replaced."""
    import yaml

    env = yaml.safe_load((ROOT / "scenes" / f"{scene}.yaml").read_text()).get("environment")
    material = env.get("with", {}).get("material", {}) if isinstance(env, dict) else {}
    return {"sticky": material["sticky"]} if "sticky" in material else {}


def box_corners(model, body: int) -> np.ndarray:
    """The eight corners (8, 3) of a body's box in its frame (its only geom)."""
    g = np.flatnonzero(model.geoms.body == body)[0]
    lo, hi = model.geoms.aabb_lo[g], model.geoms.aabb_hi[g]
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                     for z in (lo[2], hi[2])])


def rotations(quat: np.ndarray) -> np.ndarray:
    w, x, y, z = np.moveaxis(quat, -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)],
                    -2)


def headings(rec) -> np.ndarray:
    """The abdomen's horizontal heading (frames, 2), unit length."""
    x = rotations(rec.body_quat[:, rec.body_index("abdomen")])[:, :2, 0]
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def analyse(sim, rec) -> dict:
    model, t = sim.model, rec.time
    R = rotations(rec.body_quat)
    heading = headings(rec)
    steady = (t >= STEADY[0]) & (t <= STEADY[1])
    weight = model.total_mass * 9.8
    tree = model.tree
    com_w = rec.body_pos + np.einsum("tbij,bj->tbi", R, tree.com)
    com = (tree.mass[None, :, None] * com_w).sum(axis=1) / tree.mass.sum()
    force, slip, pull, yaw = {}, {}, {}, {}
    dt = t[1] - t[0]
    wrench = rec.channels["contact_force"]
    for k, leg in enumerate(LEGS):
        bodies = [rec.body_index(f"leg_{leg}{i}") for i in (2, 3, 4)]
        stance = steady & (rec.channels["gait_swing"][:, k] == 0)
        fz = wrench[:, bodies, 5].sum(axis=1)
        force[leg] = fz[stance].mean() / weight
        f = wrench[:, bodies, 3:5]
        pull[leg] = np.einsum("ti,ti->t", f.sum(axis=1), heading)[stance].mean() / weight
        arm = rec.body_pos[:, bodies, :2] - com[:, None, :2]
        tz = (wrench[:, bodies, 2] + arm[..., 0] * f[..., 1] - arm[..., 1] * f[..., 0]).sum(axis=1)
        late = _since(t, rec.channels["gait_swing"][:, k], -1) >= STANCE / 2
        yaw[leg] = (tz[stance & ~late].mean(), tz[stance & late].mean())
        v = []
        for b in (bodies[0], bodies[2]):
            w = rec.body_pos[:, b, None, :] + np.einsum("tij,cj->tci", R[:, b], box_corners(model, b))
            touching = (w[1:, :, 2] < TOUCH) & (w[:-1, :, 2] < TOUCH) & stance[1:, None]
            vel = np.einsum("tci,ti->tc", w[1:, :, :2] - w[:-1, :, :2], heading[1:]) / dt
            v.append(vel[touching])
        slip[leg] = float(np.concatenate(v).mean()) * STANCE

    def ahead(legs):
        feet = np.mean([rec.body_pos[:, rec.body_index(f"leg_{leg}4")] for leg in legs], axis=0)
        return float(np.einsum("ti,ti->t", (com - feet)[:, :2], heading)[steady].mean())

    pitch = roll_pitch(rec.body_quat[:, rec.body_index("abdomen")])[1]
    return {"force": force, "slip": slip, "pull": pull, "yaw": yaw,
            "com_ahead_middle": ahead(("ml", "mr")), "com_ahead_hind": ahead(("bl", "br")),
            "net": net_speed(rec), "turn": heading_change_deg(rec, 0.5, 2.5),
            "pitch": float(np.degrees(np.abs(pitch)).max())}


def force_lines(model) -> None:
    """Print the body's geometry against the thesis's wiggle account (module docstring),
    in cm along the abdomen's axis from its centre."""
    from pipeline.physics import forward_kinematics
    from tests.test_roach_model import foot_tip, program_targets

    def posture(phase):
        q = model.q0.copy()
        for joint, target in (program_targets(phase) if phase else {}).items():
            q[model.joint_qpos_slice(joint)] = target
        return forward_kinematics(model, q)

    xpos, xrot = posture(None)
    com_w = xpos + np.einsum("bij,bj->bi", xrot, model.tree.com)
    com = (model.tree.mass[:, None] * com_w).sum(axis=0) / model.total_mass - xpos[0]
    print(f"  COM {100 * com[0]:.3f} cm ahead of the abdomen's centre")
    for leg in ("fl", "ml", "bl"):
        crossing = []
        for phase in ("step", "stance"):  # the stance starts at the step's end posture
            xpos, xrot = posture(phase)
            tip = foot_tip(model, xpos, xrot, leg) - xpos[0]
            hip = xpos[model.body_names.index(f"leg_{leg}0")] - xpos[0]
            crossing.append(hip[0] - hip[1] * (hip[0] - tip[0]) / (hip[1] - tip[1]))
        print(f"  {leg}: foot-hip line crosses the midline at {100 * crossing[0]:.3f} "
              f"(stance start) .. {100 * crossing[1]:.3f} cm (stance end)")
    xpos, xrot = posture(None)
    feet = np.array([foot_tip(model, xpos, xrot, leg)[:2] for leg in ("fl", "mr", "bl")])
    shares = np.linalg.solve(np.vstack([np.ones(3), feet.T]), [1.0, *(com + xpos[0])[:2]])
    print("  tripod FL+MR+BL in the initial posture carries "
          + ", ".join(f"{100 * x:.1f}" for x in shares) + " % of the weight")


def _since(t: np.ndarray, swing: np.ndarray, edge: int) -> np.ndarray:
    """Each sample's time (s) since its leg's last step start (`edge` +1) or stance start
    (-1); 1 s before the first."""
    starts = t[1:][np.diff(swing) * edge > 0]
    i = np.searchsorted(starts, t, side="right") - 1
    return np.where(i >= 0, t - starts[np.maximum(i, 0)], 1.0)


def phases(sim, rec) -> tuple[dict, float]:
    """({leg: (fz, forward) (2, 10) % of weight by 10 ms bin of its cycle}, the forward
    force of all bodies, % of weight) over steady walking."""
    t, force, heading = rec.time, rec.channels["contact_force"], headings(rec)
    steady = (t >= STEADY[0]) & (t <= STEADY[1])
    weight = sim.model.total_mass * 9.8
    table = {}
    for k, leg in enumerate(LEGS):
        f = force[:, [rec.body_index(f"leg_{leg}{i}") for i in range(5)], 3:].sum(axis=1)
        phase = _since(t, rec.channels["gait_swing"][:, k], +1)
        b = (phase / 0.01 + 1e-6).astype(int)  # the gait's frames fall on the bins' edges
        use = steady & (b < 10)
        along = np.einsum("ti,ti->t", f[:, :2], heading)
        table[leg] = np.array([[np.mean(x[use & (b == j)]) for j in range(10)]
                               for x in (f[:, 2], along)]) * 100 / weight
    total = np.einsum("ti,ti->t", force[:, :, 3:5].sum(axis=1), heading)[steady].mean()
    return table, 100 * total / weight


def print_phases(sim, rec) -> None:
    table, total = phases(sim, rec)
    print(f"  ground force by 10 ms of each leg's cycle from its step's start, % of weight "
          f"(all bodies' forward force: {total:+.2f} %)")
    print("         " + "".join(f"{10 * j:>6d}" for j in range(10)))
    for leg, (fz, along) in table.items():
        print(f"  {leg} up  " + "".join(f"{x:6.1f}" for x in fz))
        print(f"  {leg} fwd " + "".join(f"{x:+6.1f}" for x in along))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=str(ROOT / "docs/img/roach_load.png"))
    ap.add_argument("--duration", type=float, default=2.5)
    ap.add_argument("--scene", action="append", help="scenes/<name>.yaml (repeatable)")
    ap.add_argument("--friction", choices=("spring", "coulomb"),
                    help="replace the scenes' ground friction model (on flat ground)")
    ap.add_argument("--phases", action="store_true",
                    help="also print each leg's ground force through its cycle")
    ap.add_argument("--density", action="append", default=[], metavar="BODY=KG_M3",
                    help="walk the roach with this body at another density (repeatable)")
    args = ap.parse_args()
    densities = {b: float(rho) for b, rho in (d.split("=") for d in args.density)}
    results = {}
    for scene in args.scene or ["roach_tripod", "roach_sticky"]:
        sim = compile_scene(scene, args.friction, densities)
        if scene == (args.scene or ["roach_tripod"])[0]:
            force_lines(sim.model)
        rec = sim.run(duration=args.duration, progress=False)
        res = results[scene] = analyse(sim, rec)
        print(f"{scene}: {1000 * sim.model.total_mass:.4f} g, net {100 * res['net']:.2f} cm/s, "
              f"turn {res['turn']:+.1f} deg, |pitch| <= {res['pitch']:.1f} deg, COM "
              f"{100 * res['com_ahead_middle']:+.2f} cm ahead of the middle feet, "
              f"{100 * res['com_ahead_hind']:+.2f} cm ahead of the hind feet")
        for leg in LEGS:
            early, late = (1e6 * m for m in res["yaw"][leg])
            print(f"  {leg}: stance ground force {100 * res['force'][leg]:5.1f} % of weight, "
                  f"forward {100 * res['pull'][leg]:+5.1f} %, "
                  f"slip {100 * res['slip'][leg]:+.3f} cm per stance, "
                  f"yaw moment {early:+6.1f} / {late:+6.1f} uN m (early / late stance)")
        if args.phases:
            print_phases(sim, rec)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    x = np.arange(len(LEGS))
    width = 0.8 / len(results)
    for j, (scene, res) in enumerate(results.items()):
        axes[0].bar(x + j * width, [100 * res["force"][leg] for leg in LEGS], width, label=scene)
        axes[1].bar(x + j * width, [100 * res["slip"][leg] for leg in LEGS], width,
                    label=f"{scene}: {100 * res['net']:.2f} cm/s")
    for ax, title in zip(axes, ("ground force in stance, % of weight",
                                "slip of touching corners, cm per stance (− back, + dragged)")):
        ax.set_xticks(x + 0.4 - width / 2, [leg.upper() for leg in LEGS])
        ax.set_title(title, fontsize=10)
        ax.axhline(0, color="k", lw=0.5)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
