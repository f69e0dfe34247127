"""Semantic checks the schemas cannot express, each with the location of the culprit.

Tree structure (duplicate names, unknown parents, cycles, several roots), references by
name (timeline commands, controller targets), and values that must be positive.
"""
from __future__ import annotations

import difflib
import math

from pipeline.errors import Problem
from pipeline.spec.loader import MDict, Mark


def in_file_order(problems) -> list[Problem]:
    """Problems sorted by file, line and column (as a reader meets them)."""
    return sorted(problems, key=lambda p: (p.file or "", p.line or 0, p.col or 0))


def article(word: str) -> str:
    """"a creature", "an environment"."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def tree_order(bodies, path: str, problems: list[Problem]) -> list[int]:
    """Indices of `bodies` (plain, expanded) with every parent before its children.

    Reports duplicate names, unknown parents, cycles and a missing or repeated root; the
    returned order leaves out bodies that cannot be placed.
    """
    index: dict[str, int] = {}
    for i, body in enumerate(bodies):
        name = body["name"]
        if name in index:
            first = bodies[index[name]].value_mark("name")
            problems.append(body.value_mark("name").problem(
                f"duplicate body name '{name}' (first defined at line {first.line})",
                f"{path}[{i}].name"))
        else:
            index[name] = i
    roots, children = [], {}
    for i, body in enumerate(bodies):
        parent = body.get("parent")
        if parent is None or parent == "world":
            roots.append(i)
        elif parent not in index:
            problems.append(body.value_mark("parent").problem(
                f"unknown parent body '{parent}'{did_you_mean(parent, index)}", f"{path}[{i}].parent"))
        elif parent == body["name"]:
            problems.append(body.value_mark("parent").problem(
                f"body '{parent}' cannot be its own parent", f"{path}[{i}].parent"))
        else:
            children.setdefault(index[parent], []).append(i)
    if not roots and bodies:
        problems.append(bodies.mark.problem(
            "no root body: every body names a parent, so the parents form a cycle", path))
    for i in roots[1:]:
        first = bodies[roots[0]]["name"]
        problems.append(bodies[i].value_mark("name").problem(
            f"a second root body: '{bodies[i]['name']}' has no parent, but '{first}' is already "
            "the root (one creature is one tree; give it a `parent`)", f"{path}[{i}]"))
    order, stack = [], list(reversed(roots[:1]))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children.get(i, [])))
    placed = set(order)
    _report_cycles(bodies, index, placed, path, problems)
    return order


def _report_cycles(bodies, index, placed, path, problems) -> None:
    reported: set[int] = set()
    for start in range(len(bodies)):
        if start in placed or start in reported:
            continue
        chain, i = [], start
        while i is not None and i not in chain and i not in placed:
            chain.append(i)
            parent = bodies[i].get("parent")
            i = index.get(parent) if parent not in (None, "world") else None
        if i is not None and i in chain:
            cycle = chain[chain.index(i):]
            if not reported.intersection(cycle):
                names = " -> ".join(bodies[j]["name"] for j in (*cycle, cycle[0]))
                j = min(cycle)
                problems.append(bodies[j].value_mark("parent").problem(
                    f"the parents form a cycle: {names}", f"{path}[{j}].parent"))
            reported.update(cycle)


def positive(value, mark: Mark, path: str, what: str, problems: list[Problem],
             allow_zero: bool = False) -> bool:
    ok = value >= 0 if allow_zero else value > 0
    if not ok:
        need = "zero or positive" if allow_zero else "positive"
        problems.append(mark.problem(f"{what} must be {need}, got {value:g}", path))
    return ok


def check_command_names(args: MDict, names: dict[str, list[str]], creatures,
                        path: str, problems: list[Problem]) -> None:
    """Names in a timeline command (`joint`, `body`, `creature`) must exist in the scene.

    `names` maps a body/joint name to the creatures that have it.
    """
    if not isinstance(args, MDict):
        return
    for key in ("joint", "body"):
        name = args.get(key)
        if not isinstance(name, str):
            continue
        owners = names.get(name, [])
        if not owners:
            problems.append(args.value_mark(key).problem(
                f"no {key} named '{name}' in this scene{did_you_mean(name, names)}", f"{path}.{key}"))
        elif len(owners) > 1:
            problems.append(args.value_mark(key).problem(
                f"'{name}' is ambiguous: creatures {', '.join(owners)} all have it", f"{path}.{key}"))
    name = args.get("creature")
    if isinstance(name, str) and name not in creatures:
        problems.append(args.value_mark("creature").problem(
            f"no creature named '{name}' in this scene{did_you_mean(name, creatures)}", f"{path}.creature"))


# A run longer than this cannot finish in a useful time or memory: a mistyped dt, h or
# duration (1e-9 for 1e-3, 1e9 for 1e3) must not look like a hung job.
MAX_FRAMES = 10**7  # recorded frames and controller calls: hours of simulated time at 1/240 s
MAX_FIXED_STEPS = 10**10  # fixed-step integrator steps: hours of CPU at microseconds a step


def whole_frames(duration: float, dt: float) -> str | None:
    """Why `duration` is not a whole number of frames of dt, or None. A run is simulated and
    recorded frame by frame; rounding up quietly ran 0.1 s for a duration of 0.001 s."""
    frames = duration / dt
    if round(frames) >= 1 and abs(frames - round(frames)) <= 1e-6 * frames:
        return None
    below, above = math.floor(frames) * dt, math.ceil(frames) * dt
    choices = f"{below:.6g} s or {above:.6g} s" if below > 0 else f"{above:.6g} s"
    return (f"{duration:g} s is {frames:.6g} frames of dt = {dt:.6g} s, but a run is a whole number of "
            f"frames: make it {choices}, or choose a dt that divides it")


def run_length(duration: float, dt: float, h: float | None, integrator: str) -> str | None:
    """Why a run of `duration` seconds is too long to attempt, or None when it is fine."""
    frames = duration / dt
    if frames > MAX_FRAMES:
        return (f"{duration:g} s at dt = {dt:g} s is {frames:.3g} frames, more than the "
                f"{MAX_FRAMES:.0e} a run can take; raise dt or shorten the run")
    steps = duration / h if h else frames
    if integrator != "rkf45" and steps > MAX_FIXED_STEPS:
        return (f"{duration:g} s at h = {h:g} s is {steps:.3g} integrator steps, more than the "
                f"{MAX_FIXED_STEPS:.0e} a run can take; raise h or shorten the run")
    return None
