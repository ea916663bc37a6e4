"""Every game's table is readable and tappable on a phone, and nothing on it is cut off.

For every game the server lists in ``GET /api/games`` (no list of games here: a new game
is covered as soon as it is registered), a 2-player table (seat 0 a person, seat 1 a
random bot) is opened at the person's turn, with the legal moves highlighted on the
board, and measured again after a few moves.  At 390×844 (phone):

* text size: every visible ``<text>`` of the board's SVG renders at least MIN_TEXT CSS px
  tall, where its rendered size is its computed ``font-size`` (user units) times the
  scale of its current transformation matrix to the screen (``getScreenCTM()``: the
  SVG's viewBox scale times any ``transform`` on the way), ``hypot(a, b)``.  Every
  visible text node of the page outside the SVG has a computed ``font-size`` of at least
  MIN_TEXT px.  A glyph that carries no information may be marked ``data-decor`` (on
  itself or an ancestor) and is skipped;
* tap targets: every legal-move target on the board (``.act``, set by ``clickable()``
  in web/svg.js), every button of the list of choices (``#actions button.action``) and
  every button of an open dialog (HTML ``dialog[open]``, or a board dialog's options)
  has a bounding box of at least MIN_TAP×MIN_TAP CSS px.

At 390×844 and at 1280×800:

* no clipping: no visible HTML element whose own text is wider than its box
  (``scrollWidth > clientWidth`` with an overflow that hides it) and no visible text
  shortened with a trailing "…"; no SVG ``<text>`` whose box leaves the SVG, leaves the
  filled shape it sits on (the smallest filled shape drawn before it that contains the
  centre of the text), overlaps another text, or is half hidden under a filled shape
  drawn after it (texts under an open board dialog are hidden by it and are skipped);
* the page never scrolls sideways.

The numbers (smallest text, smallest target, violations per game) are written to
tests/web/artifacts/readable-<size>.json, and screenshots of every measured position to
tests/web/artifacts/readable-<game>-<size>-<position>.png, every violation to readable-<size>-details.json.
"""

from __future__ import annotations

import json
import random

import httpx
import pytest

from .test_browser import play_a_few, wait_ready

pytestmark = pytest.mark.browser

MIN_TEXT = 10  # CSS px
MIN_TAP = 44  # CSS px, both sides
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
MOVES_LATER = 6  # clicks before the second measured position
SLACK = 1.0  # px: anti-aliasing and rounding of the boxes

