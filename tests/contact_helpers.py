"""Shared set-up for the contact tests: kernel inputs for rigid bodies placed by hand."""
import numpy as np

from pipeline.compiler.contact import FLAT, assemble
from pipeline.compiler.contact_points import geom_contact_points
from pipeline.compiler.environment import contact_params
from pipeline.physics.contact import state as S
from pipeline.physics.contact.bodies import make_shape_scratch
from pipeline.physics.contact.forces import contact_forces


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def rot_y(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def box_points(body, size, mode="shapes"):
    c, r = geom_contact_points("box", size, np.zeros(3), np.eye(3), None, None, mode)
    return [body] * len(r), list(c), list(r)


def params(material=None, **top):
    env = dict(top)
    if material:
        env["material"] = material
    return contact_params(env)


def contact_setup(p, sticky, points, boxes=None, pairs=(), attach=(), grid=FLAT):
    return assemble(p, sticky, points, boxes, pairs, attach, grid)


def evaluate(arrays, cstate, xpos, xrot, vbody):
    """One kernel call; returns (fext, cstate_out) and checks cstate_in is untouched."""
    nb = len(xpos)
    fext = np.zeros((nb, 6))
    before = cstate.copy()
    out = np.empty_like(cstate)
    contact_forces(arrays, 0.0, cstate, out, np.asarray(xpos, float),
                   np.ascontiguousarray(xrot, float), np.asarray(vbody, float), fext,
                   make_shape_scratch())
    assert np.array_equal(before, cstate, equal_nan=True)
    return fext, out


def anchor(arrays, i):
    a = arrays.layout[S.LAYOUT_ANCHORS] + S.ANCHOR_STRIDE * i
    return slice(a, a + S.ANCHOR_STRIDE)
