"""A Page as one self-contained HTML file: inline CSS and JavaScript, no CDN, posters as
data: URIs; only the runs' own videos and files are linked, relative to the page. Every
string that came from a user (job names, parameters, messages) is escaped."""
from __future__ import annotations

import html
import json
import math
import re

from pipeline.gallery.model import Card, Page, Table

GENERATOR = "corpus gallery"  # the page's <meta name="generator">: how we know a page is ours
TABLE_DIGITS = 4  # significant digits in the tables (the cards show 6; sorting uses every digit)

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#f6f6f4}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.15em;margin:1.5em 0 .5em}
.summary{color:#555;margin:0 0 1em}
.cards{margin-top:14px;display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:14px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px;overflow:hidden}
.card h3{font-size:1em;margin:0 0 6px;word-break:break-all}
.card video,.card img.poster{width:100%;aspect-ratio:16/9;object-fit:contain;background:#000;border-radius:3px}
.card .noposter{width:100%;aspect-ratio:16/9;display:flex;align-items:center;justify-content:center;
 background:#eee;color:#777;border-radius:3px}
.card.failed,.card.timeout,.card.invalid{border-color:#d66}
.card pre{white-space:pre-wrap;word-break:break-word;background:#fdecec;color:#900;padding:6px;margin:6px 0 0;
 font-size:12px;max-height:12em;overflow:auto}
.card dl{display:grid;grid-template-columns:auto 1fr;gap:1px 10px;margin:8px 0 0;font-size:13px}
.card dt{color:#666}.card dd{margin:0;word-break:break-word}
.links a{margin-right:10px}
.status{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;color:#fff;background:#888}
.status.done,.status.ok{background:#2a7d3b}.status.cached{background:#3b6ea8}
.status.failed,.status.timeout,.status.invalid{background:#b32424}
table{border-collapse:collapse;background:#fff;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#eee;cursor:pointer;user-select:none;max-width:9em}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.message{max-width:18em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:#900}
.scroll{overflow-x:auto;max-width:100%}
figure{margin:0}figure img{max-width:min(100%,720px);background:#fff;border:1px solid #ddd}
.note{color:#666;font-size:12px}
"""

# A video shows its poster clean until the pointer or the keyboard reaches it; then its
# controls appear (a click on a video without them plays it).
# Click a header to sort by it (again: reverse). Cells sort by data-sort: as numbers when
# every non-empty key in the column is one, else as text; empty keys go last either way.
SCRIPT = """
document.querySelectorAll('video').forEach(function (video) {
  var show = function () { video.controls = true; };
  ['mouseenter', 'focus', 'touchstart'].forEach(function (e) { video.addEventListener(e, show); });
  video.addEventListener('click', function () { if (!video.controls) { show(); video.play(); } });
});
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.from(body.rows);
      var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
      var key = function (row) { return row.cells[col].getAttribute('data-sort'); };
      var numeric = rows.every(function (r) { var k = key(r); return k === '' || !isNaN(Number(k)); });
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === '' || y === '') { return (x === '') - (y === ''); }
        if (numeric) { return dir * (Number(x) - Number(y)); }
        return dir * x.localeCompare(y, undefined, {numeric: true});
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def shown(value, digits: int = 6) -> str:
    """A value as the page prints it: floats to `digits` significant digits, lists joined."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}g}" if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown(v, digits) for v in value) + "]"
    if isinstance(value, dict):
        return json.dumps(value, default=str)
    return str(value)


def sort_key(value) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, float)) and math.isfinite(value):
        return repr(value)
    return "" if value is None else shown(value)


def anchor(index: int, card: Card) -> str:
    return f"card-{index}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", card.name)[:60]


def render(page: Page) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f'<meta name="generator" content="{GENERATOR}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{esc(page.title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
             f"<h1>{esc(page.title)}</h1>", f'<p class="summary">{esc(page.summary)}</p>']
    for caption, href in page.figures:
        parts.append(f'<figure><img src="{esc(href)}" alt="{esc(caption)}"><figcaption class="note">'
                     f"{esc(caption)}</figcaption></figure>")
    if page.cards:
        parts.append(f"<h2>{esc(page.cards_title)}</h2>")
        parts.append(_cards_table(page.cards))
        parts.append('<div class="cards">')
        parts += [_card(i, c) for i, c in enumerate(page.cards)]
        parts.append("</div>")
    for table in page.tables:
        parts.append(_table(table))
    parts += [f"<script>{SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(parts)


def columns_of(cards: list[Card]) -> tuple[list[str], list[str]]:
    """The value and parameter columns, each in order of first appearance."""
    values = list(dict.fromkeys(k for c in cards for k in c.values))
    params = list(dict.fromkeys(k for c in cards for k in c.params))
    return values, params


def _cards_table(cards: list[Card]) -> str:
    values, params = columns_of(cards)
    messages = any(c.message for c in cards)
    head = ["name", "status", *(["message"] if messages else []), *params, *values]
    rows = []
    for i, c in enumerate(cards):
        cells = [f'<td data-sort="{esc(c.name)}"><a href="#{anchor(i, c)}">{esc(c.name)}</a></td>',
                 f'<td data-sort="{esc(c.status)}"><span class="status {esc(c.status)}">{esc(c.status)}</span></td>']
        if messages:
            cells.append(_message(c.message))
        cells += [_cell(c.params.get(p)) for p in params]
        cells += [_cell(c.values.get(v)) for v in values]
        rows.append(f'<tr id="row-{anchor(i, c)}">' + "".join(cells) + "</tr>")
    return _table_html("runs", head, rows)


def _cell(value) -> str:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (f'<td{" class=num" if number else ""} data-sort="{esc(sort_key(value))}">'
            f"{esc(shown(value, TABLE_DIGITS))}</td>")


def _message(text) -> str:
    """One line, cut to the cell; the whole message is its tooltip (and on the card)."""
    return f'<td class="message" data-sort="{esc(text)}" title="{esc(text)}">{esc(text)}</td>'


def _table(table: Table) -> str:
    rows = []
    for row in table.rows:
        cells = [(_message(v) if col == "message" else _cell(v))
                 for col, v in zip(table.columns, row)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    note = f'<p class="note">{esc(table.note)}</p>' if table.note else ""
    return f"<h2>{esc(table.title)}</h2>{note}" + _table_html(table.title, table.columns, rows)


def _table_html(label: str, head: list[str], rows: list[str]) -> str:
    # long names (environment.material.friction) may wrap after their dots and underscores
    header = "".join(f'<th scope="col">{esc(h).replace(".", ".<wbr>").replace("_", "_<wbr>")}</th>' for h in head)
    return (f'<div class="scroll"><table class="sortable" data-table="{esc(label)}"><thead><tr>{header}</tr>'
            f'</thead><tbody>\n' + "\n".join(rows) + "\n</tbody></table></div>")


def _card(index: int, card: Card) -> str:
    if card.video:
        poster = f' poster="{esc(card.poster)}"' if card.poster else ""
        media = f'<video tabindex="0" muted loop preload="none"{poster} src="{esc(card.video)}"></video>'
    elif card.poster:
        media = f'<img class="poster" src="{esc(card.poster)}" alt="middle frame of {esc(card.name)}">'
    else:
        media = '<div class="noposter">no video</div>'
    items = [*card.params.items(), *card.values.items()]
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{esc(shown(v))}</dd>" for k, v in items)
    links = "".join(f'<a href="{esc(href)}">{esc(label)}</a>' for label, href in card.links)
    message = f"<pre>{esc(card.message)}</pre>" if card.message else ""
    status = esc(card.status)
    return (f'<article class="card {status}" id="{anchor(index, card)}">'
            f'<h3>{esc(card.name)} <span class="status {status}">{status}</span></h3>{media}{message}'
            f'<dl>{facts}</dl><p class="links">{links}</p></article>')
