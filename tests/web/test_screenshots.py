"""Screenshots of every game's board in the middle of a game, for the README.

Each game: a fixed 2-player deal played to the end by two medium bots (tree search),
then its replay stopped about halfway through: the board alone at 1280×800 (desktop)
and the whole screen at 390×844 (phone).  The desktop boards are stored as small
palette PNGs (at most 150 KB each) in tests/web/artifacts/; to refresh the README's
pictures in docs/screenshots/, run

    GEMTABLE_SCREENSHOTS=docs/screenshots python -m pytest tests/web/test_screenshots.py -p no:cacheprovider

(the positions depend on the engines and the bots, not on the clock).
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import httpx
import pytest

from .test_browser import GAMES

pytestmark = pytest.mark.browser

MAX_BYTES = 150_000
# how far through the game the picture is taken
MIDDLE = {"splendor": 0.5, "sintra": 0.45, "glassworks": 0.5, "diamonds_club": 0.45, "mille_fiori": 0.45}
READY = {"sintra": "() => !document.querySelector('#si-factories').textContent.includes('empty')"}
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def small_png(raw: bytes, colours: int = 256) -> bytes:
    """The PNG as a palette image (the boards are flat colours), optimised."""
    from PIL import Image

    img = Image.open(io.BytesIO(raw)).convert("RGB")
    pal = img.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _finished_table(server, game_id):
    """A 2-player game of two medium bots on a fixed deal, played to the end."""
    res = httpx.post(server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": 2026,
        "seats": [{"kind": "bot", "bot": "medium", "name": "Ann"}, {"kind": "bot", "bot": "medium", "name": "Bob"}]})
    res.raise_for_status()
    table = res.json()["table"]["id"]
    deadline = time.time() + 240
    while httpx.get(server.url + f"/api/tables/{table}").json()["status"] != "finished":
        assert time.time() < deadline, "the bots did not finish"
        time.sleep(0.3)
    return table


def _mid_game(page, server, table, game_id):
    """The replay of the table at the move MIDDLE[game] of the way through."""
    page.goto(server.url + f"/replay/{table}")
    page.wait_for_selector("#board svg")
    last = int(page.locator("#slider").get_attribute("max"))
    frame = round(last * MIDDLE.get(game_id, 0.45))
    page.evaluate("n => { const s = document.getElementById('slider'); s.value = n; s.dispatchEvent(new Event('input')); }", frame)
    page.wait_for_function("n => document.getElementById('counter').textContent.startsWith(`move ${n} `)", arg=frame)
    # a position with something on every part of the board (Sintra: the factories filled)
    ready = READY.get(game_id)
    while ready and not page.evaluate(ready) and frame > 0:
        frame -= 1
        page.click("#back")
        page.wait_for_function("n => document.getElementById('counter').textContent.startsWith(`move ${n} `)", arg=frame)


@pytest.mark.parametrize("game_id", GAMES)
def test_board_screenshots(browser, live_server, artifacts, game_id):
    target = os.environ.get("GEMTABLE_SCREENSHOTS")
    table = _finished_table(live_server, game_id)
    for size, viewport in SIZES.items():
        # no motion in the pictures
        context = browser.new_context(viewport=viewport, reduced_motion="reduce")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        try:
            _mid_game(page, live_server, table, game_id)
            if size == "desktop":
                raw = page.locator("#board").screenshot()
                png = small_png(raw)
                assert len(png) <= MAX_BYTES, f"{game_id}: {len(png)} bytes"
                (artifacts / f"readme-{game_id}.png").write_bytes(png)
                if target:
                    out = Path(target)
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"{game_id}.png").write_bytes(png)
            else:
                page.screenshot(path=str(artifacts / f"readme-{game_id}-phone.png"))
            assert errors == []
            assert page.evaluate("document.body.dataset.renderError || ''") == ""
        finally:
            context.close()
