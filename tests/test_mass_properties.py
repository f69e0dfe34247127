"""Mass properties from geometry x density: closed forms, trimesh, placement and
summation of parts, overrides, and the errors a user can cause."""
import math

import numpy as np
import pytest
import trimesh

from pipeline.compiler.build import body_mass_properties, build_model
from pipeline.compiler.mass import unit_density_properties
from pipeline.errors import CorpusError
from pipeline.spec.types import Body, Creature, Geom, Inertial, Joint, Pose, Where

RHO = 850.0


def props(geom):
    return body_mass_properties(Body(name="b", parent=None, placement=Pose(),
                                     joint=Joint(type="free"), geoms=(geom,)))


def trimesh_props(mesh, rho=RHO):
    mesh.density = rho
    return mesh.mass, mesh.center_mass, mesh.moment_inertia


def closed_form(shape, s):
    """Textbook formulas (mass, com, diagonal inertia about the com) at density RHO."""
    pi = math.pi
    if shape == "box":
        m = RHO * s[0] * s[1] * s[2]
        a, b, c = s
        return m, (0, 0, 0), m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    if shape == "sphere":
        m = RHO * 4 / 3 * pi * s[0] ** 3
        return m, (0, 0, 0), np.full(3, 0.4 * m * s[0] ** 2)
    if shape == "ellipsoid":
        m = RHO * 4 / 3 * pi * s[0] * s[1] * s[2]
        a, b, c = s
        return m, (0, 0, 0), m / 5 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    if shape == "cylinder":
        r, h = s
        m = RHO * pi * r * r * h
        return m, (0, 0, 0), np.array([m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2])
    if shape == "cone":  # frustum with a zero top radius: base at z = 0
        r, h = s
        m = RHO * pi * r * r * h / 3
        ixx = m * (3 * r * r / 20 + 3 * h * h / 80)
        return m, (0, 0, h / 4), np.array([ixx, ixx, 0.3 * m * r * r])
    raise KeyError(shape)


@pytest.mark.parametrize("shape, size", [
    ("box", (0.3, 0.2, 0.1)), ("sphere", (0.15,)), ("ellipsoid", (0.3, 0.2, 0.1)),
    ("cylinder", (0.1, 0.5))])
def test_shapes_match_closed_forms(shape, size):
    m, c, I = props(Geom(shape=shape, size=size, density=RHO))
    m0, c0, I0 = closed_form(shape, size)
    assert math.isclose(m, m0, rel_tol=1e-12)
    np.testing.assert_allclose(c, c0, atol=1e-15)
    np.testing.assert_allclose(I, np.diag(I0), rtol=1e-12, atol=1e-18)


def test_frustum_closed_forms_cone_and_cylinder():
    m, c, I = props(Geom(shape="frustum", size=(0.2, 0.0, 0.6), density=RHO))
    m0, c0, I0 = closed_form("cone", (0.2, 0.6))
    assert math.isclose(m, m0, rel_tol=1e-12)
    np.testing.assert_allclose(c, c0, atol=1e-15)
    np.testing.assert_allclose(I, np.diag(I0), rtol=1e-12)
    # equal radii: a cylinder standing on z = 0
    m, c, I = props(Geom(shape="frustum", size=(0.1, 0.1, 0.5), density=RHO))
    m0, _, I0 = closed_form("cylinder", (0.1, 0.5))
    assert math.isclose(m, m0, rel_tol=1e-12)
    np.testing.assert_allclose(c, (0, 0, 0.25), atol=1e-15)
    np.testing.assert_allclose(I, np.diag(I0), rtol=1e-12)


def test_capsule_is_cylinder_plus_sphere():
    """A capsule's mass is a cylinder's plus a sphere's; its axial inertia likewise."""
    r, h = 0.1, 0.4
    m, _, I = props(Geom(shape="capsule", size=(r, h), density=RHO))
    mc, _, Ic = closed_form("cylinder", (r, h))
    ms, _, Is = closed_form("sphere", (r,))
    assert math.isclose(m, mc + ms, rel_tol=1e-12)
    assert math.isclose(I[2, 2], Ic[2] + Is[2], rel_tol=1e-12)
    # transverse: two hemispheres (2/5 m r^2 about their base) shifted by h/2
    ixx = Ic[0] + ms * (0.4 * r * r + h * h / 4 + 3 * h * r / 8)
    assert math.isclose(I[0, 0], ixx, rel_tol=1e-12)


