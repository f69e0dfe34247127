"""`corpus`: argument parsing and dispatch only.

Each subcommand lives in its own stage as `add_parser(sub)` (which calls
`set_defaults(func=main)`) and `main(args) -> int`. A stage registers its subcommand with
one line in COMMANDS; only the module of the command being run is imported, so
`corpus validate` never pays for numba or rendering imports.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from pipeline import __version__
from pipeline.errors import CorpusError, interrupted, note_interrupt, raise_if_interrupted

# name -> (module with add_parser/main, one-line help shown by `corpus --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("pipeline.validate", "check YAML files (or folders) and report every problem"),
    "info": ("pipeline.spec.cli_info", "bodies, joints, DOF and mass of a creature or scene"),
    "run": ("pipeline.run", "simulate a scene and export what it asks for"),
    "render": ("pipeline.export.cli", "export a finished run again (frames, video, glTF, plots) without simulating"),
    "batch": ("pipeline.batch.runner", "run many scenes and parameter sweeps (cached, resumable; local or Dask)"),
    "convert": ("pipeline.importers.cli", "convert a MuJoCo MJCF, URDF or corpus script into corpus YAML"),
    "character": ("pipeline.characters.cli", "write a biped character (proportions, masses by density) as creature YAML"),
    "evolve": ("pipeline.evolve.cli", "evolve scene parameters (an evolution: file) on local workers or Dask"),
    "gallery": ("pipeline.gallery.cli", "write index.html: a page of the runs in a batch, evolution or any folder"),
}


def build_parser(selected: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus",
        description="A declarative pipeline for physically simulated creatures: YAML in; "
                    "simulation, meshes, frames and video out.")
    parser.add_argument("--version", action="version", version=f"corpus {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if name == selected:
            importlib.import_module(module).add_parser(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def print_problems(error: CorpusError) -> None:
    """`file:line:col: path: message`; a problem with no file (a bad flag) is `error: path: message`."""
    for problem in error.problems:
        if problem.file:
            print(problem, file=sys.stderr)
        else:
            print(f"error: {problem.path + ': ' if problem.path else ''}{problem.message}", file=sys.stderr)


def _interrupted() -> int:
    print("interrupted", file=sys.stderr)
    return 130


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    selected = next((a for a in argv if not a.startswith("-")), None)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, note_interrupt)
        signal.signal(signal.SIGTERM, note_interrupt)  # `kill` stops any command as cleanly as Ctrl-C
    try:
        parser = build_parser(selected if selected in COMMANDS else None)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        try:
            status = int(args.func(args) or 0)
        except SystemExit as exc:  # commands return their status; only user code exits
            raise CorpusError(f"stopped before it finished: user code (a Python controller?) called "
                              f"sys.exit({exc.code!r})") from None
        raise_if_interrupted()
        return status
    except CorpusError as error:
        if interrupted():
            return _interrupted()
        print_problems(error)
        return 1
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:  # before `except Exception`, which would catch it first
        # the reader went away (`corpus info x.yaml | head`): silence the flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception:
        if interrupted():  # a library turned the KeyboardInterrupt into something else
            return _interrupted()
        raise


if __name__ == "__main__":
    sys.exit(main())
