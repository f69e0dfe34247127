"""Collision detection speed: ours beside coal (FCL's GJK/EPA), MuJoCo and PyBullet, in
one run, on the same shapes and poses.

    .venv/bin/python benchmarks/collision.py [--quick]

1. Narrow phase: microseconds per distance/penetration query over the same random placed
   pairs of boxes, spheres, capsules, cylinders, ellipsoids, cones and hulls (40% of them
   overlapping). Both sides compute the signed distance (penetration depth by EPA where
   the shapes overlap), the two closest (deepest) points and the normal. Ours in one
   numba call over all pairs (`query_many`) and per call from Python (`query`); coal's
   `distance` per call from Python, at its defaults and at our distance tolerance, and
   coal's time less the binding's fixed cost (a sphere-sphere call), its best case. coal's
   DistanceResult is cleared before every call: coal returns at once, computing nothing,
   when the result it is handed already holds a distance <= 0.
   Tolerances: ours 1e-10 on distances (1e-12 between cores of spheres and capsules),
   EPA 1e-10 on polytopes and 1e-6 on round shapes; coal at its defaults (1e-6, 1e-6).
   The largest difference between the two sides' distances is printed.
2. Full pass, 1000 boxes and spheres (3 sizes) of a bounce world: bounds, broad phase and
   contact manifolds of every overlapping pair, per frame, over the same recorded frames:
   ours (bounds, hierarchical hash updated coherently, pairs filtered by exact box
   overlap, and up to 4 contact points per touching pair by reference-face clipping; one
   kernel call per frame, `collision.detect.contacts`), MuJoCo's `mj_collision` (geom
   bounds, its broad phase, its analytic box/sphere colliders with several contacts per
   box-box pair, and the mjContact records; after `mj_kinematics`, not timed) and
   PyBullet's `performCollisionDetection` (bounds, dynamic-tree broad phase, Bullet's
   collision algorithms and persistent manifolds of up to 4 points; poses set before,
   not timed). The contact points per frame of the three are printed.
3. Scaling of our full pass to 10^5 objects at constant density (time per object).
4. Broad phase alone: coherence (incremental updates vs rebuilding every step, Fontijne's
   25 objects) and hashing vs brute force for N = 2 ... 128 (the crossover).

Figures are the best of several batches of thread CPU time (benchmarks/aba.py's
`best_us`); "ratio" is ours / theirs (below 1: ours is faster).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.aba import best_us  # noqa: E402
from benchmarks.collision_bounce import Bounce, primitives  # noqa: E402
from benchmarks.collision_peers import coal_shape, coal_transform  # noqa: E402
from pipeline.collision.detect import contacts  # noqa: E402
from pipeline.collision.hashing import HierarchicalHash  # noqa: E402
from pipeline.collision.narrow import make_work, query, query_many  # noqa: E402
from pipeline.collision.shapes import BOX, KIND_NAMES, pack  # noqa: E402
from pipeline.collision.sweep import brute_force  # noqa: E402
from pipeline.physics.spatial import quat_matrix  # noqa: E402


def row(label, ours, theirs, unit="us"):
    print(f"  {label:<44} ours {ours:10.3f} {unit}   theirs {theirs:10.3f} {unit}   "
          f"ratio {ours / theirs:6.3f}")


# ----- 1. narrow phase against coal --------------------------------------------------------

def narrow_vs_coal(n_pairs, batches):
    import coal

    rng = np.random.default_rng(0)
    shapes = pack([("box", (0.3, 0.5, 0.2), None), ("sphere", (0.35,), None),
                   ("capsule", (0.25, 0.4), None), ("cylinder", (0.4, 0.7), None),
                   ("ellipsoid", (0.3, 0.6, 0.9), None), ("frustum", (0.5, 0.0, 1.2), None),
                   ("hull", None, rng.normal(size=(40, 3)) * 0.5)])
    ns = len(shapes.kind)
    a, b = rng.integers(0, ns, n_pairs), rng.integers(0, ns, n_pairs)
    q = rng.normal(size=(2 * n_pairs, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    R = np.array([quat_matrix(*x) for x in q]).reshape(n_pairs, 2, 3, 3)
    pA = rng.uniform(-2, 2, (n_pairs, 3))
    d = rng.normal(size=(n_pairs, 3))
    pB = pA + d / np.linalg.norm(d, axis=1, keepdims=True) * rng.uniform(0.2, 2.2, (n_pairs, 1))
    ra, rb = np.ascontiguousarray(R[:, 0]), np.ascontiguousarray(R[:, 1])
    out, wk = np.zeros((n_pairs, 10)), make_work()
    query_many(shapes, a[:2], b[:2], pA[:2], ra[:2], pB[:2], rb[:2], wk, out[:2])

    def ours(n):
        for _ in range(n):
            query_many(shapes, a, b, pA, ra, pB, rb, wk, out)

    geoms = [coal_shape(shapes, s) for s in range(ns)]
    ta = [coal_transform(pA[i], R[i, 0], geoms[a[i]][1]) for i in range(n_pairs)]
    tb = [coal_transform(pB[i], R[i, 1], geoms[b[i]][1]) for i in range(n_pairs)]
    ga, gb = [geoms[i][0] for i in a], [geoms[i][0] for i in b]
    req, res = coal.DistanceRequest(), coal.DistanceResult()
    dist = coal.distance

    def theirs(n):
        for _ in range(n):
            for i in range(n_pairs):
                res.clear()
                dist(ga[i], ta[i], gb[i], tb[i], req, res)

    s1, s2 = coal.Sphere(0.5), coal.Sphere(0.5)
    t1, t2 = coal.Transform3s(), coal.Transform3s(np.eye(3), np.array([2.0, 0, 0]))

    def binding(n):
        for _ in range(n * n_pairs):
            res.clear()
            dist(s1, t1, s2, t2, req, res)

    tight = coal.DistanceRequest()
    tight.gjk_tolerance = 1e-10  # our gap on distances

    def theirs_tight(n):
        for _ in range(n):
            for i in range(n_pairs):
                res.clear()
                dist(ga[i], ta[i], gb[i], tb[i], tight, res)

    def ours_per_call(n):
        for _ in range(n):
            for i in range(n_pairs):
                query(shapes, a[i], pA[i], ra[i], b[i], pB[i], rb[i], 0.0, 0.0, 0.0, wk)

    query(shapes, a[0], pA[0], ra[0], b[0], pB[0], rb[0], 0.0, 0.0, 0.0, wk)
    us_ours, us_coal, us_bind, us_tight, us_call = best_us(
        [ours, theirs, binding, theirs_tight, ours_per_call], 1, batches)
    ref = np.empty(n_pairs)
    for i in range(n_pairs):
        res.clear()
        ref[i] = dist(ga[i], ta[i], gb[i], tb[i], req, res)
    print(f"1. Narrow phase: {n_pairs} placed pairs of 7 shape kinds, "
          f"{np.mean(out[:, 6] < 0):.0%} overlapping; us per query (ours: query_many, one call)")
    off = np.abs(out[:, 6] - ref) > 1e-5
    kinds = sorted({tuple(sorted((KIND_NAMES[a[i]], KIND_NAMES[b[i]]))) for i in np.nonzero(off)[0]})
    print(f"  our distances - coal's: largest {np.max(np.abs(out[~off, 6] - ref[~off])):.1e} "
          f"but in {off.sum()} pairs off by more than 1e-5 ({', '.join('-'.join(k) for k in kinds)})")
    row("coal.distance per call from Python", us_ours / n_pairs, us_coal / n_pairs)
    row("coal less its binding cost (sphere-sphere call)", us_ours / n_pairs,
        max(us_coal - us_bind, 1e-9) / n_pairs)
    row("coal per call, gjk_tolerance 1e-10 (ours)", us_ours / n_pairs, us_tight / n_pairs)
    row("ours per call from Python (query) vs coal's", us_call / n_pairs, us_coal / n_pairs)


# ----- 2./3. full passes on a bounce world ---------------------------------------------------

SIZES = (0.5, 1.0, 2.0)


def world_for(n):
    """Side of the bounce world holding n objects at the density of 16 in 6^3."""
    return 6.0 * (n / 16) ** (1 / 3)


def recorded_frames(n, frames, seed=0):
    """Boxes and spheres of a bounce world and `frames` consecutive poses (positions,
    quaternions w-first) after a short warm-up, step 0.01."""
    b = Bounce(n, world_for(n), seed=seed, shapes=primitives(("box", "sphere"), SIZES), speed=2.0)
    grid = _grid()
    lo, hi = b.bounds()
    for o in range(n):
        grid.add(o, lo[o], hi[o])
    poses = []
    for f in range(frames + 10):
        grid.update(*b.bounds())
        b.narrow(grid.pairs())
        b.move(0.01)
        if f >= 10:
            poses.append((b.pos.copy(), b.quat.copy(), b.rot.copy()))
    return b, poses


def _grid():
    """The hash for the bounce shapes: finest tile half the smallest object, up to boxes
    of the largest one's diagonal."""
    cell = 0.5 * min(SIZES)
    return HierarchicalHash(cell, HierarchicalHash.levels_for(cell, max(SIZES) * np.sqrt(3)))