@pytest.mark.parametrize("shape, size, mesh, rtol", [
    ("box", (0.3, 0.2, 0.1), lambda: trimesh.creation.box(extents=(0.3, 0.2, 0.1)), 1e-12),
    ("sphere", (0.15,), lambda: trimesh.creation.icosphere(subdivisions=6, radius=0.15), 2e-3),
    ("cylinder", (0.1, 0.5), lambda: trimesh.creation.cylinder(0.1, 0.5, sections=512), 1e-3),
    ("capsule", (0.1, 0.4), lambda: trimesh.creation.capsule(height=0.4, radius=0.1,
                                                             count=[256, 256]), 2e-3),
    ("frustum", (0.2, 0.1, 0.3),
     lambda: trimesh.creation.revolve([[0, 0], [0.2, 0], [0.1, 0.3], [0, 0.3]], sections=512), 1e-3),
])
def test_shapes_match_trimesh(shape, size, mesh, rtol):
    """Independent check: trimesh's surface integrals over a fine tessellation."""
    m, c, I = props(Geom(shape=shape, size=size, density=RHO))
    mt, ct, It = trimesh_props(mesh())
    assert math.isclose(m, mt, rel_tol=rtol)
    np.testing.assert_allclose(c, ct, atol=rtol * max(size))
    np.testing.assert_allclose(I, It, rtol=rtol, atol=rtol * np.abs(It).max())


def test_mesh_file_scaled(tmp_path):
    path = tmp_path / "tet.stl"
    tet = trimesh.Trimesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                          faces=[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    tet.export(path)
    scale = (0.2, 0.3, 0.4)
    m, c, I = props(Geom(shape="mesh", size=scale, mesh_file=str(path), density=RHO))
    ref = tet.copy()
    ref.apply_scale(scale)
    mt, ct, It = trimesh_props(ref)
    assert math.isclose(m, RHO * 0.2 * 0.3 * 0.4 / 6, rel_tol=1e-12)  # |det| / 6
    assert math.isclose(m, mt, rel_tol=1e-12)
    np.testing.assert_allclose(c, np.array(scale) / 4, atol=1e-15)
    np.testing.assert_allclose(I, It, rtol=1e-10, atol=1e-15)


def test_parts_are_placed_and_summed_like_one_mesh():
    """A body of a box plus a rotated, offset cylinder part equals trimesh's mass
    properties of the two meshes placed the same way; a non-inertial part adds nothing."""
    q = (math.cos(0.3), math.sin(0.3) / math.sqrt(2), 0.0, math.sin(0.3) / math.sqrt(2))
    body = Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"), geoms=(
        Geom(shape="box", size=(0.4, 0.2, 0.1), pose=Pose(pos=(0.1, 0, 0)), density=RHO),
        Geom(shape="cylinder", size=(0.05, 0.3), pose=Pose(pos=(0.5, 0.2, -0.1), quat=q),
             density=2 * RHO),
        Geom(shape="sphere", size=(1.0,), inertial=False, density=RHO)))
    m, c, I = body_mass_properties(body)
    box = trimesh.creation.box(extents=(0.4, 0.2, 0.1))
    box.apply_translation((0.1, 0, 0))
    cyl = trimesh.creation.cylinder(0.05, 0.3, sections=1024)
    T = np.eye(4)
    T[:3, :3] = trimesh.transformations.quaternion_matrix(q)[:3, :3]
    T[:3, 3] = (0.5, 0.2, -0.1)
    cyl.apply_transform(T)
    mb, cb, _ = trimesh_props(box)
    mc, cc, _ = trimesh_props(cyl, 2 * RHO)
    assert math.isclose(m, mb + mc, rel_tol=1e-4)
    np.testing.assert_allclose(c, (mb * cb + mc * cc) / (mb + mc), atol=1e-5)
    # inertia about the combined com: each mesh's inertia shifted (trimesh does the shift)
    Ib = box.moment_inertia_frame(_frame(c))
    Ic = cyl.moment_inertia_frame(_frame(c))
    np.testing.assert_allclose(I, Ib + Ic, rtol=1e-4, atol=1e-4 * np.abs(Ib + Ic).max())


def _frame(origin):
    T = np.eye(4)
    T[:3, 3] = origin
    return T


def test_given_mass_overrides_density_and_inertial_overrides_all():
    m, _, I = props(Geom(shape="box", size=(0.3, 0.2, 0.1), mass=2.0))
    assert math.isclose(m, 2.0, rel_tol=1e-14)
    assert math.isclose(I[0, 0], 2.0 / 12 * (0.04 + 0.01), rel_tol=1e-12)
    body = Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"),
                geoms=(Geom(shape="box", size=(1, 1, 1), density=RHO),),
                inertial=Inertial(mass=3.0, com=(0.1, 0, 0), inertia=(1, 2, 2.5, 0.1, 0, 0)))
    m, c, I = body_mass_properties(body)
    assert m == 3.0 and tuple(c) == (0.1, 0, 0)
    np.testing.assert_array_equal(I, [[1, 0.1, 0], [0.1, 2, 0], [0, 0, 2.5]])


