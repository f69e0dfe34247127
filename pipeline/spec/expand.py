"""`repeat` and `mirror` body blocks -> a flat list of plain bodies (marks kept).

Expansion works on the document itself, so the expanded creature is still a valid YAML
document (Scene.source) with the units the author wrote.

Mirror (reflection M across the plane normal to axis k, McKenna digest §6.3/§7.10): a body
built by the op list T becomes M T M applied to M B; for the symmetric primitives M B = B,
so every op is reflected on its own:
  move [x, y, z]      -> component k negated;
  rotate about a by θ -> M R M = rotation about M a by -θ (named axes: the mirror axis
                         keeps θ, the other two negate it; McKenna's "negate x-rotations");
  scale               -> unchanged.
Joints follow the same algebra: a rotary joint's motion R(a, q) becomes R(M a, -q), so
axes become M a and every angle (q, qd, rests, targets, bias, limits swapped) is negated —
with axes in the mirror plane that is exactly the roach's q_right = -q_left. Sliding
joints keep their coordinates. Frustums (not symmetric along their own z) get a leading
180° turn about x when mirrored along z; meshes get their scale negated along k.
"""
from __future__ import annotations

import copy
import re

from pipeline.errors import CorpusError, Problem
from pipeline.spec.loader import MDict, MList
from pipeline.spec.units import negate

AXIS_INDEX = {"x": 0, "y": 1, "z": 2}
MAX_BODIES = 10_000  # nested repeats multiply; past this a creature is a typo or an attack
ROTARY = {"revolute", "universal"}


def expand_bodies(bodies: MList, problems: list[Problem], path: str = "bodies") -> MList:
    """Flatten `repeat`/`mirror` blocks (recursively) into plain bodies."""
    out = MList(mark=bodies.mark)
    for i, item in enumerate(bodies):
        mark = bodies.item_mark(i)
        if isinstance(item, MDict) and "repeat" in item:
            for body in _repeat(item["repeat"], problems, f"{path}[{i}].repeat"):
                out.add(body, body.mark)
        elif isinstance(item, MDict) and "mirror" in item:
            for body in _mirror(item["mirror"], problems, f"{path}[{i}].mirror"):
                out.add(body, body.mark)
        else:
            out.add(item, mark)
    return out


# --- repeat -----------------------------------------------------------------------------

def _repeat(block: MDict, problems, path):
    var = block.get("as", "i")
    pattern = re.compile(r"\{\s*" + re.escape(var) + r"\s*(?:([+-])\s*(\d+))?\s*\}")
    inner = expand_bodies(block["bodies"], problems, f"{path}.bodies")
    if block["count"] * len(inner) > MAX_BODIES:
        raise CorpusError(block.value_mark("count").problem(
            f"refused: this repeat would make {block['count'] * len(inner)} bodies; "
            f"a creature may have at most {MAX_BODIES}", f"{path}.count"))
    start = block.get("start", 0)
    for n in range(start, start + block["count"]):
        def value(m, n=n):
            return str(n + (int(m.group(2)) * (1 if m.group(1) == "+" else -1) if m.group(1) else 0))
        for body in inner:
            yield _substitute(copy.deepcopy(body), lambda s: pattern.sub(value, s))


def _substitute(node, fn):
    if isinstance(node, MDict):
        for k in list(node):
            node[k] = _substitute(node[k], fn)
        return node
    if isinstance(node, MList):
        for i, v in enumerate(node):
            node[i] = _substitute(v, fn)
        return node
    return fn(node) if isinstance(node, str) else node


# --- mirror -----------------------------------------------------------------------------

def _mirror(block: MDict, problems, path):
    k = AXIS_INDEX[block["axis"]]
    old, new = block["rename"]
    inner = expand_bodies(block["bodies"], problems, f"{path}.bodies")
    yield from inner
    for i, body in enumerate(inner):
        if old not in body["name"]:
            problems.append(body.value_mark("name").problem(
                f"mirror: the name '{body['name']}' does not contain '{old}', so its mirror "
                f"image would have the same name", f"{path}.bodies[{i}].name"))
            continue
        yield mirror_body(copy.deepcopy(body), k, old, new)


