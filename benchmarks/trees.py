"""Tree generators shared by the dynamics tests and benchmarks, as Creature specs, plus
the translation of a compiled Model (and its states) into Pinocchio for cross-checks.

    random_creature(rng, n, joint_types=...)  random tree, every joint type, random inertias
    chain_creature(n)                         n-link revolute chain (scaling measurements)
    hexapod_creature()                        38 DOF: free root, thorax, head, 6 legs x 5
    humanoid_creature()                       27 DOF: free pelvis, ball abdomen and hips,
                                              knees, universal ankles and shoulders, elbows
    pinocchio_model(model)                    pin.Model with the same joints and inertias
    to_pin_q(model, q) / pin_fext(model, pin_model, q, f_ext)
"""
from __future__ import annotations


import numpy as np

from pipeline.spec.types import Body, Creature, Geom, Inertial, Joint, JointForces, Pose

ALL_JOINTS = ("fixed", "revolute", "prismatic", "universal", "ball", "free")


def _unit(v):
    v = np.asarray(v, float)
    return tuple(v / np.linalg.norm(v))


def random_quat(rng) -> tuple[float, float, float, float]:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return tuple(q)


def random_inertial(rng) -> Inertial:
    """Random mass, com and a physical inertia (random principal moments and axes)."""
    m = float(rng.uniform(0.2, 3.0))
    a, b, c = rng.uniform(0.05, 0.5, size=3)  # half extents of an equivalent box
    d = m / 3.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    qr = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    I = qr @ np.diag(d) @ qr.T
    return Inertial(mass=m, com=tuple(rng.uniform(-0.3, 0.3, size=3)),
                    inertia=(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))


def random_creature(rng, n: int, joint_types=ALL_JOINTS, root: str = "free",
                    name: str = "random", armature: float = 0.0) -> Creature:
    """A random tree of n bodies: each body's parent is a random earlier body, joints drawn
    from joint_types (the root's is `root`: free / fixed / prescribed / a joint type),
    random placements, axes and inertias, armature uniform in [0, armature)."""
    bodies = []
    for i in range(n):
        if i == 0:
            jt = "free" if root in ("free", "prescribed") else ("fixed" if root == "fixed" else root)
            parent = None
        else:
            jt = str(rng.choice(joint_types))
            parent = f"b{int(rng.integers(0, i))}"
        axes = ()
        if jt in ("revolute", "prismatic"):
            axes = (_unit(rng.normal(size=3)),)
        elif jt == "universal":
            a1 = rng.normal(size=3)
            a2 = np.cross(a1, rng.normal(size=3))
            axes = (_unit(a1), _unit(a2))
        placement = Pose(pos=tuple(rng.uniform(-0.5, 0.5, size=3)), quat=random_quat(rng))
        bodies.append(Body(name=f"b{i}", parent=parent, placement=placement,
                           joint=Joint(type=jt, axes=axes, forces=JointForces(
                               armature=float(rng.uniform(0.0, armature)))),
                           inertial=random_inertial(rng)))
    mode = root if root in ("free", "fixed", "prescribed") else "free"
    return Creature(name=name, bodies=_depth_first(bodies), root_mode=mode)


def _depth_first(bodies):
    """Bodies reordered depth first: Pinocchio's CRBA needs every subtree's DOFs to be
    contiguous (ours does not, but the cross-check compares the same ordering)."""
    children = {}
    for b in bodies:
        children.setdefault(b.parent, []).append(b)
    out, stack = [], list(reversed(children[None]))
    while stack:
        b = stack.pop()
        out.append(b)
        stack.extend(reversed(children.get(b.name, [])))
    return tuple(out)


def _box(size, pos=(0.0, 0.0, 0.0), density=1000.0):
    return Geom(shape="box", size=tuple(size), pose=Pose(pos=tuple(pos)), density=density)


def _rev(axis):
    return Joint(type="revolute", axes=(_unit(axis),))


