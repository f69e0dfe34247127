"""Runs jobs in processes of their own: `python -m pipeline.batch.worker < JOB.json` runs one,
`python -m pipeline.batch.worker --serve` is a warm worker that runs one after another
(pipeline/batch/warm.py).

A job process that can be killed alone is what lets a batch stop one job that hangs or dies
without losing the others, and it makes a job's result independent of which executor
scheduled it. Exit status: 0 done, 1 a CorpusError (its message on stderr), 130
interrupted, anything else a crash.
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
from pipeline.batch.warm import WarmPool, WarmWorker, WorkerGone, needs_own_process
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


def worker_env() -> dict:
    """The environment of job processes: ours, and who their parent is (die_with_parent)."""
    return {**os.environ, "CORPUS_BATCH_PARENT": str(os.getpid())}


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
    deadline = None if timeout is None else time.monotonic() + timeout
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.batch.worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=worker_env())
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
                return _stopped(job, False, timeout, time.perf_counter() - t)
            if still_wanted is not None and not still_wanted():
                _stop(proc)
                _remove_staging(job["out_dir"])
                return _stopped(job, True, timeout, time.perf_counter() - t)
    finally:
        with _live_lock:
            _live.discard(proc)
    return _ended(job, proc.returncode, err, time.perf_counter() - t)


def _ended(job: dict, returncode: int, err: str, wall: float) -> JobOutcome:
    """The outcome of a job whose process ended with `returncode` (or whose warm worker
    replied so), having written `err` on stderr."""
    where = f"{job['origin']}: " if job.get("origin") else ""
    if returncode == 0:
        if published(job["out_dir"], job["hash"]):
            return JobOutcome("done", "", wall)
        return JobOutcome("failed", f"{where}the job's process ended with status 0 before it published "
                                    "its run (did user code end the process?)", wall)
    if returncode < 0:
        _remove_staging(job["out_dir"])
        return JobOutcome("failed", f"worker died (signal {-returncode})", wall)
    if returncode == 1:
        return JobOutcome("failed", err.strip(), wall)
    tail = [ln for ln in err.strip().splitlines() if ln.strip()][-20:]
    return JobOutcome("failed", "\n".join(tail) or f"worker exited with status {returncode}", wall)


def run_job(job: dict, timeout: float | None, still_wanted: Callable[[], bool] | None = None,
            warm: WarmPool | None = None) -> JobOutcome:
    """Run a job payload on a warm worker of `warm`, or in a process of its own when there is
    no pool or the job runs user code (pipeline/batch/warm.py)."""
    if warm is None or needs_own_process(job):
        return run_job_process(job, timeout, still_wanted)
    return run_warm(job, [job], timeout, still_wanted, warm)[0][1]


def run_jobs(payload: dict, timeout: float | None, still_wanted: Callable[[], bool] | None = None,
             warm: WarmPool | None = None) -> list[tuple[dict, JobOutcome]]:
    """(job payload, outcome) for each job of a payload: a job, or a group of jobs run
    together on one warm worker (pipeline/batch/group.py; never under a timeout)."""
    if "group" not in payload:
        return [(payload, run_job(payload, timeout, still_wanted, warm))]
    if warm is None:
        return [(job, run_job(job, timeout, still_wanted)) for job in payload["group"]]
    return run_warm(payload, payload["group"], None, still_wanted, warm)


def run_warm(payload: dict, jobs: list[dict], timeout: float | None, still_wanted: Callable[[], bool] | None,
             warm: WarmPool) -> list[tuple[dict, JobOutcome]]:
    """run_job_process's contract (timeout, cancellation, outcomes) on a warm worker, for a
    payload of one job or a group of `jobs`; the worker replies once per job. A worker that
    had to be stopped is not reused, and the jobs it had not replied for fail, time out or
    are cancelled; an idle one that ended before taking the payload (the thread that
    started it ended, see die_with_parent) is replaced."""
    t = time.perf_counter()
    deadline = None if timeout is None else time.monotonic() + timeout
    left = {job["hash"]: job for job in jobs}
    outcomes = []
    while True:
        worker, reused = warm.take()
        with _live_lock:
            _live.add(worker.proc)
        try:
            reply = _reply(worker, payload, deadline, still_wanted)
            while reply is not None and reply.get("hash") in left:  # a job's reply (status 0 or 1)
                job = left.pop(reply["hash"])
                outcomes.append((job, _ended(job, reply["status"], reply["message"], time.perf_counter() - t)))
                if not left:
                    warm.give_back(worker)
                    return outcomes
                reply = _reply(worker, None, deadline, still_wanted)
        except WorkerGone as gone:
            warm.discard(worker)
            if reused and not gone.started:
                continue
            return outcomes + [(job, _ended(job, gone.returncode, gone.stderr, time.perf_counter() - t))
                               for job in left.values()]
        finally:
            with _live_lock:
                _live.discard(worker.proc)
        break
    warm.discard(worker)
    if reply is not None:  # an unexpected error (its traceback, as from a job process that raised)
        return outcomes + [(job, _ended(job, 1, reply["message"], time.perf_counter() - t)) for job in left.values()]
    cancelled = deadline is None or time.monotonic() < deadline
    _stop(worker.proc, grace=5.0 if cancelled else 0.0, wait=worker.proc.wait)
    for job in left.values():
        _remove_staging(job["out_dir"])
    return outcomes + [(job, _stopped(job, cancelled, timeout, time.perf_counter() - t)) for job in left.values()]


def _stopped(job: dict, cancelled: bool, timeout: float | None, wall: float) -> JobOutcome:
    where = f"{job['origin']}: " if job.get("origin") else ""
    if cancelled:
        return JobOutcome("cancelled", f"{where}cancelled: the batch that submitted it is gone", wall)
    return JobOutcome("timeout", f"{where}timed out after {timeout:g} s (--timeout); the job was stopped", wall)


def _reply(worker: WarmWorker, job: dict | None, deadline: float | None,
           still_wanted: Callable[[], bool] | None) -> dict | None:
    """The worker's reply to `job` (None: its next reply to the group it runs), or None
    once the deadline passed or the job is no longer wanted (the worker is then still
    running it); WorkerGone if it ended."""
    started = job is None
    try:
        if job is not None:
            worker.send(job)
    except OSError:  # it had ended; the read below says how
        pass
    while True:
        wait = POLL_S if still_wanted else None
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            wait = left if wait is None else min(wait, left)
        try:
            reply = worker.receive(wait)
        except WorkerGone as gone:
            gone.started = started
            raise
        if reply is not None and reply.get("started"):
            started = True
        elif reply is not None:
            return reply
        elif (deadline is not None and time.monotonic() >= deadline) or \
                (still_wanted is not None and not still_wanted()):
            return None


def _stop(proc: subprocess.Popen, grace: float = 5.0, wait: Callable | None = None) -> None:
    """SIGTERM (the job cleans up and exits 130), then SIGKILL after `grace` seconds.
    `wait(timeout=)` waits for the end (default: proc.communicate, which drains its pipes)."""
    wait = wait or proc.communicate
    if grace > 0:
        proc.terminate()
        try:
            wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.kill()
    wait()


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


def run_here(job: dict) -> str:
    """Run a job payload in this process; "" when done, else its located message (CorpusError)."""
    from pipeline.run import run_scene

    try:
        run_scene(job["source"], job["out_dir"], quiet=True, base_dir=job.get("base_dir") or None,
                  extra_manifest=job_manifest(job))
    except CorpusError as e:
        return str(located_in_origin(e, job.get("origin", ""), job.get("origin_file", "")))
    return ""


def job_manifest(job: dict) -> dict:
    """What a batch job's manifest says of the job (jobs.published reads its hash)."""
    return {"job_hash": job["hash"], "job_name": job["name"], "params": job["params"]}


