#!/usr/bin/env python3
"""Opens a report folder's report.html in headless Chromium (Debian's
chromium and chromedriver, driven by selenium) at 390, 1024, 1280, 1440 and
1920 px and checks, at each width, what a person would see (issue 16):

- nothing wider than the window: documentElement.scrollWidth <= innerWidth,
  with every example closed as the page opens and with every one opened;
- every chart's labels, bars and counts inside its card (bounding boxes);
- every count shown equal to summary.json (`data-key`) or to the rows of
  the CSV reports (`data-rows`, the totals, each group's `data-total`);
- each castle board's marked squares equal to the castle's geometry,
  worked out here from the row's FEN with python-chess (an independent
  check of src/audit/geometry.rs), and drawn on the squares they name;
- every board as a person sees it (issue 26): the rendered box of every
  file and rank label, piece and mark (getBoundingClientRect, which covers
  a `<use>` copy too) inside its board at a plausible size, the pieces on
  their squares; and at 390 and 1440 px each board's picture (Pillow): at
  most 8 % of it near black, every plain square in its light or dark
  colour, every piece and square mark showing on its square.

    page_check.py REPORT_DIR [--screenshots DIR]

With --screenshots, writes report-390.png, report-1440.png and report-board.png
(one castle example, opened) there.
Prints one line per width and `ok` at the end; exits 1 on the first failure.
"""
import argparse
import csv
import io
import json
import os
import sys
import tempfile

import chess
from PIL import Image, ImageChops
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WIDTHS = [390, 1024, 1280, 1440, 1920]
# The widths at which every board's picture is checked: a phone's, where a
# board fills the column, and a wide screen's (a board is 264 px at most,
# drawn alike at every width; the pictures take most of the test's time).
PIXEL_WIDTHS = [390, 1440]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--disable-dev-shm-usage"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def rows(folder, name):
    with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def summary_value(summary, key):
    total = 0
    for part in key.split("+"):
        v = summary
        for k in part.split("."):
            v = v[k]
        total += v
    return total


def squares(text):
    return sorted(s for s in (text or "").split() if s)


def sq_names(mask):
    return sorted(chess.square_name(s) for s in chess.SquareSet(mask))


def between(a, b):
    return chess.SquareSet(chess.between(a, b))


def expected_geometry(fen, king_to_name, rook_name, chess960):
    """The castle's geometry from python-chess: the king's path, the rook's,
    the pieces in the way, the checkers, the attacked squares the king
    crosses (king and rook lifted), the attackers of its landing square."""
    board = chess.Board(fen, chess960=chess960)
    color = board.turn
    them = not color
    king = board.king(color)
    king_to = chess.parse_square(king_to_name)
    side_king = chess.square_file(king_to) == 6
    back = 0 if color == chess.WHITE else 7
    # The rook, checked on its own: standard chess uses the corner, else the
    # nearest rook on that side; Chess960 a rook of the mover on that side.
    # A king off its back rank castles from the e-file, as written.
    king_file = chess.square_file(king) if chess.square_rank(king) == back else 4
    ours = [s for s in chess.SquareSet(board.rooks & board.occupied_co[color])
            if chess.square_rank(s) == back and chess.square_file(s) != king_file
            and ((chess.square_file(s) > king_file) == side_king)]
    rook = chess.parse_square(rook_name) if rook_name else None
    if not chess960:
        corner = chess.square(7 if side_king else 0, back)
        nearest = min(ours, key=lambda s: abs(chess.square_file(s) - king_file), default=None)
        want = corner if corner in ours else nearest
        if rook != want:
            fail(f"{fen}: the page castles with {rook_name}, python-chess says {want}")
    elif rook is not None and rook not in ours:
        fail(f"{fen}: {rook_name} is no rook of the mover on that side")
    checkers = sq_names(board.attackers_mask(them, king))
    g = {"checkers": checkers, "king_path": [], "rook_path": [], "blockers": [],
         "through": [], "into": []}
    if chess.square_rank(king) != back:
        return g
    rook_to = chess.square(5 if side_king else 3, back)
    king_path = between(king, king_to) | chess.SquareSet([king_to])
    rook_path = chess.SquareSet()
    if rook is not None:
        rook_path = between(rook, rook_to) | chess.SquareSet([rook_to])
    movers = chess.SquareSet([king] + ([rook] if rook is not None else []))
    empty = (king_path | rook_path) - movers
    g["king_path"] = sq_names(int(king_path))
    g["rook_path"] = sq_names(int(rook_path))
    g["blockers"] = sq_names(int(empty) & board.occupied)
    lifted = board.occupied & ~int(movers)
    g["through"] = sorted(
        f"{chess.square_name(s)}:{','.join(sq_names(board.attackers_mask(them, s, lifted)))}"
        for s in between(king, king_to) if board.attackers_mask(them, s, lifted))
    landing = lifted | chess.BB_SQUARES[king_to] | (chess.BB_SQUARES[rook_to] if rook is not None else 0)
    g["into"] = sq_names(board.attackers_mask(them, king_to, landing))
    return g


