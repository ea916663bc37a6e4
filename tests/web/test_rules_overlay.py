"""The "How to play" overlay on the table, and the standalone rules page with the same text.

The overlay opens over a live table, shows the game's how-to-play for players with a picture
drawn by the game's own renderer, closes with Esc or its close button, gives focus back, and
leaves the table as it was.
"""

from __future__ import annotations

import re

import pytest

from gemtable.games.registry import all_games

from .conftest import ARTIFACTS
from .test_browser import create_table, wait_ready

pytestmark = pytest.mark.browser

REAL = sorted(g for g in all_games() if g != "toy")
SHOTS = {"sintra", "splendor"}


def first_paragraph_of(text: str, section: str) -> str:
    """The first sentence words under a section of the Markdown, as a browser shows them."""
    after = text.split(f"## {section}", 1)[1].strip().split("\n\n", 1)[0]
    line = after.splitlines()[0].lstrip("-0123456789. ").replace("**", "")
    return " ".join(line.split()[:5])


def open_overlay(page):
    page.click("#how-to-play")
    dlg = page.locator("#htp-dialog")
    dlg.wait_for(state="visible")
    page.wait_for_selector("#htp-dialog .htp-board svg")
    return dlg


@pytest.mark.parametrize("game_id", REAL)
def test_how_to_play_overlay_over_the_table(page, live_server, artifacts, game_id):
    game = all_games()[game_id]
    create_table(page, live_server, game_id)
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    wait_ready(page)
    url = page.url
    board_before = page.locator("#board svg").count()
    assert board_before >= 1

    dlg = open_overlay(page)
    assert page.evaluate("document.getElementById('htp-dialog').open") is True
    assert page.evaluate("document.getElementById('htp-dialog').matches(':modal')") is True
    text = dlg.inner_text()
    assert game.title in dlg.locator("h2#htp-title").inner_text()
    for section in ("Goal", "Setup", "Your turn", "Scoring", "End of the game",
                    "Where the rulebook is unclear, we decided"):
        assert dlg.locator(".rules-body h3", has_text=section).count() == 1, (game_id, section)
    assert first_paragraph_of(game.play_text(), "Goal") in " ".join(text.split())
    for dev in ("determinize", "RULES.md", "data.toml", "Speed", "`"):
        assert dev not in text, (game_id, dev)
    # the picture is drawn by the game's own renderer (not the plain fallback), read-only
    pic = dlg.locator(".htp-board")
    assert pic.locator("svg").count() >= 1
    assert pic.locator(".generic").count() == 0
    assert pic.locator(".act").count() == 0
    assert page.evaluate("document.body.dataset.renderError || ''") == ""
    box = pic.locator("svg").first.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100
    # the reconstructed-data notice is there for games with stand-in values
    assert (dlg.locator(".recon-flag").count() == 1) == (game.data_status == "reconstructed")
    if game.data_status == "reconstructed":
        assert dlg.locator(".rules-body h3", has_text="Reconstructed values").count() == 1
    # focus is inside the dialog (on its close button)
    assert page.evaluate("document.activeElement.closest('#htp-dialog') !== null")

    page.keyboard.press("Escape")
    dlg.wait_for(state="detached")
    assert page.url == url
    assert page.locator("#board svg").count() == board_before
    assert page.evaluate("document.activeElement && document.activeElement.id") == "how-to-play"
    # the table still plays: a legal action is still offered
    wait_ready(page)
    assert page.locator("#actions button.action").count() >= 1

    # the close button closes it too
    dlg = open_overlay(page)
    dlg.locator(".htp-close").click()
    dlg.wait_for(state="detached")
    assert page.evaluate("document.activeElement && document.activeElement.id") == "how-to-play"
    assert page.js_errors == []


@pytest.mark.parametrize("game_id", sorted(SHOTS))
def test_overlay_screenshots_desktop_and_phone(browser, live_server, artifacts, game_id):
    for w, hgt in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": w, "height": hgt})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        create_table(page, live_server, game_id)
        page.wait_for_url(re.compile(r"/table/\w+#token="))
        wait_ready(page)
        dlg = open_overlay(page)
        # the dialog fits the screen: its close button is visible without scrolling
        close = dlg.locator(".htp-close").bounding_box()
        assert 0 <= close["x"] and close["x"] + close["width"] <= w and 0 <= close["y"] <= hgt
        dbox = dlg.bounding_box()
        assert dbox["width"] <= w + 1 and dbox["height"] <= hgt + 1
        page.screenshot(path=str(artifacts / f"how-to-play-{game_id}-{w}x{hgt}.png"))
        dlg.locator(".htp-figure").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"how-to-play-{game_id}-{w}x{hgt}-picture.png"))
        page.keyboard.press("Escape")
        dlg.wait_for(state="detached")
        assert errors == []
        context.close()


def test_rules_page_shows_the_same_player_text_with_a_picture(page, live_server):
    for game_id in REAL:
        game = all_games()[game_id]
        page.goto(f"{live_server.url}/rules/{game_id}")
        page.wait_for_selector("article.rules .htp-board svg")
        body = page.locator("article.rules").inner_text()
        assert first_paragraph_of(game.play_text(), "Goal") in " ".join(body.split())
        assert page.locator(".rules-body h3", has_text="Where the rulebook is unclear, we decided").count() == 1
        for dev in ("determinize", "data.toml", "Speed", "test suite"):
            assert dev not in body, (game_id, dev)
        assert (page.locator("#reconstructed").count() == 1) == (game.data_status == "reconstructed")
        page.screenshot(path=str(ARTIFACTS / f"how-to-play-page-{game_id}.png"), full_page=True)
    assert page.js_errors == []
