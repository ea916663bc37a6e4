"""Diamonds Club on a phone (390×844): your own seat panel is on the first screen.

The board, the prompt and your own player area visible without hunting.  In
Diamonds Club your own panel holds your coins, gems and park.  At scroll 0:

* in the buy phase (the prompt asks for a market space) the market's vacant spaces and
  the top of your own panel (coins and gems) are on the first screen;
* in the build phase (the prompt asks for a building from a price board, which goes into
  your park) the price boards' builds and your whole panel, park included, are on the
  first screen; tapping a build there plays it (with the payment dialog when the gems can
  be paid in several ways), and the tile then lies in your park, still on the first screen.

The park itself is not a tap target: a building is chosen on its price board (the same
tile can come from several boards at different prices) and the game puts it in the park.

GEMTABLE_DC_RENDERER=<path to a diamonds_club.js> serves that file instead of the
repository's renderer (to check that this test fails on an older one).
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import httpx
import pytest

from .test_browser import wait_ready
from .test_mobile import PHONE

pytestmark = pytest.mark.browser

BOX_JS = "(e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; }"
BOXES_JS = """
(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, action: e.getAttribute('data-action') };
})
"""
# spaces of a park that hold a tile (covered mandatory spaces and filled ordinary ones)
FILLED_JS = "(e) => e.querySelectorAll('.dc-mandatory.covered, .dc-space[data-filled=\"1\"]').length"

OWN = "#board svg g.player[data-seat='0']"
PARK = "#board svg g.dc-park[data-seat='0']"


def _table(server, seed):
    res = httpx.post(server.url + "/api/tables", json={
        "game": "diamonds_club", "players": 2, "seed": seed,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]})
    res.raise_for_status()
    return res.json()


def _state(server, table_id, token):
    res = httpx.get(f"{server.url}/api/tables/{table_id}/state", headers={"X-Seat-Token": token})
    res.raise_for_status()
    return res.json()


def _play_to_a_build(server, made, rnd, steps=400):
    """Play Ann's moves through the API (random buys, any gem choice) until she may build."""
    table_id, token = made["table"]["id"], made["seats"][0]["token"]
    for _ in range(steps):
        st = _state(server, table_id, token)
        if st["over"]:
            return None
        legal = st["legal"]
        if not legal:  # the bot is moving
            time.sleep(0.05)
            continue
        types = {e["type"] for e in legal}
        if st["view"]["phase"] == "build" and "build" in types:
            return st
        if st["view"]["phase"] == "build":
            pick = next(e for e in legal if e["type"] == "pass") if "pass" in types else legal[0]
        else:
            pick = rnd.choice(legal)
        httpx.post(f"{server.url}/api/tables/{table_id}/actions", headers={"X-Seat-Token": token},
                   json={"version": st["version"], "action": pick["json"]})
    return None


def _open(browser, live_server, made):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    override = os.environ.get("GEMTABLE_DC_RENDERER")
    if override:
        body = Path(override).read_text()
        page.route("**/static/games/diamonds_club.*js",
                   lambda route: route.fulfill(status=200, content_type="text/javascript", body=body))
    page.goto(live_server.url + made["seats"][0]["invite"])
    wait_ready(page)
    assert page.evaluate("scrollY") == 0
    return context, page


def test_diamonds_club_own_panel_follows_the_market_in_the_buy_phase(browser, live_server, artifacts):
    made = _table(live_server, 16)
    context, page = _open(browser, live_server, made)
    try:
        assert "market space" in page.locator("#prompt").inner_text().lower()
        buys = page.evaluate(BOXES_JS, "#board svg g.market-space.act[data-action]")
        assert buys, "no market space to tap"
        # the whole market is on the first screen, and right under it the top of your own
        # panel: your name, points, coins and gems (the first 80 of its 292 board units)
        assert max(b["bottom"] for b in buys) <= PHONE["height"], buys
        own = page.locator(OWN).evaluate(BOX_JS)
        scale = (own["right"] - own["left"]) / 428  # the narrow panel is 428 board units wide
        assert own["top"] >= max(b["bottom"] for b in buys), own
        assert own["top"] + 80 * scale <= PHONE["height"], own
        # the other player's panel and the price boards come after yours
        assert page.locator("#board svg g.player[data-seat='1']").evaluate(BOX_JS)["top"] > own["bottom"]
        assert page.locator("#board svg g.price-board").first.evaluate(BOX_JS)["top"] > own["bottom"]
        page.screenshot(path=str(artifacts / "phone-seat-diamonds_club-buy.png"))
        assert page.js_errors == []
    finally:
        context.close()


