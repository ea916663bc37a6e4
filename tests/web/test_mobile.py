"""The page shell on a phone (390×844, portrait) and on a desktop (1280×800).

For the lobby and a table of every game: no horizontal page scroll, shell text
at least 12 px, and at 390 px every tap target of the shell (links, buttons,
selects, fields, panel summaries) at least 40×40 px, measured in the browser.
The boards' own clickable elements (drawn by the per-game renderers) are
measured and reported in tests/web/artifacts/board-targets-390.json; only a
per-game floor that holds today is asserted (see BOARD_FLOOR).
Screenshots of every page at both sizes go to tests/web/artifacts/.
"""

from __future__ import annotations

import json
import re
import statistics

import httpx
import pytest

from .test_browser import GAMES, wait_ready

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
MIN_TAP = 40  # px, both sides
MIN_FONT = 12  # px

# Smallest side (px) of the boards' clickable elements at 390 px at the start of the
# fixed 2-player deal below (measured: Diamonds Club 50.5, Mille Fiori 59.3,
# Glassworks 41.5, Sintra 41.5, Splendor 41.3; see board-targets-390.json).
# Every board's tap targets at least 40×40 px (Glassworks, Sintra and Splendor give
# their small pieces, panes, tokens and pills invisible hit areas on a phone).
BOARD_FLOOR = {"diamonds_club": MIN_TAP, "mille_fiori": MIN_TAP, "glassworks": MIN_TAP, "sintra": MIN_TAP, "splendor": MIN_TAP}

# A visible element: laid out, not in a folded <details> panel, not in the closed header menu.
_VISIBLE_JS = """
window.__gtVisible = (e) => {
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  for (let a = e; a; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    if (a.parentElement && a.parentElement.tagName === 'DETAILS' && !a.parentElement.open && a.tagName !== 'SUMMARY') return false;
  }
  return true;
};
"""

SHELL_TARGETS_JS = _VISIBLE_JS + """
() => {
  const sel = 'a, button, select, input, textarea, summary, [role=button]';
  const seen = new Set();
  const out = [];
  for (let e of document.querySelectorAll(sel)) {
    if (e.closest('svg')) continue;                       // the board's own elements: measured apart
    if (e.tagName === 'INPUT' && e.type === 'hidden') continue;
    // a checkbox or radio is tapped through its label: the label is the target
    if (e.tagName === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio') && e.closest('label')) e = e.closest('label');
    if (seen.has(e) || !__gtVisible(e)) continue;
    seen.add(e);
    const r = e.getBoundingClientRect();
    out.push({ tag: e.tagName.toLowerCase(), id: e.id, cls: String(e.className), text: (e.textContent || e.value || '').trim().slice(0, 40),
               w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10 });
  }
  return out;
}
"""

SMALL_TEXT_JS = _VISIBLE_JS + """
(minFont) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest('svg, script, style, option')) continue;
    if (!__gtVisible(el)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < minFont) out.push({ text: n.textContent.trim().slice(0, 40), cls: String(el.className), tag: el.tagName, size });
  }
  return out;
}
"""

SCROLL_JS = "() => ({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth })"

BOARD_TARGETS_JS = """
() => [...document.querySelectorAll('#board svg .act')].map((e) => {
  const r = e.getBoundingClientRect();
  return { w: r.width, h: r.height };
}).filter((r) => r.w > 0 && r.h > 0)
"""


@pytest.fixture(params=list(SIZES))
def sized(request, browser):
    context = browser.new_context(viewport=SIZES[request.param])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.size_name = request.param
    yield page
    context.close()