JS_MARKS = """
const out = [];
for (const svg of document.querySelectorAll('svg.board[data-king]')) {
  const box = svg.getBoundingClientRect();
  const marks = [];
  for (const m of svg.querySelectorAll('rect[data-sq]')) {
    const r = m.getBoundingClientRect();
    marks.push({cls: m.getAttribute('class'), sq: m.dataset.sq, attackers: m.dataset.attackers || '',
                x: r.left + r.width / 2 - box.left, y: r.top + r.height / 2 - box.top,
                shown: r.width > 0 && getComputedStyle(m).display !== 'none'});
  }
  const d = svg.dataset;
  out.push({fen: d.fen, king: d.king, kingTo: d.kingTo, rook: d.rook || null, kingPath: d.kingPath,
            rookPath: d.rookPath, blockers: d.blockers, checkers: d.checkers, through: d.through,
            into: d.into, w: box.width, h: box.height,
            chess960: svg.closest('details.ex').dataset.variant === 'chess960',
            marks});
}
return out;
"""

JS_CHARTS = """
const bad = [];
let n = 0;
for (const chart of document.querySelectorAll('.chart')) {
  const card = chart.closest('.panel, .stat, section');
  const c = card.getBoundingClientRect();
  for (const part of chart.querySelectorAll('.bar > .label, .bar .fill, .bar > .n')) {
    const r = part.getBoundingClientRect();
    n++;
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
      bad.push(chart.id + ' ' + part.className + ' ' + part.textContent + ' ' + JSON.stringify([r.left, r.right, c.left, c.right]));
    if (r.right > window.innerWidth + 0.5) bad.push(chart.id + ' past the window');
  }
}
return [n, bad];
"""

JS_COUNTS = """
const out = [];
for (const e of document.querySelectorAll('[data-key], [data-rows]')) {
  out.push({key: e.dataset.key || null, rows: e.dataset.rows || null,
            text: e.textContent.trim(), value: e.dataset.value || null,
            visible: e.getBoundingClientRect().width > 0});
}
const totals = {};
for (const id of ['castles-total', 'claims-total', 'missed-draws-total', 'results-total', 'errors-total'])
  totals[id] = document.getElementById(id) ? document.getElementById(id).dataset.count : null;
const groups = [];
for (const g of document.querySelectorAll('details.group'))
  groups.push({id: g.id, total: g.dataset.total, shown: g.dataset.shown,
               listed: g.querySelectorAll('details.ex').length});
return {counts: out, totals, groups};
"""


