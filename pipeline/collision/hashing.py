"""Hierarchical spatial hashing: the broad phase of Mirtich (1996) as Fontijne (2000, §2.3)
modified it, with coherent incremental updates.

Space is cut into cubic tiles at `levels` resolutions, level l having tiles of side
cell * 2^l. An object's native level is the finest at which its box covers at most
`threshold` tiles (`static_threshold` for objects that never move, which keeps big static
boxes off the coarse levels); it sits in the tiles its box touches at the native level and
at every coarser one. Two objects are a candidate pair while they share a tile at the
coarser of their native levels; a counter per pair holds how many such tiles they share,
in a hash table keyed by the pair (memory in the number of pairs, not objects squared).

Coherence: an update moves each object's tiles incrementally, adding the tiles its new
box covers and removing those it left. The tile boxes of coarser levels follow from the
native one by halving, so once a level's tiles are unchanged, so are all coarser ones and
the update stops there: a slowly moving object costs a few comparisons. Pair counters
change only in tiles that change.

An object whose box covers more than 4 x threshold tiles even at the coarsest level is
"all over": it leaves the tiles and is paired with every object (Fontijne §2.3.2).

Native levels change with hysteresis: an object keeps its level while it covers at most
2 x threshold tiles there and more than threshold / 2 one level finer.

Tables are open-addressed (linear probing, deletion by backward shift) and grow before an
object's update could fill them; the Python class `HierarchicalHash` owns the arrays and
resumes an update after growing them. Pairs are reported filtered by an exact box test,
so the result equals brute force's.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.collision.sweep import boxes_overlap, push_pair

OUT, ALL_OVER = -1, -2  # object level codes: not in the hash; paired with everything
EMPTY = -1
LOAD = 0.5  # tables grow past this fill fraction
# counters (State.count)
N_TILES, N_PAIRS, FREE_ENTRY, N_ENTRIES = range(4)


class State(NamedTuple):
    conf: np.ndarray  # (4,) float: finest tile side, threshold, static threshold, levels
    lo: np.ndarray  # (no, 3) object boxes
    hi: np.ndarray
    level: np.ndarray  # (no,) int64 native level, OUT or ALL_OVER
    cell: np.ndarray  # (no, 6) int64 tile box at the native level: x0 y0 z0 x1 y1 z1
    static: np.ndarray  # (no,) bool
    tkey: np.ndarray  # (nt, 4) int64 tile x, y, z, level; level -1 = empty slot
    tnative: np.ndarray  # (nt,) int64 first entry of the objects native here
    tcoarse: np.ndarray  # (nt,) int64 first entry of the objects from finer levels
    enext: np.ndarray  # (ne,) int64 next entry in a tile's list (or in the free list)
    eobj: np.ndarray  # (ne,) int64 object of the entry
    pa: np.ndarray  # (np,) int64 pair (pa < pb); -1 = empty slot
    pb: np.ndarray
    pcount: np.ndarray  # (np,) int64 tiles shared at the coarser native level
    count: np.ndarray  # (4,) int64 counters above


@numba.njit(cache=True, inline="always")
def _mix(h):
    """splitmix64's finaliser: spreads the bits of a 64-bit key over the table."""
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x7FB5D329728EA185)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x81DADEF4BC2DD44D)
    h ^= h >> np.uint64(33)
    return h


