"""The game review in the replay viewer, every game, at desktop and phone sizes: the chart
of each seat's chance of winning and each seat's biggest drops, asked for and shown
without a reload; a drop's move button shows that move."""

from __future__ import annotations

import time

import httpx
import pytest

from .test_browser import GAMES
from .test_mobile import SIZES, _check_shell

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def finished(live_server):
    """One finished 2-player game of easy bots per game (table ids by game)."""
    tables = {}
    for game_id in GAMES:
        res = httpx.post(live_server.url + "/api/tables", json={
            "game": game_id, "players": 2, "seed": 2026,
            "seats": [{"kind": "bot", "bot": "easy", "name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Bob"}]})
        res.raise_for_status()
        tables[game_id] = res.json()["table"]["id"]
    deadline = time.time() + 240
    for table in tables.values():
        while httpx.get(live_server.url + f"/api/tables/{table}").json()["status"] != "finished":
            assert time.time() < deadline, "the bots did not finish"
            time.sleep(0.3)
    return tables


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game_id", GAMES)
def test_the_replay_shows_the_review(browser, live_server, finished, artifacts, game_id, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.size_name = size
    table = finished[game_id]
    page.goto(live_server.url + f"/replay/{table}")
    page.wait_for_selector("#review[data-ready='1']", timeout=120_000)
    total = int(page.inner_text("#counter").split("/")[1])
    # one line per seat, one point per position
    lines = page.locator("#review polyline.chance")
    assert lines.count() == 2
    for k in range(2):
        assert len(lines.nth(k).get_attribute("points").split()) == total + 1
    legend = page.inner_text("#review .review-legend")
    assert "Ann" in legend and "Bob" in legend
    swings = page.locator("#review li.swing")
    assert swings.count() >= 1
    text = page.inner_text("#review .swings")
    assert "biggest drops" in text and "→" in text
    page.screenshot(path=str(artifacts / f"review-{game_id}-{size}.png"), full_page=True)
    _check_shell(page, f"review {game_id} {size}")
    # a drop's move button shows that move, and the chart's marker follows
    move = int(swings.first.get_attribute("data-move"))
    swings.first.locator("button").click()
    assert page.inner_text("#counter") == f"move {move} / {total}"
    marker_x = float(page.locator("#review line.marker").get_attribute("x1"))
    page.click("#first")
    assert float(page.locator("#review line.marker").get_attribute("x1")) < marker_x or move == 0
    assert errors == []
    context.close()


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_analysis_board_tries_other_moves(browser, live_server, finished, artifacts, size):
    game_id = "splendor" if "splendor" in GAMES else GAMES[0]
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.size_name = size
    page.goto(live_server.url + f"/replay/{finished[game_id]}")
    page.wait_for_selector("#counter")
    page.click("#first")
    for _ in range(4):
        page.click("#forward")
    page.click("#analyse")
    page.wait_for_selector("#analysis .analysis-best li")
    assert page.inner_text("#analysis h3") == "Analysis from move 4"
    assert page.locator("#analysis .chance-row").count() == 2
    page.locator("#analysis .analysis-best li button").last.click()  # the bot's third choice
    page.wait_for_function("() => document.querySelector('#analysis').dataset.line === '1' && "
                           "!document.querySelector('#analysis').textContent.includes('Judging')")
    assert "1 move tried" in page.inner_text("#analysis")
    # a move on the board itself
    acts = page.locator("#board svg .act[data-action]")
    if acts.count():
        acts.first.click()
        page.wait_for_function("() => document.querySelector('#analysis').dataset.line === '2' && "
                               "!document.querySelector('#analysis').textContent.includes('Judging')")
    page.screenshot(path=str(artifacts / f"analysis-{game_id}-{size}.png"), full_page=size == "desktop")
    _check_shell(page, f"analysis {size}")
    page.click("#analysis-leave")
    assert page.locator("#analysis").is_hidden()
    assert page.inner_text("#counter").startswith("move 4 /")
    assert errors == []
    context.close()


def _english_words() -> set[str]:
    """Words of the English of Splendor's, the kernel's and the web client's catalogues that
    their German never uses: a German page showing one of them shows English."""
    import re
    from pathlib import Path

    from babel.messages.pofile import read_po

    from gemtable.core import get_game

    english, german = set(), set()
    web = Path(__file__).resolve().parents[2] / "src" / "gemtable" / "web" / "locale"
    for domain in (*get_game("splendor").domains, web):
        with (domain / "de.po").open("rb") as f:
            for m in read_po(f, locale="de"):
                ids = m.id if isinstance(m.id, (list, tuple)) else [m.id]
                strings = m.string if isinstance(m.string, (list, tuple)) else [m.string]
                english.update(w.lower() for t in ids if t for w in re.findall(r"[A-Za-z]{4,}", re.sub(r"\{\w+\}", "", t)))
                german.update(w.lower() for t in strings if t for w in re.findall(r"[A-Za-zÄÖÜäöüß]{4,}", t))
    return english - german


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_review_in_german(browser, live_server, finished, artifacts, size):
    """A German reader's review panel: the moves, the reasons and the judge in German."""
    import re

    game_id = "splendor" if "splendor" in GAMES else GAMES[0]
    context = browser.new_context(viewport=SIZES[size], locale="de-DE")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.size_name = size
    page.goto(live_server.url + f"/replay/{finished[game_id]}")
    page.wait_for_selector("#review[data-ready='1']", timeout=120_000)
    text = page.inner_text("#review")
    assert "Gespielt" in text or "gespielt" in text, text
    english = _english_words()
    left = {w for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() in english}
    assert not left, (left, text)
    page.screenshot(path=str(artifacts / f"review-de-{game_id}-{size}.png"), full_page=True)
    _check_shell(page, f"review de {size}")
    assert errors == []
    context.close()
