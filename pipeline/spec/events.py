"""The scene's `events:` block -> `Event`s (the step loop's table is built by the simulation
stage from these; pipeline/physics/events.py)."""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.spec import checks
from pipeline.spec.loader import where_of
from pipeline.spec.types import Where


@dataclass(frozen=True)
class Event:
    name: str
    body: str | None  # a body's world coordinate ...
    joint: str | None  # ... or a joint's coordinate
    quantity: str  # x | y | z for a body
    level: float
    rising: bool  # fires when the value rises above the level (else: falls below it)
    action: str  # stop | record
    where: Where = Where()


def resolve_events(doc, si_doc, body_names, problems) -> tuple[Event, ...]:
    """`si_doc` is the events block in SI units; names are checked against the scene's bodies."""
    out = []
    for i, (entry, si) in enumerate(zip(doc["events"], si_doc)):
        path = f"events[{i}]"
        when = si["when"]
        target = when.get("body") or when.get("joint")
        if target not in body_names:
            key = "body" if "body" in when else "joint"
            problems.append(entry["when"].value_mark(key).problem(
                f"no {key} named '{target}' in this scene{checks.did_you_mean(target, body_names)}",
                f"{path}.when.{key}"))
            continue
        if ("below" in when) == ("above" in when):
            problems.append(entry.value_mark("when").problem(
                "an event needs exactly one of `below` and `above`", f"{path}.when"))
            continue
        rising = "above" in when
        out.append(Event(si["name"], when.get("body"), when.get("joint"), when.get("quantity", "z"),
                         float(when["above" if rising else "below"]), rising, si.get("do", "stop"),
                         where_of(doc["events"].item_mark(i), path)))
    return tuple(out)
