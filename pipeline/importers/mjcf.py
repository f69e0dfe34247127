"""MuJoCo MJCF -> corpus creatures.

Follows MuJoCo's compiler: `<include>`, `<default>` classes with `childclass`, compiler
`angle`/`eulerseq`/`inertiafromgeom`/`settotalmass`/`meshdir`, every orientation form
(quat, axisangle, euler, xyaxes, zaxis, fromto), joint `ref`/`springref`, and MuJoCo's rules
for geometry mass. Each top-level body of `<worldbody>` becomes one creature.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.importers.actuation import motor_controllers
from pipeline.importers.frames import (Frame, number, quat_from_axis_angle, quat_mul,
                                       quat_normalize, quat_to_mat, quat_z_to, vector)
from pipeline.importers.links import (Actuator, GeomDef, ImportLog, ImportResult, JointDef,
                                      Link, creature_document, safe_name)
from pipeline.importers.massprops import (combine, mesh_volume_inertia, primitive_volume_inertia,
                                          principal)
from pipeline.importers.meshes import load_mesh
from pipeline.importers.simulation import ground_material, lift_clear, simulation_block, stable_h
from pipeline.importers.xmltree import Element, attr_number, floats, parse_xml

ACTUATOR_TAGS = ("general", "motor", "position", "velocity", "intvelocity", "damper",
                 "cylinder", "muscle", "adhesion")
# elements without influence on the tree's dynamics; their content is not read
IGNORED = {"visual", "statistic", "custom", "size", "sensor", "keyframe", "extension"}
# MuJoCo's contact model; corpus replaces it by the environment's material
CONTACT_ONLY = {"contact"}
# body children that only mark points or render views
MARKERS = {"site", "camera", "light"}
GEOM_ATTRS_CONTACT = ("condim", "friction", "solref", "solimp", "margin", "gap", "priority",
                      "solmix")
MUJOCO_GRAVITY = (0.0, 0.0, -9.81)  # MuJoCo's default; corpus's own default is 9.8
SHAPES = ("sphere", "capsule", "cylinder", "ellipsoid", "box")


class Compiler:
    """The `<compiler>` settings that change how numbers are read."""

    def __init__(self, el: Element | None, model_dir: Path):
        a = el.attrib if el is not None else {}
        self.degrees = a.get("angle", "degree") == "degree"
        self.eulerseq = a.get("eulerseq", "xyz")
        self.inertiafromgeom = a.get("inertiafromgeom", "auto")
        self.settotalmass = attr_number(el, "settotalmass", "-1", a)
        self.autolimits = a.get("autolimits", "true") == "true"
        asset_dir = model_dir / a.get("assetdir", "")
        self.meshdir = asset_dir / a.get("meshdir", "") if "meshdir" in a else asset_dir
        for key in ("boundmass", "boundinertia", "balanceinertia"):
            if key in a and a[key] not in ("0", "false"):
                raise CorpusError(el.problem(f"compiler {key} is not supported", key))
        if a.get("coordinate", "local") != "local":
            raise CorpusError(el.problem("coordinate=\"global\" was removed from MuJoCo and is "
                                         "not supported; use local coordinates", "coordinate"))

    def angle(self, x: float) -> float:
        return math.radians(x) if self.degrees else x


def expand_includes(el: Element, base: Path) -> None:
    """Replace every `<include file=...>` by the children of the included file's root;
    MuJoCo resolves every include, nested ones too, against the main file's folder."""
    out = []
    for c in el.children:
        if c.tag == "include":
            sub = parse_xml(base / c.get("file"))
            expand_includes(sub, base)
            out.extend(sub.children)
        else:
            expand_includes(c, base)
            out.append(c)
    el.children = out


