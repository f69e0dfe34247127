"""`corpus validate PATH...`: check corpus YAML files without running anything.

Folders are searched recursively for *.yaml / *.yml. Every problem of every file is
reported; the exit status is 0 only when all files are valid. Validation reads files and
schemas only: it never imports or runs user code (Python controllers are just names here).
A sweep (a file of its own or a scene's `sweep:` block) is valid when every variant loads.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pipeline.errors import CorpusError, Problem
from pipeline.spec.loader import read_file
from pipeline.spec.resolve import validate_document

YAML_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".hypothesis", ".pytest_cache"}


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="check YAML files (or folders) and report every problem",
                       description="Validate corpus YAML files (folders recursively) against the schemas, "
                                   "follow includes, and run the semantic checks. Exit 0 when all are valid.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML files or folders")
    p.add_argument("--format", choices=("text", "github", "json"), default="text",
                   help="text (file:line:col: path: message), github (Actions annotations) or json")
    p.add_argument("--allow-outside", action="store_true",
                   help="allow includes outside the project and the bundled creatures/environments")
    p.add_argument("--quiet", action="store_true", help="print problems only, no summary")
    p.set_defaults(func=main)


def yaml_files(paths) -> tuple[list[Path], list[Problem]]:
    """The YAML files named or found under the given paths, in a stable order."""
    files, problems = [], []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in YAML_SUFFIXES and p.is_file()
                           and not SKIP_DIRS.intersection(p.relative_to(path).parts))
            if not found:
                problems.append(Problem("no .yaml or .yml files in this folder", str(path)))
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            problems.append(Problem("no such file or folder", str(path)))
    return files, problems


def validate_paths(paths, allow_outside: bool = False) -> tuple[int, list[Problem]]:
    """(number of files checked, every problem found). A problem in a file that several
    checked files include is reported once."""
    files, problems = yaml_files(paths)
    for file in files:
        try:
            kind = validate_document(file, allow_outside=allow_outside)
            if kind == "sweep" or (kind == "scene" and "sweep" in read_file(file)):
                # every variant must load too; loading runs no user code
                from pipeline.batch.sweep import jobs_from_file

                jobs_from_file(file, allow_outside=allow_outside)
            elif kind == "evolution":  # its scene loads and its gene paths name fields of it
                from pipeline.evolve.spec import load_evolution

                load_evolution(file, allow_outside=allow_outside)
        except CorpusError as error:
            problems.extend(p for p in error.problems if p not in problems)
    return len(files), problems


def github_annotation(p: Problem) -> str:
    def prop(text: str) -> str:
        return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(
            ":", "%3A").replace(",", "%2C")

    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    fields = [f"file={prop(p.file)}"] if p.file else []
    if p.line is not None:
        fields.append(f"line={p.line}")
        if p.col is not None:
            fields.append(f"col={p.col}")
    fields.append("title=corpus validate")
    message = f"{p.path}: {p.message}" if p.path else p.message
    return f"::error {','.join(fields)}::{data(message)}"


def main(args) -> int:
    count, problems = validate_paths(args.paths, args.allow_outside)
    if args.format == "json":
        print(json.dumps([p.as_dict() for p in problems], indent=1))
    elif args.format == "github":
        for p in problems:
            print(github_annotation(p))
    else:
        for p in problems:
            print(p)
    if not args.quiet and args.format == "text":
        bad = len({p.file for p in problems})
        verdict = "all valid" if not problems else f"{len(problems)} problem{'s' * (len(problems) != 1)} in {bad} file{'s' * (bad != 1)}"
        print(f"{count} file{'s' * (count != 1)} checked: {verdict}", file=sys.stderr)
    return 1 if problems else 0
