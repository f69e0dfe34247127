"""The terrain drawn (frames and glTF) is the terrain the contact kernels push against."""
import numpy as np

import pipeline
from pipeline.compile.build import build_model
from pipeline.export.ground import checker_for, terrain_mesh
from pipeline.physics.contact.surface import grid_surface

SCENE = "scenes/roach_wave_terrain.yaml"


def test_terrain_triangles_match_the_contact_surface_heights():
    scene = pipeline.load(SCENE)
    model = build_model(scene)
    vertices, faces, rgb = terrain_mesh(model, scene.environment)
    x0, y0, dx, dy = model.contact.grid_geom
    h = model.contact.grid_h
    assert len(faces) == 2 * (h.shape[0] - 1) * (h.shape[1] - 1)
    rng = np.random.default_rng(7)
    tri = vertices[faces[rng.choice(len(faces), 400, replace=False)]]  # (400, 3, 3)
    w = rng.dirichlet([1, 1, 1], size=len(tri))
    points = np.einsum("tk,tkj->tj", w, tri)  # random points inside drawn triangles
    ground_z = scene.environment["ground"].get("z", 0.0)
    for x, y, z in points:
        kernel_z = grid_surface(h, x0, y0, dx, dy, x, y)[0] + ground_z
        assert abs(z - kernel_z) < 1e-12
    # tiles alternate by cell; no flat checker floor is drawn over a terrain
    assert len(np.unique(rgb, axis=0)) == 2
    assert checker_for(scene.environment, np.zeros((1, 1, 3)), 0.1) is None