MEASURE_JS = r"""
([minText, minTap, slack, phone]) => {
  const out = { text: [], target: [], clip: [], minText: null, minTap: null, texts: 0, targets: 0 };
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    for (let a = e; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
      if (a.parentElement && a.parentElement.tagName === 'DETAILS' && !a.parentElement.open && a.tagName !== 'SUMMARY') return false;
    }
    return true;
  };
  const box = (r) => ({ x: Math.round(r.left * 10) / 10, y: Math.round(r.top * 10) / 10, w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10 });
  const label = (e) => (e.textContent || '').trim().slice(0, 40);
  const decor = (e) => !!e.closest('[data-decor]');
  const note = (kind, size) => {
    if (kind === 'text') out.minText = out.minText === null ? size : Math.min(out.minText, size);
    else out.minTap = out.minTap === null ? size : Math.min(out.minTap, size);
  };

  // ---- the board's SVG texts
  const svgs = [...document.querySelectorAll('#board svg')].filter(visible);
  const dialogs = [...document.querySelectorAll('#board svg .board-dialog')];
  const dialogPanels = dialogs.map((d) => {
    const dim = d.querySelector('.board-dialog-dim');
    return dim ? dim.getBoundingClientRect() : d.getBoundingClientRect();
  });
  const inRect = (x, y, r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  const svgTexts = [];
  for (const svg of svgs) {
    const sr = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !visible(t) || decor(t)) continue;
      const r = t.getBoundingClientRect();
      const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
      // under an open board dialog: hidden by it, not read
      if (!t.closest('.board-dialog') && dialogPanels.some((p) => inRect(cx, cy, p))) continue;
      const m = t.getScreenCTM();
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      out.texts++;
      note('text', size);
      if (size < minText - 1e-6) out.text.push({ where: 'svg', text: label(t), px: Math.round(size * 100) / 100 });
      if (r.left < sr.left - slack || r.right > sr.right + slack || r.top < sr.top - slack || r.bottom > sr.bottom + slack)
        out.clip.push({ why: 'past the board edge', text: label(t), box: box(r) });
      if (label(t).endsWith('…')) out.clip.push({ why: 'shortened', text: label(t) });
      svgTexts.push({ t, r, svg });
    }
  }
  // filled shapes: the places texts sit on, and what could hide a text drawn before it
  const SHAPES = 'rect, circle, ellipse, polygon, path';
  const filled = (e) => {
    if (e.closest('defs, pattern, clipPath, mask, marker, symbol, title')) return false;
    if (e.classList.contains('hl') || e.classList.contains('board-dialog-dim')) return false;
    const cs = getComputedStyle(e);
    if (cs.fill === 'none' || parseFloat(cs.fillOpacity) === 0) return false;
    for (let a = e; a && a.tagName !== 'svg'; a = a.parentElement) {
      if (parseFloat(getComputedStyle(a).opacity) === 0) return false;
    }
    return visible(e);
  };
  const shapes = new Map();
  for (const svg of svgs) shapes.set(svg, [...svg.querySelectorAll(SHAPES)].filter(filled).map((e) => ({ e, r: e.getBoundingClientRect() })));
  const inside = (a, b) => a.left >= b.left - slack && a.right <= b.right + slack && a.top >= b.top - slack && a.bottom <= b.bottom + slack;
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  for (const { t, r, svg } of svgTexts) {
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    let home = null, homeArea = Infinity;
    for (const sh of shapes.get(svg)) {
      const before = sh.e.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING;
      if (before) {
        if (!inRect(cx, cy, sh.r)) continue;
        const area = sh.r.width * sh.r.height;
        if (area < homeArea) { home = sh; homeArea = area; }
      } else if (!sh.e.contains(t)) {
        // drawn after the text: it must not hide a good part of it
        const o = overlap(r, sh.r.toJSON ? sh.r : sh.r);
        if (o > 0.3 * r.width * r.height && !(t.closest('.board-dialog') && !sh.e.closest('.board-dialog')))
          out.clip.push({ why: 'hidden under a shape drawn over it', text: label(t), box: box(r), shape: sh.e.tagName + '.' + (sh.e.getAttribute('class') || '') });
      }
    }
    if (home && !inside(r, home.r))
      out.clip.push({ why: 'runs out of the shape it sits on', text: label(t), box: box(r), shape: box(home.r) });
  }
  for (let i = 0; i < svgTexts.length; i++) {
    for (let j = i + 1; j < svgTexts.length; j++) {
      const a = svgTexts[i].r, b = svgTexts[j].r;
      const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left), oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (ox > slack && oy > slack * 2)
        out.clip.push({ why: 'overlaps another text', text: label(svgTexts[i].t), other: label(svgTexts[j].t) });
    }
  }

  // ---- the page's own texts
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest('svg, script, style, title, template, noscript') || decor(el)) continue;
    if (!visible(el)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    out.texts++;
    note('text', size);
    if (size < minText) out.text.push({ where: 'page', text: n.textContent.trim().slice(0, 40), px: size, cls: String(el.className) });
    if (n.textContent.trim().endsWith('…') && !el.matches('[aria-busy], .muted')) out.clip.push({ why: 'shortened', text: label(el) });
    if (seen.has(el)) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    const hides = cs.overflowX !== 'visible' || cs.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1)
      out.clip.push({ why: 'cut off', text: label(el), scroll: el.scrollWidth, client: el.clientWidth, cls: String(el.className) });
  }
  // a select shows its chosen option: the option's text must fit beside the arrow
  const ruler = document.createElement('canvas').getContext('2d');
  for (const sel of document.querySelectorAll('select')) {
    if (!visible(sel) || sel.selectedIndex < 0) continue;
    const cs = getComputedStyle(sel);
    ruler.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = sel.options[sel.selectedIndex].text;
    const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;  // the arrow
    if (ruler.measureText(text).width > room + 1) out.clip.push({ why: 'select cut off', text: text.slice(0, 40), room: Math.round(room) });
  }

  // ---- tap targets (phone)
  if (phone) {
    const targets = new Set([...document.querySelectorAll('#board svg .act, #actions button.action, dialog[open] button, #board .board-dialog-option')]);
    for (const e of targets) {
      if (!visible(e)) continue;
      const r = e.getBoundingClientRect();
      const side = Math.min(r.width, r.height);
      out.targets++;
      note('tap', side);
      if (r.width < minTap - 0.05 || r.height < minTap - 0.05)
        out.target.push({ text: (e.getAttribute('aria-label') || label(e)).slice(0, 40), w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10 });
    }
  }
  out.scroll = document.scrollingElement.scrollWidth;
  out.inner = innerWidth;
  return out;
}
"""