def chain_creature(n: int, root: str = "fixed") -> Creature:
    """n capsule-like box links along x, revolute joints about alternating y and z."""
    bodies = []
    for i in range(n):
        axis = (0.0, 1.0, 0.0) if i % 2 == 0 else (0.0, 0.0, 1.0)
        joint = _rev(axis) if i > 0 or root == "revolute" else Joint(type=root)
        bodies.append(Body(name=f"link{i}", parent=None if i == 0 else f"link{i - 1}",
                           placement=Pose(pos=(0.0 if i == 0 else 0.1, 0.0, 0.0)),
                           joint=joint, geoms=(_box((0.1, 0.02, 0.02), (0.05, 0.0, 0.0)),)))
    return Creature(name=f"chain{n}", bodies=tuple(bodies),
                    root_mode="fixed" if root == "fixed" else "free")


def hexapod_creature() -> Creature:
    """A roach-shaped 38-DOF tree (McKenna digest 6.6 sizes, in cm): free abdomen, thorax
    and head hinges, six legs of five hinges (coxa about the thorax z, femur and tibia
    about x, tarsus z, claw diagonal)."""
    cm = 0.01
    bodies = [Body(name="abdomen", parent=None, placement=Pose(pos=(0.0, 0.0, 0.02)),
                   joint=Joint(type="free"), geoms=(_box((1.63 * cm, 1.25 * cm, 0.706 * cm)),)),
              Body(name="thorax", parent="abdomen", placement=Pose(pos=(0.815 * cm, 0.0, 0.1 * cm)),
                   joint=_rev((0, 1, 0)),
                   geoms=(_box((1.06 * cm, 0.875 * cm, 0.529 * cm), (0.529 * cm, 0, 0)),)),
              Body(name="head", parent="thorax", placement=Pose(pos=(1.058 * cm, 0.0, 0.0)),
                   joint=_rev((1, 0, 0)),
                   geoms=(_box((0.265 * cm, 0.25 * cm, 0.635 * cm), (0.1353 * cm, 0, -0.141 * cm)),))]
    legs = {"f": (0.9, (0.21, 0.49, 0.21), (0.11, 0.6, 0.11), (0.053, 0.6, 0.053), 0.18),
            "m": (0.55, (0.18, 0.6, 0.18), (0.071, 0.42, 0.071), (0.053, 0.95, 0.053), 0.2),
            "b": (0.15, (0.25, 0.56, 0.25), (0.11, 0.35, 0.11), (0.071, 1.41, 0.071), 0.35)}
    for side, sgn in (("l", 1.0), ("r", -1.0)):
        for leg, (x, s0, s1, s2, claw) in legs.items():
            segs = [s0, s1, s2, (0.035, 0.035, 0.035), (0.035, claw, 0.035)]
            axes = [(0, -0.707 * sgn, 0.707), (1, 0, 0), (1, 0, 0), (0, 0, 1), (0.707, 0, 0.707)]
            parent, offset = "thorax", (x * cm, 0.44 * sgn * cm, -0.15 * cm)
            for k, (seg, axis) in enumerate(zip(segs, axes)):
                name = f"leg_{leg}{side}{k}"
                size = tuple(v * cm for v in seg)
                bodies.append(Body(name=name, parent=parent, placement=Pose(pos=offset),
                                   joint=_rev(axis),
                                   geoms=(_box(size, (0.0, sgn * size[1] / 2, 0.0)),)))
                parent, offset = name, (0.0, sgn * size[1], 0.0)
    return Creature(name="hexapod", bodies=tuple(bodies), root_mode="free")


def humanoid_creature() -> Creature:
    """A 27-DOF humanoid: free pelvis, ball abdomen and hips, hinge knees and elbows,
    universal ankles and shoulders (MuJoCo humanoid proportions, boxes of water)."""
    B = []

    def add(name, parent, pos, joint, size, com):
        B.append(Body(name=name, parent=parent, placement=Pose(pos=pos), joint=joint,
                      geoms=(_box(size, com),)))

    def uni(a1, a2):
        return Joint(type="universal", axes=(_unit(a1), _unit(a2)))

    add("pelvis", None, (0, 0, 1.0), Joint(type="free"), (0.14, 0.3, 0.14), (0, 0, 0))
    add("torso", "pelvis", (0, 0, 0.1), Joint(type="ball"), (0.16, 0.3, 0.4), (0, 0, 0.2))
    for side, s in (("r", -1.0), ("l", 1.0)):
        add(f"thigh_{side}", "pelvis", (0, 0.1 * s, -0.05), Joint(type="ball"),
            (0.1, 0.1, 0.4), (0, 0, -0.2))
        add(f"shin_{side}", f"thigh_{side}", (0, 0, -0.4), _rev((0, 1, 0)),
            (0.08, 0.08, 0.4), (0, 0, -0.2))
        add(f"foot_{side}", f"shin_{side}", (0, 0, -0.4), uni((0, 1, 0), (1, 0, 0)),
            (0.2, 0.08, 0.05), (0.05, 0, -0.03))
        add(f"upper_arm_{side}", "torso", (0, 0.18 * s, 0.35), uni((1, 0, 0), (0, 1, 0)),
            (0.07, 0.07, 0.3), (0, 0, -0.15))
        add(f"lower_arm_{side}", f"upper_arm_{side}", (0, 0, -0.3), _rev((0, 1, 0)),
            (0.06, 0.06, 0.28), (0, 0, -0.14))
    return Creature(name="humanoid", bodies=_depth_first(B), root_mode="free")


