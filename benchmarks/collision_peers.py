"""Our collision shapes as the peers' shapes (coal, FCL's successor), for the narrow-phase
tests' reference distances and for benchmarks/collision.py.

coal's conventions: boxes by full extents, capsules and cylinders by full length, cones
centred on their axis (base at -L/2), hulls by their points.
"""
from __future__ import annotations

import numpy as np

from pipeline.collision.shapes import (BOX, CAPSULE, CYLINDER, ELLIPSOID, FRUSTUM, HULL,
                                       SPHERE)


def coal_shape(shapes, s):
    """(coal geometry, offset of our shape frame's origin in coal's frame) for shape s."""
    import coal

    k = int(shapes.kind[s])
    p = shapes.param[s]
    r = float(shapes.margin[s])
    if k == BOX:
        return coal.Box(*(2.0 * p[:3])), np.zeros(3)
    if k == SPHERE:
        return coal.Sphere(r), np.zeros(3)
    if k == CAPSULE:
        return coal.Capsule(r, 2.0 * p[0]), np.zeros(3)
    if k == CYLINDER:
        return coal.Cylinder(p[0], 2.0 * p[1]), np.zeros(3)
    if k == ELLIPSOID:
        return coal.Ellipsoid(*p[:3]), np.zeros(3)
    if k == FRUSTUM and p[1] == 0.0:  # a cone: coal's is centred, ours has its base at z = 0
        return coal.Cone(p[0], p[2]), np.array([0.0, 0.0, -0.5 * p[2]])
    if k == HULL:
        points = coal.StdVec_Vec3s()
        for v in shapes.verts[shapes.vstart[s]:shapes.vstart[s] + shapes.vcount[s]]:
            points.append(v)
        return coal.Convex.convexHull(points, False, ""), np.zeros(3)
    raise ValueError(f"coal has no shape for kind {k}")


def coal_transform(pos, rot, offset):
    """coal's placement of a shape whose frame origin sits at `offset` in coal's frame."""
    import coal

    return coal.Transform3s(np.asarray(rot, float), np.asarray(pos, float) - np.asarray(rot) @ offset)
