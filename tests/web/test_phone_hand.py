"""Mille Fiori on a phone (390×844): the cards the prompt asks for are on the first screen.

The board, the prompt and your own player area visible without hunting.  The
Mille Fiori prompt says "Pick a card from your hand", so at scroll 0 the hand's legal
picks must lie within the first screen (right under the prompt), be tappable, and the
card then in play must be on the first screen too.

GEMTABLE_MF_RENDERER=<path to a mille_fiori.js> serves that file instead of the
repository's renderer (to check that this test fails on an older one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .test_browser import wait_ready
from .test_mobile import PHONE, _new_table

pytestmark = pytest.mark.browser

BOXES_JS = """
(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, action: e.getAttribute('data-action') };
})
"""


def test_mille_fiori_hand_is_on_the_first_screen_and_tappable(browser, live_server, artifacts):
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    override = os.environ.get("GEMTABLE_MF_RENDERER")
    if override:
        body = Path(override).read_text()
        page.route("**/static/games/mille_fiori.*js",
                   lambda route: route.fulfill(status=200, content_type="text/javascript", body=body))
    made = _new_table(live_server, "mille_fiori")
    page.goto(live_server.url + made["seats"][0]["invite"])
    wait_ready(page)
    assert page.evaluate("scrollY") == 0
    prompt = page.locator("#prompt").bounding_box()
    assert "hand" in page.locator("#prompt").inner_text().lower()

    picks = page.evaluate(BOXES_JS, "#board svg #mf-hand .act[data-action]")
    listed = page.locator("#actions button.action").count()
    assert picks, "no pickable hand cards on the board"
    assert all(json.loads(p["action"])["type"] == "pick" for p in picks)
    assert len(picks) == listed, (len(picks), listed)  # every choice in the list is a card in the hand
    for p in picks:
        # on the first screen at scroll 0, below the prompt, inside the width
        assert p["top"] >= prompt["y"] + prompt["height"] - 1, (p, prompt)
        assert p["bottom"] <= PHONE["height"], p
        assert p["left"] >= 0 and p["right"] <= PHONE["width"], p
    page.screenshot(path=str(artifacts / "phone-hand-mille_fiori-pick.png"))

    # tap a card: the pick is accepted (the table moves on, the card is no longer offered)
    version = page.evaluate("document.body.dataset.version")
    chosen = picks[-1]["action"]
    page.locator(f"#board svg #mf-hand .act[data-action='{chosen}']").tap()
    page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)
    wait_ready(page)
    assert page.evaluate("scrollY") == 0
    assert page.locator(f"#board svg #mf-hand .act[data-action='{chosen}']").count() == 0
    assert "ann picks" in page.locator("#log").text_content().lower()
    # whatever comes next (placing the card in play, or the next pick), the card in play
    # and the hand are still on the first screen
    page.wait_for_function("() => !document.querySelector('#motion-layer .motion-ghost')")
    for sel in ("#board svg #mf-play .mf-card", "#board svg #mf-play .act", "#board svg #mf-hand .mf-card"):
        for box in page.evaluate(BOXES_JS, sel):
            assert box["top"] < PHONE["height"], (sel, box)
    page.screenshot(path=str(artifacts / "phone-hand-mille_fiori-after-pick.png"))
    assert errors == []
    context.close()
