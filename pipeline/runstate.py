"""Copies and checkpoints of a whole run, shared by every engine's Data.

A checkpoint is the Data pickled behind a versioned header. Controllers that hold what
pickle cannot (compiled closures, imported callables) store how to rebuild it instead
(`__reduce__` / `__getstate__`), so a checkpoint resumes in a new process.
"""
from __future__ import annotations

import copy
import os
import pickle

from pipeline.errors import CorpusError
from pipeline.fileio import atomic_path

# A checkpoint is a pickle behind this header; the version changes with Data's fields.
CHECKPOINT_MAGIC = b"corpus-checkpoint 3\n"


class RunState:
    """What every engine's Data shares: copies and checkpoints of the whole run."""

    def copy(self):
        """An independent copy: stepping either one never changes the other."""
        return copy.deepcopy(self)

    def save(self, path: str | os.PathLike) -> None:
        """Write a checkpoint atomically. Python controllers are stored by import path and
        re-imported by `load`; a checkpoint is for resuming your own runs (it is a pickle:
        never load one from a source you do not trust)."""
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(CHECKPOINT_MAGIC)
                pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: str | os.PathLike):
        """Read a checkpoint written by `save` (assign it to `sim.data` to resume)."""
        return load_checkpoint(path, cls)


def load_checkpoint(path: str | os.PathLike, kind: type):
    """Unpickle a checkpoint of Data class `kind`; one located message if it is not one."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(CHECKPOINT_MAGIC))
            if head != CHECKPOINT_MAGIC:
                raise CorpusError(f"{path}: not a corpus checkpoint (or one of another version)")
            data = pickle.load(fh)
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read the checkpoint: {exc.strerror}") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise CorpusError(f"{path}: damaged checkpoint ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, kind):
        raise CorpusError(f"{path}: a checkpoint of {type(data).__name__}, not {kind.__name__}")
    return data
