"""Fontijne's bounce program (thesis §2.6): objects flying about a box world, the test bed
and benchmark of the broad and narrow phases.

Every object gets a random position, orientation, linear and angular velocity and a small
"gravity factor", positive or negative, added to its vertical velocity every step, so the
objects visit the whole world. A step: compute the boxes, update the broad phase, move
the objects, run the narrow phase on every pair, send an object whose centre left the
world back in with a random velocity, and push overlapping objects apart with random
velocities along the contact normal. Overlap is deliberately not prevented, so the
penetration code runs too.

Fontijne's six primitives were cube, sphere, cone, tube, pyramid and torus; the torus is
not convex, so here a capsule takes its place (a torus is a body of several convex
parts in scenes/bounce.yaml).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.collision.narrow import make_work, query
from pipeline.collision.shapes import pack, world_boxes
from pipeline.physics.spatial import quat_matrix

PYRAMID = [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, 0.5, -0.5], [-0.5, 0.5, -0.5], [0, 0, 0.5]]


def primitives(kinds=("box", "sphere", "cone", "cylinder", "pyramid", "capsule"),
               sizes=(0.5, 1.0, 2.0)):
    """The bounce shapes: each kind at each size (its largest extent), kind-major."""
    entries = []
    for kind in kinds:
        for s in sizes:
            h = 0.5 * s
            entries.append({"box": ("box", (h, h, h), None), "sphere": ("sphere", (h,), None),
                            "cone": ("frustum", (h, 0.0, s), None),
                            "cylinder": ("cylinder", (0.5 * h, h), None),
                            "pyramid": ("hull", None, np.array(PYRAMID) * s),
                            "capsule": ("capsule", (0.3 * h, 0.7 * h), None)}[kind])
    return pack(entries)


@numba.njit(cache=True)
def _quat_matrix(q, R, i):
    m = quat_matrix(q[i, 0], q[i, 1], q[i, 2], q[i, 3])
    for k in range(9):
        R[i, k // 3, k % 3] = m[k]


@numba.njit(cache=True)
def move(pos, quat, rot, vel, omega, gravity, world, speed, dt):
    """Advance positions and orientations by dt; an object whose centre left the world
    gets a random velocity toward the world's middle."""
    for i in range(pos.shape[0]):
        vel[i, 2] += gravity[i]
        for c in range(3):
            pos[i, c] += vel[i, c] * dt
        w, x, y, z = quat[i, 0], quat[i, 1], quat[i, 2], quat[i, 3]
        ox, oy, oz = omega[i, 0] * dt * 0.5, omega[i, 1] * dt * 0.5, omega[i, 2] * dt * 0.5
        w, x, y, z = (w - ox * x - oy * y - oz * z, x + ox * w + oy * z - oz * y,
                      y - ox * z + oy * w + oz * x, z + ox * y - oy * x + oz * w)
        n = math.sqrt(w * w + x * x + y * y + z * z)
        quat[i, 0], quat[i, 1], quat[i, 2], quat[i, 3] = w / n, x / n, y / n, z / n
        _quat_matrix(quat, rot, i)
        out = False
        for c in range(3):
            out = out or pos[i, c] < 0.0 or pos[i, c] > world
        if out:
            s = speed * np.random.uniform(0.5, 1.0)
            dx, dy, dz = 0.5 * world - pos[i, 0], 0.5 * world - pos[i, 1], 0.5 * world - pos[i, 2]
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            vel[i, 0], vel[i, 1], vel[i, 2] = s * dx / d, s * dy / d, s * dz / d


@numba.njit(cache=True)
def narrow(sh, shape, pos, rot, vel, pairs, speed, wk):
    """Narrow phase on every candidate pair; overlapping pairs fly apart along the normal.
    Returns the number of overlapping pairs."""
    hits = 0
    for k in range(pairs.shape[0]):
        a, b = pairs[k, 0], pairs[k, 1]
        d = query(sh, shape[a], pos[a], rot[a], shape[b], pos[b], rot[b], 0.0, 0.0, 0.0, wk)
        if d < 0.0:
            hits += 1
            s = speed * np.random.uniform(0.5, 1.0)
            for c in range(3):
                vel[a, c] = -s * wk.out[7 + c]
                vel[b, c] = s * wk.out[7 + c]
    return hits


@numba.njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


class Bounce:
    """n objects of `shapes` in the cube [0, world]^3 (shape of object i: i mod len)."""

    def __init__(self, n: int, world: float, seed: int = 0, shapes=None, speed: float = 1.0,
                 gravity: float = 0.01):
        rng = np.random.default_rng(seed)
        _seed(seed)
        self.shapes = primitives() if shapes is None else shapes
        self.world, self.speed = float(world), float(speed)
        self.shape = np.arange(n, dtype=np.int64) % len(self.shapes.kind)
        self.pos = rng.uniform(0, world, (n, 3))
        q = rng.normal(size=(n, 4))
        self.quat = q / np.linalg.norm(q, axis=1, keepdims=True)
        self.rot = np.zeros((n, 3, 3))
        for i in range(n):
            _quat_matrix(self.quat, self.rot, i)
        self.vel = rng.normal(0, speed / np.sqrt(3), (n, 3))
        self.omega = rng.normal(0, 1.0, (n, 3))
        self.gravity = rng.uniform(-gravity, gravity, n) * speed
        self.box = np.zeros((n, 6))
        self.work = make_work()

    def bounds(self):
        """(lo, hi) of every object now."""
        world_boxes(self.shapes, self.shape, self.pos, self.rot, self.box)
        return self.box[:, :3], self.box[:, 3:]

    def move(self, dt: float):
        move(self.pos, self.quat, self.rot, self.vel, self.omega, self.gravity, self.world,
             self.speed, dt)

    def narrow(self, pairs) -> int:
        return narrow(self.shapes, self.shape, self.pos, self.rot, self.vel, pairs, self.speed,
                      self.work)
