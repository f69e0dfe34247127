"""`corpus evolve` end to end on short roobot evaluations: identical databases with --jobs 1,
--jobs 2 and Dask; SIGKILL mid-generation or Ctrl-C, then --resume, equal to an uninterrupted
run; failures logged once per individual and left out of breeding; outputs that replay."""
import dataclasses
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
import yaml

from html_tree import Tree, linked
from pipeline.batch.executors import DaskExecutor, LocalExecutor
from pipeline.evolve.checkpoint import Checkpoint
from pipeline.evolve.cli import finish
from pipeline.evolve.evaluate import evaluate_individual
from pipeline.evolve.run import evolve
from pipeline.evolve.spec import load_evolution
from pipeline.runstate import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]

EVOLUTION = """evolution: tiny
scene: {scene}
genotype:
  vector:
    prefix: creatures[0].with.controller.params
    genes:
      leap_rate: {{bounds: [0, 20]}}
      hip_gain: {{bounds: [0, 1]}}
      touchdown_angle_gain: {{bounds: [-2, 2]}}
{extra_genes}algorithm: {{ga: {{population: 6}}}}
fitness: {fitness}
metrics:
  survival: {{metric: time_until, body: hip, below: 0.15}}
  forward: {{metric: displacement, body: hip}}
evaluation: {{duration: {duration}, stop: {{body: hip, below: 0.15}}{limit}}}
generations: {generations}
outputs: {{every: 2, video: none}}
"""


def write_evolution(folder: Path, *, fitness="survival * forward", duration=1, generations=3, extra_genes="",
                    limit="") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").touch()
    (folder / "scene.yaml").write_text(f"scene: roobot\ncreatures: [{{use: {ROOT / 'creatures/roobot.yaml'}}}]\n"
                                       "simulation: {duration: 60, dt: 1/500, integrator: rk4, record_every: 5}\n"
                                       "outputs: {video: false, glb: false, plots: false}\n")
    path = folder / "tiny.yaml"
    path.write_text(EVOLUTION.format(scene="scene.yaml", fitness=fitness, duration=duration,
                                     generations=generations, extra_genes=extra_genes, limit=limit))
    return path


def rows(out: Path) -> list:
    db = sqlite3.connect(f"file:{out / 'evolution.db'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT generation, idx, fitness, status, genotype, seed FROM evaluations "
                          "ORDER BY generation, idx").fetchall()
    finally:
        db.close()


def corpus(*args, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600, **kw)


# The fitness of the runs compared with `uninterrupted`: an evaluation of 1 s takes about a
# millisecond, too short for the interrupt tests to find a run between two evaluations of one
# generation reliably, so each evaluation also waits 50 ms (the values stay deterministic).
PACED = ("import time\nfrom pipeline.simulate.metrics import displacement\n\n"
         "def fitness(rec, model):\n"
         "    time.sleep(0.05)\n"
         "    return displacement(rec, model, 'hip')\n")


