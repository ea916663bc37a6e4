"""The hint button at a practice table (every other seat a bot), every game, at desktop and
phone sizes: three moves with their chances and reasons; "Play this" plays the move."""

from __future__ import annotations

import httpx
import pytest

from .test_browser import GAMES, wait_ready
from .test_mobile import SIZES, _check_shell

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game_id", GAMES)
def test_the_hint_button_at_a_practice_table(browser, live_server, artifacts, game_id, size):
    res = httpx.post(live_server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": 5,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Bot"}]}).json()
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.size_name = size
    page.goto(live_server.url + res["seats"][0]["invite"])
    wait_ready(page)
    page.click("#hint")
    page.wait_for_selector("#hints .hint-list li", timeout=60_000)
    hints = page.locator("#hints li.hint")
    assert hints.count() == 3
    text = page.inner_text("#hints")
    assert "% to win" in text
    page.locator("#hints li.hint").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"hint-{game_id}-{size}.png"), full_page=size == "desktop")
    _check_shell(page, f"hints {game_id} {size}")
    version = page.evaluate("document.body.dataset.version")
    hints.first.locator("button.play-hint").click()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15_000)
    assert "Ann" in page.locator("#log").text_content()  # the hinted move was played (the log may be folded)
    assert errors == []
    context.close()


def test_no_hint_button_where_a_person_is_playing(page, live_server):
    res = httpx.post(live_server.url + "/api/tables", json={
        "game": GAMES[0], "players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
    page.goto(live_server.url + res["seats"][0]["invite"])
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    page.goto(live_server.url + res["seats"][1]["invite"])
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    page.wait_for_timeout(300)
    assert page.locator("#hint").count() == 0