def ours_pass(b, poses, grid=None):
    """A callable running our full pass over the frames; returns contact points found."""
    grid = grid or _grid()
    b.pos[:], b.quat[:], b.rot[:] = poses[0]
    lo, hi = b.bounds()
    for o in range(len(lo)):
        grid.add(o, lo[o], hi[o])
    found = []

    def run(n):
        for _ in range(n):
            found.clear()
            for pos, quat, rot in poses:
                b.pos[:], b.rot[:] = pos, rot
                found.append(len(contacts(grid, b.shapes, b.shape, b.pos, b.rot, b.work,
                                          b.box)[1]))
    return run, found


def mujoco_pass(b, poses):
    import mujoco

    geoms = []
    for i, s in enumerate(b.shape):
        h = b.shapes.param[s, 0] if b.shapes.kind[s] == BOX else b.shapes.margin[s]
        kind = "box" if b.shapes.kind[s] == BOX else "sphere"
        size = f"{h} {h} {h}" if kind == "box" else f"{h}"
        geoms.append(f'<body><freejoint/><geom type="{kind}" size="{size}"/></body>')
    xml = (f'<mujoco><size memory="512M"/><option gravity="0 0 0"/><worldbody>{"".join(geoms)}'
           f'</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    qpos = [np.concatenate([pos, quat], axis=1).ravel() for pos, quat, _ in poses]
    found = []

    def run(n):
        total = 0.0
        for _ in range(n):
            found.clear()
            for q in qpos:
                data.qpos[:] = q
                mujoco.mj_kinematics(model, data)
                t0 = time.thread_time()
                mujoco.mj_collision(model, data)
                total += time.thread_time() - t0
                found.append(data.ncon)
        return total
    return run, found


def pybullet_pass(b, poses):
    import pybullet as p

    client = p.connect(p.DIRECT)
    bodies = []
    for s in b.shape:
        h = float(b.shapes.param[s, 0] if b.shapes.kind[s] == BOX else b.shapes.margin[s])
        shape = (p.createCollisionShape(p.GEOM_BOX, halfExtents=[h, h, h], physicsClientId=client)
                 if b.shapes.kind[s] == BOX else
                 p.createCollisionShape(p.GEOM_SPHERE, radius=h, physicsClientId=client))
        bodies.append(p.createMultiBody(1.0, shape, physicsClientId=client))
    found = []

    def run(n):
        total = 0.0
        for _ in range(n):
            found.clear()
            for pos, quat, _ in poses:
                for i, body in enumerate(bodies):
                    w, x, y, z = quat[i]
                    p.resetBasePositionAndOrientation(body, pos[i], (x, y, z, w), physicsClientId=client)
                t0 = time.thread_time()
                p.performCollisionDetection(physicsClientId=client)
                total += time.thread_time() - t0
                found.append(len(p.getContactPoints(physicsClientId=client)))
        return total
    return run, found


def timed_best(run, batches):
    """Best seconds of run(1) over batches; run may return its own timed seconds."""
    best = np.inf
    for _ in range(batches):
        t0 = time.thread_time()
        own = run(1)
        best = min(best, own if own is not None else time.thread_time() - t0)
    return best


def full_pass(n, frames, batches):
    b, poses = recorded_frames(n, frames)
    ours, ours_found = ours_pass(b, poses)
    mj, mj_found = mujoco_pass(b, poses)
    pb, pb_found = pybullet_pass(b, poses)
    ours(1)
    t_ours, t_mj, t_pb = (timed_best(f, batches) for f in (ours, mj, pb))
    per = 1e3 / frames
    print(f"2. Full pass (bounds + broad + contact manifolds), {n} boxes and spheres, "
          f"{frames} bounce frames; ms per frame")
    print(f"  contact points per frame: ours {np.mean(ours_found):.1f}, MuJoCo "
          f"{np.mean(mj_found):.1f}, PyBullet {np.mean(pb_found):.1f}")
    row("MuJoCo mj_collision", t_ours * per, t_mj * per, "ms")
    row("PyBullet performCollisionDetection", t_ours * per, t_pb * per, "ms")
    row("the faster of the two", t_ours * per, min(t_mj, t_pb) * per, "ms")


def scaling(ns, frames):
    print(f"3. Scaling of our full pass ({frames} frames each, constant density); "
          f"us per object per frame")
    for n in ns:
        b, poses = recorded_frames(n, frames, seed=1)
        run, found = ours_pass(b, poses)
        run(1)
        t = timed_best(run, 2)
        print(f"  N = {n:>6}: {t / frames * 1e3:9.3f} ms per frame, "
              f"{t / frames / n * 1e6:7.3f} us per object, {np.mean(found):9.1f} contact points")


# ----- 4. broad phase: coherence, crossover ---------------------------------------------------

def broad_only(n, steps, mode, seed=2):
    """Seconds for `steps` broad-phase updates of a bounce world of n objects: 'coherent'
    (incremental hash), 'rebuild' (hash from scratch every step) or 'brute'."""
    b = Bounce(n, world_for(n), seed=seed, speed=2.0)
    boxes = []
    for _ in range(steps):
        boxes.append(tuple(np.array(x) for x in b.bounds()))
        b.move(0.01)
    grid = _grid()
    lo, hi = boxes[0]
    for o in range(n):
        grid.add(o, lo[o], hi[o])
    static = np.zeros(n, bool)
    t0 = time.thread_time()
    for lo, hi in boxes:
        if mode == "coherent":
            grid.update(lo, hi)
            grid.pairs()
        elif mode == "rebuild":
            grid.rebuild(lo, hi)
            grid.pairs()
        else:
            brute_force(lo, hi, static)
    return time.thread_time() - t0


def broad_phase(steps):
    broad_only(8, 10, "coherent"), broad_only(8, 10, "rebuild"), broad_only(8, 10, "brute")
    t_inc = min(broad_only(25, steps, "coherent") for _ in range(3))
    t_full = min(broad_only(25, steps, "rebuild") for _ in range(3))
    print(f"4. Broad phase: 25 objects, {steps} steps of 0.01 (thesis: 3.6x, 79.2 s vs 286 s "
          f"for 10 x 100 000 steps)")
    print(f"  coherent {t_inc / steps * 1e6:.2f} us/step, rebuilt {t_full / steps * 1e6:.2f} "
          f"us/step: speed-up {t_full / t_inc:.2f}x")
    print("  hashing vs brute force, us per step:")
    for n in (2, 4, 8, 16, 32, 64, 128):
        th = min(broad_only(n, steps // 10, "coherent") for _ in range(3))
        tb = min(broad_only(n, steps // 10, "brute") for _ in range(3))
        print(f"    N = {n:>3}: hash {th / (steps // 10) * 1e6:8.2f}  brute {tb / (steps // 10) * 1e6:8.2f}"
              f"  ({'hash' if th < tb else 'brute'} faster)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs, frames and sizes")
    args = parser.parse_args()
    quick = args.quick
    narrow_vs_coal(2000 if quick else 20000, 3 if quick else 5)
    full_pass(1000, 10 if quick else 40, 2 if quick else 3)
    scaling([1000, 10000] if quick else [1000, 10000, 100000], 5 if quick else 10)
    broad_phase(2000 if quick else 20000)


if __name__ == "__main__":
    main()
