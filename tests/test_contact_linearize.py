"""The implicit step's ground-contact derivatives (pipeline.physics.contact.linearize) against
differences of the contact law itself: Richardson-extrapolated central differences inside
every regime of every law (no contact, pushing, separating on the restitution ramp, depth
past the clamp, friction model 2 sticking and slipping, Coulomb friction sliding (but for the
damper the step takes along the slip) and on its low-speed ramp, sticky anchors within and
beyond their break stretch, a tilted terrain facet), and one-sided differences at the kinks between regimes, on the side the state is on.

Position probes move the point along the surface's plane as the contact stage would (depth
changes by -n.dp, the normal stays)."""
import numpy as np
import pytest

from pipeline.physics.contact import state as S
from pipeline.physics.contact.forces import ground_point_force
from pipeline.physics.contact.linearize import ground_point_jacobian

A = S.N_PARAMS  # the point's anchors: sticky (x, y, z, set), friction 2 (x, y, z, set)
EXPONENTIAL = {S.K: 0.0, S.B: 0.0, S.KRF: 0.0, S.ALPHA: 17.5, S.BETA: 3000.0, S.E: 0.5,
               S.MAX_DEPTH: 0.01, S.REST_V: 1e-2, S.FRICTION_MODEL: 2.0, S.MU: 0.7,
               S.SLIP_V: 1e-4, S.MU2: -1.0, S.K2: -1.0, S.E2: 0.5, S.STICK_ALPHA: 0.1,
               S.STICK_BETA: 1000.0, S.STICK_MAX: 1e-3, S.STICK_E: 0.5}
# what `corpus convert` writes for dm_control's humanoid (MuJoCo's soft contact)
LINEAR = {**EXPONENTIAL, S.K: 102110.0, S.B: 4084.4, S.ALPHA: 0.0, S.E: 1.0, S.MU: 1.0}
COULOMB = {**EXPONENTIAL, S.FRICTION_MODEL: 1.0, S.KRF: 300.0, S.B: 0.02}
UP = np.array([0.0, 0.0, 1.0])
TILTED = np.array([0.3, -0.2, 1.0]) / np.linalg.norm([0.3, -0.2, 1.0])


class Point:
    """A contact point: parameters, anchors, its position p, depth, normal n, velocity v."""

    def __init__(self, params, p, depth, n=UP, v=(0.0, 0.0, 0.0), sticky=False,
                 anchor=None, friction_anchor=None, **changes):
        self.cs = np.zeros(S.N_PARAMS + S.ANCHOR_STRIDE)
        for slot, value in dict(params, **changes).items():
            self.cs[slot] = value
        if anchor is not None:
            self.cs[A:A + 4] = *anchor, 1.0
        if friction_anchor is not None:
            self.cs[A + 4:A + 8] = *friction_anchor, 1.0
        self.p, self.depth, self.n = np.asarray(p, float), depth, np.asarray(n, float)
        self.v, self.sticky = np.asarray(v, float), sticky

    def force(self, dp=np.zeros(3), dv=np.zeros(3)):
        p, v = self.p + dp, self.v + dv
        return np.array(ground_point_force(A, self.sticky, *p, self.depth - self.n @ dp, *self.n,
                                           *v, self.cs, self.cs.copy()))

    def jacobian(self):
        P, V = np.zeros((1, 3, 3)), np.zeros((1, 3, 3))
        ground_point_jacobian(A, self.sticky, *self.p, self.depth, *self.n, *self.v, self.cs,
                              P, V, 0)
        return P[0], V[0]


def richardson(f, h, levels=3):
    """df/dx at 0 by central differences (f(h) - f(-h)) / 2h, extrapolated over h, h/2, ...
    (errors in h^2, h^4, ...)."""
    table = [[(f(h / 2 ** i) - f(-h / 2 ** i)) / (2 * h / 2 ** i)] for i in range(levels)]
    for i in range(1, levels):
        for j in range(1, i + 1):
            table[i].append(table[i][j - 1] + (table[i][j - 1] - table[i - 1][j - 1]) / (4 ** j - 1))
    return table[-1][-1]


def one_sided(f, h, levels=4):
    """df/dx at 0 from the side of h (h < 0: the left) by forward differences, extrapolated
    (errors in h, h^2, ...)."""
    table = [[(f(h / 2 ** i) - f(0.0)) / (h / 2 ** i)] for i in range(levels)]
    for i in range(1, levels):
        for j in range(1, i + 1):
            table[i].append(table[i][j - 1] + (table[i][j - 1] - table[i - 1][j - 1]) / (2 ** j - 1))
    return table[-1][-1]


