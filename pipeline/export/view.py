"""What the export stage reads from a compiled model: `ExportView`, the same for both engines.

Export draws bodies (their geoms' meshes, in the body frames the Recording poses), groups them
into creatures for the camera, weighs them for the centre of mass, plots scalar joints and
reads stage-owned `extras` (a particle model's springs and domes). `view_of(model)` gives that
surface for the articulated `pipeline.physics.model.Model` and for the particle engine's
`ParticleModel`; nothing else of a model is read.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pipeline.physics.model import JOINT_NQ, PRISMATIC, GeomArrays, Model


@dataclass(frozen=True)
class ScalarJoint:
    """A joint with one coordinate, as plots name and group it."""
    name: str
    q: int  # index into q
    tree: int  # the creature it belongs to
    body: int  # the body it moves
    prismatic: bool  # a length (m); else an angle (rad)


@dataclass(frozen=True)
class ExportView:
    body_names: tuple[str, ...]
    body_tree: np.ndarray  # (nb,) index of the creature (tree) each body belongs to
    tree_names: tuple[str, ...]
    body_mass: np.ndarray  # (nb,)
    body_com: np.ndarray  # (nb, 3) centre of mass in the body frame
    geoms: GeomArrays  # body -1: static world geometry
    geom_meshes: tuple  # per geom: (vertices, faces) in the geom frame
    joints: tuple[ScalarJoint, ...] = ()
    body_parent: np.ndarray | None = None  # (nb,) parent body, -1 at a root; None: no tree
    extras: dict = field(default_factory=dict)
    contact: object = None  # ContactArrays of a terrain grid, None without contact

    @property
    def nbody(self) -> int:
        return len(self.body_names)


def articulated_view(model: Model) -> ExportView:
    tree = model.tree
    joints = tuple(ScalarJoint(model.joint_names[i], int(tree.qadr[i]), int(model.body_tree[i]), i,
                               t == PRISMATIC)
                   for i, t in enumerate(tree.jtype) if JOINT_NQ[t] == 1)
    return ExportView(model.body_names, np.asarray(model.body_tree), model.tree_names,
                      np.asarray(tree.mass), np.asarray(tree.com), model.geoms, model.geom_meshes,
                      joints, np.asarray(tree.parent), extras=model.extras, contact=model.contact)


def particle_view(model) -> ExportView:
    """A particle model's masses as bodies (sphere geoms), with no joints."""
    return ExportView(model.body_names, model.body_tree, model.tree_names, model.arrays.mass,
                      np.zeros((model.nbody, 3)), model.geoms, model.geom_meshes, extras=model.extras)


def view_of(model) -> ExportView:
    """The export surface of a compiled model of either engine (or a view, unchanged)."""
    if isinstance(model, ExportView):
        return model
    if isinstance(model, Model):
        return articulated_view(model)
    from pipeline.particles.model import ParticleModel

    if isinstance(model, ParticleModel):
        return particle_view(model)
    raise TypeError(f"export reads a compiled Model or ParticleModel, not {type(model).__name__}")