def write_paced_evolution(folder: Path) -> Path:
    """4 generations of a GA whose evaluations last at least 50 ms each."""
    path = write_evolution(folder, fitness="{python: 'paced:fitness'}", generations=4)
    (folder / "paced.py").write_text(PACED)
    return path


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The reference: 4 generations with one local worker."""
    folder = tmp_path_factory.mktemp("ref")
    evo = load_evolution(write_paced_evolution(folder))
    with LocalExecutor(1) as executor:
        checkpoint = evolve(evo, folder, executor, generations=4, quiet=True)
    assert checkpoint.generation == 4
    return folder


def test_the_fitness_column_is_the_same_with_jobs_1_jobs_2_and_dask(tmp_path, uninterrupted):
    evo = load_evolution(write_paced_evolution(tmp_path / "e"))
    reference = rows(uninterrupted)
    for name, executor in (("jobs2", LocalExecutor(2)), ("dask", DaskExecutor(2))):
        out = tmp_path / name
        out.mkdir()
        with executor:
            evolve(evo, out, executor, generations=4, quiet=True)
        assert rows(out) == reference, name
    assert len(reference) == 6 + 4 * 5 and all(r[3] == "ok" for r in reference)
    workers = sqlite3.connect(tmp_path / "jobs2/evolution.db").execute(
        "SELECT COUNT(DISTINCT worker) FROM evaluations").fetchone()[0]
    assert workers == 2


def wait_for(predicate, seconds=300):
    end = time.time() + seconds
    while time.time() < end:
        found = predicate()
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError("timed out")


def mid_generation(out: Path):
    """The generation a run is in the middle of (some of its evaluations logged, its summary
    not yet), if any."""
    if not (out / "evolution.db").exists():
        return None
    try:
        db = sqlite3.connect(f"file:{out / 'evolution.db'}?mode=ro", uri=True)
        try:
            done = db.execute("SELECT MAX(generation) FROM generations").fetchone()[0]
            started = db.execute("SELECT MAX(generation), COUNT(*) FROM evaluations WHERE generation = "
                                 "(SELECT MAX(generation) FROM evaluations)").fetchone()
        finally:
            db.close()
    except sqlite3.OperationalError:  # the tables are being created
        return None
    if done is not None and done >= 1 and started[0] == done + 1 and 0 < started[1] < 6:
        return started[0]
    return None


def test_sigkill_mid_generation_then_resume_equals_the_uninterrupted_run(tmp_path, uninterrupted):
    path = write_paced_evolution(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "evolve", path, "--out", out, "--jobs", "1",
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        killed_in = wait_for(lambda: mid_generation(out))
        os.killpg(proc.pid, signal.SIGKILL)  # the coordinator and its workers, mid-generation
    finally:
        proc.wait()
    assert rows(out)[-1][0] == killed_in  # the partial generation is in the database
    result = corpus("evolve", path, "--out", out, "--resume", "--jobs", "2", "--quiet")
    assert result.returncode == 0, result.stderr
    assert rows(out) == rows(uninterrupted)


def test_ctrl_c_checkpoints_exits_130_and_resumes(tmp_path, uninterrupted):
    path = write_paced_evolution(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "evolve", path, "--out", out, "--jobs", "1"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    wait_for(lambda: mid_generation(out))
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends to the terminal's process group
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    assert (out / "checkpoint.pkl").exists()
    result = corpus("evolve", path, "--out", out, "--resume", "--jobs", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert rows(out) == rows(uninterrupted)


def pool_workers(pid: int) -> list:
    import psutil

    return [p for p in psutil.Process(pid).children() if "spawn_main" in " ".join(p.cmdline())]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killing_the_coordinator_alone_stops_its_workers(tmp_path, sig):
    """`kill PID` (or the OOM killer) hits the coordinator, not its process group: the workers
    it started must not simulate on."""
    import psutil

    path = write_evolution(tmp_path, duration=30, generations=4)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "evolve", path, "--out", out, "--jobs", "2",
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    workers = wait_for(lambda: pool_workers(proc.pid))
    os.kill(proc.pid, sig)
    proc.communicate(timeout=120)
    _, alive = psutil.wait_procs(workers, timeout=10)
    for p in alive:
        p.kill()
    assert alive == []
    if sig == signal.SIGTERM:  # handled as Ctrl-C is
        assert proc.returncode == 130


def test_a_folder_with_a_run_is_never_overwritten(tmp_path, uninterrupted):
    path = write_evolution(tmp_path)
    result = corpus("evolve", path, "--out", uninterrupted)
    assert result.returncode == 1 and "holds a run already: pass --resume" in result.stderr


def test_failures_are_logged_once_each_excluded_and_the_run_goes_on(tmp_path):
    (tmp_path / "fit.py").write_text(
        "from pipeline.simulate.metrics import displacement\n\n"
        "def fitness(rec, model):\n"
        "    d = displacement(rec, model, 'hip')\n"
        "    if d > 0.5:\n"
        "        raise ZeroDivisionError('too far for this test')\n"
        "    return d\n")
    # integrator steps this long make the stiff leg spring diverge (h in [0.05, 0.1): two steps
    # of 0.05 s a frame). A frame-length gene would fail the scene's whole-frames check instead.
    step = "      step: {path: simulation.h, bounds: [0.02, 0.1], start: 0.02}\n"
    path = write_evolution(tmp_path, fitness="{python: 'fit:fitness'}", generations=2, extra_genes=step)
    path.write_text(path.read_text().replace("    genes:\n", "    init: random\n    genes:\n"))
    scene = tmp_path / "scene.yaml"
    scene.write_text(scene.read_text().replace("dt: 1/500", "dt: 0.1, h: 0.02"))
    result = corpus("evolve", path, "--out", tmp_path / "out", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    table = rows(tmp_path / "out")
    failed = [r for r in table if r[3] != "ok"]
    assert failed and all(r[2] is None for r in failed)
    db = sqlite3.connect(tmp_path / "out/evolution.db")
    messages = dict(((g, i), m) for g, i, m in db.execute(
        "SELECT generation, idx, message FROM evaluations WHERE status != 'ok'"))
    assert any("ZeroDivisionError: too far for this test" in m for m in messages.values())
    assert any("unstable at t = " in m and "lower simulation.h" in m for m in messages.values())
    for (g, i), m in messages.items():  # reported once per individual
        assert result.stderr.count(f"generation {g}, individual {i}: ") == 1
    state = load_checkpoint(tmp_path / "out/checkpoint.pkl", Checkpoint).state
    assert np.isfinite(state.fitness[0])  # the elite is a valid individual
    (table,) = [t for t in Tree((tmp_path / "out/index.html").read_text()).root.all("table")
                if t.attrs.get("data-table") == "failed evaluations"]
    shown = [[td.content() for td in tr.all("td")] for tr in next(table.all("tbody")).all("tr")]
    assert sorted((int(g), int(i), m) for g, i, _, m in shown) == sorted((g, i, m) for (g, i), m in messages.items())


def test_an_evaluation_past_its_time_limit_fails_as_a_timeout(tmp_path):
    path = write_evolution(tmp_path, generations=0, limit=", time_limit: 1e-6, chunk: 0.1")
    evo = load_evolution(path)
    result = evaluate_individual((evo.setup, evo.space.phenotype(evo.space.start), 1))
    assert result["timeout"] and result["error"].startswith("timeout: more than 1e-06 s of wall time")


def test_outputs_replay_the_best_individual(uninterrupted):
    out = uninterrupted
    assert (out / "best/generation-0002.yaml").exists() and (out / "best/generation-0004.yaml").exists()
    evo = load_evolution(out / "tiny.yaml")
    checkpoint = load_checkpoint(out / "checkpoint.pkl", Checkpoint)
    finish(evo, out, checkpoint, video=False, quiet=True)
    assert (out / "fitness.png").stat().st_size > 10_000
    best = checkpoint.best
    replay = dataclasses.replace(evo.setup, scene=str(out / "best.yaml"))
    again = evaluate_individual((replay, {}, best.seed))
    assert again["fitness"] == best.fitness
    genotype = evo.space.from_data(yaml.safe_load((out / "best_genotype.yaml").read_text())["genotype"])
    assert genotype.tobytes() == best.genotype.tobytes()
    result = corpus("run", out / "best.yaml", "--out", out / "replay", "--duration", "0.5", "--no-frames", "--quiet")
    assert result.returncode == 0, result.stderr


def test_the_gallery_shows_the_best_the_snapshots_and_the_generations(uninterrupted):
    out = uninterrupted
    checkpoint = load_checkpoint(out / "checkpoint.pkl", Checkpoint)
    finish(load_evolution(out / "tiny.yaml"), out, checkpoint, video=False, quiet=True)
    tree = Tree((out / "index.html").read_text())
    cards = list(tree.root.all("article", "card"))
    assert [next(c.all("h3")).text.strip() for c in cards] == [
        "best", "best at generation 0", "best at generation 2", "best at generation 4"]
    facts = {dt.content(): dd.content() for dt, dd in zip(cards[0].all("dt"), cards[0].all("dd"))}
    best = checkpoint.best
    assert (facts["fitness"], facts["generation"], facts["individual"]) == (
        f"{best.fitness:.6g}", str(best.generation), str(best.index))
    assert [r for r in linked(tree) if not (out / unquote(r)).exists()] == []
    (generations,) = [t for t in tree.root.all("table") if t.attrs.get("data-table") == "generations"]
    assert len(list(generations.all("tr"))) == 1 + 5  # the header and generations 0..4


def test_an_individual_that_kills_its_worker_fails_alone(tmp_path):
    """os._exit in the fitness breaks the local pool; the run restarts it, and exactly the
    individuals whose fitness would have raised fail: the same table as a raising fitness."""
    body = ("from pipeline.simulate.metrics import displacement\n\n"
            "def fitness(rec, model):\n"
            "    if displacement(rec, model, 'hip') > 0.8:\n"
            "        {}\n"
            "    return displacement(rec, model, 'hip')\n")
    tables = {}
    for name, action in (("dies", "import os; os._exit(3)"), ("raises", "raise ValueError('far')")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "fit.py").write_text(body.format(action))
        path = write_evolution(tmp_path / name, fitness="{python: 'fit:fitness'}", generations=1)
        result = corpus("evolve", path, "--out", tmp_path / name / "out", "--jobs", "2", "--quiet")
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        tables[name] = [r[:4] for r in rows(tmp_path / name / "out")]
    assert tables["dies"] == tables["raises"]
    assert 0 < sum(r[3] == "failed" for r in tables["dies"]) < len(tables["dies"])


@pytest.mark.slow
def test_compiling_kernels_does_not_count_against_the_time_limit(tmp_path):
    # a cold numba cache: each worker's first evaluation compiles for a minute or more; counted,
    # it failed the first individual of every run as a timeout
    path = write_evolution(tmp_path, generations=0, limit=", time_limit: 5")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold-cache")}
    result = corpus("evolve", path, "--out", tmp_path / "out", "--jobs", "1", "--quiet", env=env)
    assert result.returncode == 0, result.stderr
    assert [r[3] for r in rows(tmp_path / "out")] == ["ok"] * 6