def check_counts(driver, folder, summary):
    got = driver.execute_script(JS_COUNTS)
    reports = {name: rows(folder, name) for name in
               ["castling.csv", "claims.csv", "missed_draws.csv", "results.csv", "errors.csv"]}
    flagging = sum(1 for r in reports["claims.csv"]
                   if r["claim_source"] != "implied" and not r["verdict"].startswith("valid"))
    checked = 0
    for c in got["counts"]:
        if not c["visible"]:
            fail(f"a count is not visible: {c}")
        if c["key"]:
            want = summary_value(summary, c["key"])
            if int(c["text"]) != want:
                fail(f"{c['key']}: the page shows {c['text']}, summary.json has {want}")
        elif c["rows"] == "claims.csv:flagging":
            if int(c["value"]) != flagging or not c["text"].startswith(f"{flagging} "):
                fail(f"flagging claims: {c} vs {flagging}")
        elif c["rows"]:
            want = len(reports[c["rows"]])
            if int(c["text"]) != want:
                fail(f"{c['rows']}: the page shows {c['text']}, the file has {want} rows")
        checked += 1
    t = got["totals"]
    want = {"castles-total": len(reports["castling.csv"]), "claims-total": len(reports["claims.csv"]),
            "missed-draws-total": sum(summary["missed_draws"].values()),
            "results-total": sum(summary["results"].values()),
            "errors-total": sum(summary["errors"].values())}
    for k, v in want.items():
        if int(t[k]) != v:
            fail(f"#{k}: {t[k]} != {v}")
        checked += 1
    by_group = {}
    for r in reports["castling.csv"]:
        k = "castles-" + r["reasons"].split(";")[0]
        by_group[k] = by_group.get(k, 0) + 1
    for r in reports["claims.csv"]:
        if not r["verdict"].startswith("valid"):
            by_group["claims-" + r["verdict"]] = by_group.get("claims-" + r["verdict"], 0) + 1
    for name, col, prefix in [("results.csv", "code", "results-"), ("missed_draws.csv", "rule", "missed-"),
                              ("errors.csv", "kind", "errors-")]:
        for r in reports[name]:
            by_group[prefix + r[col]] = by_group.get(prefix + r[col], 0) + 1
    seen = set()
    for g in got["groups"]:
        if int(g["total"]) != by_group.get(g["id"], -1):
            fail(f"group {g['id']}: {g['total']} != {by_group.get(g['id'])}")
        if int(g["shown"]) != g["listed"] or g["listed"] != min(50, int(g["total"])):
            fail(f"group {g['id']}: {g}")
        seen.add(g["id"])
        checked += 1
    if seen != set(by_group):
        fail(f"groups shown {sorted(seen)} != {sorted(by_group)}")
    return checked


def check_boards(driver):
    boards = driver.execute_script(JS_MARKS)
    for b in boards:
        g = expected_geometry(b["fen"], b["kingTo"], b["rook"], b["chess960"])
        written = {"checkers": squares(b["checkers"]), "king_path": squares(b["kingPath"]),
                   "rook_path": squares(b["rookPath"]), "blockers": squares(b["blockers"]),
                   "through": sorted((b["through"] or "").split()), "into": squares(b["into"])}
        for k, v in g.items():
            if written[k] != v:
                fail(f"{b['fen']}: {k} written {written[k]}, python-chess {v}")
        by_class = {}
        size = b["w"] / 8.32
        for m in b["marks"]:
            if not m["shown"]:
                fail(f"{b['fen']}: a mark on {m['sq']} is not drawn")
            # The mark lies on the square it names (the board's view box
            # starts 0.32 of a square left of the a-file).
            file = int(m["x"] / size - 0.32)
            rank = 7 - int(m["y"] / size)
            if chess.square_name(chess.square(file, rank)) != m["sq"]:
                fail(f"{b['fen']}: the {m['cls']} mark of {m['sq']} is drawn on file {file} rank {rank + 1}")
            by_class.setdefault(m["cls"], []).append(m)
        drawn = lambda cls: sorted(m["sq"] for m in by_class.get(cls, []))
        if drawn("path") != g["king_path"]:
            fail(f"{b['fen']}: king path drawn {drawn('path')}, geometry {g['king_path']}")
        if drawn("rook-path") != sorted(set(g["rook_path"]) - set(g["king_path"])):
            fail(f"{b['fen']}: rook path drawn {drawn('rook-path')}")
        if drawn("blocker") != g["blockers"]:
            fail(f"{b['fen']}: blockers drawn {drawn('blocker')}, geometry {g['blockers']}")
        attacked = {}
        if g["checkers"]:
            attacked[b["king"]] = g["checkers"]
        for t in g["through"]:
            sq, by = t.split(":")
            attacked[sq] = sorted(by.split(","))
        if g["into"] and b["kingTo"] != b["king"]:
            attacked[b["kingTo"]] = g["into"]
        shown = {m["sq"]: sorted(m["attackers"].split()) for m in by_class.get("attacked", [])}
        if shown != attacked:
            fail(f"{b['fen']}: attacked drawn {shown}, geometry {attacked}")
    return len(boards)


