"""URDF (ROS robot description) -> a corpus creature.

Links carry their `<inertial>` as explicit mass properties; `<visual>` shapes are drawn
(not colliding) and `<collision>` shapes collide (drawn transparent). Joints: revolute,
continuous, prismatic, fixed and floating, with `<limit>` and `<dynamics damping>`. A link
named `world` welds the robot to the world (Gazebo's convention); otherwise the root link
floats freely.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError
from pipeline.importers.frames import Frame, quat_from_axis_angle, quat_mul, quat_to_mat
from pipeline.importers.links import (GeomDef, ImportLog, ImportResult, JointDef, Link,
                                      creature_document, safe_name)
from pipeline.importers.xmltree import Element, attr_number, floats, parse_xml

JOINT_TYPES = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
               "fixed": "fixed", "floating": "free"}
INVISIBLE = (0.5, 0.5, 0.5, 0.0)
DEFAULT_COLOR = (0.7, 0.7, 0.7, 1.0)


def origin_frame(el: Element | None) -> Frame:
    """`<origin xyz rpy>`: rpy are fixed-axis roll, pitch, yaw (R = Rz(y) Ry(p) Rx(r))."""
    if el is None:
        return Frame()
    xyz = floats(el.get("xyz", "0 0 0"), 3, el, "xyz")
    r, p, y = floats(el.get("rpy", "0 0 0"), 3, el, "rpy")
    q = quat_mul(quat_from_axis_angle((0, 0, 1), y),
                 quat_mul(quat_from_axis_angle((0, 1, 0), p), quat_from_axis_angle((1, 0, 0), r)))
    return Frame(xyz, quat_to_mat(q))


class UrdfImporter:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.root = parse_xml(self.path)
        if self.root.tag != "robot":
            raise CorpusError(self.root.problem("not a URDF file: the root element must be <robot>"))
        self.log = ImportLog()
        self.materials = {}
        for m in self.root.findall("material"):
            self._material(m)

    def _material(self, el: Element):
        color = el.find("color")
        if color is not None:
            rgba = tuple(float(x) for x in floats(color.get("rgba"), 4, color, "rgba"))
            if el.get("name"):
                self.materials[el.get("name")] = rgba
            return rgba
        return self.materials.get(el.get("name"), DEFAULT_COLOR)

    def run(self, drop_unsupported: bool) -> ImportResult:
        links = {el.get("name"): el for el in self.root.findall("link")}
        joints = self.root.findall("joint")
        child_of = {}
        for j in joints:
            for key in ("parent", "child"):
                tag = j.find(key)
                if tag is None or tag.get("link") not in links:
                    raise CorpusError(j.problem(f"<{key}> must name a link of this robot", key))
            child = j.find("child").get("link")
            if child in child_of:
                raise CorpusError(j.problem(f"link {child!r} has two parent joints"))
            child_of[child] = j
        for el in self.root.children:
            if el.tag not in ("link", "joint", "material"):
                self.log.note(el, f"<{el.tag}> has no effect on the dynamics here: skipped")
        roots = [name for name in links if name not in child_of]
        if len(roots) != 1:
            raise CorpusError(self.root.problem(f"a URDF needs exactly one root link, found "
                                                f"{len(roots)}: {', '.join(roots)}"))
        children: dict[str, list[Element]] = {}
        for j in joints:
            children.setdefault(j.find("parent").get("link"), []).append(j)
        out: list[Link] = []
        root = roots[0]
        if root == "world":  # welded robot: the world's children become fixed-base roots
            self._world_children(links, children, out)
        else:
            out.append(self._link(links[root], None, Frame(), JointDef("free")))
            self._descend(root, links, children, out)
        self.log.check(drop_unsupported)
        name = safe_name(self.root.get("name", self.path.stem))
        doc, folded = creature_document(name, out)
        notes = [str(p) for p in self.log.notes]
        if folded:
            notes.append(f"massless welded links folded into their parents: {', '.join(folded)}")
        env = {"environment": name, "ground": {"type": "flat", "z": 0}}
        return ImportResult([doc], [], env, {}, [], notes, [], [out], self.log)

    def _world_children(self, links, children, out) -> None:
        tops = children.get("world", [])
        if len(tops) != 1:
            raise CorpusError(self.root.problem("the `world` link must hold exactly one joint"))
        j = tops[0]
        link = self._joint_link(j, links, None)
        if link.joint.type == "free":
            self.log.unsupported_feature(j, "a floating joint to `world` is simply a free root: "
                                            "remove the world link")
        out.append(link)
        self._descend(link.name, links, children, out)

    def _descend(self, name, links, children, out) -> None:
        for j in children.get(name, []):
            link = self._joint_link(j, links, name)
            out.append(link)
            self._descend(link.name, links, children, out)

    def _joint_link(self, j: Element, links, parent: str | None) -> Link:
        jtype = j.get("type")
        if jtype not in JOINT_TYPES:
            raise CorpusError(j.problem(f"joint type {jtype!r} is not supported (corpus has "
                                        f"{', '.join(JOINT_TYPES)})", "type"))
        kind = JOINT_TYPES[jtype]
        jd = JointDef(kind, name=j.get("name", ""))
        if kind in ("revolute", "prismatic"):
            axis_el = j.find("axis")
            axis = floats(axis_el.get("xyz"), 3, axis_el, "xyz") if axis_el is not None \
                else np.array([1.0, 0.0, 0.0])
            if not np.linalg.norm(axis) > 0:
                raise CorpusError(axis_el.problem(f"the joint axis must not be zero, got {axis_el.get('xyz')!r}",
                                                  "xyz"))
            jd.axis = tuple(axis / np.linalg.norm(axis))
        limit = j.find("limit")
        # a hard stop becomes corpus's limit spring-damper with MuJoCo's default softness
        if limit is not None and jtype in ("revolute", "prismatic"):
            jd.range = (attr_number(limit, "lower", "0"), attr_number(limit, "upper", "0"))
        dynamics = j.find("dynamics")
        if dynamics is not None:
            jd.damping = attr_number(dynamics, "damping", "0")
            if attr_number(dynamics, "friction", "0") != 0.0:
                self.log.unsupported_feature(dynamics, "dry joint friction is not supported",
                                             "friction")
        for c in j.children:
            if c.tag == "mimic":
                self.log.unsupported_feature(c, "mimic joints (a coupling constraint) are not "
                                                "supported")
            elif c.tag in ("calibration", "safety_controller"):
                self.log.note(c, "no effect on the dynamics: skipped")
        child = links[j.find("child").get("link")]
        return self._link(child, parent, origin_frame(j.find("origin")), jd)

    def _link(self, el: Element, parent: str | None, frame: Frame, joint: JointDef) -> Link:
        link = Link(safe_name(el.get("name")), parent, frame, joint, source=el.get("name"),
                    anchor=np.zeros(3))
        inertial = el.find("inertial")
        if inertial is not None:
            f = origin_frame(inertial.find("origin"))
            mass_el, i = inertial.find("mass"), inertial.find("inertia")
            link.mass = attr_number(mass_el, "value") if mass_el is not None else 0.0
            if i is not None:
                g = {k: attr_number(i, k, "0") for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
                local = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]],
                                  [g["ixz"], g["iyz"], g["izz"]]])
                link.inertia = f.rot @ local @ f.rot.T
            link.com = f.pos
        for c in el.children:
            if c.tag in ("visual", "collision"):
                geom = self._geom(c)
                if geom is not None:
                    link.geoms.append(geom)
        return link

    def _geom(self, el: Element) -> GeomDef | None:
        visual = el.tag == "visual"
        frame = origin_frame(el.find("origin"))
        g = el.find("geometry")
        shape = g.children[0] if g is not None and g.children else None
        if shape is None:
            raise CorpusError(el.problem("needs a <geometry> with one shape"))
        rgba = INVISIBLE
        if visual:
            material = el.find("material")
            rgba = self._material(material) if material is not None else DEFAULT_COLOR
        name = safe_name(el.get("name")) if el.get("name") else ""
        if shape.tag == "box":
            size = [float(x) for x in floats(shape.get("size"), 3, shape, "size")]
            return GeomDef("box", size, frame, rgba, not visual, name)
        if shape.tag == "sphere":
            return GeomDef("sphere", attr_number(shape, "radius"), frame, rgba, not visual, name)
        if shape.tag in ("cylinder", "capsule"):
            radius, length = attr_number(shape, "radius"), attr_number(shape, "length")
            return GeomDef(shape.tag, {"radius": radius, "length": length}, frame, rgba,
                           not visual, name)
        if shape.tag == "mesh":
            filename = shape.get("filename", "")
            path = self._mesh_path(shape, filename)
            scale = [float(x) for x in floats(shape.get("scale", "1 1 1"), 3, shape, "scale")]
            return GeomDef("mesh", {"file": str(path), "scale": scale}, frame, rgba,
                           not visual, name)
        raise CorpusError(shape.problem(f"geometry <{shape.tag}> is not supported"))

    def _mesh_path(self, el: Element, filename: str) -> Path:
        """Resolve a mesh filename; `package://pkg/rest` is looked for beside the URDF
        (in the URDF's folder and its parents, as ROS packages are laid out)."""
        if filename.startswith("package://"):
            rest = Path(filename[len("package://"):])
            for base in [self.path.parent, *self.path.parent.parents]:
                for candidate in (base / rest, base / Path(*rest.parts[1:])):
                    if candidate.is_file():
                        return candidate
            raise CorpusError(el.problem(f"cannot find {filename} near the URDF", "filename"))
        if filename.startswith("file://"):
            filename = filename[len("file://"):]
        path = (self.path.parent / filename).resolve()
        if not path.is_file():
            raise CorpusError(el.problem(f"mesh file not found: {path}", "filename"))
        return path


def import_urdf(path, *, drop_unsupported: bool = False) -> ImportResult:
    """Convert the URDF file at `path` (see the module docstring)."""
    return UrdfImporter(Path(path)).run(drop_unsupported)