def differences(point, hp, hv, rule=richardson, side=1.0):
    """dF/dp and dF/dv of the law at the point by differences, column by column."""
    P, V = np.zeros((3, 3)), np.zeros((3, 3))
    for k in range(3):
        e = np.eye(3)[k]
        P[:, k] = rule(lambda s: point.force(dp=s * e), side * hp)
        V[:, k] = rule(lambda s: point.force(dv=s * e), side * hv)
    return P, V


def assert_matches(point, hp, hv, rtol=1e-8, **kw):
    P, V = point.jacobian()
    Pd, Vd = differences(point, hp, hv, **kw)
    scale_p, scale_v = max(np.abs(Pd).max(), 1e-300), max(np.abs(Vd).max(), 1e-300)
    assert np.abs(P - Pd).max() <= rtol * scale_p, (P, Pd)
    assert np.abs(V - Vd).max() <= rtol * scale_v, (V, Vd)
    return P, V


def test_no_contact_no_derivative():
    P, V = assert_matches(Point(EXPONENTIAL, [0, 0, 1e-3], -1e-3, v=[0.1, 0, -0.2]), 1e-6, 1e-6)
    assert not P.any() and not V.any()


@pytest.mark.parametrize("vn", [-0.05, 0.004])  # approaching; separating on the restitution ramp
@pytest.mark.parametrize("n", [UP, TILTED])
def test_exponential_ground_pushing_a_new_contact(vn, n):
    """A new contact's friction anchor sits at the point: only the normal spring acts."""
    v = vn * n + np.cross(n, [1.0, 0.0, 0.0]) * 0.03
    point = Point(EXPONENTIAL, [0.01, 0.02, -2e-4], 2e-4, n=n, v=v)
    P, V = assert_matches(point, 1e-6, 1e-5)
    k = 17.5 * 3000 * np.exp(3000 * 2e-4) * (1.0 if vn < 0 else 1 - 0.5 * vn / 1e-2)
    assert n @ P @ n == pytest.approx(-k, rel=1e-12)


@pytest.mark.parametrize("params", [EXPONENTIAL, LINEAR], ids=["exponential", "linear"])
@pytest.mark.parametrize("n", [UP, TILTED])
@pytest.mark.parametrize("seed", range(4))
def test_friction_anchor_sticking_and_slipping(params, n, seed):
    """Friction model 2: the anchor spring holds (f < mu fn) or slips at its cap, its
    approach speed on or off the restitution ramp, with a damped or undamped normal."""
    rng = np.random.default_rng(seed)
    depth = rng.uniform(1e-4, 4e-4) if params is EXPONENTIAL else rng.uniform(1e-4, 1.5e-3)
    p = rng.uniform(-0.05, 0.05, 3)
    plane = np.eye(3) - np.outer(n, n)
    stretch = plane @ rng.normal(size=3)
    stretch *= (1e-5 if seed % 2 else 2e-3) / np.linalg.norm(stretch)  # sticking, slipping
    v = plane @ rng.normal(0.0, 1e-3 if seed < 2 else 0.05, 3) - 3e-3 * n
    point = Point(params, p, depth, n=n, v=v, friction_anchor=p - stretch)
    f = point.force()
    fn, ft = f @ n, np.linalg.norm(plane @ f)
    mu = params[S.MU]
    assert (ft == pytest.approx(mu * fn, rel=1e-12)) if seed % 2 == 0 else (ft < 0.5 * mu * fn)
    hp = min(depth, np.linalg.norm(stretch)) * 1e-2
    assert_matches(point, hp, 1e-7, rtol=1e-7)


def test_friction_anchor_at_the_point_is_its_spring():
    point = Point(LINEAR, [0, 0, -1e-3], 1e-3, v=[0, 0, -0.01], friction_anchor=[0, 0, -1e-3])
    P, V = point.jacobian()
    Pd, _ = differences(point, 1e-9, 1e-7, rule=one_sided)  # |F_t| grows linearly from 0
    np.testing.assert_allclose(P, Pd, rtol=1e-6, atol=1e-6 * np.abs(Pd).max())


def test_depth_past_the_clamp_and_a_push_that_would_pull():
    deep = Point(EXPONENTIAL, [0, 0, -0.012], 0.012, v=[0.01, 0, -0.01], friction_anchor=[-1e-4, 0, -0.012])
    P, _ = assert_matches(deep, 1e-5, 1e-6, rtol=1e-7)
    assert UP @ P @ UP == 0.0
    # separating fast past the ramp with a strong damper: the law clips the push at zero
    pulling = Point(LINEAR, [0, 0, -1e-4], 1e-4, v=[0, 0, 0.5])
    P, V = assert_matches(pulling, 1e-6, 1e-4)
    assert not P.any() and not V.any()


