"""McKenna's corpus command language (thesis Appendix C/D) → corpus YAML documents.

A script builds objects (`get`, `scale`, `move`, `rotate` under `premult`/`postmult` and
`xformcenter`/`localxforms`), freezes them into bodies (`addbody`: the object's transform so
far becomes the shape → body-frame transform), places and links them (transforms issued after
`addbody`, then `linkbodies`), sets joint parameters (`joint body param value`), the world
(`ground*`, `grav`, `integration`, `dt`, `h`) and a gait controller (`addroach`,
`metabolism`, `speed`, `procom`/`retcom` lists with `*f` phase-relative times).

The converter replays the commands on 4×4 matrices and emits: one creature document per
corpus (explicit bodies, every value in SI), a `kind: gait` controller per roach, an
environment for the world, and a scene that ties them together with the integrator settings.
Commands that only print or render (`totalmass`, `! text`, `time`, `legstatus`) are skipped;
anything else the converter does not know is an error at its line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.control.gait_schedule import LEGS
from pipeline.errors import CorpusError, Problem
from pipeline.importers.frames import Frame, number, placement_ops, vector
from pipeline.importers.links import Converted
from pipeline.spec.transforms import axis_angle_matrix

# instance files understood as the unit cube centred on the origin (thesis: `unit_cubeb` is a
# beveled cube of size 1; its bevel is not modelled, as in the digest's box reckoning)
UNIT_CUBES = {"unit_cube", "unit_cubeb"}
# corpus Q_type bits (digest ambiguity #2)
Q_DAMPER, Q_SPRING, Q_EXP = 1, 2, 16
SPRINGTYPES = {"none": "none", "mass": "mass", "distalmass": "distal_mass"}
INTEGRATORS = {"rkf": "rkf45", "rkfixed": "rk4", "euler": "mckenna_euler"}
# commands that only print, echo or render: nothing to convert
SKIPPED = {"totalmass", "time", "legstatus", "jointstatus", "dumpmatcorpus", "dumps", "dumpQs",
           "dumpas", "dumpmotors", "dumpcontacts", "dumpcontactforces", "timerflush", "iter",
           "updatev", "setrootpos", "closeobj"}
# commands a procom/retcom list may hold; anything else ends the list
LIST_COMMANDS = {"motor", "timer", "time", "joint", "jointmatchexp", "bodygroundstick", "addv"}
MATERIAL = {"groundk": "k", "groundb": "b", "groundkrf": "krf", "groundea": "exp_alpha",
            "groundeB": "exp_beta", "grounde": "restitution", "groundfric": "friction",
            "groundemaxz": "max_depth"}
STICKY = {"groundstickea": "exp_alpha", "groundstickeB": "exp_beta",
          "groundstickemaxz": "max_stretch", "groundsticke": "restitution"}
GAIT_TIMES = {"metabolism", "protime", "rettime", "cycletime", "dlegtime"}
GAIT_NUMBERS = {"speed", "deltaspeed", "topspeed", "bottomspeed"}


@dataclass
class _Object:
    """A graphical object; once it is a body, `placement` collects the ops issued after addbody."""

    name: str
    line: int
    matrix: np.ndarray = field(default_factory=lambda: np.eye(4))
    body: dict | None = None
    parent: str | None = None
    joint: dict = field(default_factory=dict)


ConvertedScript = Converted  # the documents one script converts into


class _Converter:
    def __init__(self, path: str):
        self.path = path
        self.objects: dict[str, _Object] = {}
        self.corpora: dict[str, dict] = {}  # name -> {root, rootmotion, bodies (order), links}
        self.corpus: str | None = None
        self.world: dict | None = None
        self.simulation: dict = {}
        self.roaches: dict[str, dict] = {}
        self.roach: str | None = None
        self.timeline: list[dict] = []
        self.notes: list[str] = []
        self.mode = "postmult"
        self.center = np.zeros(3)  # rotations and scales act about this point
        self.line = 0

    # -- errors ------------------------------------------------------------------------
    def fail(self, message: str, line: int | None = None) -> CorpusError:
        return CorpusError(Problem(message, file=self.path, line=line or self.line, col=1))

    def floats(self, args: list[str], n: int, what: str) -> list[float]:
        if len(args) < n:
            raise self.fail(f"{what} needs {n} numbers, got {len(args)}")
        try:
            return [float(a) for a in args[:n]]
        except ValueError:
            raise self.fail(f"{what}: not a number in {' '.join(args[:n])!r}") from None

    def obj(self, name: str) -> _Object:
        if name not in self.objects:
            raise self.fail(f"unknown object {name!r} (create it with `get {name} from ...`)")
        return self.objects[name]

    # -- reading -----------------------------------------------------------------------
    def run(self, text: str) -> ConvertedScript:
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            self.line = i + 1
            words = _words(lines[i])
            i += 1
            if not words:
                continue
            if words[0] in ("procom", "retcom"):
                i = self.command_list(words, lines, i)
                continue
            self.command(words)
        return self.result()

    def command_list(self, words: list[str], lines: list[str], i: int) -> int:
        """`procom leg` / `retcom leg` followed by its commands, up to `.` or a top-level command."""
        if self.roach is None:
            raise self.fail(f"{words[0]} before addroach")
        if len(words) != 2 or words[1] not in {str(k) for k in range(6)}:
            raise self.fail(f"{words[0]} needs a leg number 0..5 (0=FL 1=FR 2=ML 3=MR 4=BL 5=BR)")
        leg = self.roaches[self.roach]["legs"].setdefault(LEGS[int(words[1])], {})
        program = leg.setdefault("step" if words[0] == "procom" else "stance", [])
        while i < len(lines):
            self.line = i + 1
            item = _words(lines[i])
            if item and item[0] not in LIST_COMMANDS and not item[0].startswith("!") and item != ["."]:
                return i  # the list ended without a terminator; this line is top level
            i += 1
            if not item or item[0].startswith("!") or item == ["time"]:
                continue  # echo and time printing are debugging trace
            if item == ["."]:
                return i
            entry = self.program_entry(item)
            if entry is not None:
                program.append(entry)
        return i

    def program_entry(self, words: list[str]) -> dict | None:
        at = 0.0
        if words[0] == "timer":
            if len(words) < 3:
                raise self.fail("timer needs a delay and a command")
            at = self.fraction(words[1])
            words = words[2:]
            if words[0].startswith("!"):
                return None
        action, args = self.timed_command(words, relative=True)
        entry = {"do": {action: args}}
        if at:
            entry = {"at": number(at), **entry}
        return entry

    def fraction(self, word: str) -> float:
        if not word.startswith("*"):
            raise self.fail(f"inside procom/retcom, times are fractions of the phase written "
                            f"*f; got {word!r}")
        return self.floats([word[1:]], 1, "phase fraction")[0]

    def timed_command(self, words: list[str], relative: bool) -> tuple[str, dict]:
        """A command that can also run from a timer, a list or the timeline."""
        name, args = words[0], words[1:]
        if name == "motor":
            if len(args) != 4 or args[1] != "etarget":
                raise self.fail("motor needs: motor body etarget target time")
            self.obj(args[0])
            target = self.floats([args[2]], 1, "motor target")[0]
            time = self.fraction(args[3]) if relative else self.floats([args[3]], 1, "motor time")[0]
            return "motor", {"joint": args[0], "etarget": number(target), "time": number(time)}
        if name == "bodygroundstick":
            if len(args) != 2 or args[1] not in ("on", "off"):
                raise self.fail("bodygroundstick needs: bodygroundstick body on|off")
            self.obj(args[0])
            return "sticky", {"body": args[0], "on": args[1] == "on"}
        if name == "jointmatchexp":
            raise self.fail("jointmatchexp inside a timed command is not supported yet")
        if name == "joint":
            body, param, value = self.joint_words(args)
            key = {"q": "q", "dq": "qd", "e_q": "exp_rest", "ea": "exp_alpha", "eB": "exp_beta",
                   "b": "damping", "k": "spring_k", "kq": "spring_rest"}.get(param)
            if key is None:
                raise self.fail(f"joint {param} cannot change while simulating")
            return "joint", {"joint": body, key: number(float(value))}
        raise self.fail(f"{name} cannot run from a timer or a motor program")

    # -- one top-level command ---------------------------------------------------------
    def command(self, words: list[str]) -> None:
        name, args = words[0], words[1:]
        if name in SKIPPED or name.startswith("!") or name == ".":
            return
        handler = getattr(self, "cmd_" + name, None)
        if handler is not None:
            handler(args)
        elif name in MATERIAL or name in STICKY:
            self.world_material(name, args)
        elif name in GAIT_TIMES or name in GAIT_NUMBERS:
            self.gait_value(name, args)
        else:
            raise self.fail(f"unknown or unsupported corpus command {name!r}")

    # objects and transforms (thesis §7.1)
    def cmd_get(self, args):
        if len(args) == 3 and args[1] == "from":
            args = [args[0], args[2]]
        if len(args) != 2:
            raise self.fail("get needs: get object from instance_file")
        if Path(args[1]).name not in UNIT_CUBES:
            raise self.fail(f"instance file {args[1]!r}: only the unit cube "
                            f"({', '.join(sorted(UNIT_CUBES))}) is known to the converter")
        self.objects[args[0]] = _Object(args[0], self.line)

    def cmd_premult(self, args):
        self.mode = "premult"

    def cmd_postmult(self, args):
        self.mode = "postmult"

    def cmd_localxforms(self, args):
        # Read as "about the origin of the coordinates the op acts in": scaling about the
        # object's current position would leave Appendix C's legs 0.5 m from their joints,
        # so only this reading builds the thesis's roach (digest §6.3, ambiguity #1).
        self.center = np.zeros(3)

    def cmd_xformcenter(self, args):
        self.center = np.array(self.floats(args, 3, "xformcenter"))

    def cmd_init(self, args):
        self.obj(args[0]).matrix = np.eye(4)

    def cmd_move(self, args):
        o = self.obj(args[0])
        op = np.eye(4)
        op[:3, 3] = self.floats(args[1:], 3, "move")
        self.apply(o, op)

    def cmd_scale(self, args):
        o = self.obj(args[0])
        if o.body is not None:
            raise self.fail(f"scale {o.name}: a body's placement must stay rigid; scale "
                            "the object before addbody")
        self.apply(o, np.diag(self.floats(args[1:], 3, "scale") + [1.0]))

    def cmd_rotate(self, args):
        if len(args) != 3 or args[1] not in ("x", "y", "z"):
            raise self.fail("rotate needs: rotate object x|y|z degrees")
        axis = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}[args[1]]
        self.rotation(args[0], axis, self.floats(args[2:], 1, "rotate")[0])

    def cmd_rotateaxis(self, args):
        values = self.floats(args[1:], 4, "rotateaxis")
        self.rotation(args[0], values[:3], values[3])

    def rotation(self, name, axis, degrees):
        axis = np.asarray(axis, float)
        if not np.linalg.norm(axis) > 0:
            raise self.fail("rotation axis is zero")
        op = np.eye(4)
        op[:3, :3] = axis_angle_matrix(axis, math.radians(degrees))
        self.apply(self.obj(name), op)

    def apply(self, o: _Object, op: np.ndarray) -> None:
        """Compose one op: about the transform centre, after (postmult) or before (premult)."""
        center = self.center
        if np.any(center != 0):
            to, back = np.eye(4), np.eye(4)
            to[:3, 3], back[:3, 3] = -center, center
            op = back @ op @ to
        o.matrix = op @ o.matrix if self.mode == "postmult" else o.matrix @ op

    # corpora and bodies (thesis §7.4)
    def cmd_addcorpus(self, args):
        self.corpus = args[0]
        self.corpora[args[0]] = {"root": None, "rootmotion": "free", "bodies": [], "line": self.line}

    def cmd_setcorpus(self, args):
        if args[0] not in self.corpora:
            raise self.fail(f"unknown corpus {args[0]!r}")
        self.corpus = args[0]

    def current_corpus(self) -> dict:
        if self.corpus is None:
            raise self.fail("no corpus yet (addcorpus name)")
        return self.corpora[self.corpus]

    def cmd_addbody(self, args):
        if len(args) < 6:
            raise self.fail("addbody needs: addbody body object ax ay az rotary|sliding density")
        body, source = args[0], self.obj(args[1])
        axis = self.floats(args[2:5], 3, "addbody axis")
        kind = {"rotary": "revolute", "sliding": "prismatic"}.get(args[5])
        if kind is None:
            raise self.fail(f"addbody joint type must be rotary or sliding, got {args[5]!r}")
        density = self.floats(args[6:7], 1, "addbody density")[0] if len(args) > 6 else 1000.0
        flags = [int(f) for f in args[7:]]
        shape, transform = self.box(source)
        o = self.objects.setdefault(body, _Object(body, self.line))
        o.matrix = np.eye(4)  # from now on ops place the body in its parent's frame
        o.body = {"name": body, "shape": shape, "transform": transform, "density": density,
                  "line": self.line}
        if len(flags) > 0 and flags[0] == 0:
            raise self.fail("addbody: non-inertial bodies are not supported")
        if len(flags) > 1 and flags[1] == 0:
            o.body["colliding"] = False
        o.joint = {"type": kind, "axis": axis, "frame": "local"}
        self.current_corpus()["bodies"].append(body)

    def box(self, o: _Object) -> tuple[dict, list]:
        """The unit cube under the object's matrix as a box size and a rigid transform."""
        a = o.matrix[:3, :3]
        size = np.linalg.norm(a, axis=0)
        rot = a / size
        if not np.allclose(rot.T @ rot, np.eye(3), atol=1e-9) or np.linalg.det(rot) < 0:
            raise self.fail(f"object {o.name}: its transform shears or mirrors the cube, "
                            "which is not a box (scale before rotating)")
        return {"box": vector(size)}, placement_ops(Frame(o.matrix[:3, 3], rot))

    def cmd_linkbodies(self, args):
        parent, child = self.obj(args[0]), self.obj(args[1])
        if parent.body is None or child.body is None:
            raise self.fail("linkbodies needs two bodies (addbody first)")
        child.parent = parent.name

    def cmd_setroot(self, args):
        if self.obj(args[0]).body is None:
            raise self.fail(f"setroot {args[0]}: not a body")
        self.current_corpus()["root"] = args[0]

    def cmd_corpusinit(self, args):
        pass  # finalisation happens when the documents are written

    def cmd_rootmotion(self, args):
        if args[:1] not in (["free"], ["fixed"]):
            raise self.fail("rootmotion needs free or fixed")
        self.current_corpus()["rootmotion"] = args[0]

    def cmd_setjointp(self, args):
        o = self.obj(args[0])
        o.joint["axis"] = self.floats(args[1:4], 3, "setjointp axis")
        o.joint["frame"] = "parent"
        if len(args) > 4:
            o.joint["type"] = {"rotary": "revolute", "sliding": "prismatic"}[args[4]]

    def joint_words(self, args) -> tuple[str, str, str]:
        if len(args) != 3:
            raise self.fail("joint needs: joint body parameter value")
        if self.obj(args[0]).body is None:
            raise self.fail(f"joint {args[0]}: not a body")
        return args[0], args[1], args[2]

    def cmd_joint(self, args):
        body, param, value = self.joint_words(args)
        j = self.objects[body].joint
        if param == "springtype":
            if value not in SPRINGTYPES:
                raise self.fail(f"springtype must be one of {', '.join(SPRINGTYPES)}")
            j["scale_by"] = SPRINGTYPES[value]
        elif param == "Q_type":
            j["Q_type"] = int(value)
        elif param in ("q", "dq", "e_q", "ea", "eB", "b", "k", "kq"):
            j[param] = self.floats([value], 1, f"joint {param}")[0]
        else:
            raise self.fail(f"unknown joint parameter {param!r}")

    def cmd_jointmatchexp(self, args):
        j = self.obj(args[0]).joint
        j["e_q"] = j.get("q", 0.0)

    # world (thesis §7.3, §7.6)
    def cmd_addworld(self, args):
        self.world = {"environment": args[0], "material": {}}

    def cmd_setworld(self, args):
        self.cmd_addworld(args)

    def need_world(self) -> dict:
        if self.world is None:
            raise self.fail("no world yet (addworld name)")
        return self.world

    def world_material(self, name, args):
        value = self.floats(args, 1, name)[0]
        material = self.need_world()["material"]
        if name in MATERIAL:
            material[MATERIAL[name]] = number(value)
        else:
            material.setdefault("sticky", {})[STICKY[name]] = number(value)

    def cmd_groundz(self, args):
        self.need_world().setdefault("ground", {"type": "flat"})["z"] = number(
            self.floats(args, 1, "groundz")[0])

    def cmd_groundtype(self, args):
        if args[:1] != ["flat"]:
            raise self.fail("groundtype: only flat converts (a trigrid needs its grid file)")
        self.need_world().setdefault("ground", {})["type"] = "flat"

    def cmd_ground(self, args):
        ground = self.need_world().setdefault("ground", {"type": "flat"})
        if args[:1] == ["off"]:
            ground["type"] = "none"

    def cmd_setgrav(self, args):
        self.need_world()["gravity"] = number(self.floats(args, 1, "setgrav")[0])

    def cmd_grav(self, args):
        if args[:1] == ["off"]:
            self.need_world()["gravity"] = "off"

    def cmd_integration(self, args):
        if not args or args[0] not in INTEGRATORS:
            raise self.fail(f"integration must be one of {', '.join(INTEGRATORS)}")
        self.simulation["integrator"] = INTEGRATORS[args[0]]

    def cmd_dt(self, args):
        self.simulation["dt"] = number(self.floats(args, 1, "dt")[0])

    def cmd_h(self, args):
        self.simulation["h"] = number(self.floats(args, 1, "h")[0])

    def cmd_eps(self, args):
        self.notes.append(f"line {self.line}: eps {args[0]} has no stated meaning in the thesis; "
                          "set simulation atol/rtol instead")

    def cmd_go(self, args):
        frames = self.floats(args, 1, "go")[0]
        self.simulation["duration"] = number(frames * self.simulation.get("dt", 1 / 240))

    def cmd_integrate(self, args):
        pass  # every creature of a scene is integrated

    def cmd_alarm(self, args):
        self.timeline.append(self.timed_entry(self.floats(args, 1, "alarm")[0], args[1:]))

    def cmd_timer(self, args):
        self.timeline.append(self.timed_entry(self.floats(args, 1, "timer")[0], args[1:]))

    def cmd_motor(self, args):
        self.timeline.append(self.timed_entry(0.0, ["motor"] + args))

    def cmd_bodygroundstick(self, args):
        self.timeline.append(self.timed_entry(0.0, ["bodygroundstick"] + args))

    def timed_entry(self, at: float, words: list[str]) -> dict:
        action, args = self.timed_command(words, relative=False)
        return {"at": number(at), "do": {action: args}}

    # roaches (thesis §7.2)
    def cmd_addroach(self, args):
        self.roach = args[0]
        self.roaches[args[0]] = {"creature": self.corpus, "gait": {}, "legs": {}, "go": False}

    def cmd_setroach(self, args):
        if args[0] not in self.roaches:
            raise self.fail(f"unknown roach {args[0]!r}")
        self.roach = args[0]

    def need_roach(self) -> dict:
        if self.roach is None:
            raise self.fail("no roach yet (addroach name)")
        return self.roaches[self.roach]

    def gait_value(self, name, args):
        self.need_roach()["gait"][name] = number(self.floats(args, 1, name)[0])

    def cmd_gaitinit(self, args):
        self.need_roach()

    def cmd_gaitgo(self, args):
        self.need_roach()["go"] = True

    def cmd_stepreflex(self, args):
        self.need_roach()["gait"].setdefault("reflexes", {})["step"] = args[:1] == ["on"]

    def cmd_loadreflex(self, args):
        self.need_roach()["gait"].setdefault("reflexes", {})["load"] = args[:1] == ["on"]

    def cmd_legstepreflex(self, args):
        if len(args) != 4 or args[3] not in ("+", "-"):
            raise self.fail("legstepreflex needs: legstepreflex leg body angle +|-")
        leg = self.need_roach()["legs"].setdefault(LEGS[int(args[0])], {})
        leg["step_reflex"] = {"joint": args[1], "angle": number(float(args[2])), "direction": args[3]}

    def cmd_legloadreflex(self, args):
        if len(args) != 3:
            raise self.fail("legloadreflex needs: legloadreflex leg body force")
        leg = self.need_roach()["legs"].setdefault(LEGS[int(args[0])], {})
        leg["load_reflex"] = {"joint": args[1], "force": number(float(args[2]))}

    # -- documents ---------------------------------------------------------------------
    def result(self) -> ConvertedScript:
        creatures = [self.creature(name, c) for name, c in self.corpora.items()]
        controllers = [self.controller(name, r) for name, r in self.roaches.items()]
        environment = None
        if self.world is not None:
            environment = {k: v for k, v in self.world.items() if v != {}}
        return ConvertedScript(creatures, controllers, environment, self.simulation,
                               self.timeline, self.notes)

    def creature(self, name: str, corpus: dict) -> dict:
        root = corpus["root"]
        if root is None:
            raise self.fail(f"corpus {name} has no root (setroot body)", corpus["line"])
        bodies = corpus["bodies"]
        densities = {self.objects[b].body["density"] for b in bodies}
        children: dict[str, list[str]] = {}
        for b in bodies:
            o = self.objects[b]
            if b != root:
                if o.parent is None:
                    raise self.fail(f"body {b} is never linked to a parent (linkbodies)", o.body["line"])
                children.setdefault(o.parent, []).append(b)
        order, stack = [], [root]
        while stack:  # depth first, children in link order: parents precede children
            b = stack.pop()
            order.append(b)
            stack.extend(reversed(children.get(b, [])))
        doc = {"creature": name}
        if len(densities) == 1:
            doc["density"] = number(densities.pop())
        doc["root"] = {"mode": corpus["rootmotion"]}
        doc["bodies"] = [self.body_doc(b, b == root, "density" in doc) for b in order]
        return doc

    def body_doc(self, name: str, is_root: bool, shared_density: bool) -> dict:
        o = self.objects[name]
        d = {"name": name}
        if not is_root:
            d["parent"] = o.parent
        d["shape"] = o.body["shape"]
        if o.body["transform"]:
            d["transform"] = o.body["transform"]
        if not is_root:
            at = placement_ops(Frame(o.matrix[:3, 3], o.matrix[:3, :3]))
            if at:
                d["at"] = at
            d["joint"] = self.joint_doc(o)
        elif not np.allclose(o.matrix, np.eye(4)):
            self.notes.append(f"root {name}: its placement ops are ignored (place the creature "
                              "with the scene's `at:`)")
        if not shared_density:
            d["density"] = number(o.body["density"])
        if o.body.get("colliding") is False:
            d["colliding"] = False
        return d

    def joint_doc(self, o: _Object) -> dict:
        j = o.joint
        doc = {"type": j["type"], "axis": vector(j["axis"])}
        if j["frame"] == "parent":
            doc["frame"] = "parent"
        mask = j.get("Q_type", Q_DAMPER | Q_SPRING | Q_EXP)
        if "q" in j:
            doc["q"] = number(j["q"])
        if "dq" in j:
            doc["qd"] = number(j["dq"])
        if mask & Q_DAMPER and "b" in j:
            doc["damping"] = number(j["b"])
        if mask & Q_SPRING and "k" in j:
            doc["spring"] = {"k": number(j["k"]), "rest": number(j.get("kq", 0.0))}
        if mask & Q_EXP and "ea" in j:
            doc["exp_spring"] = {"alpha": number(j["ea"]), "beta": number(j.get("eB", 0.0)),
                                 "rest": number(j.get("e_q", 0.0))}
        unknown = mask & ~(Q_DAMPER | Q_SPRING | Q_EXP)
        if unknown:
            self.notes.append(f"joint {o.name}: Q_type bits {unknown} (limits/bias?) have no "
                              "stated meaning and were not converted")
        doc["scale_by"] = j.get("scale_by", "none")
        return doc

    def controller(self, name: str, roach: dict) -> dict:
        gait = dict(roach["gait"])
        missing = [leg for leg in LEGS if "step" not in roach["legs"].get(leg, {})
                   or "stance" not in roach["legs"].get(leg, {})]
        if missing:
            raise self.fail(f"roach {name}: legs {', '.join(missing)} lack a procom or retcom list")
        gait["go"] = roach["go"]
        gait["legs"] = {leg: roach["legs"][leg] for leg in LEGS}
        doc = {"controller": name, "kind": "gait"}
        if roach["creature"]:
            doc["creature"] = roach["creature"]
        doc["gait"] = gait
        return doc


def _words(line: str) -> list[str]:
    """Tokens of one line without its `#` comment."""
    return line.split("#", 1)[0].split()


def convert_corpus_script(path) -> ConvertedScript:
    """Convert a corpus command-language script file into YAML-ready documents."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CorpusError(Problem(f"cannot read the script: {err}", file=str(path))) from None
    return _Converter(str(path)).run(text)
