"""A small Model and a Recording with known, analytic motion for the export tests.

Three bodies: a box torso sliding along +x at 0.05 m/s and two sphere-capped legs swinging
about y; the trajectory is sampled at 240 Hz for 2 s. The Model is built from geometry the
way pipeline.compile does it (trimesh primitives in the geom frame)."""
from __future__ import annotations

import numpy as np
import trimesh

from pipeline.physics.model import GeomArrays, JointForceArrays, Model, TreeArrays
from pipeline.recording import Recording

SPEED = 0.05
DURATION = 2.0
RATE = 240


def walker_model() -> Model:
    shapes = [  # body, mesh, pos in body frame, rgba
        (0, trimesh.creation.box([0.06, 0.03, 0.02]), (0, 0, 0), (0.76, 0.55, 0.35, 1)),
        (1, trimesh.creation.capsule(0.02, 0.004), (0, 0, -0.01), (0.35, 0.25, 0.18, 1)),
        (2, trimesh.creation.capsule(0.02, 0.004), (0, 0, -0.01), (0.35, 0.25, 0.18, 1)),
        (0, trimesh.creation.icosphere(2, 0.01), (0.035, 0, 0.005), (0.9, 0.8, 0.6, 1)),
    ]
    ng, nb = len(shapes), 3
    meshes = tuple((np.asarray(m.vertices), np.asarray(m.faces)) for _, m, _, _ in shapes)
    lo = np.array([v.min(0) for v, _ in meshes])
    hi = np.array([v.max(0) for v, _ in meshes])
    geoms = GeomArrays(
        body=np.array([s[0] for s in shapes]), type=np.zeros(ng, np.int64),
        size=np.zeros((ng, 3)), pos=np.array([s[2] for s in shapes], float),
        rot=np.tile(np.eye(3), (ng, 1, 1)), rgba=np.array([s[3] for s in shapes], float),
        colliding=np.ones(ng, bool), aabb_lo=lo, aabb_hi=hi)
    nv = 8
    tree_fields = dict(parent=np.array([-1, 0, 0]), jtype=np.array([5, 1, 1]),
                       jaxis=np.zeros((nb, 2, 3)), jpos=np.zeros((nb, 3)),
                       jrot=np.tile(np.eye(3), (nb, 1, 1)), qadr=np.array([0, 7, 8]),
                       vadr=np.array([0, 6, 7]), mass=np.array([0.036, 0.004, 0.004]),
                       com=np.array([[0, 0, 0], [0, 0, -0.01], [0, 0, -0.01]], float),
                       inertia=np.tile(np.eye(3) * 1e-6, (nb, 1, 1)), armature=np.zeros(nv))
    # fields export does not read (the contract grows additively) are zero per body
    tree = TreeArrays(**{f: tree_fields.get(f, np.zeros(nb)) for f in TreeArrays._fields})
    forces = JointForceArrays(*([np.zeros(nv)] * len(JointForceArrays._fields)))
    return Model(nq=9, nv=nv, body_names=("torso", "leg_l", "leg_r"),
                 joint_names=("torso", "leg_l", "leg_r"), tree=tree, forces=forces,
                 geoms=geoms, gravity=np.array([0, 0, -9.8]), q0=np.zeros(9), qd0=np.zeros(8),
                 body_tree=np.zeros(nb, np.int64), tree_names=("walker",), geom_meshes=meshes)


def walker_recording() -> Recording:
    t = np.arange(int(DURATION * RATE) + 1) / RATE
    torso = np.stack([SPEED * t, 0 * t, 0.04 + 0 * t], -1)
    pos = np.stack([torso, torso + [0, 0.02, -0.01], torso + [0, -0.02, -0.01]], 1)
    swing = 0.5 * np.sin(2 * np.pi * 2 * t)
    quat = np.zeros((len(t), 3, 4))
    quat[:, 0, 0] = 1
    for b, sign in ((1, 1), (2, -1)):  # rotation about y by +-swing
        quat[:, b, 0] = np.cos(sign * swing / 2)
        quat[:, b, 2] = np.sin(sign * swing / 2)
    gait = np.stack([(np.sin(2 * np.pi * 2 * t) > 0), (np.sin(2 * np.pi * 2 * t) <= 0)], 1)
    channels = {"leg_state": np.where(gait, 2.0, 0.0), "speed": SPEED + 0 * t}  # 2 = step
    q = np.concatenate([pos[:, 0], quat[:, 0], swing[:, None], -swing[:, None]], axis=1)
    return Recording(t, ("torso", "leg_l", "leg_r"), pos, quat, q, np.gradient(q, t, axis=0),
                     channels)


FLAT = {"gravity": [0, 0, -9.8], "ground": {"type": "flat", "z": 0.0}}
