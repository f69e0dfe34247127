"""Biped characters from proportions (Coros 2010 §5.5.3's proportion editor): creature
documents for the `biped_walk` controller, written as YAML (`corpus character`).

It writes documents the spec stage reads, using the compiler's closed-form volumes for the
masses it reports; nothing below imports it.

    from pipeline.characters import biped_character
    doc, mass = biped_character("tall", {"scale": 1.3})
    doc, mass = biped_character("robot", {"limb_shape": "box"}, left={"upper_arm": 0.364})
    doc, mass = biped_character("c3", seed=3)          # random proportions, asymmetric
"""
from __future__ import annotations

import os
from pathlib import Path

import yaml

from pipeline.characters.biped import biped_document
from pipeline.characters.proportions import random_proportions, read, resolve
from pipeline.importers.output import VectorDumper
from pipeline.spec.schema import SCHEMA_DIR


def biped_character(name: str, proportions: dict | None = None, left: dict | None = None,
                    right: dict | None = None, seed: int | None = None, description: str = "",
                    labels: tuple[str, str, str] = ("proportions", "left", "right")) -> tuple[dict, float]:
    """(creature document, mass in kg). `proportions` sets both sides (names in
    pipeline/characters/proportions.py: NUMBERS and limb_shape), `left`/`right` one side's
    limbs (SIDED); with a `seed`, every proportion not given is drawn at random first.
    Raises CorpusError naming each bad proportion after its input's label."""
    both, own_left, own_right = random_proportions(seed) if seed is not None else ({}, {}, {})
    both.update(read(proportions or {}, labels[0]))
    own_left.update(read(left or {}, labels[1], sided=True))
    own_right.update(read(right or {}, labels[2], sided=True))
    return biped_document(name, *resolve(both, own_left, own_right), description)


def character_yaml(doc: dict, path: Path, header: list[str]) -> str:
    """The document as YAML for `path`, with the schema line and `header` comment lines."""
    schema = Path(os.path.relpath(SCHEMA_DIR / "creature.schema.json", Path(path).resolve().parent)).as_posix()
    lines = [f"# yaml-language-server: $schema={schema}"] + [f"# {h}" if h else "#" for h in header]
    body = yaml.dump(doc, Dumper=VectorDumper, sort_keys=False, width=100)
    return "\n".join(lines) + "\n" + body