def _games(server):
    games = httpx.get(server.url + "/api/games").json()
    assert games, "the server lists no games"
    return [g["id"] for g in games]


def _table(server, game_id):
    res = httpx.post(server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": 11,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]})
    res.raise_for_status()
    return res.json()


def _measure(page, phone):
    return page.evaluate(MEASURE_JS, [MIN_TEXT, MIN_TAP, SLACK, phone])


@pytest.mark.parametrize("size", list(SIZES))
def test_every_table_is_readable(browser, live_server, artifacts, size):
    phone = size == "phone"
    report, failures, details = {}, [], {}
    for game_id in _games(live_server):
        context = browser.new_context(viewport=SIZES[size], reduced_motion="reduce")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        try:
            made = _table(live_server, game_id)
            page.goto(live_server.url + made["seats"][0]["invite"])
            rnd = random.Random(game_id)
            positions = ("start", "later")
            stats = {"min_text_px": None, "min_target_px": None, "text": 0, "target": 0, "clip": 0, "scroll": 0}
            for k, position in enumerate(positions):
                if k:
                    play_a_few(page, rnd, MOVES_LATER)
                wait_ready(page)
                if page.evaluate("document.body.dataset.over") == "1":
                    continue
                assert page.locator("#board svg .act").count() > 0, f"{game_id}: no legal move highlighted on the board"
                page.screenshot(path=str(artifacts / f"readable-{game_id}-{size}-{position}.png"), full_page=True)
                m = _measure(page, phone)
                where = f"{game_id} {size} {position}"
                for kind in ("min_text_px", "min_target_px"):
                    got = m["minText"] if kind == "min_text_px" else m["minTap"]
                    if got is not None:
                        stats[kind] = round(got if stats[kind] is None else min(stats[kind], got), 2)
                if m["scroll"] > m["inner"]:
                    stats["scroll"] += 1
                    failures.append(f"{where}: the page scrolls sideways ({m['scroll']} > {m['inner']} px)")
                checks = [("clip", "clipped or overlapping")]
                if phone:
                    checks = [("text", f"text under {MIN_TEXT} px"), ("target", f"targets under {MIN_TAP}×{MIN_TAP} px")] + checks
                for kind, what in checks:
                    stats[kind] += len(m[kind])
                    details.setdefault(game_id, {})[f"{position} {kind}"] = m[kind]
                    if m[kind]:
                        failures.append(f"{where}: {len(m[kind])} {what}: {m[kind][:5]}")
            report[game_id] = stats
            assert errors == [], f"{game_id}: {errors}"
        finally:
            context.close()
    (artifacts / f"readable-{size}.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (artifacts / f"readable-{size}-details.json").write_text(json.dumps(details, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(report, indent=2, sort_keys=True))
    assert not failures, "\n".join(failures)


def test_the_lobby_seat_picker_is_readable(browser, live_server):
    """The new-table form on a phone: the chosen seat kinds read in full, nothing cut, no sideways scroll."""
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    try:
        page.goto(live_server.url + "/")
        page.wait_for_selector("#create")
        page.select_option("#players", "2")
        kinds = page.locator(".seat-kind").first.evaluate("s => [...s.options].map((o) => o.value)")
        for i in range(2):
            # the longest choice each
            longest = max(kinds, key=lambda v: len(page.locator(".seat-kind").nth(i).evaluate(f"s => s.querySelector('option[value=\"{v}\"]').text")))
            page.locator(".seat-kind").nth(i).select_option(longest)
        m = _measure(page, True)
        assert m["scroll"] <= m["inner"], m
        assert m["clip"] == [], m["clip"][:5]
        assert m["text"] == [], m["text"][:5]
    finally:
        context.close()