class Defaults:
    """`<default>` classes: class name -> element kind -> attributes, inheritance applied.
    All actuator shortcuts share one actuator default, as in MuJoCo."""

    def __init__(self, root: Element):
        self.classes: dict[str, dict[str, dict]] = {"main": {}}
        for d in root.findall("default"):
            self._read(d, "main", {})

    @staticmethod
    def kind(tag: str) -> str:
        return "actuator" if tag in ACTUATOR_TAGS else tag

    def _read(self, el: Element, name: str, inherited: dict) -> None:
        own = {k: dict(v) for k, v in inherited.items()}
        for c in el.children:
            if c.tag != "default":
                own.setdefault(self.kind(c.tag), {}).update(c.attrib)
        self.classes[name] = own
        for c in el.findall("default"):
            self._read(c, c.get("class", name), own)

    def attrs(self, el: Element, childclass: str) -> dict:
        cls = el.get("class", childclass)
        if cls not in self.classes:
            raise CorpusError(el.problem(f"unknown default class {cls!r}", "class"))
        merged = dict(self.classes[cls].get(self.kind(el.tag), {}))
        merged.update(el.attrib)
        return merged


class MjcfImporter:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.root = parse_xml(self.path)
        if self.root.tag != "mujoco":
            raise CorpusError(self.root.problem("not an MJCF file: the root element must be "
                                                "<mujoco>"))
        expand_includes(self.root, self.path.parent)
        self.log = ImportLog()
        self.compiler = Compiler(self.root.find("compiler"), self.path.parent)
        self.defaults = Defaults(self.root)
        self.meshes: dict[str, dict] = {}
        self.materials: dict[str, tuple] = {}
        self.link_of_joint: dict[str, str] = {}
        self.used_names: set[str] = set()
        self.actuator_names: set[str] = set()
        self.gravity = None
        self.timestep = None
        self.disabled: set[str] = set()  # <option><flag ...="disable"> names
        self.ground_z: float | None = None  # height of a horizontal plane in <worldbody>
        self.ground_contact = (1.0, 0.02, 1.0)  # that plane's friction, solref (MuJoCo's defaults)

    # ---------------------------------------------------------------- top level
    def run(self, drop_unsupported: bool) -> ImportResult:
        for el in self.root.children:
            if el.tag in ("compiler", "default", "worldbody", "actuator"):
                continue
            elif el.tag == "option":
                self._option(el)
            elif el.tag == "asset":
                self._assets(el)
            elif el.tag in IGNORED:
                self.log.note(el, "no effect on the dynamics: skipped")
            elif el.tag in CONTACT_ONLY:
                self.log.note(el, "MuJoCo contact pairs/exclusions: corpus contact uses the "
                                  "environment's material instead")
            elif el.tag == "tendon":
                for t in el.children:
                    self._tendon(t)
            elif el.tag == "equality" and {"constraint", "equality"} & self.disabled:
                self.log.note(el, "equality constraints are disabled in <option>: skipped")
            elif el.tag in ("equality", "deformable"):
                self.log.unsupported_feature(el, f"<{el.tag}> has no corpus counterpart")
            else:
                self.log.unsupported_feature(el, f"unknown element <{el.tag}>")
        trees: list[list[Link]] = []
        for world in self.root.findall("worldbody"):
            for el in world.children:
                if el.tag == "body":
                    links: list[Link] = []
                    self._body(el, None, Frame(), "main", links)
                    trees.append(links)
                elif el.tag == "geom":
                    self._world_geom(el)
                elif el.tag in MARKERS:
                    continue
                else:
                    self.log.unsupported_feature(el, f"<{el.tag}> in <worldbody> is not supported")
        actuators = []
        for group in self.root.findall("actuator"):
            for el in group.children:
                actuator = self._actuator(el)
                if actuator is not None:
                    actuators.append(actuator)
        self._scale_total_mass(trees)
        self.log.check(drop_unsupported)
        model = safe_name(self.root.get("model", self.path.stem))
        creatures = []
        for links in trees:
            name = model if len(trees) == 1 else links[0].source
            doc, folded = creature_document(name, links)
            creatures.append(doc)
            if folded:
                self.log.notes.append(Problem(f"massless welded bodies folded into their parents: "
                                              f"{', '.join(folded)}", file=str(self.path)))
        environment = self._environment(model, sum(ln.mass for links in trees for ln in links))
        if self.ground_z is not None:
            for doc in creatures:
                lift = lift_clear(doc, environment, self.ground_z)
                if lift:
                    self.log.notes.append(Problem(
                        f"{doc['creature']} starts {lift * 100:.3g} cm higher than in MuJoCo, whose soft "
                        "contact lets it start inside the floor: corpus's ground spring would throw it",
                        file=str(self.path)))
        simulation = simulation_block(self.timestep)
        simulation["h"] = stable_h(creatures, environment, simulation)
        self.log.notes.append(Problem(
            f"simulation: frames of MuJoCo's timestep ({simulation['dt']:g} s), integrated by implicit "
            f"Euler at h = {simulation['h']:g} s (the longest of dt, dt/2, ... that runs its first second "
            "stably), on a ground matching MuJoCo's contact", file=str(self.path)))
        return ImportResult(creatures, motor_controllers(creatures, trees, actuators),
                            environment, simulation, [], [str(p) for p in self.log.notes],
                            actuators, trees, self.log)

    def _world_geom(self, el: Element) -> None:
        a = self.defaults.attrs(el, "main")
        frame = self.frame(el, a)
        if a.get("type", "sphere") == "plane" and np.allclose(frame.rot[:, 2], (0, 0, 1)):
            if self.ground_z is None:
                self.ground_z = float(frame.pos[2])
                friction = floats(a.get("friction", "1"), 1, el, "friction")[0]
                tc, ratio = floats(a.get("solref", "0.02 1"), 2, el, "solref")[:2]
                self.ground_contact = (float(friction), float(tc), float(ratio))
                self.log.note(el, "this plane becomes the environment's flat ground")
                return
        self.log.note(el, "static world geometry is not imported: give the scene an environment "
                          "(ground, obstacles) instead")

    def _environment(self, model: str, mass: float) -> dict:
        gravity = MUJOCO_GRAVITY if self.gravity is None else self.gravity
        env: dict = {"environment": model,
                     "gravity": "off" if not any(gravity) else vector(gravity)}
        env["ground"] = ({"type": "none"} if self.ground_z is None
                         else {"type": "flat", "z": number(self.ground_z)})
        if self.ground_z is not None:
            env["material"] = ground_material(*self.ground_contact, mass)
        return env

    def _option(self, el: Element) -> None:
        a = el.attrib
        if "gravity" in a:
            self.gravity = tuple(floats(a["gravity"], 3, el, "gravity"))
        if "timestep" in a:
            self.timestep = attr_number(el, "timestep", None, a)
        for medium in ("density", "viscosity"):
            if attr_number(el, medium, "0", a) != 0.0:
                self.log.unsupported_feature(el, f"fluid {medium} (MuJoCo's medium forces) is not "
                                                 "imported; corpus water is part of the environment",
                                             medium)
        for flag in el.findall("flag"):
            for key, value in flag.attrib.items():
                if value != "disable":
                    continue
                self.disabled.add(key)
                if key == "gravity":
                    self.gravity = (0.0, 0.0, 0.0)
                elif key in ("passive", "spring", "damper"):
                    self.log.unsupported_feature(flag, f"disabling {key} forces is not supported",
                                                 key)

    def _tendon(self, el: Element) -> None:
        a = self.defaults.attrs(el, "main")
        forces = [k for k in ("stiffness", "damping", "frictionloss") if attr_number(el, k, "0", a) != 0]
        limited = a.get("limited", "auto")
        if (limited == "true" or (limited == "auto" and "range" in a)) and not (
                {"constraint", "limit"} & self.disabled):
            forces.append("range")
        if forces:
            self.log.unsupported_feature(el, f"tendon {', '.join(forces)} has no corpus "
                                             "counterpart")
        else:
            self.log.note(el, "a tendon without its own forces is skipped (actuators on it are "
                              "reported separately)")

    def _assets(self, el: Element) -> None:
        for a in el.children:
            if a.tag == "mesh":
                attrs = self.defaults.attrs(a, "main")
                if "file" not in attrs:
                    self.log.unsupported_feature(a, "meshes given inline (vertex/face) are not "
                                                    "supported; use a mesh file")
                    continue
                name = attrs.get("name") or Path(attrs["file"]).stem
                for key in ("refpos", "refquat"):
                    if key in attrs:
                        self.log.unsupported_feature(a, f"mesh {key} is not supported", key)
                rule = attrs.get("inertia", "legacy")
                if rule not in ("legacy", "exact", "convex"):
                    self.log.unsupported_feature(a, f"mesh inertia {rule!r} is not supported",
                                                 "inertia")
                self.meshes[name] = {"file": self.compiler.meshdir / attrs["file"],
                                     "inertia": rule,
                                     "scale": floats(attrs.get("scale", "1 1 1"), 3, a, "scale"),
                                     "element": a}
            elif a.tag == "material":
                rgba = floats(a.get("rgba", "1 1 1 1"), 4, a, "rgba")
                self.materials[a.get("name")] = tuple(float(x) for x in rgba)

    # ---------------------------------------------------------------- frames
    def orientation(self, el: Element, a: dict) -> np.ndarray:
        given = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in a]
        if len(given) > 1:
            raise CorpusError(el.problem(f"more than one orientation given: {', '.join(given)}"))
        if not given:
            return np.array([1.0, 0.0, 0.0, 0.0])
        key = given[0]
        if key == "quat":
            return quat_normalize(floats(a[key], 4, el, key))
        if key == "axisangle":
            v = floats(a[key], 4, el, key)
            return quat_from_axis_angle(v[:3], self.compiler.angle(v[3]))
        if key == "euler":
            v = floats(a[key], 3, el, key)
            q = np.array([1.0, 0.0, 0.0, 0.0])
            for letter, angle in zip(self.compiler.eulerseq, v):
                axis = np.eye(3)["xyz".index(letter.lower())]
                r = quat_from_axis_angle(axis, self.compiler.angle(angle))
                # lower case: rotating (intrinsic) axes; upper case: fixed (extrinsic) axes
                q = quat_mul(q, r) if letter.islower() else quat_mul(r, q)
            return quat_normalize(q)
        if key == "xyaxes":
            v = floats(a[key], 6, el, key)
            x = v[:3] / np.linalg.norm(v[:3])
            y = v[3:] - (v[3:] @ x) * x
            y /= np.linalg.norm(y)
            return Frame(rot=np.column_stack([x, y, np.cross(x, y)])).quat
        return quat_z_to(floats(a[key], 3, el, key))

    def frame(self, el: Element, a: dict) -> Frame:
        pos = floats(a.get("pos", "0 0 0"), 3, el, "pos")
        return Frame(pos, quat_to_mat(self.orientation(el, a)))

    def unique(self, name: str) -> str:
        return _unique(safe_name(name), self.used_names)

    # ---------------------------------------------------------------- bodies
    def _body(self, el: Element, parent: Link | None, parent_anchor: Frame, childclass: str,
              links: list[Link]) -> None:
        """Append the links of MuJoCo body `el`. `parent_anchor` is the parent MuJoCo body's
        frame expressed in its last link's frame."""
        childclass = el.get("childclass", childclass)
        if el.get("mocap") == "true":
            self.log.unsupported_feature(el, "mocap bodies are not supported", "mocap")
        if attr_number(el, "gravcomp", "0") != 0.0:
            self.log.unsupported_feature(el, "gravity compensation is not supported", "gravcomp")
        body_frame = parent_anchor * self.frame(el, el.attrib)
        body_name = el.get("name") or f"body{len(self.used_names)}"
        joints = [c for c in el.children if c.tag in ("joint", "freejoint")]
        geoms, inertial, children = [], None, []
        for c in el.children:
            if c.tag == "geom":
                geoms.append(c)
            elif c.tag == "inertial":
                inertial = c
            elif c.tag == "body":
                children.append(c)
            elif c.tag in ("joint", "freejoint") or c.tag in MARKERS:
                continue
            else:
                self.log.unsupported_feature(c, f"<{c.tag}> inside <body> is not supported")
        if parent is not None and any(self._joint_type(j, childclass) == "free" for j in joints):
            self.log.unsupported_feature(el, "a free joint is only supported on a top-level body")

        # one link per joint (at least one: a body without joints is welded to its parent)
        chain = []
        specs = [self._joint(j, childclass) for j in joints] or [(JointDef("fixed"), np.zeros(3))]
        prev_anchor = None
        for k, (jdef, anchor) in enumerate(specs):
            last = k == len(specs) - 1
            name = self.unique(body_name if last else (jdef.name or f"{body_name}_joint{k}"))
            if jdef.name:
                self.link_of_joint[jdef.name] = name
            if prev_anchor is None:
                f = body_frame * Frame(anchor)
            else:
                f = Frame(anchor - prev_anchor)
            link = Link(name, (chain[-1].name if chain else (parent.name if parent else None)),
                        f, jdef, source=safe_name(body_name))
            chain.append(link)
            prev_anchor = anchor
        body_link = chain[-1]
        body_link.anchor = prev_anchor
        to_link = Frame(-prev_anchor)  # MuJoCo body frame -> its last link's frame
        self._mass(el, geoms, inertial, childclass, body_link, to_link)
        links.extend(chain)
        for c in children:
            self._body(c, body_link, to_link, childclass, links)

    def _joint_type(self, el: Element, childclass: str) -> str:
        if el.tag == "freejoint":
            return "free"
        return self.defaults.attrs(el, childclass).get("type", "hinge")

    def _joint(self, el: Element, childclass: str) -> tuple[JointDef, np.ndarray]:
        if el.tag == "freejoint":
            return JointDef("free", name=el.get("name", "")), np.zeros(3)
        a = self.defaults.attrs(el, childclass)
        mj_type = a.get("type", "hinge")
        kind = {"hinge": "revolute", "slide": "prismatic", "ball": "ball", "free": "free"}.get(mj_type)
        if kind is None:
            raise CorpusError(el.problem(f"unknown joint type {mj_type!r}", "type"))
        angular = mj_type in ("hinge", "ball")
        conv = self.compiler.angle if angular else float
        axis = floats(a.get("axis", "0 0 1"), 3, el, "axis")
        if not np.linalg.norm(axis) > 0:
            raise CorpusError(el.problem(f"the joint axis must not be zero, got {a.get('axis')!r}", "axis"))
        axis = axis / np.linalg.norm(axis)
        ref = conv(attr_number(el, "ref", "0", a)) if mj_type in ("hinge", "slide") else 0.0
        j = JointDef(kind, name=a.get("name", ""), axis=tuple(axis), offset=ref,
                     damping=attr_number(el, "damping", "0", a),
                     stiffness=attr_number(el, "stiffness", "0", a),
                     armature=attr_number(el, "armature", "0", a))
        if mj_type in ("hinge", "slide"):
            j.spring_rest = conv(attr_number(el, "springref", "0", a)) - ref
        elif j.stiffness:
            self.log.unsupported_feature(el, f"stiffness on a {mj_type} joint is not supported",
                                         "stiffness")
        limited = a.get("limited", "auto")
        has_range = "range" in a
        limits_off = {"constraint", "limit"} & self.disabled
        if not limits_off and (limited == "true" or (limited == "auto" and self.compiler.autolimits
                                                      and has_range)):
            lo, hi = floats(a.get("range", "0 0"), 2, el, "range")
            if mj_type in ("hinge", "slide"):
                j.range = (conv(lo) - ref, conv(hi) - ref)
                j.limit_solref = tuple(floats(a.get("solreflimit", "0.02 1"), 2, el, "solreflimit"))
            else:
                self.log.unsupported_feature(el, f"a limited {mj_type} joint (cone limit) is not "
                                                 "supported", "range")
        if attr_number(el, "frictionloss", "0", a) != 0.0 and not {"constraint", "frictionloss"} & self.disabled:
            self.log.unsupported_feature(el, "dry joint friction (frictionloss) is not supported",
                                         "frictionloss")
        if "springdamper" in a:
            self.log.unsupported_feature(el, "springdamper is not supported: give stiffness and "
                                             "damping", "springdamper")
        anchor = floats(a.get("pos", "0 0 0"), 3, el, "pos")
        if mj_type == "free":
            anchor = np.zeros(3)  # MuJoCo places a free body by its frame, not the anchor
        return j, anchor

    # ---------------------------------------------------------------- geometry and mass
    def _geom(self, el: Element, childclass: str):
        """(GeomDef or None, mass part or None) for one MuJoCo geom, in the MuJoCo body frame."""
        a = self.defaults.attrs(el, childclass)
        gtype = a.get("type", "sphere")
        size = np.zeros(3)
        given = floats(a.get("size", "0 0 0"), None, el, "size")
        size[:len(given)] = given[:3]
        need = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}.get(gtype, 0) - ("fromto" in a)
        if len(given) < need:
            raise CorpusError(el.problem(f"a {gtype} needs {need} size number{'s' * (need > 1)}, "
                                         f"got {a.get('size', '')!r}", "size"))
        frame = self.frame(el, a)
        if "fromto" in a:
            ft = floats(a["fromto"], 6, el, "fromto")
            if gtype not in ("capsule", "cylinder", "box", "ellipsoid"):
                raise CorpusError(el.problem(f"fromto is not valid for a {gtype}", "fromto"))
            d = ft[:3] - ft[3:]  # MuJoCo turns +z towards `from` (the shape is symmetric)
            frame = Frame((ft[:3] + ft[3:]) / 2.0, quat_to_mat(quat_z_to(d)))
            size[1 if gtype in ("capsule", "cylinder") else 2] = np.linalg.norm(d) / 2.0
        rgba = tuple(float(x) for x in floats(a["rgba"], 4, el, "rgba")) if "rgba" in a else None
        if rgba is None:  # MuJoCo: an explicit rgba wins over the material's
            rgba = self.materials.get(a.get("material"), (0.5, 0.5, 0.5, 1.0))
        colliding = not (a.get("contype", "1") == "0" and a.get("conaffinity", "1") == "0"
                         or {"contact", "constraint"} & self.disabled)
        name = safe_name(a["name"]) if "name" in a else ""
        density = attr_number(el, "density", "1000", a)
        mass = attr_number(el, "mass", None, a) if "mass" in a else None
        if gtype in SHAPES:
            volume, unit_inertia = primitive_volume_inertia(gtype, size)
            shape_size = {
                "sphere": lambda: float(size[0]),
                "capsule": lambda: {"radius": float(size[0]), "length": float(2 * size[1])},
                "cylinder": lambda: {"radius": float(size[0]), "length": float(2 * size[1])},
                "ellipsoid": lambda: [float(s) for s in size],
                "box": lambda: [float(2 * s) for s in size],
            }[gtype]()
            geom = GeomDef(gtype, shape_size, frame, rgba, colliding, name)
            mass_frame = frame
        elif gtype == "mesh":
            mesh = self.meshes.get(a.get("mesh"))
            if mesh is None:
                raise CorpusError(el.problem(f"unknown mesh {a.get('mesh')!r}", "mesh"))
            vertices, faces = load_mesh(mesh["file"], mesh["element"])
            volume, centroid, inertia = mesh_volume_inertia(vertices * mesh["scale"], faces,
                                                            mesh["inertia"])
            # MuJoCo shows the file's vertices in the geom frame (it re-centres the mesh and
            # offsets the geom by the same amount), so the shape is placed by `frame` itself
            geom = GeomDef("mesh", {"file": str(mesh["file"]),
                                    "scale": [float(s) for s in mesh["scale"]]},
                           frame, rgba, colliding, name)
            unit_inertia, axes = principal(inertia)
            mass_frame = Frame(frame.apply(centroid), frame.rot @ axes)
        elif gtype == "plane":
            self.log.note(el, "a plane inside a body is not imported (no mass; corpus grounds "
                              "belong to the environment)")
            return None, None
        else:
            self.log.unsupported_feature(el, f"geom type {gtype!r} is not supported", "type")
            return None, None
        if a.get("shellinertia", "false") == "true":
            self.log.unsupported_feature(el, "shellinertia is not supported", "shellinertia")
        for key in GEOM_ATTRS_CONTACT:
            if key in el.attrib:
                self.log.note(el, "MuJoCo contact parameter skipped: corpus contact uses the "
                                  "environment's material", key)
        if a.get("fluidshape", "none") != "none":
            self.log.unsupported_feature(el, "fluid forces (fluidshape) are not supported",
                                         "fluidshape")
        m = mass if mass is not None else density * volume
        part = (m, mass_frame, unit_inertia * (m / volume)) if volume > 0 else None
        return geom, part

    def _mass(self, el: Element, geom_els, inertial: Element | None, childclass: str,
              link: Link, to_link: Frame) -> None:
        parts = []
        for g in geom_els:
            geom, part = self._geom(g, childclass)
            if geom is not None:
                geom.frame = to_link * geom.frame
                link.geoms.append(geom)
            if part is not None:
                parts.append(part)
        from_geoms = self.compiler.inertiafromgeom == "true" or (
            self.compiler.inertiafromgeom == "auto" and inertial is None)
        if from_geoms:
            mass, com, inertia = combine(parts)
        elif inertial is not None:
            mass = attr_number(inertial, "mass")
            f = self.frame(inertial, inertial.attrib)
            if "fullinertia" in inertial.attrib:
                xx, yy, zz, xy, xz, yz = floats(inertial.get("fullinertia"), 6, inertial,
                                                "fullinertia")
                local = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
            else:
                local = np.diag(floats(inertial.get("diaginertia", "0 0 0"), 3, inertial,
                                       "diaginertia"))
            com, inertia = f.pos, f.rot @ local @ f.rot.T
        else:
            mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
        link.mass = mass
        link.com = to_link.apply(com)
        link.inertia = to_link.rot @ inertia @ to_link.rot.T

    def _scale_total_mass(self, trees) -> None:
        target = self.compiler.settotalmass
        if target <= 0:
            return
        total = sum(ln.mass for links in trees for ln in links)
        for links in trees:
            for ln in links:
                ln.mass *= target / total
                ln.inertia = ln.inertia * (target / total)

    # ---------------------------------------------------------------- actuators
    def _actuator(self, el: Element) -> Actuator | None:
        a = self.defaults.attrs(el, "main")
        if "joint" not in a:
            self.log.unsupported_feature(el, "only actuators on a joint are supported (not "
                                             "tendon/site/body transmissions)")
            return None
        gain = 1.0
        if el.tag == "general":
            fixed_gain = a.get("gaintype", "fixed") == "fixed"
            no_bias = a.get("biastype", "none") == "none"
            no_dyn = a.get("dyntype", "none") == "none"
            if not (fixed_gain and no_bias and no_dyn):
                self.log.unsupported_feature(el, "only bias-free, activation-free <general> "
                                                 "actuators (a plain torque) are supported")
                return None
            gain = float(floats(a.get("gainprm", "1"), 1, el, "gainprm")[0])
        elif el.tag != "motor":
            self.log.unsupported_feature(el, f"<{el.tag}> actuators are not supported: corpus "
                                             "imports <motor> (a joint torque channel)")
            return None
        limited = a.get("forcelimited", "auto")
        if limited == "true" or (limited == "auto" and "forcerange" in a):
            self.log.unsupported_feature(el, "actuator force limits are not supported",
                                         "forcerange")
        joint = a["joint"]
        if joint not in self.link_of_joint:
            raise CorpusError(el.problem(f"unknown joint {joint!r}", "joint"))
        gear = float(floats(a.get("gear", "1"), 1, el, "gear")[0]) * gain
        limited = a.get("ctrllimited", "auto")
        ctrlrange = None
        if limited == "true" or (limited == "auto" and "ctrlrange" in a):
            ctrlrange = tuple(float(x) for x in floats(a.get("ctrlrange"), 2, el, "ctrlrange"))
        # an unnamed actuator is named after its joint (MuJoCo leaves it nameless)
        name = _unique(safe_name(a.get("name", joint)), self.actuator_names)
        return Actuator(name, self.link_of_joint[joint], gear, ctrlrange)


def _unique(name: str, used: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... if taken; the result is added to `used`."""
    base, n = name, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    return name


def import_mjcf(path, *, drop_unsupported: bool = False) -> ImportResult:
    """Convert the MJCF file at `path`. Raises CorpusError listing every element that would
    change the dynamics but has no corpus counterpart, unless `drop_unsupported`."""
    return MjcfImporter(Path(path)).run(drop_unsupported)
