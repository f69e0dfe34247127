"""Timeline runtime: the registries of command handlers and controller kinds, and the core
commands of the physics stage.

A command is `(action, args)` — the single key under a timeline entry's `do:` and its
mapping. Handlers are `handler(sim, args)` and run at frame boundaries only. Other stages
add theirs with `register_command` from their own module (contact: sticky/material/ground,
gait: gait). Controller kinds map a `ControllerRef` to a per-frame callable
`controller(sim, t)`; a script controller of kind K is provided by the module
`pipeline.control.K_controller` or `pipeline.control.K`, imported when a scene uses it,
which registers itself with
`register_controller_kind(K, factory)`.

Core commands (corpus names in brackets):
  joint    instant set of q, qd, exp_rest or any force constant  [joint body param value]
  motor    exp-spring rest ramp to etarget over time            [motor body etarget v t]
  jointmatchexp  rest := current position                        [jointmatchexp body]
  push     external force/torque on a body for a duration
  velocity add a world-frame velocity to a free body             [addv]
  gravity  magnitude (down -z), vector, "off" or "on"             [setgrav, grav on|off]
"""
from __future__ import annotations

import importlib
from typing import Callable

import numpy as np

from pipeline.control.motor import match_exp, start_motor, stop_motor
from pipeline.errors import CorpusError, Problem
from pipeline.physics import forces as F
from pipeline.physics.model import BALL, FREE

Handler = Callable[[object, dict], None]
_COMMANDS: dict[str, Handler] = {}
_CONTROLLER_KINDS: dict[str, Callable] = {}


def register_command(name: str, handler: Handler) -> None:
    _COMMANDS[name] = handler


def forward_to_controller(sim, command: str, kind: str, args: dict) -> None:
    """Hand a timeline command's args (less `creature`) to the named (or only) controller of
    `kind` a scene runs, as kept in `sim.data.user[kind]` by creature."""
    controllers = sim.data.user.get(kind, {})
    name = args.get("creature")
    if name is None and len(controllers) == 1:
        name = next(iter(controllers))
    if name not in controllers:
        known = ", ".join(str(k) for k in controllers) or "none"
        raise CorpusError(f"{command}: no {kind} controller for creature {name!r} ({kind} controllers: {known})")
    controllers[name].command({k: v for k, v in args.items() if k != "creature"})


def command_names() -> tuple[str, ...]:
    return tuple(sorted(_COMMANDS))


def register_controller_kind(kind: str, factory: Callable) -> None:
    """factory(sim, ref: ControllerRef) -> controller(sim, t), called once per frame."""
    _CONTROLLER_KINDS[kind] = factory


def controller_factory(kind: str, where=None) -> Callable:
    for module in (f"pipeline.control.{kind}_controller", f"pipeline.control.{kind}"):
        if kind in _CONTROLLER_KINDS:
            break
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            pass
    if kind not in _CONTROLLER_KINDS:
        raise CorpusError(located(f"unknown controller kind {kind!r} "
                                  f"(known: {', '.join(sorted(_CONTROLLER_KINDS))})", where))
    return _CONTROLLER_KINDS[kind]


def located(message: str, where=None, path: str = "") -> Problem:
    if where is None:
        return Problem(message, path=path)
    return Problem(message, file=where.file, line=where.line, col=where.col,
                   path=where.path or path)


def at_entry(error: CorpusError, where) -> CorpusError:
    """`error` with each problem that names no file pointed at `where`, the scene entry (a
    timeline command, a controller) whose work raised it."""
    return CorpusError([p if p.file else located(p.message, where, p.path) for p in error.problems])


def execute(sim, action: str, args: dict, where=None) -> None:
    """Run one command now; problems point at `where` (the timeline entry) when known."""
    handler = _COMMANDS.get(action)
    if handler is None:
        known = ", ".join(command_names())
        raise CorpusError(located(f"unknown command {action!r} (known: {known})", where))
    try:
        handler(sim, args if isinstance(args, dict) else {"value": args})
    except CorpusError as err:
        if where is None:
            raise
        raise at_entry(err, where) from None
    except (TypeError, ValueError, KeyError) as exc:
        raise CorpusError(located(f"command {action!r}: bad arguments {args!r} ({exc})",
                                  where)) from None


def _per_dof(value, n: int, what: str) -> np.ndarray:
    a = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if a.shape == (1,):
        return np.repeat(a, n)
    if a.shape != (n,):
        raise CorpusError(f"{what}: expected 1 or {n} values, got {a.size}")
    return a


def _scalar_dofs(sim, name: str, what: str):
    dofs, qpos = sim.joint_dofs(name)
    if (qpos < 0).any() or dofs.size == 0:
        raise CorpusError(f"{what}: joint {name!r} has no scalar coordinates "
                          f"({sim.model.joint_types[sim.body_index(name)]} joint)")
    return dofs, qpos


