"""Run a batch: expand, skip what is already done, run the rest, summarise.

Failure isolation: each job is its own process; a job that fails, hangs past the timeout
or dies is recorded with its message while the others go on. Resume: a job counts as done
only when its folder holds a manifest with its hash, so re-running an interrupted batch
does exactly the jobs that did not finish.
"""
from __future__ import annotations

import csv
import io
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.batch.executors import default_jobs, make_executor
from pipeline.batch.group import group_payloads
from pipeline.batch.jobs import Job
from pipeline.batch.sweep import collect_jobs
from pipeline.errors import CorpusError, Problem
from pipeline.fileio import atomic_write_text
from pipeline.gallery import LivePage, check_page_target
from pipeline.simulate.metrics import SCENE_METRICS

# the manifest's metrics, under their names there (docs/metrics.md), after the job's own columns
SUMMARY_FIELDS = ("name", "status", "wall_s", "simulated_s", "body", *SCENE_METRICS, "params", "out_dir",
                  "message")
SIGNIFICANT = 6  # digits kept of the measured numbers: 29.99999999999425 s reads 30


def rounded(value):
    """Floats (also inside lists) to SIGNIFICANT digits."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


@dataclass
class BatchResult:
    rows: list[dict] = field(default_factory=list)
    out: Path = Path(".")

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if r["status"] in ("failed", "timeout", "invalid")]


def job_payload(job: Job, root: Path) -> dict:
    """What a worker needs, with absolute paths: a Dask worker's working directory is not
    ours. `origin` stays as the user wrote it, for messages; `origin_file` is read."""
    return {"name": job.name, "hash": job.hash, "source": job.source, "params": job.params,
            "out_dir": str(job.out_dir(root).resolve()), "origin": job.origin,
            "origin_file": str(Path(job.origin).resolve()) if job.origin else "", "base_dir": job.base_dir}


def _row(job: Job, root: Path, status: str, wall: float = 0.0, message: str = "") -> dict:
    row = {"name": job.name, "status": status, "wall_s": round(wall, 3), "params": job.params,
           "out_dir": str(job.out_dir(root)), "message": message}
    try:
        manifest = json.loads((job.out_dir(root) / "manifest.json").read_text())
    except (OSError, ValueError):
        return row
    metrics = manifest.get("metrics", {})
    row["simulated_s"] = rounded(manifest.get("simulated_time_s"))
    row.update({k: rounded(metrics.get(k)) for k in ("body", *SCENE_METRICS)})
    return row


def write_summary(result: BatchResult) -> None:
    rows = sorted(result.rows, key=lambda r: r["name"])
    atomic_write_text(result.out / "batch.json", json.dumps(rows, indent=1, default=str))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=SUMMARY_FIELDS, extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()})
    atomic_write_text(result.out / "batch.csv", buf.getvalue())


def run_batch(paths: list[str], out: str | Path, *, jobs: int | None = None, executor: str = "local",
              scheduler: str | None = None, timeout: float | None = None, force: bool = False,
              allow_outside: bool = False, quiet: bool = False) -> BatchResult:
    out = Path(out)
    pool = make_executor(executor, jobs, scheduler)  # a bad executor setting fails before any file is touched
    check_batch_out(out)
    result = BatchResult(out=out)
    pool.prestart()  # job workers import while the jobs are collected and checked
    try:
        collected, invalid = collect_jobs(paths, allow_outside=allow_outside)
        if not collected and not invalid:
            raise CorpusError(f"nothing to run: no scene or sweep files in {', '.join(map(str, paths))}")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CorpusError(Problem(f"cannot create the batch folder: {exc.strerror or exc}", str(out))) from exc
    except BaseException:
        pool.close()
        raise
    for origin, message in invalid:
        result.rows.append({"name": Path(origin).stem, "status": "invalid", "wall_s": 0.0, "params": {},
                            "out_dir": "", "message": message})
        _say(f"{Path(origin).stem}: invalid: {message}", None)

    todo: list[Job] = []
    seen: set[str] = set()
    for job in collected:
        if job.hash in seen:
            continue  # the same fully resolved job listed twice runs once
        seen.add(job.hash)
        if not force and job.is_complete(out):
            result.rows.append(_row(job, out, "cached"))
        else:
            todo.append(job)

    by_hash = {j.hash: j for j in todo}
    bar = _progress(len(todo), quiet)
    t0 = time.perf_counter()
    try:
        # the page's last write comes after the pool has stopped what still ran (Ctrl-C)
        with LivePage(out) as page, pool:  # connected: from here on the summary is this batch's
            write_summary(result)
            page.update()
            payloads = group_payloads([job_payload(j, out) for j in todo], pool.jobs, default_jobs(), timeout)
            for payload, outcome in pool.run(payloads, timeout):
                job = by_hash[payload["hash"]]
                result.rows.append(_row(job, out, outcome.status, outcome.wall_s, outcome.message))
                write_summary(result)
                page.update()
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(failed=len(result.failed), refresh=False)
                if outcome.status != "done":  # also with --quiet: a failure is never silent
                    _say(f"{job.name}: {outcome.status}: {outcome.message}", bar)
    finally:
        if bar is not None:
            bar.close()
    if not quiet:
        done = sum(r["status"] == "done" for r in result.rows)
        cached = sum(r["status"] == "cached" for r in result.rows)
        print(f"batch: {done} done, {cached} cached, {len(result.failed)} failed in "
              f"{time.perf_counter() - t0:.1f} s -> {out / 'batch.csv'}, {out / 'index.html'}", file=sys.stderr)
    return result


def check_batch_out(out: Path) -> None:
    """The batch root must be a folder, and not the run directory of a `corpus run`, whose
    files a batch summary would mix with; an index.html in it must be a gallery."""
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise CorpusError(Problem("is a file, not a folder: the batch output folder "
                                  f"{'' if existing == out else str(out) + ' '}cannot be made there",
                                  str(existing)))
    if (out / "manifest.json").is_file():
        raise CorpusError(Problem("is the run directory of a `corpus run` (it has a manifest.json); "
                                  "give the batch a folder of its own with --out", str(out)))
    check_page_target(out)


def _progress(total: int, quiet: bool):
    if quiet or total == 0 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="job", desc="batch", file=sys.stderr)


def _say(message: str, bar) -> None:
    if bar is not None:
        bar.write(message, file=sys.stderr)
    else:
        print(message, file=sys.stderr)


def add_parser(sub) -> None:
    p = sub.add_parser("batch", help="run many scenes and parameter sweeps (cached, resumable; local or Dask)",
                       description="Run every scene (files or folders; sweeps expand into jobs). Finished jobs "
                                   "are skipped unless --force; failures are reported and the rest go on.")
    p.add_argument("scenes", nargs="+", help="scene or sweep YAML files, or folders of them")
    p.add_argument("--jobs", type=int, help="jobs at once (default: number of cores)")
    p.add_argument("--executor", default="local", choices=("local", "dask"))
    p.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--timeout", type=float, help="seconds before a job is killed and reported")
    p.add_argument("--force", action="store_true", help="re-run jobs whose outputs are already complete")
    p.add_argument("--out", default="outputs/batch", help="output root (default: outputs/batch)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary line (failures are still listed)")
    p.add_argument("--allow-outside", action="store_true", help="allow includes outside the project")
    p.set_defaults(func=main)


def main(args) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise CorpusError(Problem(f"expected at least 1 job at once, got {args.jobs}", path="--jobs"))
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise CorpusError(Problem(f"expected a positive number of seconds, got {args.timeout:g}", path="--timeout"))
    result = run_batch(args.scenes, args.out, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                       timeout=args.timeout, force=args.force, allow_outside=args.allow_outside, quiet=args.quiet)
    return 1 if result.failed else 0
