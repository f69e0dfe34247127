"""Broad phase: the hierarchical hash reports every pair brute force does (it filters its
candidates by an exact box test, so the two are equal), through randomised bounce runs
with objects added and removed, objects larger than every tile, and static objects;
sort-and-sweep agrees too. Its time grows linearly with the number of objects (slow).

No timings are asserted except the linear fit's R^2 of the slow scaling test; the
coherence speed-up is measured in benchmarks/collision.py."""
import time

import numba
import numpy as np
import pytest

from benchmarks.collision_bounce import Bounce
from pipeline.collision.hashing import ALL_OVER, HierarchicalHash
from pipeline.collision.sweep import brute_force, sort_and_sweep


def keys(pairs, n):
    return np.sort(pairs[:, 0] * n + pairs[:, 1])


@numba.njit(cache=True)
def _missing(found, ref, n):
    """How many pairs of ref are not in found, and how many found has beyond ref."""
    kf = np.sort(found[:, 0] * n + found[:, 1])
    kr = np.sort(ref[:, 0] * n + ref[:, 1])
    missing = 0
    for k in kr:
        i = np.searchsorted(kf, k)
        missing += i == kf.shape[0] or kf[i] != k
    return missing, kf.shape[0] - (kr.shape[0] - missing)


def bounce_run(steps, n=48, seed=0, world=8.0):
    """A bounce world where, besides the moving objects, two static walls and, from time
    to time, a box larger than the coarsest tile are in the hash, and objects leave and
    come back. Checks every step; returns counts of what was exercised."""
    b = Bounce(n, world, seed=seed, speed=2.0)
    rng = np.random.default_rng(seed)
    grid = HierarchicalHash(0.5, HierarchicalHash.levels_for(0.5, 2.0 * np.sqrt(3)))
    ids = n + 3  # objects n, n+1: static walls; n+2: the giant, when present
    lo, hi = np.zeros((ids, 3)), np.zeros((ids, 3))
    lo[n], hi[n] = [-1, -1, -1], [world + 1, world + 1, 0.2]  # floor
    lo[n + 1], hi[n + 1] = [-1, -1, -1], [0.2, world + 1, world + 1]  # wall
    static = np.zeros(ids, bool)
    static[n:n + 2] = True
    alive = np.ones(ids, bool)
    alive[n + 2] = False
    blo, bhi = b.bounds()
    lo[:n], hi[:n] = blo, bhi
    for o in range(n + 2):
        grid.add(o, lo[o], hi[o], static=bool(static[o]))
    seen = dict(pairs=0, all_over=0, removed=0, static_pairs=0)
    for step in range(steps):
        blo, bhi = b.bounds()
        lo[:n], hi[:n] = blo, bhi
        if step % 50 == 25:  # the giant comes (over the whole world) or goes
            if alive[n + 2]:
                grid.remove(n + 2)
            else:
                lo[n + 2], hi[n + 2] = [-2, -2, -2], [world + 2] * 3
                grid.add(n + 2, lo[n + 2], hi[n + 2])
            alive[n + 2] = not alive[n + 2]
        if step % 7 == 3:  # an object leaves, another comes back
            gone = np.flatnonzero(~alive[:n])
            if len(gone) and rng.random() < 0.5:
                o = int(rng.choice(gone))
                grid.add(o, lo[o], hi[o])
                alive[o] = True
            else:
                o = int(rng.integers(0, n))
                if alive[o]:
                    grid.remove(o)
                    alive[o] = False
                    seen["removed"] += 1
        if step % 2:  # both ways of asking: one call, or update then pairs
            got = grid.update_pairs(lo, hi)
        else:
            grid.update(lo, hi)
            got = grid.pairs()
        # the references see the objects out of the hash as boxes of NaN: they overlap nothing
        out = ~alive
        rlo, rhi = np.where(out[:, None], np.nan, lo), np.where(out[:, None], np.nan, hi)
        ref = brute_force(rlo, rhi, static)
        missing, extra = _missing(got, ref, ids)
        assert missing == 0, f"step {step}: {missing} pairs missed"
        assert extra == 0  # exact after the box filter
        assert _missing(sort_and_sweep(rlo, rhi, static), ref, ids) == (0, 0)
        seen["pairs"] += len(ref)
        seen["all_over"] += int(np.any(grid.state.level[:ids] == ALL_OVER))
        seen["static_pairs"] += int(np.isin(got, [n, n + 1]).any())
        b.narrow(got[(got[:, 0] < n) & (got[:, 1] < n)])
        b.move(0.02)
    return seen


