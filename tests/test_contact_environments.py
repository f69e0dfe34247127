"""The bundled environments: valid documents, and a box dropped on each settles on the
surface without blowing up (issue 4)."""
import math
from pathlib import Path

import numpy as np
import pytest

from pipeline.compiler.contact import FLAT
from pipeline.compiler.terrain import build_grid
from pipeline.physics.contact.surface import grid_surface
from pipeline.spec.loader import read_file
from pipeline.spec.schema import document_kind, to_si, validate

from contact_scenes import free_body, quat_y, simulation

ENVIRONMENTS = sorted(p for p in (Path(__file__).parents[1] / "environments").glob("*.yaml")
                      if document_kind(read_file(p)) == "environment")  # not particle worlds
# environments with a ground (bounce_box's floor is a static obstacle, which these Python-built
# scenes leave out; tests/test_collision_scenes.py runs it)
GROUNDED = [p for p in ENVIRONMENTS if read_file(p).get("ground", {}).get("type") != "none"]
HALF = 0.1  # creatures/box.yaml: a 20 cm box of water, 8 kg


def surface_of(env):
    g = env.get("ground", {})
    geom, h = build_grid(g) if g.get("type") == "grid" else FLAT
    if h.shape[0] < 2:
        return lambda x, y: (g.get("z", 0.0), 0.0, 0.0, 1.0)
    return lambda x, y: grid_surface(h, *geom, x, y)


def corners(pos, R):
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    return pos + (HALF * signs) @ R.T


def test_bundled_environments_are_present_and_valid():
    names = {p.stem for p in ENVIRONMENTS}
    assert {"flat", "rough_terrain", "slope_30deg", "steps"} <= names
    for path in ENVIRONMENTS:
        assert validate(read_file(path), "environment") == [], path.name


@pytest.mark.parametrize("path", GROUNDED, ids=lambda p: p.stem)
def test_a_box_dropped_on_each_environment_settles(path):
    env = to_si(read_file(path), "environment")
    surface = surface_of(env)
    x, y = 0.03, 0.02
    z, nx, ny, nz = surface(x, y)
    tilt = math.atan2(nx, nz)  # the bundled slopes rise along x: lay the box on the facet
    R = np.array([[math.cos(tilt), 0, math.sin(tilt)], [0, 1, 0], [-math.sin(tilt), 0, math.cos(tilt)]])
    n = np.array([nx, ny, nz])
    lift = HALF + 0.005
    while min(c[2] - surface(c[0], c[1])[0] for c in corners(np.array([x, y, z]) + lift * n, R)) < 0.005:
        lift += 0.005
    pos = np.array([x, y, z]) + lift * n
    sim = simulation([free_body("box", "box", [2 * HALF] * 3, pos, quat=quat_y(tilt))], env=env,
                     duration=2.0, dt=1 / 240, h=1 / 2400)
    rec = sim.run(progress=False)
    assert np.isfinite(rec.q).all() and np.isfinite(rec.qd).all()
    assert np.abs(rec.qd[-24:]).max() < 1e-4  # at rest over the last 0.1 s
    w, qx, qy, qz = rec.body_quat[-1, 0]
    Rf = np.array([[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - w * qz), 2 * (qx * qz + w * qy)],
                   [2 * (qx * qy + w * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - w * qx)],
                   [2 * (qx * qz - w * qy), 2 * (qy * qz + w * qx), 1 - 2 * (qx * qx + qy * qy)]])
    gaps = [c[2] - surface(c[0], c[1])[0] for c in corners(rec.body_pos[-1, 0], Rf)]
    # resting on the surface: the lowest corner sits at the spring depth (< 1 mm), none sank
    assert -1e-3 < min(gaps) < 0.0
