"""The run's SQLite log (`evolution.db` in the output folder): every evaluation as it
finishes, and one summary row per finished generation. Write-ahead logging lets other
programs query it while the run goes on:

    sqlite3 outputs/evolve/roobot_ga-seed0/evolution.db \
        "SELECT generation, best, mean FROM generations ORDER BY generation"

evaluations: generation, idx, genotype (JSON of the space's to_data), fitness (NULL when the
evaluation failed), status (ok | failed | timeout), message, metrics (JSON), seed,
simulated_time, wall_time, worker (host:pid), finished (unix time).
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluations (
    generation INTEGER NOT NULL, idx INTEGER NOT NULL, genotype TEXT NOT NULL, fitness REAL,
    status TEXT NOT NULL, message TEXT, metrics TEXT, seed INTEGER NOT NULL,
    simulated_time REAL, wall_time REAL, worker TEXT, finished REAL,
    PRIMARY KEY (generation, idx));
CREATE TABLE IF NOT EXISTS generations (
    generation INTEGER PRIMARY KEY, best REAL, mean REAL, q1 REAL, median REAL, q3 REAL,
    evaluated INTEGER, failed INTEGER, best_genotype TEXT, finished REAL);
"""


class Database:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        # a commit per evaluation without an fsync each (they were most of a (1+1) generation's
        # time): in WAL mode the file stays consistent, and a run resumes from its checkpoint,
        # forgetting rows past it, so only what the checkpoint also lacks can be lost
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def forget_after(self, generation: int) -> None:
        """Drop what a run interrupted after `generation` had logged of the next one."""
        with self.db:
            self.db.execute("DELETE FROM evaluations WHERE generation > ?", (generation,))
            self.db.execute("DELETE FROM generations WHERE generation > ?", (generation,))

    def add_evaluation(self, generation: int, idx: int, genotype: dict, seed: int, result: dict) -> None:
        error = result.get("error")
        status = "ok" if error is None else "timeout" if result.get("timeout") else "failed"
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO evaluations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (generation, idx, json.dumps(genotype), result.get("fitness"), status, error,
                 json.dumps(result.get("metrics", {})), seed, result.get("simulated_time"),
                 result.get("wall"), result.get("worker"), time.time()))

    def add_generation(self, generation: int, stats: dict, best_genotype: dict) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO generations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (generation, stats["best"], stats["mean"], stats["q1"], stats["median"], stats["q3"],
                             stats["evaluated"], stats["failed"], json.dumps(best_genotype), time.time()))


def read_generations(path: Path) -> dict[str, list]:
    """Columns of the generations table of a run's database, in generation order."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT generation, best, mean, q1, median, q3 FROM generations "
                          "ORDER BY generation").fetchall()
    finally:
        db.close()
    names = ("generation", "best", "mean", "q1", "median", "q3")
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}