def test_diamonds_club_own_park_is_on_the_first_screen_when_building(browser, live_server, artifacts):
    rnd = random.Random(16)
    st = None
    for seed in (16, 17, 18, 19):
        made = _table(live_server, seed)
        st = _play_to_a_build(live_server, made, rnd)
        if st:
            break
    assert st, "Ann never got to build in four seeded games"
    context, page = _open(browser, live_server, made)
    try:
        prompt = page.locator("#prompt").bounding_box()
        assert "price board" in page.locator("#prompt").inner_text().lower()
        # every build the list offers is a tap target on a price board, on the first screen
        builds = page.evaluate(BOXES_JS, "#board svg g.price-board .act[data-action]")
        listed = [json.loads(b) for b in page.locator("#actions button.action").evaluate_all(
            "els => els.map((e) => e.dataset.action)")]
        assert sorted(json.dumps(json.loads(b["action"]), sort_keys=True) for b in builds) == \
            sorted(json.dumps(a, sort_keys=True) for a in listed if a["type"] == "build")
        for b in builds:
            assert b["top"] >= prompt["y"] + prompt["height"] - 1, (b, prompt)
            assert b["bottom"] <= PHONE["height"], b
            assert b["left"] >= 0 and b["right"] <= PHONE["width"], b
        # your whole panel, park included, is on the first screen, inside the width
        for sel in (OWN, PARK):
            box = page.locator(sel).evaluate(BOX_JS)
            assert box["top"] >= prompt["y"] + prompt["height"] - 1, (sel, box)
            assert box["bottom"] <= PHONE["height"], (sel, box)
            assert box["left"] >= 0 and box["right"] <= PHONE["width"], (sel, box)
        page.screenshot(path=str(artifacts / "phone-seat-diamonds_club-build.png"))

        # tap a build: it is played (with the payment dialog if the gems can be paid in
        # several ways) and the tile lies in your park, still on the first screen
        filled = page.locator(PARK).evaluate(FILLED_JS)
        chosen = builds[rnd.randrange(len(builds))]["action"]
        version = page.evaluate("document.body.dataset.version")
        page.locator(f"#board svg g.price-board .act[data-action='{chosen}']").tap()
        page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)
        if page.locator("#board svg g.dc-dialog[data-choice='pay']").count():
            page.screenshot(path=str(artifacts / "phone-seat-diamonds_club-pay.png"))
            version = page.evaluate("document.body.dataset.version")
            page.locator("#board svg g.dc-dialog[data-choice='pay'] .act[data-action]").first.tap()
            page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)
        page.wait_for_function("() => document.querySelector('#log').textContent.toLowerCase().includes('ann builds')")
        page.wait_for_function("() => !document.querySelector('#motion-layer .motion-ghost')")
        assert page.evaluate("scrollY") == 0
        assert page.locator(PARK).evaluate(FILLED_JS) == filled + 1
        # while the build phase lasts, the park stays where it was: on the first screen
        if "build phase" in page.locator("#board svg > text").first.text_content():
            park = page.locator(PARK).evaluate(BOX_JS)
            assert park["bottom"] <= PHONE["height"], park
        page.screenshot(path=str(artifacts / "phone-seat-diamonds_club-built.png"))
        assert page.js_errors == []
    finally:
        context.close()