@pytest.mark.parametrize("vt", [0.03, 4e-5, 0.0])  # sliding; on the low-speed ramp; at rest
@pytest.mark.parametrize("n", [UP, TILTED])
def test_coulomb_friction(vt, n):
    t = np.cross(n, [0.0, 1.0, 0.0])
    v = vt * t / np.linalg.norm(t) - 2e-3 * n
    point = Point(COULOMB, [0.0, 0.0, -3e-4], 3e-4, n=n, v=v)
    if vt == 0.0:  # |v_t| has a kink at 0; the ramp is linear through it
        P, V = point.jacobian()
        _, Vd = differences(point, 1e-7, 1e-6)
        np.testing.assert_allclose(V, Vd, rtol=1e-9, atol=1e-9 * np.abs(Vd).max())
    elif vt < 1e-4:  # on the ramp the law is a damper: its exact slope
        assert_matches(point, 1e-7, min(vt, abs(vt - 1e-4)) * 1e-2, rtol=1e-7)
    else:  # sliding: the exact slope, except along the slip, where the law's is 0 and the
        # step takes the damper of the same force, mu fn / |v_t| (a sliding point then
        # slows to the ramp instead of overshooting through zero, test_contact_sim.py)
        P, V = point.jacobian()
        Pd, Vd = differences(point, 1e-7, vt * 1e-2)
        vt_vec = v - (v @ n) * n
        u = vt_vec / np.linalg.norm(vt_vec)
        fn = point.force() @ n
        Vd -= COULOMB[S.MU] * fn / vt * np.outer(u, u)
        assert np.abs(P - Pd).max() <= 1e-7 * np.abs(Pd).max()
        assert np.abs(V - Vd).max() <= 1e-7 * np.abs(Vd).max()


@pytest.mark.parametrize("depth", [2e-4, -3e-4])  # pushing or lifted inside the break stretch
@pytest.mark.parametrize("rate", [-5e-3, 5e-3, 0.03])  # approaching; on the ramp; past it
def test_sticky_anchor_spring(depth, rate):
    p = np.array([0.01, 0.0, -depth])
    anchor = p + [-4e-4, 2e-4, 0.0]
    u = (anchor - p) / np.linalg.norm(anchor - p)
    point = Point(EXPONENTIAL, p, depth, v=rate * u + [0, 0, -1e-3], sticky=True,
                  anchor=anchor, friction_anchor=p - 0.5 * (anchor - p))
    assert_matches(point, 1e-7, 1e-5, rtol=1e-7)


def test_sticky_anchor_at_rest_resists_from_the_ramp():
    """Moving away from the anchor at speed 0 starts the restitution ramp: the derivative
    along the stretch is the ramp's (the side that resists), across it there is none."""
    p = np.array([0.01, 0.0, 3e-4])
    anchor = p + [-4e-4, 2e-4, 0.0]
    u = (anchor - p) / np.linalg.norm(anchor - p)
    w = np.cross(UP, u)
    point = Point(EXPONENTIAL, p, -3e-4, v=[0, 0, -1e-3], sticky=True, anchor=anchor)
    P, V = point.jacobian()
    Pd, _ = differences(point, 1e-7, 1e-6)
    np.testing.assert_allclose(P, Pd, rtol=1e-7, atol=1e-7 * np.abs(Pd).max())
    along = one_sided(lambda s: point.force(dv=s * u), 1e-6)
    np.testing.assert_allclose(V @ u, along, rtol=1e-9, atol=1e-12)
    assert along @ u < 0.0  # the ramp lowers the pull as the foot recedes from its anchor
    across = richardson(lambda s: point.force(dv=s * w), 1e-6)
    np.testing.assert_allclose(V @ w, across, atol=1e-12)


def test_sticky_anchor_beyond_its_break_stretch_holds_nothing():
    p = np.array([0.0, 0.0, 3e-4])
    point = Point(EXPONENTIAL, p, -3e-4, v=[0.01, 0, 0], sticky=True, anchor=p - [2e-3, 0, 0])
    P, V = assert_matches(point, 1e-6, 1e-6)
    assert not P.any() and not V.any()


@pytest.mark.parametrize("vn", [0.0, 1e-2])
def test_restitution_ramp_ends(vn):
    """At both ends of the restitution ramp (vn = 0, vn = e_velocity) the derivative is
    that of the faster side: the ramp's at its start, the constant e past its end."""
    point = Point(EXPONENTIAL, [0, 0, -2e-4], 2e-4, v=[0, 0, vn])
    _, V = point.jacobian()
    _, faster = differences(point, 1e-7, 1e-6, rule=one_sided, side=1.0)
    _, slower = differences(point, 1e-7, 1e-6, rule=one_sided, side=-1.0)
    np.testing.assert_allclose(V[2, 2], faster[2, 2], rtol=1e-9)
    assert V[2, 2] != pytest.approx(slower[2, 2], rel=1e-3)
