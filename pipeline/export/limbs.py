"""Which joints belong on one panel of the joint-angle plot: the limbs of a body tree.

A limb is a chain of bodies that starts where the tree branches (or at a child of a root)
and runs while each body has exactly one child: the roach's legs leg_fl0..leg_fl4, the
humanoid's right_hip_x..right_foot. Limbs of a single joint (the roach's thorax and head)
share one panel, so a creature's joints read as a few labelled groups instead of dozens of
lines on one axis.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from pipeline.export.view import ExportView, ScalarJoint


@dataclass(frozen=True)
class Panel:
    title: str
    joints: tuple[ScalarJoint, ...]


def _limb_heads(parent: np.ndarray) -> np.ndarray:
    """For each body, the first body of its limb (bodies are numbered parents first)."""
    children = np.bincount(parent[parent >= 0], minlength=len(parent))
    head = np.arange(len(parent))
    for b, p in enumerate(parent):
        if p >= 0 and parent[p] >= 0 and children[p] == 1:
            head[b] = head[p]
    return head


def _name(joints) -> str:
    """leg_fl0..leg_fl4 -> leg_fl; no common stem -> first … last."""
    names = [j.name for j in joints]
    stem = re.sub(r"[_\W\d]+$", "", os.path.commonprefix(names))
    if len(names) > 1 and len(stem) >= 2:
        return stem
    return names[0] if len(names) == 1 else f"{names[0]} … {names[-1]}"


def panels(view: ExportView) -> list[Panel]:
    """The joint panels of every creature in order: its limbs, then its single joints."""
    if not view.joints:
        return []
    parent = view.body_parent if view.body_parent is not None else np.full(view.nbody, -1)
    head = _limb_heads(np.asarray(parent))
    out: list[Panel] = []
    for tree in sorted({j.tree for j in view.joints}):
        limbs: dict[tuple[int, bool], list[ScalarJoint]] = {}
        for j in (j for j in view.joints if j.tree == tree):
            limbs.setdefault((int(head[j.body]), j.prismatic), []).append(j)
        singles = [js[0] for js in limbs.values() if len(js) == 1]
        groups = [js for js in limbs.values() if len(js) > 1]
        if singles:
            groups.append(singles)
        titles = [_name(js) for js in groups]
        prefix = f"{view.tree_names[tree]}: " if len({j.tree for j in view.joints}) > 1 else ""
        for js, title in zip(groups, titles):
            if js is singles and 1 < len(js) <= 4:
                title = ", ".join(j.name for j in js)
            elif titles.count(title) > 1 or js is singles:  # two limbs named "right": say which
                title = js[0].name if len(js) == 1 else f"{js[0].name} … {js[-1].name}"
            out.append(Panel(prefix + title, tuple(js)))
    return out