def _joint(sim, args: dict) -> None:
    name = args["joint"]
    data = sim.data
    dofs, _ = sim.joint_dofs(name)
    jt = sim.model.tree.jtype[sim.body_index(name)]
    unknown = set(args) - {"joint", "q", "qd"} - set(F.SETTABLE_FIELDS)
    if unknown:
        raise CorpusError(f"joint: unknown parameter(s) {', '.join(sorted(unknown))}")
    if "q" in args:
        sl = sim.model.joint_qpos_slice(name)
        n = sl.stop - sl.start
        data.q[sl] = _per_dof(args["q"], n, "joint.q")
        if jt in (BALL, FREE):
            sim.normalize()
    if "qd" in args:
        data.qd[dofs] = _per_dof(args["qd"], dofs.size, "joint.qd")
    for field in F.SETTABLE_FIELDS:
        if field not in args:
            continue
        if field in F.POSITION_FIELDS:
            dofs_f, _ = _scalar_dofs(sim, name, f"joint.{field}")
        else:
            dofs_f = dofs
        values = _per_dof(args[field], dofs_f.size, f"joint.{field}")
        if field == "exp_rest":
            stop_motor(data, dofs_f)
            data.exp_rest[dofs_f] = values
            continue
        if field in F.SCALED_FIELDS:
            values = values * sim.force_scale[dofs_f]
        getattr(data.forces, field)[dofs_f] = values


def _motor(sim, args: dict) -> None:
    name = args["joint"]
    dofs, _ = _scalar_dofs(sim, name, "motor")
    target = _per_dof(args["etarget"], dofs.size, "motor.etarget")
    start_motor(sim.data, dofs, target, float(args.get("time", 0.0)), sim.data.time)


def _jointmatchexp(sim, args: dict) -> None:
    dofs, qpos = _scalar_dofs(sim, args["joint"], "jointmatchexp")
    match_exp(sim.data, dofs, qpos)


def _vec3(value, what: str) -> np.ndarray:
    a = np.asarray(value, dtype=np.float64)
    if a.shape != (3,):
        raise CorpusError(f"{what}: expected 3 numbers, got {value!r}")
    return a


def _push(sim, args: dict) -> None:
    b = sim.body_index(args["body"])
    t = sim.data.time
    row = np.zeros(F.PUSH_COLUMNS)
    row[F.PUSH_BODY] = b
    row[F.PUSH_FX:F.PUSH_FZ + 1] = _vec3(args.get("force", (0, 0, 0)), "push.force")
    row[F.PUSH_NX:F.PUSH_NZ + 1] = _vec3(args.get("torque", (0, 0, 0)), "push.torque")
    row[F.PUSH_PX:F.PUSH_PZ + 1] = _vec3(args.get("point", (0, 0, 0)), "push.point")
    duration = float(args.get("duration", sim.dt))  # default: one frame
    if duration <= 0.0:
        raise CorpusError(f"push.duration must be positive, got {duration}")
    row[F.PUSH_START] = t
    row[F.PUSH_END] = t + duration
    sim.data.pushes = np.vstack([sim.data.pushes, row[None, :]])


def _velocity(sim, args: dict) -> None:
    """Add a rigid velocity: `linear` to the centre of mass and `angular` about it (world)."""
    name = args["body"]
    b = sim.body_index(name)
    if sim.model.tree.jtype[b] != FREE:
        raise CorpusError(f"velocity: body {name!r} has a "
                          f"{sim.model.joint_types[b]} joint; addv needs a free body")
    R = sim.body_rotation(b)
    dv = _vec3(args.get("linear", (0, 0, 0)), "velocity.linear")
    dw = _vec3(args.get("angular", (0, 0, 0)), "velocity.angular")
    w_body = R.T @ dw
    # the body origin sits at -com from the centre of mass: v_o = v_c + w x (o - c)
    v_body = R.T @ dv + np.cross(w_body, -sim.model.tree.com[b])
    va = int(sim.model.tree.vadr[b])
    sim.data.qd[va:va + 3] += v_body
    sim.data.qd[va + 3:va + 6] += w_body


def _gravity(sim, args: dict) -> None:
    value = args.get("value", args)
    if isinstance(value, str):
        if value not in ("on", "off"):
            raise CorpusError(f"gravity: expected a number, a vector, 'on' or 'off', got {value!r}")
        g = sim.model.gravity if value == "on" else np.zeros(3)
    elif np.ndim(value) == 0:
        g = np.array([0.0, 0.0, -float(value)])
    else:
        g = _vec3(value, "gravity")
    sim.data.gravity[:] = g


for _name, _handler in (("joint", _joint), ("motor", _motor), ("jointmatchexp", _jointmatchexp),
                        ("push", _push), ("velocity", _velocity), ("gravity", _gravity)):
    register_command(_name, _handler)
