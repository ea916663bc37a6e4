"""Motion on the boards: after a move, a ghost of what moved flies from where it
came from to where it went (src/gemtable/web/motion.js, with each renderer's motions()).

Checked in chromium for every game: a bot's move makes ghosts fly (elements in the motion
layer with a running Web Animation, from a place drawn before the move to one drawn after
it); none fly when the system asks for reduced motion or when the player turned the
"animations" setting off.
"""

from __future__ import annotations

import random

import httpx
import pytest

from .test_browser import GAMES, wait_ready

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}

# Records every ghost put into the motion layer, with its running animations, before the
# page's own scripts run (ghosts are removed again when they land).
WATCH_JS = """
window.__motion = { ghosts: 0, animated: 0, moves: [] };
new MutationObserver((muts) => {
  for (const m of muts) for (const n of m.addedNodes) {
    if (!(n instanceof Element) || !n.classList.contains('motion-ghost')) continue;
    window.__motion.ghosts += 1;
    const anims = n.getAnimations().filter((a) => a.id === 'gt-motion' && a.playState !== 'finished');
    if (anims.length) window.__motion.animated += 1;
    window.__motion.moves.push(n.dataset.motionFrom + ' > ' + n.dataset.motionTo);
  }
}).observe(document, { childList: true, subtree: true });
"""


def _table(server, game_id, seed=16):
    res = httpx.post(server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": seed,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]})
    res.raise_for_status()
    return res.json()


def _open(browser, server, game_id, reduced=False, setting=None):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.emulate_media(reduced_motion="reduce" if reduced else "no-preference")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.add_init_script(WATCH_JS)
    if setting is not None:
        page.add_init_script(f"localStorage.setItem('gt.motion', '{setting}')")
    made = _table(server, game_id)
    page.goto(server.url + made["seats"][0]["invite"])
    wait_ready(page)
    return context, page


def _play_until_the_bot_moved(page, rnd, moves=6):
    """Make a few moves from the list; each time the bot answers (a version the bot made)."""
    bot_moves = 0
    for _ in range(moves):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        version = int(page.evaluate("document.body.dataset.version"))
        buttons = page.locator("#actions button.action")
        buttons.nth(rnd.randrange(buttons.count())).click()
        page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=version, timeout=15000)
        wait_ready(page)
        if int(page.evaluate("document.body.dataset.version")) > version + 1:
            bot_moves += 1
    page.wait_for_timeout(600)  # the last ghosts land
    return bot_moves


@pytest.mark.parametrize("game_id", GAMES)
def test_a_move_flies_from_where_it_came_from(browser, live_server, artifacts, game_id):
    context, page = _open(browser, live_server, game_id)
    try:
        assert page.evaluate("window.__motion.ghosts") == 0  # nothing flies on the first drawing
        rnd = random.Random(game_id)
        bot_moves = _play_until_the_bot_moved(page, rnd)
        assert bot_moves, "the bot never moved"
        seen = page.evaluate("window.__motion")
        assert seen["ghosts"] > 0 and seen["animated"] > 0, seen
        # every ghost flew between two places the renderer named, and none is left behind
        assert all(" > " in m and "undefined" not in m for m in seen["moves"]), seen["moves"]
        assert page.locator("#motion-layer .motion-ghost").count() == 0
        assert page.js_errors == []
        assert page.evaluate("document.body.dataset.renderError || ''") == ""
    finally:
        context.close()


@pytest.mark.parametrize("how", ["reduced-motion", "setting-off"])
@pytest.mark.parametrize("game_id", GAMES)
def test_no_motion_under_reduced_motion_or_with_the_setting_off(browser, live_server, game_id, how):
    context, page = _open(browser, live_server, game_id, reduced=how == "reduced-motion",
                          setting="0" if how == "setting-off" else None)
    try:
        if how == "setting-off":
            assert not page.locator("#motion-toggle").is_checked()
        rnd = random.Random(game_id)
        assert _play_until_the_bot_moved(page, rnd, moves=4)
        assert page.evaluate("window.__motion.ghosts") == 0
        assert page.evaluate("document.getAnimations().filter((a) => a.id === 'gt-motion').length") == 0
        # the same table moves again once motion is allowed (so the moves above would have flown)
        if how == "setting-off":
            page.locator("#motion-toggle").check()
        else:
            page.emulate_media(reduced_motion="no-preference")
        for _ in range(4):  # (some moves move nothing: a pass, a choice of equipment)
            _play_until_the_bot_moved(page, rnd, moves=3)
            if page.evaluate("window.__motion.ghosts"):
                break
        assert page.evaluate("window.__motion.ghosts") > 0
        assert page.js_errors == []
    finally:
        context.close()


def test_the_animations_setting_is_kept(browser, live_server):
    """The checkbox in the menu turns motion off and on, and the choice outlives a reload."""
    game_id = "splendor" if "splendor" in GAMES else GAMES[0]
    context, page = _open(browser, live_server, game_id)
    try:
        box = page.locator("#motion-toggle")
        assert box.is_checked()
        box.uncheck()
        assert page.evaluate("localStorage.getItem('gt.motion')") == "0"
        page.reload()
        wait_ready(page)
        assert not page.locator("#motion-toggle").is_checked()
        rnd = random.Random(3)
        assert _play_until_the_bot_moved(page, rnd, moves=3)
        assert page.evaluate("window.__motion.ghosts") == 0
        page.locator("#motion-toggle").check()
        assert _play_until_the_bot_moved(page, rnd, moves=3)
        assert page.evaluate("window.__motion.ghosts") > 0
    finally:
        context.close()