def test_hash_equals_brute_force_over_ten_thousand_bounce_steps():
    seen = bounce_run(10_000)
    assert seen["pairs"] > 50_000 and seen["all_over"] > 3000
    assert seen["removed"] > 300 and seen["static_pairs"] > 1000


@pytest.mark.slow
def test_hash_equals_brute_force_over_a_million_bounce_steps():
    for seed in range(1, 11):
        bounce_run(100_000, seed=seed)


def test_incremental_and_rebuilt_hashes_agree_and_tables_grow():
    b = Bounce(300, 12.0, seed=3, speed=2.0)
    inc = HierarchicalHash(0.5, 3, capacity=4)  # tiny tables: they must grow
    full = HierarchicalHash(0.5, 3, capacity=4)
    lo, hi = b.bounds()
    for o in range(300):
        inc.add(o, lo[o], hi[o])
        full.add(o, lo[o], hi[o])
    for _ in range(100):
        lo, hi = b.bounds()
        inc.update(lo, hi)
        full.rebuild(lo, hi)
        np.testing.assert_array_equal(keys(inc.pairs(), 300), keys(full.pairs(), 300))
        b.narrow(inc.pairs())
        b.move(0.02)
    assert inc.state.tkey.shape[0] > 64 and inc.state.pa.shape[0] > 16


def test_levels_follow_object_sizes_and_static_objects_never_pair():
    grid = HierarchicalHash(1.0, 4, threshold=8, static_threshold=64)
    grid.add(0, [0.1, 0.1, 0.1], [0.6, 0.6, 0.6])  # within one finest tile
    grid.add(1, [0.2, 0.2, 0.2], [3.5, 3.5, 3.5])  # 4 tiles a side at level 0, 2 at level 1
    grid.add(2, [0, 0, 0], [5.5, 5.5, 0.5], static=True)  # 36 finest tiles: static, so native
    grid.add(3, [0, 0, 0], [5.5, 0.5, 5.5], static=True)
    grid.add(4, [-100, -100, -100], [100, 100, 100])  # beyond the coarsest level: all over
    np.testing.assert_array_equal(grid.state.level[:5], [0, 1, 0, 0, ALL_OVER])
    assert sorted(map(tuple, grid.pairs())) == [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3),
                                                (1, 4), (2, 4), (3, 4)]
    grid.remove(4)
    grid.remove(0)
    assert sorted(map(tuple, grid.pairs())) == [(1, 2), (1, 3)]
    assert grid.state.count[0] > 0
    for o in (1, 2, 3):
        grid.remove(o)
    assert grid.state.count.tolist()[:2] == [0, 0]  # no tile and no pair left behind
    assert grid.state.count[3] == 0


@pytest.mark.slow
def test_time_and_pairs_grow_linearly_with_the_number_of_objects():
    """Fontijne's Table 2.1 protocol (N = 16 ... 4096, step 0.01) at constant density (the
    thesis tuned each world size by hand; these keep the pairs proportional to N)."""
    ns = [16 * 2 ** k for k in range(9)]
    times, counts = [], []
    for n in ns:
        world = 6.0 * (n / 16) ** (1 / 3)
        b = Bounce(n, world, seed=1, speed=2.0)
        grid = HierarchicalHash(0.5, HierarchicalHash.levels_for(0.5, 2.0 * np.sqrt(3)))
        lo, hi = b.bounds()
        for o in range(n):
            grid.add(o, lo[o], hi[o])
        best, pairs = np.inf, 0
        for repeat in range(3):
            t0 = time.perf_counter()
            for _ in range(100):
                grid.update(*b.bounds())
                p = grid.pairs()
                pairs += len(p)
                b.narrow(p)
                b.move(0.01)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
        counts.append(pairs)
    for y in (np.array(times), np.array(counts, float)):
        fit = np.polyfit(ns, y, 1)
        r2 = 1 - np.sum((y - np.polyval(fit, ns)) ** 2) / np.sum((y - y.mean()) ** 2)
        assert r2 >= 0.95, (ns, y.tolist(), r2)
