"""Runs one job in its own process: `python -m pipeline.batch.worker JOB.json`.

A process per job is what lets a batch kill one job that hangs or dies without losing
the others, and it makes a job's result independent of which executor scheduled it.
Exit status: 0 done, 1 a CorpusError (its message on stderr), anything else a crash.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from pipeline.errors import CorpusError


@dataclass
class JobOutcome:
    status: str  # done | failed | timeout
    message: str = ""
    wall_s: float = 0.0


def run_job_process(job: dict, timeout: float | None) -> JobOutcome:
    """Run a job dict (see batch.runner.job_payload) in a child interpreter, with a timeout.

    Top-level so that Dask can ship it to a worker; it needs nothing but the payload.
    """
    import time

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(job, f)
        job_file = f.name
    t = time.perf_counter()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pipeline.batch.worker", job_file],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return JobOutcome("timeout", f"timed out after {timeout:g} s", time.perf_counter() - t)
        except BaseException:
            _kill_group(proc)  # the batch was interrupted: take the job down with it
            raise
    finally:
        os.unlink(job_file)
    wall = time.perf_counter() - t
    if proc.returncode == 0:
        return JobOutcome("done", "", wall)
    if proc.returncode < 0:
        return JobOutcome("failed", f"worker died (signal {-proc.returncode})", wall)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    message = "\n".join(lines[-20:]) if proc.returncode != 1 else err.strip()
    return JobOutcome("failed", message or f"worker exited with status {proc.returncode}", wall)


def _kill_group(proc: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main(argv: list[str]) -> int:
    from pipeline.run import run_scene

    with open(argv[0]) as f:
        job = json.load(f)
    try:
        run_scene(job["source"], job["out_dir"], quiet=True,
                  extra_manifest={"job_hash": job["hash"], "job_name": job["name"], "params": job["params"]})
    except CorpusError as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
