"""Runs one job in its own process: `python -m pipeline.batch.worker < JOB.json`.

A process per job is what lets a batch kill one job that hangs or dies without losing
the others, and it makes a job's result independent of which executor scheduled it.
Exit status: 0 done, 1 a CorpusError (its message on stderr), 130 interrupted, anything
else a crash.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pipeline.batch.jobs import published
from pipeline.errors import CorpusError, Problem, note_interrupt

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


@dataclass
class JobOutcome:
    status: str  # done | failed | timeout | cancelled
    message: str = ""
    wall_s: float = 0.0


def die_with_parent(parent: int) -> None:
    """Get SIGTERM when the process that started us goes away, so a batch or evolution killed
    outright does not leave jobs or evaluations running on (Linux only; elsewhere a no-op).
    Set here rather than in a preexec_fn, which is unsafe in the batch's threaded parent.
    Linux sends it when the *thread* that started us ends: start workers from a thread that
    lives as long as they should."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        raise KeyboardInterrupt


def _remove_staging(out_dir: str) -> None:
    """A killed job cannot clean up after itself; its staging folders go here."""
    out = Path(out_dir)
    for stage in out.parent.glob(f".{out.name}.partial-*"):
        shutil.rmtree(stage, ignore_errors=True)


def kill_all(grace: float = 5.0) -> None:
    """Stop every job this process started (SIGTERM lets them clean up, then SIGKILL)."""
    with _live_lock:
        procs = list(_live)
    for p in procs:
        p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()


# how often a running job checks that it is still wanted (see run_job_process)
POLL_S = 0.5


def run_job_process(job: dict, timeout: float | None,
                    still_wanted: Callable[[], bool] | None = None) -> JobOutcome:
    """Run a job payload (see batch.runner.job_payload) in a child interpreter, with a timeout.

    Top-level so that Dask can ship it to a worker; it needs nothing but the payload, which
    the child reads from its stdin (a file in /tmp would outlive a batch killed outright).
    `still_wanted()` is asked every POLL_S seconds; when it says no (the Dask client that
    submitted the job cancelled it or is gone) the child is stopped and the job abandoned.
    """
    t = time.perf_counter()
    where = f"{job['origin']}: " if job.get("origin") else ""
    deadline = None if timeout is None else time.monotonic() + timeout
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.batch.worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CORPUS_BATCH_PARENT": str(os.getpid())})
    with _live_lock:
        _live.add(proc)
    feed = json.dumps(job)
    try:
        while True:
            wait = POLL_S if still_wanted else None
            if deadline is not None:
                wait = max(0.0, deadline - time.monotonic()) if wait is None else \
                    min(wait, max(0.0, deadline - time.monotonic()))
            try:
                _, err = proc.communicate(feed, timeout=wait)
                break
            except subprocess.TimeoutExpired:
                feed = None  # sent with the first call
            if deadline is not None and time.monotonic() >= deadline:
                _stop(proc, grace=0.0)
                _remove_staging(job["out_dir"])
                return JobOutcome("timeout", f"{where}timed out after {timeout:g} s (--timeout); the job was stopped",
                                  time.perf_counter() - t)
            if still_wanted is not None and not still_wanted():
                _stop(proc)
                _remove_staging(job["out_dir"])
                return JobOutcome("cancelled", f"{where}cancelled: the batch that submitted it is gone",
                                  time.perf_counter() - t)
    finally:
        with _live_lock:
            _live.discard(proc)
    wall = time.perf_counter() - t
    if proc.returncode == 0:
        if published(job["out_dir"], job["hash"]):
            return JobOutcome("done", "", wall)
        return JobOutcome("failed", f"{where}the job's process ended with status 0 before it published "
                                    "its run (did user code end the process?)", wall)
    if proc.returncode < 0:
        _remove_staging(job["out_dir"])
        return JobOutcome("failed", f"worker died (signal {-proc.returncode})", wall)
    if proc.returncode == 1:
        return JobOutcome("failed", err.strip(), wall)
    tail = [ln for ln in err.strip().splitlines() if ln.strip()][-20:]
    return JobOutcome("failed", "\n".join(tail) or f"worker exited with status {proc.returncode}", wall)


def _stop(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """SIGTERM (the job cleans up and exits 130), then SIGKILL after `grace` seconds."""
    if grace > 0:
        proc.terminate()
        try:
            proc.communicate(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.kill()
    proc.communicate()


def located_in_origin(error: CorpusError, origin: str, origin_file: str = "") -> CorpusError:
    """A job runs from its expanded document, so its problems carry no file; point them at the
    file the job came from (named `origin`, read from `origin_file`, an absolute path, when
    given), at the line of their field when that file has the field."""
    from pipeline.spec.paths import parse_path
    from pipeline.spec.loader import mark_at, read_file
    from pipeline.spec.resolve import DICT_FILE

    if not origin or not any(p.file and Path(p.file).name == DICT_FILE for p in error.problems):
        return error
    try:
        doc = read_file(origin_file or origin)
    except CorpusError:
        doc = None
    problems = []
    for p in error.problems:
        if not (p.file and Path(p.file).name == DICT_FILE):
            problems.append(p)
            continue
        try:
            mark = mark_at(doc, parse_path(p.path)) if doc is not None and p.path else None
        except CorpusError:
            mark = None
        if mark is None or mark is doc.mark:  # the field is not in that file (a sweep file)
            problems.append(Problem(p.message, origin, path=p.path))
        else:
            problems.append(Problem(p.message, origin, mark.line, mark.col, p.path))
    return type(error)(problems)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, note_interrupt)  # so run_scene's cleanup runs when a batch stops us
    from pipeline.run import run_scene

    job = json.load(sys.stdin)
    try:
        die_with_parent(int(os.environ.get("CORPUS_BATCH_PARENT", os.getppid())))
        run_scene(job["source"], job["out_dir"], quiet=True, base_dir=job.get("base_dir") or None,
                  extra_manifest={"job_hash": job["hash"], "job_name": job["name"], "params": job["params"]})
    except CorpusError as e:
        print(str(located_in_origin(e, job.get("origin", ""), job.get("origin_file", ""))), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
