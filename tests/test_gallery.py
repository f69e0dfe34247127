"""The gallery (index.html) of a batch, an evolution and any folder of runs: its structure
parsed with html.parser, every file it links present, table rows equal to the runs, failed
jobs' located messages on their cards, user strings escaped; `corpus gallery` rebuilds it
and refuses bad folders in one line. The slow test opens it in headless Chromium."""
import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest

from html_tree import Tree, linked
from pipeline.batch.runner import run_batch
from pipeline.gallery import LivePage

REPO = Path(__file__).resolve().parents[1]
def scene(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"scene: {name}\nenvironment: {REPO / 'environments/flat.yaml'}\n"
                    f"creatures:\n  - use: {REPO / 'creatures/box.yaml'}\n    at: [{{move: [0, 0, 0.3]}}]\n"
                    "simulation: {duration: 0.2, dt: 1/240, integrator: rk4, h: 1/2400}\n" + body)
    return path


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Two jobs with video and glb (one sweep), one that fails in its controller, one invalid
    file whose message quotes markup; then the batch again, which finds the first two cached."""
    folder = tmp_path_factory.mktemp("gallery")
    (folder / "boom.py").write_text("def step(sim, t, params):\n    raise ValueError('boom <on purpose>')\n")
    drop = scene(folder, "drop", "outputs: {video: true, glb: true, size: [192, 108], fps: 10}\n"
                                 "sweep: {parameters: {simulation.seed: [0, 1]}}\n")
    boom = scene(folder, "boom", "controllers: [{python: 'boom:step', creature: box}]\n"
                                 "outputs: {video: false}\n")
    broken = folder / "broken.yaml"
    broken.write_text("scene: broken\nsimulation: {duration: 0.1, '<b>bold</b>': 1}\n")
    paths = [str(drop), str(boom), str(broken)]
    first = run_batch(paths, folder / "out", jobs=2, quiet=True)
    first_page = (folder / "out/index.html").read_text()
    again = run_batch(paths, folder / "out", jobs=2, quiet=True)
    return folder, first, first_page, again


def test_the_batch_page_is_one_wellformed_offline_file_whose_links_all_exist(batch):
    folder, *_ = batch
    page = folder / "out/index.html"
    text = page.read_text()
    tree = Tree(text)
    assert tree.doctype.lower() == "doctype html"
    assert [m.attrs for m in tree.root.all("meta") if m.attrs.get("name") == "generator"] == [
        {"name": "generator", "content": "corpus gallery"}]
    assert all("src" not in s.attrs for s in tree.root.all("script"))  # inline: nothing to fetch
    assert not list(tree.root.all("link"))
    refs = linked(tree)
    assert not [r for r in refs if "://" in r or r.startswith("/")]  # relative: the folder can move
    assert {Path(unquote(r)).name for r in refs} >= {"video.mp4", "animation.glb", "scene.json", "manifest.json"}
    assert [r for r in refs if not (page.parent / unquote(r)).exists()] == []
    posters = [v.attrs["poster"] for v in tree.root.all("video")]
    assert len(posters) == 2 and all(p.startswith("data:image/jpeg;base64,") for p in posters)


def test_the_table_rows_and_cards_are_the_runs_of_batch_json(batch):
    folder, first, first_page, again = batch
    rows = json.loads((folder / "out/batch.json").read_text())
    tree = Tree((folder / "out/index.html").read_text())
    (table,) = [t for t in tree.root.all("table") if t.attrs.get("data-table") == "runs"]
    header = [th.content() for th in table.all("th")]
    body_rows = list(next(table.all("tbody")).all("tr"))
    cells = [[td.content() for td in tr.all("td")] for tr in body_rows]
    assert [c[0] for c in cells] == [r["name"] for r in rows] == ["boom", "broken", "drop__seed=0", "drop__seed=1"]
    assert [c[1] for c in cells] == [r["status"] for r in rows] == ["failed", "invalid", "cached", "cached"]
    for row, tr in zip(rows, cells):
        for column in ("simulated_s", "path_speed", "simulation.seed"):
            value = row.get(column, row["params"].get(column))
            shown = "" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)
            assert tr[header.index(column)] == shown
    cards = list(tree.root.all("article", "card"))
    assert [c.attrs["class"].split()[1] for c in cards] == [r["status"] for r in rows]
    links = [a.attrs["href"] for tr in body_rows for a in tr.all("a")]
    assert links == ["#" + c.attrs["id"] for c in cards]  # each row links its card
    # the first batch's page said done where the second says cached
    first_cards = [c.attrs["class"] for c in Tree(first_page).root.all("article", "card")]
    assert first_cards == ["card failed", "card invalid", "card done", "card done"]


def test_a_failed_jobs_card_shows_its_located_message_escaped(batch):
    folder, first, *_ = batch
    text = (folder / "out/index.html").read_text()
    tree = Tree(text)
    cards = {c.attrs["id"].split("-", 2)[2]: c for c in tree.root.all("article", "card")}
    messages = {r["name"]: r["message"] for r in first.rows}
    boom = next(cards["boom"].all("pre")).content()
    assert boom == messages["boom"]
    assert boom.startswith(f"{folder / 'boom.yaml'}:7:15: controllers[0]: python controller 'boom:step' "
                           f"raised ValueError in {folder / 'boom.py'}:2 at t = 0 s: boom <on purpose>")
    broken = next(cards["broken"].all("pre")).content()
    assert broken == messages["broken"] and "broken.yaml:2:" in broken and "'<b>bold</b>'" in broken
    assert "<b>bold</b>" not in text and "<on purpose>" not in text  # markup from users stays text
    assert not list(cards["boom"].all("video")) and not list(cards["broken"].all("video"))


def corpus(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def test_corpus_gallery_rebuilds_the_page_and_pages_any_folder_of_runs(batch, tmp_path):
    folder, *_ = batch
    page = folder / "out/index.html"
    before = page.read_text()
    page.unlink()
    result = corpus("gallery", folder / "out")
    assert result.returncode == 0 and result.stdout == f"{page}\n", result.stderr
    assert page.read_text() == before
    runs = tmp_path / "runs"  # no batch.json: a folder that only holds run folders
    for run in sorted((folder / "out").glob("drop*")):
        shutil.copytree(run, runs / "nested" / run.name)
    assert corpus("gallery", runs, "--quiet").returncode == 0
    tree = Tree((runs / "index.html").read_text())
    names = [td.content() for tr in next(tree.root.all("tbody")).all("tr") for td in list(tr.all("td"))[:1]]
    assert names == [f"nested/{r.name}" for r in sorted((runs / "nested").iterdir())]
    assert [r for r in linked(tree) if not (runs / unquote(r)).exists()] == []


def test_corpus_gallery_refuses_bad_folders_in_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/index.html").write_text("<html>my own page</html>")
    (tmp_path / "mine/batch.json").write_text("[]")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad/batch.json").write_text("{not json")
    expected = {
        "nothere": "nothere: no such folder",
        "notes.txt": "notes.txt: is a file, not a folder of runs",
        "empty": "empty: holds no corpus runs: no batch.json, evolution.db or run folder (with a manifest.json) in it",
        "mine": "mine/index.html: is not a corpus gallery, so the gallery will not overwrite it; move it away",
        "bad": "bad/batch.json: cannot read the batch summary: Expecting property name enclosed in double "
               "quotes: line 1 column 2 (char 1)",
    }
    for folder, message in expected.items():
        result = corpus("gallery", folder, cwd=tmp_path)
        assert (result.returncode, result.stderr, result.stdout) == (1, message + "\n", "")
    assert (tmp_path / "mine/index.html").read_text() == "<html>my own page</html>"


def test_a_batch_never_overwrites_a_page_it_did_not_write(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out/index.html").write_text("mine")
    path = scene(tmp_path, "drop", "outputs: {video: false}\n")
    result = corpus("batch", path, "--out", tmp_path / "out")
    assert result.returncode == 1 and result.stderr.endswith(
        "index.html: is not a corpus gallery, so the gallery will not overwrite it; move it away\n")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["index.html"]


def test_a_live_page_is_rewritten_at_most_every_interval_and_once_more_at_the_end(tmp_path):
    rows = [{"name": "a", "status": "invalid", "params": {}, "out_dir": "", "message": "a.yaml:1:1: bad"}]
    (tmp_path / "batch.json").write_text(json.dumps(rows))
    with LivePage(tmp_path, every=3600) as page:
        page.update()
        assert "a.yaml:1:1: bad" in (tmp_path / "index.html").read_text()
        rows.append({**rows[0], "name": "b", "message": "b.yaml:2:2: worse"})
        (tmp_path / "batch.json").write_text(json.dumps(rows))
        page.update()  # within the interval: not yet
        assert "b.yaml:2:2: worse" not in (tmp_path / "index.html").read_text()
    assert "b.yaml:2:2: worse" in (tmp_path / "index.html").read_text()


def chromium(*args) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("headless Chromium is not installed (`make test-all` installs it: apt-get install chromium)")
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
                          check=True, capture_output=True, text=True, timeout=120).stdout


def screenshot(page: Path, png: Path, height: int) -> np.ndarray:
    from PIL import Image

    chromium(f"--window-size=1280,{height}", f"--screenshot={png}", page.as_uri())
    return np.asarray(Image.open(png).convert("RGB")).astype(int)


@pytest.mark.slow
def test_chromium_shows_the_cards_with_poster_frames_and_the_table(batch, tmp_path):
    """The page against the same page without its posters, where each video is a black 16:9
    box: in the page those boxes must hold pictures (the posters), not a flat fill."""
    from scipy import ndimage

    folder, *_ = batch
    page = folder / "out/index.html"
    text = page.read_text()
    shot = screenshot(page, tmp_path / "page.png", 1600)
    bare = folder / "out/bare.html"
    try:
        bare.write_text(text.replace(' poster="data:', ' data-poster="'))
        without = screenshot(bare, tmp_path / "bare.png", 1600)
    finally:
        bare.unlink()
    assert shot.shape == without.shape == (1600, 1280, 3)
    regions, _ = ndimage.label(without.max(axis=2) < 8)
    videos = [(r, c) for r, c in ndimage.find_objects(regions) if (r.stop - r.start) * (c.stop - c.start) > 20000]
    assert len(videos) == 2  # the two jobs with video
    differs = np.abs(shot - without).max(axis=2) > 24
    for rows, cols in videos:
        assert (cols.stop - cols.start) / (rows.stop - rows.start) == pytest.approx(16 / 9, rel=0.02)
        assert cols.stop - cols.start > 250
        assert differs[rows, cols].mean() > 0.9  # the poster fills the box ...
        assert shot[rows, cols].std() > 20  # ... and is a picture
    # the table: its header row (#eee) across most of the page, above the cards
    header_rows = np.flatnonzero((np.abs(shot - 0xEE).max(axis=2) <= 2).sum(axis=1) > 800)
    assert header_rows.size and header_rows.max() < min(r.start for r, _ in videos)
    # status badges: blue (cached) and red (failed, invalid), in the table and on the cards
    blue = (np.abs(shot - [0x3B, 0x6E, 0xA8]).max(axis=2) <= 8).sum()
    red = (np.abs(shot - [0xB3, 0x24, 0x24]).max(axis=2) <= 8).sum()
    assert blue > 500 and red > 500


def sorted_in_chromium(page: Path, column: str, clicks: int) -> list[str]:
    """The runs table's names after clicking `column`'s header `clicks` times."""
    click = (f"var th = Array.from(document.querySelectorAll('th')).find(function (t) {{ "
             f"return t.textContent === '{column}'; }}); for (var i = 0; i < {clicks}; i++) {{ th.click(); }}")
    probe = page.with_name("probe.html")
    try:
        probe.write_text(page.read_text().replace("</body>", f"<script>{click}</script></body>"))
        tree = Tree(chromium("--dump-dom", probe.as_uri()))
    finally:
        probe.unlink()
    (table,) = [t for t in tree.root.all("table") if t.attrs.get("data-table") == "runs"]
    return [next(tr.all("td")).content() for tr in next(table.all("tbody")).all("tr")]


@pytest.mark.slow
def test_clicking_a_header_in_chromium_sorts_the_table(batch):
    """Numbers sort as numbers, a second click reverses, empty cells go last."""
    folder, *_ = batch
    page = folder / "out/index.html"
    assert sorted_in_chromium(page, "simulation.seed", 1)[:2] == ["drop__seed=0", "drop__seed=1"]
    assert sorted_in_chromium(page, "simulation.seed", 2)[:2] == ["drop__seed=1", "drop__seed=0"]
    assert sorted_in_chromium(page, "status", 1) == ["drop__seed=0", "drop__seed=1", "boom", "broken"]
    assert sorted_in_chromium(page, "name", 2) == ["drop__seed=1", "drop__seed=0", "broken", "boom"]
