"""Read a folder of finished outputs into a Page: a batch (batch.json), an evolution
(evolution.db) or any folder holding run folders (manifest.json). Only files are read, never
the batch or evolve code, so both can call this as their jobs finish."""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from pipeline.errors import CorpusError, Problem
from pipeline.gallery.model import Card, Page, Table
from pipeline.gallery.poster import poster_uri

BATCH = "batch.json"
EVOLUTION = "evolution.db"
MANIFEST = "manifest.json"
# a batch row's keys that are not measured values (they have their own places on the card)
ROW_KEYS = ("name", "status", "params", "out_dir", "message")
FAILED_SHOWN = 200  # failed evaluations listed on an evolution's page (all are in evolution.db)


def collect(folder: Path) -> Page:
    if (folder / BATCH).is_file():
        return batch_page(folder)
    if (folder / EVOLUTION).is_file():
        return evolution_page(folder)
    return runs_page(folder)


def href(path: Path, page_dir: Path) -> str:
    return quote(Path(os.path.relpath(path, page_dir)).as_posix())


def read_manifest(run: Path) -> dict | None:
    try:
        manifest = json.loads((run / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def with_media(card: Card, run: Path, page_dir: Path) -> Card:
    """The run folder's video (its middle frame as the poster), glTF and records as links."""
    mp4, gif, frames = run / "video.mp4", run / "video.gif", run / "frames"
    if mp4.is_file():
        card.video = href(mp4, page_dir)
    source = next((p for p in (mp4, gif, frames) if p.exists()), None)
    if source is not None:
        card.poster = poster_uri(source) or ""
    named = (("video", mp4), ("gif", gif), ("glb", run / "animation.glb"), ("scene", run / "scene.json"),
             ("manifest", run / MANIFEST))
    card.links += [(label, href(p, page_dir)) for label, p in named if p.is_file()]
    card.links.append(("folder", href(run, page_dir) + "/"))
    return card


def _summary(cards: list[Card], what: str) -> str:
    counts: dict[str, int] = {}
    for c in cards:
        counts[c.status] = counts.get(c.status, 0) + 1
    return f"{what}: {len(cards)} " + ("run" if len(cards) == 1 else "runs") + (
        " (" + ", ".join(f"{n} {s}" for s, n in counts.items()) + ")" if counts else "")


def batch_page(folder: Path) -> Page:
    """One card per finished job of `corpus batch`, in batch.json's order (by name)."""
    path = folder / BATCH
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CorpusError(Problem(f"cannot read the batch summary: {exc}", str(path))) from exc
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "name" in r for r in rows):
        raise CorpusError(Problem("is not a corpus batch summary (a list of jobs with names)", str(path)))
    cards = []
    for row in rows:
        card = Card(name=str(row["name"]), status=str(row.get("status", "")), message=str(row.get("message") or ""),
                    values={k: v for k, v in row.items() if k not in ROW_KEYS},
                    params=row.get("params") if isinstance(row.get("params"), dict) else {})
        run = folder / Path(str(row.get("out_dir") or "")).name if row.get("out_dir") else None
        # a failed job published nothing: what may sit in its folder is an earlier run's
        if run is not None and card.status in ("done", "cached") and (run / MANIFEST).is_file():
            with_media(card, run, folder)
        cards.append(card)
    return Page(title=f"{folder.resolve().name}: corpus batch", summary=_summary(cards, "batch"), cards=cards)


def run_values(manifest: dict) -> dict:
    """A run's measured values from its manifest, under the names batch.json gives them."""
    values = {"simulated_s": manifest.get("simulated_time_s")}
    metrics = manifest.get("metrics")
    if isinstance(metrics, dict):
        values.update(metrics)
    return values


def runs_page(folder: Path) -> Page:
    """One card per run folder (a folder with a manifest.json) at or below `folder`."""
    runs = sorted(m.parent for m in folder.rglob(MANIFEST)
                  if not any(part.startswith(".") for part in m.relative_to(folder).parts))
    if not runs:
        raise CorpusError(Problem(f"holds no corpus runs: no {BATCH}, {EVOLUTION} or run folder "
                                  f"(with a {MANIFEST}) in it", str(folder)))
    cards = []
    for run in runs:
        name = run.relative_to(folder).as_posix() if run != folder else folder.resolve().name
        manifest = read_manifest(run)
        if manifest is None:
            cards.append(Card(name=name, status="failed", message=f"{run / MANIFEST}: not a readable JSON object"))
            continue
        cards.append(with_media(Card(name=name, status="done", values=run_values(manifest)), run, folder))
    return Page(title=f"{folder.resolve().name}: corpus runs", summary=_summary(cards, "runs"), cards=cards)


def evolution_page(folder: Path) -> Page:
    """The best individual and the snapshots of the best (`outputs.every`) as cards, with the
    videos of those that were run; the fitness plot; the generations; the failed evaluations."""
    path = folder / EVOLUTION
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return _evolution_page(folder, db)
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise CorpusError(Problem(f"cannot read the evolution's database: {exc}", str(path))) from exc


def _best_up_to(db, generation: int) -> tuple | None:
    """The best individual up to `generation`, as the run picks it: the fittest, the
    earliest among equals (pipeline/evolve/run.py: fittest)."""
    return db.execute("SELECT generation, idx, fitness, metrics FROM evaluations WHERE status = 'ok' AND "
                      "generation <= ? ORDER BY fitness DESC, generation, idx LIMIT 1", (generation,)).fetchone()


def _individual(folder: Path, name: str, scene: Path, run: Path, found: tuple) -> Card:
    generation, idx, fitness, metrics = found
    card = Card(name=name, status="ok", values={"fitness": fitness, "generation": generation, "individual": idx})
    try:
        card.values.update(json.loads(metrics or "{}"))
    except ValueError:
        pass  # the fitness is the measure that matters; a damaged metrics column drops the rest
    card.links.append((scene.name, href(scene, folder)))  # the scene `corpus run` replays
    manifest = read_manifest(run)
    if manifest is not None:
        card.values["simulated_s"] = manifest.get("simulated_time_s")
        with_media(card, run, folder)
    return card


def _evolution_page(folder: Path, db) -> Page:
    generations = db.execute("SELECT generation, best, mean, median, evaluated, failed FROM generations "
                             "ORDER BY generation").fetchall()
    cards = []
    snapshots = sorted((folder / "best").glob("generation-*.yaml"))
    if (folder / "best.yaml").is_file() and generations:
        found = _best_up_to(db, generations[-1][0])
        if found:
            cards.append(_individual(folder, "best", folder / "best.yaml", folder / "best_run", found))
    for scene in snapshots:
        number = scene.stem.removeprefix("generation-")
        found = _best_up_to(db, int(number)) if number.isdigit() else None
        if found:
            cards.append(_individual(folder, f"best at generation {int(number)}", scene,
                                     folder / f"best_run_{scene.stem}", found))
    total = db.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    failed = db.execute("SELECT count(*) FROM evaluations WHERE status != 'ok'").fetchone()[0]
    failures = db.execute("SELECT generation, idx, status, message FROM evaluations WHERE status != 'ok' "
                          "ORDER BY generation DESC, idx LIMIT ?", (FAILED_SHOWN,)).fetchall()
    best = generations[-1][1] if generations else None
    summary = (f"evolution: {len(generations)} generations, {total} evaluations, {failed} failed"
               + (f"; best fitness {best:.6g}" if isinstance(best, float) else ""))
    tables = [Table("generations", ["generation", "best", "mean", "median", "evaluated", "failed"],
                    [list(g) for g in generations])]
    if failures:
        note = "" if failed <= FAILED_SHOWN else f"the latest {FAILED_SHOWN} of {failed}; all are in {EVOLUTION}"
        tables.append(Table("failed evaluations", ["generation", "individual", "status", "message"],
                            [list(f) for f in failures], note))
    figures = [("best, mean and quartiles of the fitness per generation", "fitness.png")] \
        if (folder / "fitness.png").is_file() else []
    return Page(title=f"{folder.resolve().name}: corpus evolve", summary=summary, cards=cards,
                cards_title="The best individuals", figures=figures, tables=tables)