def where(line):
    return Where(file="creature.yaml", line=line, col=5, path=f"bodies[{line}]")


@pytest.mark.parametrize("body, text", [
    (Body(name="ghost", parent=None, placement=Pose(), joint=Joint(type="free"),
          geoms=(Geom(shape="box", size=(1, 1, 1), density=RHO, inertial=False),), where=where(3)),
     "creature.yaml:3:5: bodies[3]: body 'ghost' has mass 0"),
    (Body(name="neg", parent=None, placement=Pose(), joint=Joint(type="free"),
          inertial=Inertial(mass=-1.0, inertia=(1, 1, 1, 0, 0, 0)), where=where(4)),
     "creature.yaml:4:5: bodies[4]: body 'neg' has mass -1"),
    (Body(name="flat", parent=None, placement=Pose(), joint=Joint(type="free"),
          inertial=Inertial(mass=1.0, inertia=(1, 1, 0, 0, 0, 0)), where=where(5)),
     "creature.yaml:5:5: bodies[5]: body 'flat' has a singular or unphysical inertia"),
    (Body(name="odd", parent=None, placement=Pose(), joint=Joint(type="free"),
          inertial=Inertial(mass=1.0, inertia=(1, 1, 3, 0, 0, 0)), where=where(6)),
     "creature.yaml:6:5: bodies[6]: body 'odd' has a singular or unphysical inertia"),
])
def test_user_errors_name_the_body_and_its_line(body, text):
    with pytest.raises(CorpusError) as err:
        build_model(Creature(name="c", bodies=(body,)))
    assert str(err.value).startswith(text)


def test_shape_without_volume_is_a_user_error():
    body = Body(name="disc", parent=None, placement=Pose(), joint=Joint(type="free"),
                geoms=(Geom(shape="cylinder", size=(0.1, 0.0), mass=1.0, where=where(12)),))
    with pytest.raises(CorpusError) as err:
        build_model(Creature(name="c", bodies=(body,)))
    assert str(err.value).startswith("creature.yaml:12:5: bodies[12]: cylinder of body 'disc' has no volume")


def test_zero_axis_is_a_user_error():
    body = Body(name="arm", parent=None, placement=Pose(),
                joint=Joint(type="revolute", axes=((0, 0, 0),), where=where(9)),
                geoms=(Geom(shape="sphere", size=(0.1,), density=RHO),))
    with pytest.raises(CorpusError) as err:
        build_model(Creature(name="c", bodies=(body,)))
    assert str(err.value) == "creature.yaml:9:5: bodies[9]: joint axis of body 'arm' is zero"


def test_unit_density_volume_of_every_shape_is_positive():
    for shape, size in [("box", (1, 2, 3)), ("sphere", (1, 0, 0)), ("capsule", (1, 2, 0)),
                        ("cylinder", (1, 2, 0)), ("ellipsoid", (1, 2, 3)), ("frustum", (1, 2, 3))]:
        v, _, I = unit_density_properties(shape, np.array(size, float))
        assert v > 0 and np.all(np.linalg.eigvalsh(I) > 0)


def test_open_mesh_renders_but_has_no_mass(tmp_path):
    """An open surface may be a non-inertial part (drawn, no mass); as an inertial shape
    it is a user error at the part's line."""
    path = tmp_path / "sheet.obj"
    trimesh.Trimesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], faces=[[0, 1, 2]]).export(path)
    sheet = dict(shape="mesh", size=(1.0, 1.0, 1.0), mesh_file=str(path), density=RHO)
    core = Geom(shape="box", size=(0.1, 0.1, 0.1), density=RHO)
    body = Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"),
                geoms=(core, Geom(**sheet, inertial=False)))
    model = build_model(Creature(name="c", bodies=(body,)))
    assert math.isclose(model.total_mass, RHO * 1e-3, rel_tol=1e-12)
    assert len(model.geom_meshes[1][1]) == 1
    bad = Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"),
               geoms=(core, Geom(**sheet, where=where(14))))
    with pytest.raises(CorpusError, match=r"creature.yaml:14:5: bodies\[14\]: mesh .* is not a closed surface"):
        build_model(Creature(name="c", bodies=(bad,)))
