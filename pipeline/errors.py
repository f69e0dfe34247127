"""The one error type a user can cause, and how it is printed.

Every user-facing failure (bad YAML, wrong reference, unstable simulation, a job that
hangs) is a `CorpusError` carrying one or more `Problem`s. The CLI prints each problem as
`file:line:col: field.path: message` and exits non-zero; it never shows a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong, located as precisely as we know."""

    message: str
    file: str | None = None
    line: int | None = None  # 1-based
    col: int | None = None  # 1-based
    path: str = ""  # dotted field path inside the document, e.g. "bodies[2].joint.axis"

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        field_path = f" {self.path}:" if self.path else ""
        return f"{where}:{field_path} {self.message}"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col,
                "path": self.path, "message": self.message}


@dataclass
class CorpusError(Exception):
    """Raised for anything a user can cause; holds every problem found, not just the first."""

    problems: list[Problem] = field(default_factory=list)

    def __init__(self, problems: list[Problem | str] | Problem | str):
        if isinstance(problems, (str, Problem)):
            problems = [problems]
        self.problems = [Problem(p) if isinstance(p, str) else p for p in problems]
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class SimulationError(CorpusError):
    """The simulation became unstable (NaN/inf or step-size underflow); says when and where."""


# Ctrl-C that a library swallows still counts. A KeyboardInterrupt raised while numba loads or
# compiles a kernel can come out as another exception or be caught and lost, after which the
# command would run on to the end and replace the outputs it was told to abandon. The
# commands' signal handler counts interrupts here; `run` checks before it publishes, and the
# CLI turns any outcome after an interrupt into exit status 130.
_interrupts = 0


def note_interrupt(signum=None, frame=None):
    """Signal handler (SIGINT, SIGTERM): remember the interrupt, then raise it as usual."""
    global _interrupts
    _interrupts += 1
    raise KeyboardInterrupt


def interrupted() -> bool:
    return _interrupts > 0


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if an interrupt arrived and was swallowed on the way."""
    if _interrupts:
        raise KeyboardInterrupt