def mirror_body(body: MDict, k: int, old: str, new: str) -> MDict:
    """The reflection of one plain body across the plane normal to axis k (in place)."""
    body["name"] = body["name"].replace(old, new)
    if "parent" in body:
        body["parent"] = body["parent"].replace(old, new)
    for key in ("at", "transform"):
        if key in body:
            body[key] = _mirror_ops(body[key], k)
    _mirror_shape_of(body, k)
    for part in body.get("parts", ()):
        if "name" in part:
            part["name"] = part["name"].replace(old, new)
        if "transform" in part:
            part["transform"] = _mirror_ops(part["transform"], k)
        _mirror_shape_of(part, k)
    if "inertial" in body:
        _mirror_inertial(body["inertial"], k)
    if "joint" in body:
        _mirror_joint(body["joint"], k, has_parent="parent" in body)
    return body


def _flip(vec, k: int):
    vec[k] = negate(vec[k])


def _mirror_ops(ops: MList, k: int) -> MList:
    for op in ops:
        if "move" in op:
            _flip(op["move"], k)
        elif "rotate" in op:
            rot = op["rotate"]
            if "axis" in rot:
                _flip(rot["axis"], k)
                rot["angle"] = negate(rot["angle"])
            else:
                (name, angle), = rot.items()
                if AXIS_INDEX[name] != k:
                    rot[name] = negate(angle)
    return ops


def _mirror_shape_of(owner: MDict, k: int) -> None:
    shape = owner.get("shape")
    if not isinstance(shape, MDict):
        return
    if "frustum" in shape and k == 2:
        turn = MDict({"rotate": MDict({"x": 180}, mark=owner.mark)}, mark=owner.mark)
        ops = owner.get("transform", MList(mark=owner.mark))
        ops.insert(0, turn)
        ops.item_marks.insert(0, owner.mark)
        owner["transform"] = ops
    if "mesh" in shape:
        scale = shape["mesh"].get("scale", 1)
        if not isinstance(scale, list):
            scale = MList([scale, scale, scale], mark=shape.mark)
        _flip(scale, k)
        shape["mesh"]["scale"] = scale


def _mirror_inertial(inertial: MDict, k: int) -> None:
    if "com" in inertial:
        _flip(inertial["com"], k)
    inertia = inertial.get("inertia")
    if inertia is not None and len(inertia) == 6:
        # products ixy ixz iyz: an entry flips sign when exactly one of its indices is k
        for idx, (a, b) in zip((3, 4, 5), ((0, 1), (0, 2), (1, 2))):
            if (a == k) != (b == k):
                inertia[idx] = negate(inertia[idx])


def _mirror_joint(joint: MDict, k: int, has_parent: bool) -> None:
    jtype = joint.get("type", "revolute" if has_parent else "free")
    if "axis" in joint:
        _flip(joint["axis"], k)
    for axis in joint.get("axes", ()):
        _flip(axis, k)
    if jtype in ROTARY:
        for key in ("q", "qd", "bias"):
            if key in joint:
                joint[key] = _negate_all(joint[key])
        for block, key in (("spring", "rest"), ("exp_spring", "rest"), ("servo", "target")):
            if key in joint.get(block, {}):
                joint[block][key] = _negate_all(joint[block][key])
        limits = joint.get("limits")
        if limits is not None:
            lower, upper = limits.get("lower"), limits.get("upper")
            for key in ("lower", "upper"):
                limits.pop(key, None)
            if upper is not None:
                limits["lower"] = negate(upper)
            if lower is not None:
                limits["upper"] = negate(lower)
    elif jtype == "ball":
        if "q" in joint:  # quaternion (w, v) -> (w, -M v)
            _pseudo_flip(joint["q"], 1, k)
        if "qd" in joint:
            _pseudo_flip(joint["qd"], 0, k)
    elif jtype == "free":
        if "q" in joint:  # (p, w, v) -> (M p, w, -M v)
            _flip(joint["q"], k)
            _pseudo_flip(joint["q"], 4, k)
        if "qd" in joint:  # (v, ω) -> (M v, -M ω)
            _flip(joint["qd"], k)
            _pseudo_flip(joint["qd"], 3, k)


def _pseudo_flip(vec, start: int, k: int) -> None:
    """-M w for the 3-vector at vec[start:start+3]: every component but k is negated."""
    for j in range(3):
        if j != k and start + j < len(vec):
            vec[start + j] = negate(vec[start + j])


def _negate_all(value):
    if isinstance(value, list):
        for i, v in enumerate(value):
            value[i] = negate(v)
        return value
    return negate(value)