# ----------------------------------------------------------------------------- Pinocchio

def pinocchio_model(model):
    """A pin.Model with the same joints, placements, inertias, armature and gravity.
    Fixed joints are merged into their parent joint's body (Pinocchio has no fixed joint
    in its kinematic tree). Also returns, per body, (pin joint id, SE3 joint <- body)."""
    import pinocchio as pin

    from pipeline.physics.model import BALL, FIXED, FREE, PRISMATIC, REVOLUTE, UNIVERSAL

    t = model.tree
    pm = pin.Model()
    attach = []
    for i in range(model.nbody):
        p = int(t.parent[i])
        pj, pP = (0, pin.SE3.Identity()) if p < 0 else attach[p]
        place = pP * pin.SE3(t.jrot[i].copy(), t.jpos[i].copy())
        jt = int(t.jtype[i])
        inertia = pin.Inertia(float(t.mass[i]), t.com[i].copy(), t.inertia[i].copy())
        if jt == FIXED:
            attach.append((pj, place))
            pm.appendBodyToJoint(pj, inertia, place)
            continue
        a = t.jaxis[i]
        if jt == REVOLUTE:
            jm = pin.JointModelRevoluteUnaligned(a[0].copy())
        elif jt == PRISMATIC:
            jm = pin.JointModelPrismaticUnaligned(a[0].copy())
        elif jt == UNIVERSAL:
            jm = pin.JointModelUniversal(a[0].copy(), a[1].copy())
        elif jt == BALL:
            jm = pin.JointModelSpherical()
        elif jt == FREE:
            jm = pin.JointModelFreeFlyer()
        jid = pm.addJoint(pj, jm, place, model.body_names[i])
        pm.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
        attach.append((jid, pin.SE3.Identity()))
    pm.gravity = pin.Motion(np.asarray(model.gravity, float).copy(), np.zeros(3))
    pm.armature = np.asarray(t.armature, float).copy()
    return pm, attach


def to_pin_q(model, q):
    """Our q (quaternions w first) -> Pinocchio's (quaternions w last)."""
    from pipeline.physics.model import BALL, FREE

    out = np.array(q, float)
    t = model.tree
    for i in range(model.nbody):
        a = int(t.qadr[i])
        if t.jtype[i] == BALL:
            out[a:a + 4] = np.roll(q[a:a + 4], -1)
        elif t.jtype[i] == FREE:
            out[a + 3:a + 7] = np.roll(q[a + 3:a + 7], -1)
    return out


def pin_fext(model, pm, attach, xrot, f_ext):
    """Our (nb, 6) world-axes [torque about body origin; force] -> Pinocchio's per-joint
    local forces (linear first), summing bodies merged into one joint."""
    import pinocchio as pin

    out = [pin.Force.Zero() for _ in range(pm.njoints)]
    for i in range(model.nbody):
        jid, P = attach[i]
        R = xrot[i]
        f_body = pin.Force(R.T @ f_ext[i, 3:], R.T @ f_ext[i, :3])
        out[jid] = out[jid] + P.act(f_body)
    return out


def random_state(model, rng, scale=1.0):
    """Random (q, qd) with unit quaternions."""
    from pipeline.physics import normalize_quaternions

    q = rng.normal(scale=scale, size=model.nq)
    return normalize_quaternions(model, q), rng.normal(scale=scale, size=model.nv)