def serve() -> int:
    """A warm worker's loop (pipeline/batch/warm.py): jobs from stdin, replies on stdout."""
    import traceback

    replies = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what libraries print must not reach the replies
    # paid once, before the first job and while the batch still reads its files: what a job
    # imports when it first loads, compiles and simulates a scene (the kernel compiler among it)
    import pipeline.run  # noqa: F401
    import pipeline.simulate.articulated  # noqa: F401
    import pipeline.simulate.metrics  # noqa: F401
    import pipeline.spec.resolve  # noqa: F401

    for line in sys.stdin:
        job = json.loads(line)
        replies.write('{"started": true}\n')
        replies.flush()
        try:
            if "group" in job:
                from pipeline.batch.group import run_group_here

                def job_ended(done: dict, message: str) -> None:
                    replies.write(json.dumps({"hash": done["hash"], "status": 1 if message else 0,
                                              "message": message}) + "\n")
                    replies.flush()

                run_group_here(job, job_ended)
                continue
            message = run_here(job)
            reply = {"hash": job["hash"], "status": 1 if message else 0, "message": message}
        except KeyboardInterrupt:
            raise
        except BaseException:  # a bug: reported like a crashed job process, and this worker ends
            reply = {"status": 2, "message": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        if reply["status"] == 2:
            return 2
    # the end of input: every job published its outputs before its reply; unwinding the
    # interpreter (the kernel compiler's and LLVM's objects) kept the batch waiting 0.5 s
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, note_interrupt)  # so run_scene's cleanup runs when a batch stops us
    try:
        die_with_parent(int(os.environ.get("CORPUS_BATCH_PARENT", os.getppid())))
        if argv == ["--serve"]:
            return serve()
        message = run_here(json.load(sys.stdin))
    except KeyboardInterrupt:
        return 130
    if message:
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
