"""Choices the board cannot show by place become small dialogs on the board.

For every such choice (Splendor: gems to give back, the noble when several would visit,
the forced pass; Sintra: the pane kept for the window; Glassworks: the piece put in
overflow, the colour of the next column; Mille Fiori: the extra card or none), at
390×844 and at 1280×800:

* the position comes from the engine itself (a seeded random game played until that choice
  comes up), drawn by the game's renderer as the table would draw it for the seat to move;
* the dialog is on the board, offers every legal action of the moment (the same as the list
  beside the board), each option a tap target at least 40 px on a side, inside the screen;
* tapping an option plays exactly that action, and the engine accepts it.

A second test plays live tables (a person against a bot) by tapping until the frequent
dialogs come up, and answers them on the board.
"""

from __future__ import annotations

import json
import random

import httpx
import pytest

from gemtable.games.registry import all_games

from .test_browser import wait_ready

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
MIN_TAP = 40

# (game, dialog kind, the legal action types that call for it)
DIALOGS = [
    ("splendor", "return", {"return"}),
    ("splendor", "noble", {"noble"}),
    ("splendor", "pass", {"pass"}),
    ("sintra", "keep", {"keep"}),
    ("glassworks", "overflow", {"overflow"}),
    ("glassworks", "column", {"column"}),
    ("mille_fiori", "extra", {"extra", "decline"}),
]


def _entries(state, seat):
    return [{"id": a.id, "type": a.type, "json": a.to_json(), "text": state.action_text(seat, a)}
            for a in state.legal_actions(seat)]


def _find(game_id, types, seeds=400, players=2):
    """A state (from a seeded random game) whose mover's choices are exactly of `types`."""
    types = set(types)
    game = all_games()[game_id]
    for seed in range(seeds):
        state = game.new(players, seed=seed)
        rnd = random.Random(seed)
        for _ in range(3000):
            if state.is_over():
                break
            seat = state.to_move()[0]
            actions = state.legal_actions(seat)
            if {a.type for a in actions} == types:
                return state, seat
            state.step(seat, rnd.choice(actions))
    pytest.fail(f"no {types} choice came up in {seeds} random {game_id} games")


# Draws one position with the game's renderer into a board-sized element, the way the table
# does, and records the action a tap plays.
RENDER_JS = """
async ([gameId, ctx]) => {
  const mod = await import(`/static/games/${gameId}.js`);
  let board = document.getElementById('dialog-board');
  if (!board) {
    board = document.createElement('div');
    board.id = 'dialog-board';
    board.className = 'board';
    document.getElementById('app').replaceChildren(board);
  }
  window.__acted = null;
  ctx.act = (entry) => { window.__acted = entry.json; };
  mod.render(board, ctx);
  return board.clientWidth;
}
"""


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game_id,kind,types", DIALOGS, ids=[f"{g}-{k}" for g, k, _ in DIALOGS])
def test_a_choice_dialog_plays_its_move_by_tapping(browser, live_server, artifacts, game_id, kind, types, size):
    state, seat = _find(game_id, types)
    legal = _entries(state, seat)
    context = browser.new_context(viewport=SIZES[size], has_touch=True, is_mobile=size == "phone")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(live_server.url + "/")
        page.wait_for_selector("#create")
        ctx = {"view": state.view(seat), "legal": legal, "seat": seat, "names": ["Ann", "Bot"],
               "toMove": list(state.to_move()), "prompt": state.prompt(seat), "over": False, "result": None,
               "patterns": False, "table": None, "mode": "play"}
        width = page.evaluate(RENDER_JS, [game_id, ctx])
        assert (width < 640) == (size == "phone")
        dialog = page.locator(f"#dialog-board svg g.board-dialog[data-choice='{kind}']")
        assert dialog.count() == 1, f"no {kind} dialog on the {game_id} board"
        options = dialog.locator(".act[data-action]")
        offered = options.evaluate_all("els => els.map((e) => e.dataset.action)")
        # every choice of the moment, nothing else
        assert sorted(json.dumps(json.loads(x), sort_keys=True) for x in offered) == \
            sorted(json.dumps(e["json"], sort_keys=True) for e in legal)
        # each option a tap target on the screen
        boxes = options.evaluate_all("els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })")
        vw = SIZES[size]["width"]
        for x, y, w, h in boxes:
            assert w >= MIN_TAP and h >= MIN_TAP, (kind, size, w, h)
            assert x >= 0 and x + w <= vw + 0.5, (kind, size, x, w)
        dialog.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"dialog-{game_id}-{kind}-{size}.png"))
        pick = random.Random(kind).randrange(options.count())
        chosen = json.loads(options.nth(pick).get_attribute("data-action"))
        options.nth(pick).tap()
        acted = page.evaluate("window.__acted")
        assert acted == chosen
        # the engine takes the tapped action as it is
        action = all_games()[game_id].action_from_json(acted)
        assert state.check(seat, action) is None
        state.step(seat, action)
        assert errors == []
    finally:
        context.close()


