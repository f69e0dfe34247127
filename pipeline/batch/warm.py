"""Warm workers: job processes that stay alive across the jobs of a batch.

A fresh interpreter per job spends about a second importing corpus and loading the
compiled step kernels before it simulates anything (benchmarks/batch_startup.py). A warm worker
(`python -m pipeline.batch.worker --serve`) pays that once and then runs job after job,
keeping its loaded kernels and its load and compile caches (pipeline/spec/cache.py,
pipeline/compiler/cache.py, both keyed by content, so an edited file is read again).

Isolation stays what it was: a job that runs past its timeout, is cancelled, or kills its
worker takes only that worker with it (the next job gets a fresh one), and jobs that run
user code (Python controllers) still get a process of their own (`needs_own_process`), so
whatever that code does to its interpreter ends with the job.

Protocol: one JSON payload per line on the worker's stdin; one JSON reply per line on its
stdout (`{"started": true}` when it takes the job, then `{"status": 0 | 1, "message": ...}`).
The worker's own stdout is /dev/null, so nothing a library prints can break the replies.
"""
from __future__ import annotations

import collections
import json
import os
import select
import subprocess
import sys
import threading
import time


def needs_own_process(job: dict) -> bool:
    """Jobs whose scenes name Python controllers of their own run in a fresh process: user
    code may exit, change the working folder or patch modules, none of which may reach the
    next job. corpus's own controllers (`pipeline.…`, e.g. the motors of converted models)
    are not user code."""
    controllers = job["source"].get("controllers") or ()
    return any(isinstance(c, dict) and "python" in c and not str(c["python"]).startswith("pipeline.")
               for c in controllers)


class WorkerGone(Exception):
    """The worker ended (its exit status is in `returncode`) before it replied."""

    def __init__(self, returncode: int, stderr: str):
        super().__init__(returncode)
        self.returncode, self.stderr = returncode, stderr
        self.started = False  # whether it had taken the job


class WarmWorker:
    def __init__(self, env: dict):
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline.batch.worker", "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env)
        self.jobs = 0  # jobs handed to it
        self._buffer = b""
        self._stderr = collections.deque(maxlen=200)
        self._stderr_lines = 0
        self._mark = 0
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        for line in iter(self.proc.stderr.readline, b""):
            self._stderr.append(line.decode(errors="replace"))
            self._stderr_lines += 1

    def send(self, job: dict) -> None:
        """Hand it a job (BrokenPipeError if it has ended)."""
        self._mark = self._stderr_lines
        self.jobs += 1
        self.proc.stdin.write(json.dumps(job).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float | None) -> dict | None:
        """The next reply, or None after `timeout` seconds; WorkerGone if the worker ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], wait)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.proc.wait()
                raise WorkerGone(self.proc.returncode, self.stderr_since_job())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def stderr_since_job(self) -> str:
        """What the worker wrote on stderr since its current job started (its last lines)."""
        time.sleep(0.05)  # the drain thread's last read
        new = max(0, self._stderr_lines - self._mark)
        return "".join(list(self._stderr)[-new:]) if new else ""

    def close(self) -> None:
        """Let an idle worker end (end of input: it exits 0)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass


class WarmPool:
    """Idle warm workers of this process, handed to one job at a time."""

    def __init__(self, env: dict):
        self._env = env
        self._idle: list[WarmWorker] = []
        self._all: set[WarmWorker] = set()
        self._lock = threading.Lock()

    def start(self, n: int) -> None:
        """Start workers ahead of the jobs, so that their imports overlap other work."""
        for _ in range(n - len(self._all)):
            worker = WarmWorker(self._env)
            with self._lock:
                self._all.add(worker)
                self._idle.append(worker)

    def take(self) -> tuple[WarmWorker, bool]:
        """(worker, whether it was idle here before): an idle one, else a new one."""
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.proc.poll() is None:
                    return worker, True
                self._all.discard(worker)
        worker = WarmWorker(self._env)
        with self._lock:
            self._all.add(worker)
        return worker, False

    def give_back(self, worker: WarmWorker) -> None:
        with self._lock:
            self._idle.append(worker)

    def discard(self, worker: WarmWorker) -> None:
        with self._lock:
            self._all.discard(worker)
            if worker in self._idle:
                self._idle.remove(worker)

    def processes(self) -> list[subprocess.Popen]:
        with self._lock:
            return [w.proc for w in self._all]

    def close(self, grace: float = 10.0) -> None:
        """End every idle worker (busy ones are the batch's to stop) and wait for them."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._all.difference_update(idle)
        for worker in idle:
            if worker.jobs:
                worker.close()
            else:  # started ahead and never needed: it may still be importing
                worker.proc.terminate()
        deadline = time.monotonic() + grace
        for worker in idle:
            try:
                worker.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()
