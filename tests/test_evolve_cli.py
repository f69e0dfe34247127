"""Bad input to `corpus evolve` and `corpus validate` on evolution files: one located line per
problem (file:line:col), "did you mean", exit status 1, never a traceback; `--plot`."""
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.evolve.database import Database
from pipeline.evolve.plot import plot_runs

ROOT = Path(__file__).resolve().parents[1]

GOOD = """evolution: e
scene: scene.yaml
genotype:
  vector:
    prefix: creatures[0].with.controller.params
    genes:
      leap_rate: {bounds: [0, 20]}
algorithm: {one_plus_one: {}}
fitness: forward
metrics: {forward: {metric: displacement, body: hip}}
evaluation: {duration: 0.2, stop: {body: hip, below: 0.15}}
generations: 1
"""


def corpus(*args, cwd) -> tuple[int, str]:
    """(exit status, what it printed: `validate` lists problems on stdout, `evolve` on stderr)."""
    result = subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                            text=True, cwd=cwd, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout + result.stderr


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "scene.yaml").write_text((ROOT / "scenes/roobot_hop.yaml").read_text().replace(
        "../creatures/roobot.yaml", str(ROOT / "creatures/roobot.yaml")))
    return tmp_path


@pytest.mark.parametrize("edit, expected", [
    (("generations: 1", "generations: -1"), "e.yaml:12:14: generations: must be at least 0, got -1"),
    (("algorithm:", "algoritm:"), "e.yaml:8:1: algoritm: unknown key 'algoritm'; did you mean 'algorithm'?"),
    (("leap_rate: {bounds: [0, 20]}", "leap_rat: {bounds: [0, 20]}"),
     "e.yaml:7:7: genotype.vector.genes.leap_rat: gene path 'creatures[0].with.controller.params.leap_rat': "
     "creatures[0].with.controller.params has no field 'leap_rat'; did you mean 'leap_rate'?"),
])
def test_problems_are_located_with_did_you_mean_by_evolve_and_validate(folder, edit, expected):
    (folder / "e.yaml").write_text(GOOD.replace(*edit))
    for command in (("evolve", "e.yaml", "--out", "out"), ("validate", "e.yaml")):
        status, printed = corpus(*command, cwd=folder)
        assert status == 1 and expected in printed, printed
    assert not (folder / "out").exists()


def test_a_stop_body_or_python_fitness_that_cannot_work_is_reported_once_before_any_worker(folder):
    (folder / "e.yaml").write_text(GOOD.replace("body: hip, below", "body: hpi, below"))
    status, printed = corpus("evolve", "e.yaml", "--out", "out", cwd=folder)
    assert status == 1 and "e.yaml:11:" in printed and "no body named 'hpi' in the scene; did you mean 'hip'?" in printed
    (folder / "e.yaml").write_text(GOOD.replace("fitness: forward", "fitness: {python: 'nowhere:fit'}"))
    status, printed = corpus("evolve", "e.yaml", "--out", "out2", cwd=folder)
    assert status == 1 and "e.yaml:9:" in printed and "cannot import 'nowhere'" in printed
    assert printed.count("\n") == 1


def test_flags_are_checked(folder):
    (folder / "e.yaml").write_text(GOOD)
    assert corpus("evolve", "e.yaml", "--seed", "-2", cwd=folder) == (1, "error: --seed: must be >= 0, got -2\n")
    status, printed = corpus("evolve", "e.yaml", "e.yaml", cwd=folder)
    assert status == 1 and "several paths only with --plot" in printed
    status, printed = corpus("evolve", "--plot", ".", cwd=folder)
    assert status == 1 and "not a corpus evolve folder (no evolution.db)" in printed


def test_plot_overlays_runs(tmp_path):
    runs = []
    for k in range(3):
        run = tmp_path / f"seed{k}"
        run.mkdir()
        db = Database(run / "evolution.db")
        for g in range(20):
            best = (k + 1) * (1 - 0.9 ** g)
            db.add_generation(g, {"best": best, "mean": best / 2, "q1": best / 3, "median": best / 2,
                                  "q3": best * 0.7, "evaluated": 1, "failed": 0}, {})
        db.close()
        runs.append(run)
    assert plot_runs(runs, tmp_path / "all.png").stat().st_size > 10_000
    assert plot_runs(runs[:1], tmp_path / "one.png").stat().st_size > 10_000