def _new_table(server, game_id, seed=16):
    """A fixed 2-player deal: seat 0 a person, seat 1 a random bot."""
    res = httpx.post(server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": seed,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]})
    res.raise_for_status()
    return res.json()


def _check_shell(page, where):
    """No horizontal scroll, no small shell text; at phone size no small tap target."""
    sc = page.evaluate(SCROLL_JS)
    assert sc["scroll"] <= sc["inner"], f"{where}: the page scrolls sideways ({sc['scroll']} > {sc['inner']} px)"
    small_text = page.evaluate(SMALL_TEXT_JS, MIN_FONT)
    assert small_text == [], f"{where}: text below {MIN_FONT} px: {small_text[:6]}"
    targets = page.evaluate(SHELL_TARGETS_JS)
    assert targets, f"{where}: no interactive elements found"
    if page.size_name == "phone":
        small = [t for t in targets if t["w"] < MIN_TAP or t["h"] < MIN_TAP]
        assert small == [], f"{where}: tap targets below {MIN_TAP}×{MIN_TAP} px: {small[:6]}"
    return targets


def test_lobby_fits_the_screen(sized, live_server, artifacts):
    page = sized
    made = _new_table(live_server, GAMES[0])
    # this browser holds seat 0 of that table: the list offers Resume as well as Watch
    page.goto(live_server.url + made["seats"][0]["invite"])
    page.wait_for_function("() => document.body.dataset.seat === '0'")
    page.goto(live_server.url + "/")
    page.wait_for_selector(f"tr[data-table='{made['table']['id']}'] a.resume")
    page.wait_for_selector("#create")
    header = page.locator("header.topbar").bounding_box()
    if page.size_name == "phone":
        assert header["height"] <= 56, header
        assert not page.locator("#rules-links").is_visible()  # the game links wait behind the menu
    else:
        assert page.locator("#rules-links a").first.is_visible() and page.locator("#patterns-toggle").is_visible()
    targets = _check_shell(page, f"lobby {page.size_name}")
    texts = {t["text"] for t in targets}
    assert {"Resume", "Watch", "Create table"} <= texts
    for label in ("Resume", "Watch"):  # on screen, not past its right edge
        box = page.locator(f"tr[data-table='{made['table']['id']}'] a", has_text=label).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"], (label, box)
    page.screenshot(path=str(artifacts / f"mobile-lobby-{page.size_name}.png"), full_page=True)

    if page.size_name == "phone":
        # the menu opens over the page with the game links and the colour-blind setting
        page.click("#menu-button")
        assert page.locator("#menu-button").get_attribute("aria-expanded") == "true"
        assert page.locator("#rules-links a").count() == len(GAMES)
        assert page.locator("#patterns-toggle").is_visible()
        _check_shell(page, "lobby phone, menu open")
        page.screenshot(path=str(artifacts / "mobile-lobby-phone-menu.png"))
        page.check("#patterns-toggle")
        assert "patterns" in page.evaluate("document.body.className")
        page.uncheck("#patterns-toggle")
        page.locator("#rules-links a").first.click()
        page.wait_for_url(re.compile(r"/rules/"))
        assert page.locator("#menu-button").get_attribute("aria-expanded") == "false"
        assert not page.locator("#rules-links").is_visible()
    # a table for two people: the invite links panel fits too
    page.goto(live_server.url + "/")
    page.wait_for_selector("#create")
    page.select_option("#players", "2")
    for i in range(2):
        page.locator(".seat-kind").nth(i).select_option("human")
    page.click("#create")
    page.wait_for_selector(".created .invite-row")
    _check_shell(page, f"lobby {page.size_name}, invite links")
    page.locator(".created").screenshot(path=str(artifacts / f"mobile-lobby-invites-{page.size_name}.png"))
    assert page.js_errors == []


@pytest.mark.parametrize("game_id", GAMES)
def test_a_table_fits_the_screen(sized, live_server, artifacts, game_id):
    page = sized
    made = _new_table(live_server, game_id)
    page.goto(live_server.url + made["seats"][0]["invite"])
    wait_ready(page)
    assert page.evaluate("document.body.dataset.over") == "0"
    where = f"{game_id} {page.size_name}"
    _check_shell(page, where)
    page.screenshot(path=str(artifacts / f"mobile-{game_id}-{page.size_name}.png"))
    page.screenshot(path=str(artifacts / f"mobile-{game_id}-{page.size_name}-full.png"), full_page=True)
    board = page.locator("#board").bounding_box()
    prompt = page.locator("#prompt").bounding_box()
    actions = page.locator("#actions").bounding_box()
    width = page.viewport_size["width"]
    assert board["width"] <= width
    if page.size_name == "phone":
        # the prompt and the top of the board are on the first screen, the board uses the width,
        # the choices come right under the board, and the log starts folded (but opens)
        assert prompt["y"] + prompt["height"] <= PHONE["height"], prompt
        assert board["y"] < PHONE["height"] / 2, board
        assert board["width"] >= width - 20, board
        assert actions["y"] >= board["y"] + board["height"] - 1, (actions, board)
        assert page.locator("#actions").evaluate("e => e.open")
        assert not page.locator("#log-panel").evaluate("e => e.open")
        buttons = page.locator("#actions button.action").evaluate_all("bs => bs.map((b) => b.getBoundingClientRect().height)")
        assert buttons and min(buttons) >= MIN_TAP
        page.locator("#log-panel > summary").click()
        assert page.locator("#log-panel").evaluate("e => e.open")
        page.locator("#actions > summary").click()  # the choices fold away too
        assert not page.locator("#actions").evaluate("e => e.open")
        page.locator("#actions > summary").click()
        _check_shell(page, f"{where}, log open")

        # the board's own clickable elements, reported for the renderers' owners
        sizes = page.evaluate(BOARD_TARGETS_JS)
        assert sizes, f"{game_id}: no clickable board elements"
        sides = [min(s["w"], s["h"]) for s in sizes]
        record = {"count": len(sizes), "min_side": round(min(sides), 1), "median_side": round(statistics.median(sides), 1),
                  "min_w": round(min(s["w"] for s in sizes), 1), "min_h": round(min(s["h"] for s in sizes), 1),
                  "at_least_40": sum(side >= MIN_TAP for side in sides)}
        path = artifacts / "board-targets-390.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        data[game_id] = record
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        print(game_id, record)
        assert min(sides) >= BOARD_FLOOR.get(game_id, 0), (game_id, record)
    else:
        # desktop keeps the side column: board on the left, choices beside it
        assert actions["x"] >= board["x"] + board["width"] - 1, (actions, board)
        assert page.locator("#log-panel").evaluate("e => e.open")
    assert page.js_errors == []


def test_a_replay_on_a_phone_opens_at_the_board(browser, live_server, artifacts):
    """The replay shows the board first: following the current move in the log scrolls the log only."""
    import time

    res = httpx.post(live_server.url + "/api/tables", json={
        "game": "splendor" if "splendor" in GAMES else GAMES[0], "players": 2, "seed": 7,
        "seats": [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}).json()
    table = res["table"]["id"]
    deadline = time.time() + 90
    while httpx.get(live_server.url + f"/api/tables/{table}").json()["status"] != "finished":
        assert time.time() < deadline, "the bots did not finish"
        time.sleep(0.3)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.size_name = "phone"
    page.goto(live_server.url + f"/replay/{table}")
    page.wait_for_selector("#board svg")
    page.wait_for_selector("#log li.current")
    assert page.evaluate("scrollY") == 0  # the page did not jump to the log
    assert page.locator("#board").bounding_box()["y"] < PHONE["height"] / 2
    log = page.locator("#log")
    assert log.evaluate("e => e.scrollTop") > 0  # the log itself shows the last move
    _check_shell(page, "replay phone")
    page.click("#back")
    assert page.evaluate("scrollY") == 0
    page.screenshot(path=str(artifacts / "mobile-replay-phone.png"))
    context.close()