@numba.njit(cache=True, inline="always")
def _tile_home(x, y, z, lvl, mask):
    h = (np.uint64(x) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(y) * np.uint64(0xC2B2AE3D27D4EB4F)
         + np.uint64(z) * np.uint64(0x165667B19E3779F9) + np.uint64(lvl))
    return np.int64(_mix(h) & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def _pair_home(a, b, mask):
    return np.int64(_mix(np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(b)) & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def _fills_hole(i, j, home):
    """Backward-shift deletion: the entry at slot j (probed from `home`) moves into the
    emptied slot i unless its home lies cyclically in (i, j]."""
    return (j > i and (home <= i or home > j)) or (j < i and home <= i and home > j)


# ----- tiles ------------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _tile_slot(st, x, y, z, lvl, create):
    """Slot of tile (x, y, z, lvl); created empty if absent and `create`, else -1."""
    mask = st.tkey.shape[0] - 1
    i = _tile_home(x, y, z, lvl, mask)
    while st.tkey[i, 3] != EMPTY:
        if st.tkey[i, 0] == x and st.tkey[i, 1] == y and st.tkey[i, 2] == z and st.tkey[i, 3] == lvl:
            return i
        i = (i + 1) & mask
    if not create:
        return -1
    st.tkey[i, 0], st.tkey[i, 1], st.tkey[i, 2], st.tkey[i, 3] = x, y, z, lvl
    st.tnative[i] = st.tcoarse[i] = EMPTY
    st.count[N_TILES] += 1
    return i


@numba.njit(cache=True)
def _tile_delete(st, i):
    """Empty slot i, shifting later slots of its probe run back so lookups stay exact."""
    mask = st.tkey.shape[0] - 1
    st.count[N_TILES] -= 1
    j = i
    while True:
        j = (j + 1) & mask
        if st.tkey[j, 3] == EMPTY:
            break
        home = _tile_home(st.tkey[j, 0], st.tkey[j, 1], st.tkey[j, 2], st.tkey[j, 3], mask)
        if _fills_hole(i, j, home):
            for c in range(4):
                st.tkey[i, c] = st.tkey[j, c]
            st.tnative[i], st.tcoarse[i] = st.tnative[j], st.tcoarse[j]
            i = j
    st.tkey[i, 3] = EMPTY


# ----- pairs ------------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _pair_add(st, a, b, delta):
    """Add delta to the counter of pair (a, b); a pair whose counter falls to 0 is deleted."""
    if a > b:
        a, b = b, a
    mask = st.pa.shape[0] - 1
    i = _pair_home(a, b, mask)
    while st.pa[i] != EMPTY:
        if st.pa[i] == a and st.pb[i] == b:
            st.pcount[i] += delta
            if st.pcount[i] == 0:
                _pair_delete(st, i)
            return
        i = (i + 1) & mask
    st.pa[i], st.pb[i], st.pcount[i] = a, b, delta
    st.count[N_PAIRS] += 1


@numba.njit(cache=True)
def _pair_delete(st, i):
    mask = st.pa.shape[0] - 1
    st.count[N_PAIRS] -= 1
    j = i
    while True:
        j = (j + 1) & mask
        if st.pa[j] == EMPTY:
            break
        if _fills_hole(i, j, _pair_home(st.pa[j], st.pb[j], mask)):
            st.pa[i], st.pb[i], st.pcount[i] = st.pa[j], st.pb[j], st.pcount[j]
            i = j
    st.pa[i] = EMPTY


# ----- an object in one tile ----------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _hash_tile(st, o, x, y, z, lvl):
    """Put object o in tile (x, y, z, lvl): count a shared tile with every object there
    for which this level is native to one of the two."""
    t = _tile_slot(st, x, y, z, lvl, True)
    native = lvl == st.level[o]
    for head in (st.tnative[t], st.tcoarse[t] if native else EMPTY):
        e = head
        while e != EMPTY:
            other = st.eobj[e]
            if not (st.static[o] and st.static[other]):
                _pair_add(st, o, other, 1)
            e = st.enext[e]
    e = st.count[FREE_ENTRY]
    st.count[FREE_ENTRY] = st.enext[e]
    st.count[N_ENTRIES] += 1
    st.eobj[e] = o
    if native:
        st.enext[e], st.tnative[t] = st.tnative[t], e
    else:
        st.enext[e], st.tcoarse[t] = st.tcoarse[t], e


@numba.njit(cache=True, inline="always")
def _unhash_tile(st, o, x, y, z, lvl):
    """Take object o out of tile (x, y, z, lvl), undoing _hash_tile's counts."""
    t = _tile_slot(st, x, y, z, lvl, False)
    native = lvl == st.level[o]
    # unlink o's entry from its list
    prev = EMPTY
    e = st.tnative[t] if native else st.tcoarse[t]
    while st.eobj[e] != o:
        prev, e = e, st.enext[e]
    if prev == EMPTY:
        if native:
            st.tnative[t] = st.enext[e]
        else:
            st.tcoarse[t] = st.enext[e]
    else:
        st.enext[prev] = st.enext[e]
    st.enext[e] = st.count[FREE_ENTRY]
    st.count[FREE_ENTRY] = e
    st.count[N_ENTRIES] -= 1
    for head in (st.tnative[t], st.tcoarse[t] if native else EMPTY):
        e = head
        while e != EMPTY:
            other = st.eobj[e]
            if not (st.static[o] and st.static[other]):
                _pair_add(st, o, other, -1)
            e = st.enext[e]
    if st.tnative[t] == EMPTY and st.tcoarse[t] == EMPTY:
        _tile_delete(st, t)


# ----- tile boxes ---------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _tiles(lo, hi, o, inv):
    """Integer tile box (x0, y0, z0, x1, y1, z1) of object o's box for tiles of side
    1 / inv."""
    return (math.floor(lo[o, 0] * inv), math.floor(lo[o, 1] * inv), math.floor(lo[o, 2] * inv),
            math.floor(hi[o, 0] * inv), math.floor(hi[o, 1] * inv), math.floor(hi[o, 2] * inv))


@numba.njit(cache=True, inline="always")
def _count(b):
    return (b[3] - b[0] + 1) * (b[4] - b[1] + 1) * (b[5] - b[2] + 1)


@numba.njit(cache=True, inline="always")
def _coarser(b, k):
    """The tile box k levels coarser (floor division by 2^k)."""
    return (b[0] >> k, b[1] >> k, b[2] >> k, b[3] >> k, b[4] >> k, b[5] >> k)


@numba.njit(cache=True, inline="always")
def _native_level(conf, static, cur, lo, hi, o):
    """(level, tile box there) for o's box (conf: State.conf; static, cur: o's flag and
    level): the finest level within the threshold, with hysteresis around the current
    level; ALL_OVER when even the coarsest is far over."""
    inv0, t = 1.0 / conf[0], conf[2] if static else conf[1]
    nlev = int(conf[3])
    if cur >= 0:
        b = _tiles(lo, hi, o, inv0 / (1 << cur))
        if _count(b) <= 2 * t and (cur == 0 or _count(_tiles(lo, hi, o, inv0 / (1 << (cur - 1)))) > t / 2):
            return cur, b
    for lvl in range(nlev):
        b = _tiles(lo, hi, o, inv0 / (1 << lvl))
        if _count(b) <= t:
            return lvl, b
    return (nlev - 1 if _count(b) <= 4 * t else ALL_OVER), b


@numba.njit(cache=True, inline="always")
def _box_tiles(st, o, b, lvl, skip, hashing):
    """Hash (or unhash) o in every tile of box b at level lvl that is not in box skip."""
    for x in range(b[0], b[3] + 1):
        for y in range(b[1], b[4] + 1):
            for z in range(b[2], b[5] + 1):
                if (skip[0] <= x <= skip[3] and skip[1] <= y <= skip[4] and skip[2] <= z <= skip[5]):
                    continue
                if hashing:
                    _hash_tile(st, o, x, y, z, lvl)
                else:
                    _unhash_tile(st, o, x, y, z, lvl)


NOTHING = (1, 1, 1, 0, 0, 0)  # an empty tile box


@numba.njit(cache=True)
def _all_levels(st, o, b, hashing):
    """Hash (or unhash) o at its native level and every coarser one."""
    lvl = st.level[o]
    for k in range(int(st.conf[3]) - lvl):
        _box_tiles(st, o, _coarser(b, k), lvl + k, NOTHING, hashing)


@numba.njit(cache=True, inline="always")
def _move(st, o, lvl, b):
    """Bring object o to native level lvl and tile box b there incrementally."""
    old = st.level[o]
    ob = (st.cell[o, 0], st.cell[o, 1], st.cell[o, 2], st.cell[o, 3], st.cell[o, 4], st.cell[o, 5])
    if lvl == old:
        if lvl == ALL_OVER:
            return
        for k in range(int(st.conf[3]) - lvl):
            nk, ok = _coarser(b, k), _coarser(ob, k)
            if nk == ok:
                break  # coarser boxes are halvings of this one: unchanged as well
            _box_tiles(st, o, nk, lvl + k, ok, True)  # add first: shared counts stay > 0
            _box_tiles(st, o, ok, lvl + k, nk, False)
    else:
        if old >= 0:
            _all_levels(st, o, ob, False)
        st.level[o] = lvl
        if lvl >= 0:
            _all_levels(st, o, b, True)
    for c in range(6):
        st.cell[o, c] = b[c]


@numba.njit(cache=True)
def _room_needed(st, o, n_objects):
    """(tiles, entries, pairs): the table sizes under which object o's update cannot fill
    a table. It adds at most 4 threshold tiles (and entries) per level and one pair per
    object."""
    t = st.conf[2] if st.static[o] else st.conf[1]
    most = 4 * int(t) * int(st.conf[3])
    return ((st.count[N_TILES] + most) / LOAD, st.count[N_ENTRIES] + most,
            (st.count[N_PAIRS] + n_objects) / LOAD)


@numba.njit(cache=True)
def update(st, lo, hi, alive, start, stop):
    """Move the live objects start..stop-1 to their boxes (rows of lo/hi). Returns -1
    when done, or the object to resume at once the tables have grown (`_room_needed`)."""
    # arrays taken out of the tuple once: most objects keep their tiles from step to step,
    # and for them reaching into the tuple (reference counts) cost more than the check
    conf, level, cell, static, slo, shi = st.conf, st.level, st.cell, st.static, st.lo, st.hi
    n_alive = 0
    for o in range(alive.shape[0]):
        n_alive += alive[o]
    for o in range(start, stop):
        if not alive[o]:
            continue
        for c in range(3):
            slo[o, c], shi[o, c] = lo[o, c], hi[o, c]
        lvl, b = _native_level(conf, static[o], level[o], lo, hi, o)
        if lvl == level[o] and (lvl == ALL_OVER or (
                b[0] == cell[o, 0] and b[1] == cell[o, 1] and b[2] == cell[o, 2]
                and b[3] == cell[o, 3] and b[4] == cell[o, 4] and b[5] == cell[o, 5])):
            continue  # the same tiles: nothing to move
        tiles, entries, npairs = _room_needed(st, o, n_alive)
        if tiles > st.tkey.shape[0] or entries > st.eobj.shape[0] or npairs > st.pa.shape[0]:
            return o
        _move(st, o, lvl, b)
    return -1


@numba.njit(cache=True)
def remove(st, o):
    if st.level[o] >= 0:
        ob = (st.cell[o, 0], st.cell[o, 1], st.cell[o, 2], st.cell[o, 3], st.cell[o, 4], st.cell[o, 5])
        _all_levels(st, o, ob, False)
    st.level[o] = OUT


@numba.njit(cache=True)
def pairs(st, alive):
    """The candidate pairs whose boxes overlap: those sharing tiles, and every object
    with each all-over one; (k, 2) rows i < j."""
    # arrays taken out of the tuple once: each access through it costs reference counts
    lo, hi, pa, pb, level, static = st.lo, st.hi, st.pa, st.pb, st.level, st.static
    # room for every counted pair, written in place (growing on the way cost more than
    # the whole scan)
    out = np.empty((st.count[N_PAIRS] + 64, 2), np.int64)
    n = 0
    for i in range(pa.shape[0]):
        a, b = pa[i], pb[i]
        if a != EMPTY and boxes_overlap(lo, hi, a, b):
            out[n, 0], out[n, 1] = a, b
            n += 1
    for o in range(alive.shape[0]):
        if not (alive[o] and level[o] == ALL_OVER):
            continue
        for p in range(alive.shape[0]):
            if (p == o or not alive[p] or (static[o] and static[p])
                    or (level[p] == ALL_OVER and p < o) or not boxes_overlap(lo, hi, o, p)):
                continue
            out = push_pair(out, n, o, p)
            n += 1
    return out[:n]


@numba.njit(cache=True)
def update_pairs(st, lo, hi, alive):
    """`update` of every object, then `pairs`, in one call (from Python each call unpacks
    the whole State). Returns (-1, pairs), or (the object to resume at, no pairs) when a
    table must grow first."""
    start = update(st, lo, hi, alive, 0, alive.shape[0])
    if start >= 0:
        return start, np.empty((0, 2), np.int64)
    return start, pairs(st, alive)


@numba.njit(cache=True)
def clear(st):
    """Empty every table and take every object out (their boxes and flags stay)."""
    st.tkey[:, 3] = EMPTY
    st.pa[:] = EMPTY
    for e in range(st.enext.shape[0]):
        st.enext[e] = e + 1 if e + 1 < st.enext.shape[0] else EMPTY
    st.count[N_TILES] = st.count[N_PAIRS] = st.count[N_ENTRIES] = 0
    st.count[FREE_ENTRY] = 0
    st.level[:] = OUT


@numba.njit(cache=True)
def _rehash_tiles(old, st):
    """Copy every tile of `old` into the (larger, empty) table of st."""
    for i in range(old.tkey.shape[0]):
        if old.tkey[i, 3] != EMPTY:
            t = _tile_slot(st, old.tkey[i, 0], old.tkey[i, 1], old.tkey[i, 2], old.tkey[i, 3], True)
            st.tnative[t], st.tcoarse[t] = old.tnative[i], old.tcoarse[i]


@numba.njit(cache=True)
def _rehash_pairs(old, st):
    for i in range(old.pa.shape[0]):
        if old.pa[i] != EMPTY:
            _pair_add(st, old.pa[i], old.pb[i], old.pcount[i])


def _power_of_two(n: int) -> int:
    return 1 << max(4, int(n - 1).bit_length())


class HierarchicalHash:
    """Broad phase over objects with integer ids and boxes (lo, hi): `add`, `remove`,
    `update` (all of them move), `pairs`.

    cell: the finest tile side (about the smallest object); levels: how many resolutions
    (`levels_for` gives Fontijne's m = ceil(log2(s_max / s_min)) + 1). threshold: the most
    tiles an object covers at its native level (t; 8 lets a box of the tile's size sit
    across a corner)."""

    def __init__(self, cell: float, levels: int, threshold: int = 8, static_threshold: int = 64,
                 capacity: int = 64):
        self.conf = np.array([cell, threshold, static_threshold, levels], float)
        self.alive = np.zeros(0, np.int64)
        self.state = self._empty(capacity, 16 * capacity, 16 * capacity, 4 * capacity)

    @staticmethod
    def levels_for(s_min: float, s_max: float) -> int:
        return int(math.ceil(math.log2(max(s_max / s_min, 1.0)))) + 1

    def _empty(self, n_objects, n_tiles, n_entries, n_pairs) -> State:
        z, i64 = np.zeros, np.int64
        nt, npairs = _power_of_two(n_tiles), _power_of_two(n_pairs)
        enext = np.arange(1, n_entries + 1, dtype=i64)
        enext[-1] = EMPTY
        return State(conf=self.conf, lo=z((n_objects, 3)), hi=z((n_objects, 3)),
                     level=np.full(n_objects, OUT, i64), cell=z((n_objects, 6), i64),
                     static=z(n_objects, np.bool_), tkey=np.full((nt, 4), EMPTY, i64),
                     tnative=np.full(nt, EMPTY, i64), tcoarse=np.full(nt, EMPTY, i64),
                     enext=enext, eobj=np.full(n_entries, EMPTY, i64),
                     pa=np.full(npairs, EMPTY, i64), pb=np.full(npairs, EMPTY, i64),
                     pcount=z(npairs, i64), count=np.array([0, 0, 0, 0], i64))

    def grow(self, o: int):
        """Room for object o's update in every table (at least doubling one that is too
        small), contents kept."""
        old = self.state
        need = _room_needed(old, o, int(self.alive.sum()))
        nt, ne, npairs = (size if size >= n else max(2 * size, _power_of_two(int(n)))
                          for size, n in zip((old.tkey.shape[0], old.eobj.shape[0], old.pa.shape[0]), need))
        st = self._empty(len(old.level), nt, ne, npairs)
        for name in ("lo", "hi", "level", "cell", "static"):
            getattr(st, name)[:] = getattr(old, name)
        n_old = old.eobj.shape[0]
        st.eobj[:n_old], st.enext[:n_old] = old.eobj, old.enext
        # the new entries go in front of the old free list
        free = old.count[FREE_ENTRY]
        if ne > n_old:
            st.enext[n_old:] = np.r_[np.arange(n_old + 1, ne), free]
            free = n_old
        st.count[FREE_ENTRY] = free
        st.count[N_ENTRIES] = old.count[N_ENTRIES]
        _rehash_tiles(old, st)
        _rehash_pairs(old, st)
        self.state = st

    def _objects(self, n):
        """Room for n objects."""
        if n > len(self.state.level):
            old = self.state
            m = max(n, 2 * len(old.level))
            grown = {name: np.concatenate([getattr(old, name), fill])
                     for name, fill in (("lo", np.zeros((m - len(old.level), 3))),
                                        ("hi", np.zeros((m - len(old.level), 3))),
                                        ("level", np.full(m - len(old.level), OUT, np.int64)),
                                        ("cell", np.zeros((m - len(old.level), 6), np.int64)),
                                        ("static", np.zeros(m - len(old.level), np.bool_)))}
            self.state = old._replace(**grown)
        if n > len(self.alive):
            self.alive = np.r_[self.alive, np.zeros(n - len(self.alive), np.int64)]

    def add(self, o: int, lo, hi, static: bool = False):
        """Put object o (an id not in use) in the hash with box (lo, hi)."""
        self._objects(o + 1)
        self.state.static[o] = static
        self.state.lo[o], self.state.hi[o] = lo, hi
        self.alive[o] = 1
        self._run(self.state.lo, self.state.hi, o, o + 1)

    def remove(self, o: int):
        remove(self.state, o)
        self.alive[o] = 0

    def update(self, lo, hi):
        """Move every object in the hash to its box: row o of (lo, hi) for object o."""
        self._run(np.ascontiguousarray(lo, float), np.ascontiguousarray(hi, float), 0, len(self.alive))

    def _run(self, lo, hi, start, stop):
        while True:
            start = update(self.state, lo, hi, self.alive, start, stop)
            if start < 0:
                return
            self.grow(start)

    def rebuild(self, lo, hi):
        """Forget every tile and pair, then hash all objects afresh (the non-coherent
        reference of the coherence benchmark)."""
        clear(self.state)
        self.update(lo, hi)

    def pairs(self) -> np.ndarray:
        return pairs(self.state, self.alive)

    def update_pairs(self, lo, hi) -> np.ndarray:
        """`update` then `pairs`, in one kernel call unless a table must grow."""
        lo, hi = np.ascontiguousarray(lo, float), np.ascontiguousarray(hi, float)
        start, found = update_pairs(self.state, lo, hi, self.alive)
        if start < 0:
            return found
        self.grow(start)
        self._run(lo, hi, start, len(self.alive))
        return self.pairs()
