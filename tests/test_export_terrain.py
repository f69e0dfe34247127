"""The terrain drawn (frames and glTF) is the terrain the contact kernels push against."""
import numpy as np

import pipeline
from pipeline.compiler.build import build_model
from pipeline.export.ground import checker_for, terrain_of
from pipeline.physics.contact.surface import grid_surface

SCENE = "scenes/roach_wave_terrain.yaml"


def test_terrain_triangles_match_the_contact_surface_heights():
    scene = pipeline.load(SCENE)
    model = build_model(scene)
    terrain = terrain_of(model, scene.environment)
    vertices, faces, rgb = terrain.mesh()
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
    assert np.allclose(terrain.height(points[:, 0], points[:, 1]), points[:, 2], rtol=0, atol=1e-12)
    # tiles alternate by cell; no flat checker floor is drawn over a terrain
    assert len(np.unique(rgb, axis=0)) == 2
    assert checker_for(scene.environment, np.zeros((1, 1, 3)), 0.1) is None


def test_shadows_fall_on_the_terrain_along_the_light():
    from benchmarks.render import poses
    from pipeline.export.meshes import body_parts
    from pipeline.export.poses import pose_matrices
    from pipeline.export.render import FrameRenderer
    from pipeline.export.shadows import KEY_LIGHT

    scene = pipeline.load(SCENE)
    model = build_model(scene)
    terrain = terrain_of(model, scene.environment)
    parts, world = body_parts(model)
    pos, quat = poses(model, None, 1)
    m = pose_matrices(pos[0], quat[0])
    r = FrameRenderer(parts, world, None, 64, 64, terrain=terrain, show_time=False)
    try:
        r._project_shadow(m)
        body_points = np.einsum("nij,nj->ni", m[r.shadow_body, :3, :], r.shadow_local)
        lift = 0.02 * min(terrain.dx, terrain.dy)  # drawn this far above the surface
        on = np.asarray(r.shadow.points) - [0, 0, lift]
    finally:
        r.close()
    assert np.allclose(on[:, 2], terrain.height(on[:, 0], on[:, 1]), rtol=0, atol=1e-15)
    ray = np.cross(body_points - on, KEY_LIGHT / np.linalg.norm(KEY_LIGHT))
    assert np.abs(ray).max() < 1e-10