JS_BOARD_PARTS = """
const out = [];
for (const svg of document.querySelectorAll('svg.board')) {
  const b = svg.getBoundingClientRect();
  const parts = [];
  for (const e of svg.querySelectorAll('text, use, rect[data-sq], line, circle')) {
    const r = e.getBoundingClientRect();
    const a = n => parseFloat(e.getAttribute(n));
    parts.push({tag: e.tagName, cls: e.getAttribute('class') || '', text: e.textContent, sq: e.dataset.sq || null,
                label: e.tagName === 'use' || !!e.closest('.coords'),
                l: r.left - b.left, t: r.top - b.top, w: r.width, h: r.height,
                line: e.tagName === 'line' ? [a('x1'), a('y1'), a('x2'), a('y2')] : null});
  }
  out.push({id: svg.id, w: b.width, h: b.height, parts});
}
return out;
"""

# The board's squares as the page draws them (its pattern #chk).
LIGHT, DARK = (0xee, 0xd9, 0xb6), (0xb9, 0x8b, 0x62)
# Inside the board: the view box is -0.32 0 8.32 8.32, the squares 0..8.
VIEW_LEFT, VIEW_SIZE = -0.32, 8.32
LABELS = set("abcdefgh") | set("12345678")
# At most this share of a board's pixels near black: a full board's black
# pieces and outlines are about 4 %; labels drawn at the browser's default
# size, 16 squares tall, cover most of it.
MAX_DARK = 0.08


def inside(p, b, slack=1.0):
    return (p["l"] >= -slack and p["t"] >= -slack and p["l"] + p["w"] <= b["w"] + slack
            and p["t"] + p["h"] <= b["h"] + slack)


def check_board_boxes(b, where):
    """Every label, piece and mark of board `b` drawn inside it, at a size a
    person reads as such (in squares)."""
    sq = b["w"] / VIEW_SIZE
    if b["w"] < 100 or abs(b["w"] - b["h"]) > 1:
        fail(f"{where}: {b['id']} is {b['w']:.0f} x {b['h']:.0f} px")
    labels = []
    for p in b["parts"]:
        what = f"{where}: {b['id']}: the {p['tag']} {p['cls'] or ''} {p['text'][:20]!r}".rstrip()
        size = f"{p['w'] / sq:.2f} x {p['h'] / sq:.2f} squares at ({p['l'] / sq:.2f}, {p['t'] / sq:.2f})"
        if not inside(p, b):
            fail(f"{what} is drawn outside its board: {size}, the board {b['w']:.0f} px")
        cls = p["cls"].split()
        if p["label"]:
            if not (0.1 <= p["h"] / sq <= 0.5 and p["w"] / sq <= 0.5):
                fail(f"{what}: a file or rank label of {size}")
            if p["tag"] == "text":
                labels.append(p["text"])
        elif "pc" in cls:
            if not (0.5 <= p["h"] / sq <= 1.2 and 0.3 <= p["w"] / sq <= 1.1):
                fail(f"{what}: a piece of {size}")
            # The glyph stands on its square.
            f = int((p["l"] + p["w"] / 2) / sq + VIEW_LEFT)
            r = 7 - int((p["t"] + p["h"] / 2) / sq)
            if chess.square_name(chess.square(f, r)) != p["sq"]:
                fail(f"{what}: the piece of {p['sq']} is drawn on {chess.square_name(chess.square(f, r))}")
        elif p["tag"] == "rect":
            if not (0.95 <= p["w"] / sq <= 1.05 and 0.95 <= p["h"] / sq <= 1.05):
                fail(f"{what}: a square mark of {size}")
        elif p["tag"] == "circle":
            if not (0.8 <= p["w"] / sq <= 1.0):
                fail(f"{what}: an attacker's ring of {size}")
    if sorted(labels) != sorted(LABELS):
        fail(f"{where}: {b['id']}: the labels drawn are {sorted(labels)}, not a to h and 1 to 8")


