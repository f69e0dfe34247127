"""`corpus character NAME -o OUT.yaml`: a biped character from proportions, as creature YAML."""
from __future__ import annotations

import shlex
from pathlib import Path

from pipeline.errors import CorpusError, Problem


def add_parser(sub) -> None:
    from pipeline.characters.proportions import NUMBERS, SIDED

    listing = "; ".join(f"{k} {v[0]:g} ({v[3]})" for k, v in NUMBERS.items())
    p = sub.add_parser(
        "character", help="write a biped character (proportions, masses by density) as creature YAML",
        description="Write a biped for the biped_walk controller (docs/biped.md, Characters): BipV3's "
                    "humanoid (creatures/biped.yaml) with other proportions; each body's mass is its "
                    "shape's volume times BipV3's density for it. Proportions and their defaults: "
                    f"{listing}; limb_shape capsule (or box). Sides may differ in: {', '.join(SIDED)}.")
    p.add_argument("name", help="the creature's name")
    p.add_argument("-o", "--output", required=True, help="the YAML file to write")
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="NAME=VALUE",
                   help="proportions of both sides, e.g. scale=1.3 thigh=45cm limb_shape=box")
    p.add_argument("--left", nargs="+", action="extend", default=[], metavar="NAME=VALUE",
                   help="the left side's limbs, e.g. upper_arm=0.364 arm_density=1.4")
    p.add_argument("--right", nargs="+", action="extend", default=[], metavar="NAME=VALUE",
                   help="the right side's limbs")
    p.add_argument("--seed", type=int, help="draw every proportion not set at random (asymmetric sides)")
    p.add_argument("--description", default="", help="the creature's description")
    p.set_defaults(func=main)


def _pairs(items: list[str], flag: str) -> dict:
    out, problems = {}, []
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name or not value:
            problems.append(Problem(f"expected NAME=VALUE, got {item!r}", path=flag))
        else:
            out[name.strip()] = value.strip()
    if problems:
        raise CorpusError(problems)
    return out


def command_line(args) -> str:
    """The `corpus character` command that writes this file again."""
    words = ["corpus", "character", args.name]
    if args.seed is not None:
        words += ["--seed", str(args.seed)]
    for flag in ("set", "left", "right"):
        if getattr(args, flag):
            words += [f"--{flag}"] + getattr(args, flag)
    if args.description:
        words += ["--description", args.description]
    return shlex.join(words + ["-o", args.output])


def character_text(args) -> tuple[str, dict, float]:
    """(the YAML `corpus character` writes for these arguments, the document, its mass)."""
    from pipeline.characters import biped_character, character_yaml
    from pipeline.spec.resolve import validate_document

    doc, mass = biped_character(args.name, _pairs(args.set, "--set"), _pairs(args.left, "--left"),
                                _pairs(args.right, "--right"), args.seed, args.description,
                                labels=("--set", "--left", "--right"))
    try:  # what the arguments name (the creature's name) must be valid too
        validate_document(doc)
    except CorpusError as err:  # located in no file: the document is the arguments'
        raise CorpusError([Problem(p.message, path=p.path) for p in err.problems]) from None
    header = [f"A biped character, {mass:.4g} kg and 37 DOF, written by", f"  {command_line(args)}",
              "(pipeline/characters; docs/biped.md, Characters): creatures/biped.yaml's layout with other",
              "proportions, each body's mass its shape's volume times BipV3's density for that body."]
    return character_yaml(doc, Path(args.output), header), doc, mass


def main(args) -> int:
    from pipeline.fileio import atomic_write_text

    text, doc, mass = character_text(args)
    atomic_write_text(Path(args.output), text)
    print(f"wrote creature {args.output}: {doc['creature']}, {len(doc['bodies'])} bodies, {mass:.4g} kg")
    return 0
