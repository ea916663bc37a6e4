"""All five games played in German in the browser, on a desktop and on a phone.

A browser that asks for German (``Accept-Language: de``) opens the lobby, creates a table of
each game against a bot, plays it by clicking to the end (or far into it) and opens its
replay.  At every look, the page must show no English text from the catalogues where the
German differs (the shell's, every game's and the server's), and no text may be clipped: no
word cut off by its box, no page wider than the screen, no board label outside its board.
Screenshots are kept in tests/web/artifacts/ (german-<game>-<size>-<stage>.png).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from gemtable.core import i18n
from gemtable.games.registry import all_games
from gemtable.server import language

from .test_browser import click_once, create_table, wait_ready

pytestmark = pytest.mark.browser

GAMES = sorted(all_games())
SIZES = [("desktop", 1280, 800), ("phone", 390, 844)]
CLICKS = 400  # far into every game; most end well before


def _catalogues():
    for domain in language.domains_for_web():
        path = Path(domain) / "de.po"
        if path.is_file():
            with path.open("rb") as f:
                yield read_po(f, locale="de")


def _german_texts() -> set[str]:
    """Every German text of the catalogues without fields ("Start" is German too)."""
    out = set()
    for po in _catalogues():
        for m in po:
            for s in (m.string if isinstance(m.string, (list, tuple)) else [m.string]):
                if s and "{" not in s:
                    out.add(s.replace("\u00ad", ""))
    return out


def _english_patterns() -> list[tuple[re.Pattern, str]]:
    """Every catalogue message whose German differs, as a pattern matching a whole text that
    is still its English (a {field} stands for any text).  Messages whose own words are all
    in the German too ("Bot — {kind}", "{title} ({n})") cannot tell the languages apart and
    are left out."""
    out = []
    for po in _catalogues():
        for m in po:
            if not m.id or m.fuzzy:
                continue
            ids = list(m.id) if isinstance(m.id, (list, tuple)) else [m.id]
            german = " ".join(m.string) if isinstance(m.string, (list, tuple)) else m.string
            german = german.replace("\u00ad", "")
            for english in ids:
                words = set(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", english)))
                if not words or all(re.search(rf"\b{w}\b", german) for w in words):
                    continue
                parts = re.split(r"(\{\w+\})", english)
                rx = "".join(".+" if re.fullmatch(r"\{\w+\}", p) else re.escape(p) for p in parts)
                out.append((re.compile(rf"^\s*{rx}\s*$", re.S), english))
    return out


ENGLISH = _english_patterns()
GERMAN = _german_texts()

# Every text a player reads on the page: visible text nodes (HTML and SVG), tooltips,
# placeholders and labels; and every text that is cut: by its box (overflow hidden or an
# ellipsis), by the screen's edge, or by its board's edge.
LOOK = """() => {
  const texts = [], cut = [];
  const shown = (el) => { const s = getComputedStyle(el); return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const W = window.innerWidth;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || el.closest('script, style, [hidden], dialog:not([open]), details:not([open]) > :not(summary)')) continue;
    if (el.closest('#lobby-list .t-seats')) continue;  // other players' names are data (an English page's "Player 1")
    if (el.closest('title')) { texts.push(text); continue; }  // an SVG tooltip
    if (!shown(el)) continue;
    texts.push(text);
    if (el.closest('svg')) continue;
    // cut by its own box
    const s = getComputedStyle(el);
    if ((s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'TEXTAREA')
      cut.push('cut by its box: ' + text);
    // cut by the screen: past its right edge, unless inside something that scrolls sideways
    const r = document.createRange(); r.selectNodeContents(n);
    const b = r.getBoundingClientRect();
    let scroller = el.closest('*');
    let scrolls = false;
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') { scrolls = true; break; }
    }
    if (!scrolls && b.width > 0 && (b.right > W + 1 || b.left < -1)) cut.push('off the screen: ' + text);
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
    if (el.closest('[hidden]')) continue;
    for (const a of ['title', 'placeholder', 'aria-label']) if (el.getAttribute(a)) texts.push(el.getAttribute(a));
  }
  for (const o of document.querySelectorAll('option')) texts.push(o.textContent.trim());
  if (document.documentElement.scrollWidth > W + 1) cut.push('the page is wider than the screen: ' + document.documentElement.scrollWidth);
  // board labels inside their board
  for (const svg of document.querySelectorAll('#board svg')) {
    const vb = svg.viewBox && svg.viewBox.baseVal;
    if (!vb || !vb.width) continue;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || t.closest('[data-motion-skip], defs')) continue;
      let bb; try { bb = t.getBBox(); } catch (e) { continue; }
      const m = t.getCTM && t.getCTM(), root = svg.getCTM && svg.getCTM();
      if (!bb.width) continue;
      // the label's box in the board's own units
      const k = m && root ? root.inverse().multiply(m) : null;
      const x0 = k ? k.a * bb.x + k.e : bb.x, x1 = k ? k.a * (bb.x + bb.width) + k.e : bb.x + bb.width;
      if (x0 < vb.x - 1 || x1 > vb.x + vb.width + 1) cut.push('off the board: ' + t.textContent);
    }
  }
  return { texts, cut, title: document.title };
}"""


def english_left(texts: list[str]) -> list[str]:
    found = []
    for text in set(texts):
        if text.replace("\u00ad", "") in GERMAN:
            continue
        for rx, english in ENGLISH:
            if rx.match(text):
                found.append(f"{text!r} (English {english!r})")
                break
    return sorted(found)


def look(page, artifacts, shot: str, problems: list[str]) -> None:
    """Keep a screenshot; add what is left in English or cut to ``problems``."""
    page.wait_for_timeout(150)  # the last redraw (motion, raised text) settles
    page.screenshot(path=str(artifacts / f"german-{shot}.png"), full_page=True)
    seen = page.evaluate(LOOK)
    problems += [f"{shot}: English {x}" for x in english_left(seen["texts"] + [seen["title"]])]
    problems += [f"{shot}: {x}" for x in seen["cut"]]


def test_the_patterns_find_english_and_leave_german():
    assert english_left(["Create table", "Seat 2", "Ada (you)", "3 open seats"]) == sorted(english_left(
        ["Create table", "Seat 2", "Ada (you)", "3 open seats"]))
    assert len(english_left(["Create table", "Seat 2", "Ada (you)", "3 open seats"])) == 4
    assert english_left(["Tisch eröffnen", "Platz 2", "Ada (du)", "3 freie Plätze", "gemtable"]) == []


@pytest.mark.parametrize(("size", "width", "height"), SIZES, ids=[s[0] for s in SIZES])
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_in_german(browser, live_server, artifacts, game, size, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    rnd = random.Random(f"{game}-{size}")
    name = f"{game}-{size}"
    problems: list[str] = []

    page.goto(live_server.url + "/")
    page.wait_for_selector("#create")
    page.wait_for_selector("#lobby-list table, #lobby-list .empty")
    assert page.evaluate("document.documentElement.lang") == "de"
    look(page, artifacts, f"{name}-lobby", problems)

    create_table(page, live_server, game, seat_kinds=["human", "bot:easy"])
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    wait_ready(page)
    look(page, artifacts, f"{name}-start", problems)
    # the list of choices is headed by its action types, in German (the game's catalogue)
    headings = set(page.eval_on_selector_all("#actions .group-name", "els => els.map((e) => e.textContent)"))
    clicks = 0
    while page.evaluate("document.body.dataset.over") != "1" and clicks < CLICKS:
        click_once(page, rnd, prefer_board=0.3)
        clicks += 1
        wait_ready(page)
        if clicks == 12:
            look(page, artifacts, f"{name}-middle", problems)
            headings |= set(page.eval_on_selector_all("#actions .group-name", "els => els.map((e) => e.textContent)"))
    over = page.evaluate("document.body.dataset.over") == "1"
    look(page, artifacts, f"{name}-{'end' if over else 'late'}", problems)
    if over:
        assert page.locator("#result").is_visible() or size == "phone"
        page.click("#replay-link")
        page.wait_for_selector("#counter")
        page.wait_for_function("() => document.querySelector('#board svg, #board .generic')")
        look(page, artifacts, f"{name}-replay", problems)
    assert problems == [], "\n".join(problems)
    assert headings and headings <= GERMAN, headings
    assert errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""
    context.close()