def near_line(x, y, lines, within=0.2):
    """Whether the point (x, y), in squares, lies within `within` of one of
    the arrows (their heads included)."""
    for x1, y1, x2, y2 in lines:
        dx, dy = x2 - x1, y2 - y1
        t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / max(dx * dx + dy * dy, 1e-9)))
        if (x - x1 - t * dx) ** 2 + (y - y1 - t * dy) ** 2 <= within * within:
            return True
    return False


def close(c, want, tolerance=16):
    return all(abs(a - b) <= tolerance for a, b in zip(c, want))


JS_BOARD_BOXES = """
return Array.from(document.querySelectorAll('svg.board'), svg => {
  const r = svg.getBoundingClientRect();
  return [svg.id, r.left, r.top, r.right, r.bottom];
});
"""


def board_screenshots(driver, width):
    """Each board's picture, cut from screenshots of the page taken a
    window at a time (the window 2000 px tall, each next one overlapping
    the last by more than a board)."""
    tall = 2000
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": tall, "deviceScaleFactor": 1, "mobile": width < 600})
    shots = {}
    y = 0
    while True:
        driver.execute_script(f"window.scrollTo(0, {y})")
        at = driver.execute_script("return window.scrollY")
        page = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
        for id_, left, top, right, bottom in driver.execute_script(JS_BOARD_BOXES):
            if id_ not in shots and top >= 0 and bottom <= tall:
                shots[id_] = page.crop((round(left), round(top), round(right), round(bottom)))
        if at + tall >= driver.execute_script("return document.documentElement.scrollHeight"):
            break
        y = at + tall - 600
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": width < 600})
    return shots