def _seeded_table(server, game_id, seed):
    res = httpx.post(server.url + "/api/tables", json={
        "game": game_id, "players": 2, "seed": seed,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]})
    res.raise_for_status()
    return res.json()


LIVE = [("splendor", {"return"}), ("sintra", {"keep"}), ("glassworks", {"overflow", "column"})]


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game_id,kinds", LIVE, ids=[g for g, _ in LIVE])
def test_live_tables_answer_dialogs_on_the_board(browser, live_server, artifacts, game_id, kinds, size):
    """Against a bot, the choices come up as dialogs on the board and a tap there plays them."""
    context = browser.new_context(viewport=SIZES[size], has_touch=True, is_mobile=size == "phone")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    rnd = random.Random(game_id)
    answered = 0
    try:
        for seed in (16, 17, 18):
            made = _seeded_table(live_server, game_id, seed)
            page.goto(live_server.url + made["seats"][0]["invite"])
            for _ in range(400):
                wait_ready(page)
                if page.evaluate("document.body.dataset.over") == "1":
                    break
                version = page.evaluate("document.body.dataset.version")
                dialog = page.locator("#board svg g.board-dialog")
                if dialog.count():
                    assert dialog.get_attribute("data-choice") in kinds | {"noble", "pass"}
                    options = dialog.locator(".act[data-action]")
                    assert options.count() == page.locator("#actions button.action").count()
                    if not answered:
                        page.screenshot(path=str(artifacts / f"dialog-live-{game_id}-{size}.png"))
                    options.nth(rnd.randrange(options.count())).tap()
                    answered += 1
                else:
                    # play on from the list of choices (a prefix of moves, quickly)
                    buttons = page.locator("#actions button.action")
                    types = buttons.evaluate_all("els => els.map((e) => JSON.parse(e.dataset.action).type)")
                    assert not (set(types) and set(types) <= kinds), f"a {types} choice without its dialog"
                    buttons.nth(rnd.randrange(buttons.count())).click()
                page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
                if answered >= 2:
                    break
            if answered >= 2:
                break
        assert answered, f"no {kinds} choice came up"
        assert errors == []
        assert page.evaluate("document.body.dataset.renderError || ''") == ""
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_diamonds_club_pass_is_a_button_on_the_board(browser, live_server, size):
    """Passing (buy or build nothing more this round) is a button on the board, not only in the list."""
    for types in ({"buy", "pass"}, {"build", "pass"}):
        state, seat = _find("diamonds_club", types)
        context = browser.new_context(viewport=SIZES[size], has_touch=True, is_mobile=size == "phone")
        page = context.new_page()
        try:
            page.goto(live_server.url + "/")
            page.wait_for_selector("#create")
            ctx = {"view": state.view(seat), "legal": _entries(state, seat), "seat": seat, "names": ["Ann", "Bot"],
                   "toMove": list(state.to_move()), "prompt": state.prompt(seat), "over": False, "result": None,
                   "patterns": False, "table": None, "mode": "play"}
            page.evaluate(RENDER_JS, ["diamonds_club", ctx])
            button = page.locator("#dialog-board svg g.dc-pass.act")
            assert button.count() == 1
            box = button.bounding_box()
            assert box["width"] >= MIN_TAP and box["height"] >= MIN_TAP, box
            button.tap()
            assert page.evaluate("window.__acted") == {"type": "pass"}
            assert state.check(seat, all_games()["diamonds_club"].action_from_json({"type": "pass"})) is None
        finally:
            context.close()