def check_board_pixels(img, b, where):
    """What a person sees of board `b` in its picture `img`: few
    near-black pixels, each plain square in its colour, each piece and each
    square mark visible on it."""
    w, h = img.size
    px = img.load()
    # Near black: every channel below 64 (counted by Pillow, not pixel by pixel).
    below = [band.point(lambda v: 255 if v < 64 else 0) for band in img.split()]
    dark = ImageChops.multiply(ImageChops.multiply(below[0], below[1]), below[2]).histogram()[255] / (w * h)
    if dark > MAX_DARK:
        fail(f"{where}: {b['id']}: {dark:.0%} of the board's pixels are near black (at most {MAX_DARK:.0%})")
    sq = w / VIEW_SIZE
    lines = [p["line"] for p in b["parts"] if p["line"]]
    marked = {p["sq"] for p in b["parts"] if p["tag"] == "rect" and p["sq"]}
    pieces = {p["sq"] for p in b["parts"] if "pc" in p["cls"].split()}
    plain = {"light": 0, "dark": 0}
    for s in chess.SQUARES:
        name = chess.square_name(s)
        f, r = chess.square_file(s), chess.square_rank(s)
        want = DARK if (f + r) % 2 == 0 else LIGHT
        # The square's corner in the screenshot (x0, y0) and on the board (f, y0), in squares.
        x0, y0 = f - VIEW_LEFT, 7 - r
        points = [(x0 + dx, y0 + dy) for dx in (0.12, 0.88) for dy in (0.12, 0.88)
                  if not near_line(f + dx, y0 + dy, lines)]
        colours = [px[min(w - 1, int(x * sq)), min(h - 1, int(y * sq))] for x, y in points]
        if name in marked:
            if colours and all(close(c, want, 8) for c in colours):
                if not any("captured" in p["cls"] for p in b["parts"] if p["sq"] == name):
                    fail(f"{where}: {b['id']}: the mark on {name} does not show: {colours}")
        else:
            for c in colours:
                if not close(c, want):
                    fail(f"{where}: {b['id']}: {name} shows {c}, not the "
                         f"{'dark' if want == DARK else 'light'} square's {want}")
            if colours:
                plain["dark" if want == DARK else "light"] += 1
        if name in pieces:
            cells = [px[min(w - 1, int((x0 + i / 10) * sq)), min(h - 1, int((y0 + j / 10) * sq))]
                     for i in range(2, 9) for j in range(2, 9)]
            if sum(1 for c in cells if not close(c, want, 24)) < 4:
                fail(f"{where}: {b['id']}: the piece on {name} does not show")
    if plain["light"] < 4 or plain["dark"] < 4:
        fail(f"{where}: {b['id']}: too few plain squares to see the board's colours: {plain}")


def check_boards_render(driver, width):
    """Every board as a person sees it at `width` (issue 26): the boxes of
    its parts, and at the widths of PIXEL_WIDTHS its picture. Every example
    is open."""
    where = f"{width}px"
    boards = driver.execute_script(JS_BOARD_PARTS)
    for b in boards:
        check_board_boxes(b, where)
    if width not in PIXEL_WIDTHS:
        return len(boards)
    shots = board_screenshots(driver, width)
    for b in boards:
        if b["id"] not in shots:
            fail(f"{where}: {b['id']} is in no screenshot")
        check_board_pixels(shots[b["id"]], b, where)
    return len(boards)


JS_WORD_BREAKS = """
// Lines broken inside a word: for every text outside the boards, each
// character's line (its box's top) from a Range; where two characters of
// one block stand on two lines, the first must end a word or a code's part
// (a space, or one of _ - / ; , + : · – ) and a code may break after _ only.
const allowed = /[\\s_\\-\\/;,+:·–—)]/;
const bad = [];
let chars = 0;
const blockOf = new Map();
function block(el) {
  if (blockOf.has(el)) return blockOf.get(el);
  let b = el;
  while (b.parentElement && getComputedStyle(b).display.startsWith('inline')) b = b.parentElement;
  blockOf.set(el, b);
  return b;
}
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const range = document.createRange();
let last = null;  // {block, ch, top, bottom, text}
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const el = node.parentElement;
  if (el.closest('svg')) continue;
  const b = block(el);
  const text = node.data;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\\s/.test(ch)) {
      // A space ends a word wherever it is drawn (at a line's end, nowhere).
      if (last && last.block === b) last.ch = ' ';
      continue;
    }
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const r = range.getClientRects()[0];
    if (!r || r.width === 0) continue;
    chars++;
    if (last && last.block === b && r.top >= last.bottom - 1 && !allowed.test(last.ch)) {
      const word = last.word + '|' + text.slice(i).split(/\\s/)[0];
      bad.push(b.tagName.toLowerCase() + '.' + b.className + ': ' + JSON.stringify(word));
    }
    const word = last && last.block === b && last.ch !== ' ' ? last.word + ch : ch;
    last = {block: b, ch, bottom: r.bottom, word};
  }
}
return [chars, bad];
"""

JS_CELLS_CUT = """
// Table cells cut off: every cell inside each box that clips it (an
// ancestor whose overflow is not visible) and inside the window.
const bad = [];
let n = 0;
for (const cell of document.querySelectorAll('th, td')) {
  const r = cell.getBoundingClientRect();
  if (r.width === 0) continue;
  n++;
  for (let a = cell.parentElement; a; a = a.parentElement) {
    const o = getComputedStyle(a).overflowX;
    if (o === 'visible') continue;
    const c = a.getBoundingClientRect();
    if (r.right > c.right + 0.5 || r.left < c.left - 0.5)
      bad.push(cell.closest('table').id + ': ' + JSON.stringify(cell.textContent.trim()) + ' ' +
               JSON.stringify([r.left, r.right]) + ' in ' + a.tagName.toLowerCase() + '.' + a.className + ' ' +
               JSON.stringify([c.left, c.right]));
  }
  if (r.right > window.innerWidth + 0.5) bad.push(JSON.stringify(cell.textContent.trim()) + ' past the window');
}
return [n, bad];
"""


def check_text(driver, where):
    """No word broken across lines and no table cell cut off (issue 26)."""
    chars, bad = driver.execute_script(JS_WORD_BREAKS)
    if bad:
        fail(f"{where}: {len(bad)} words broken across lines: {bad[:int(os.environ.get('PAGE_CHECK_SHOW', 6))]}")
    cells, cut = driver.execute_script(JS_CELLS_CUT)
    if cut:
        fail(f"{where}: {len(cut)} table cells cut off: {cut[:6]}")
    return chars, cells


def board_example(driver):
    """The castle example that marks the most on its board (the first of
    those): the README's picture of a board."""
    return driver.execute_script("""
let best = null, most = -1;
for (const ex of document.querySelectorAll('details.ex.castle')) {
  const n = ex.querySelectorAll('svg.board rect[data-sq], svg.board line').length;
  if (n > most) { best = ex; most = n; }
}
best.scrollIntoView();
return best;
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--screenshots")
    args = ap.parse_args()
    folder = os.path.abspath(args.folder)
    summary = json.load(open(os.path.join(folder, "summary.json")))
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="pgn-audit-chromium-")
    for f in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(f)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        url = "file://" + os.path.join(folder, "report.html")
        for width in WIDTHS:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": width < 600})
            driver.get(url)
            inner = driver.execute_script("return window.innerWidth")
            if inner != width:
                fail(f"innerWidth {inner} at {width}")
            if args.screenshots and width in (390, 1440):
                height = driver.execute_script("return document.documentElement.scrollHeight")
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": min(height, 2400 if width == 390 else 1700),
                    "deviceScaleFactor": 1, "mobile": width < 600})
                driver.save_screenshot(os.path.join(args.screenshots, f"report-{width}.png"))
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": width < 600})
            for state in ("as opened", "every example open"):
                if state == "every example open":
                    driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
                sw = driver.execute_script("return document.documentElement.scrollWidth")
                if sw > width:
                    fail(f"{width}px, {state}: scrollWidth {sw} > innerWidth {width}")
                bars, bad = driver.execute_script(JS_CHARTS)
                if bad:
                    fail(f"{width}px, {state}: outside its card: {bad[:5]}")
                chars, cells = check_text(driver, f"{width}px, {state}")
            counts = check_counts(driver, folder, summary)
            boards = check_boards(driver)
            rendered = check_boards_render(driver, width)
            if args.screenshots and width == 1440:
                board_example(driver).screenshot(os.path.join(args.screenshots, "report-board.png"))
            pictures = " and look right" if width in PIXEL_WIDTHS else ""
            print(f"{width}px: fits; {bars} chart parts inside their cards; {chars} characters, no word broken; "
                  f"{cells} table cells, none cut off; {counts} counts; {boards} castle boards; "
                  f"{rendered} boards drawn inside their squares{pictures}")
            if boards == 0 or bars == 0 or rendered < boards:
                fail("nothing to check")
    finally:
        driver.quit()
    print("ok")


if __name__ == "__main__":
    main()
