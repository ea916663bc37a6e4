"""At the table, on a phone (390×844, touch) and a desktop (1280×800), for every game:

- a tap on a board thing that is not a legal move says why, with the engine's own reason
  (the server's answer for that seat), and plays nothing;
- Sintra asks once before a take whose every pane breaks, and "don't ask again" sticks;
- keyboard focus stays on the board after a move, with a two-tone focus ring;
- hints say "tap" on a phone and "click" with a mouse;
- the lobby words every game's options for players; "Invite links" only where another
  person has a seat;
- a chat message out of sight pops up, clear of the prompt.

Screenshots of each go to tests/web/artifacts/ (explain-*.png).
"""

from __future__ import annotations

import json
import random
import re

import httpx
import pytest

from .test_browser import GAMES, wait_ready

pytestmark = pytest.mark.browser
PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError

SIZES = {"phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
                   "device_scale_factor": 1},
         "desktop": {"viewport": {"width": 1280, "height": 800}}}


@pytest.fixture(params=list(SIZES))
def sized(request, browser):
    context = browser.new_context(reduced_motion="reduce", **SIZES[request.param])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.size_name = request.param
    yield page
    context.close()


def new_table(server, game_id, seed=7, seats=None):
    seats = seats or [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bot"}]
    res = httpx.post(server.url + "/api/tables", json={"game": game_id, "players": len(seats), "seed": seed,
                                                       "seats": seats})
    res.raise_for_status()
    return res.json()


def open_seat(page, server, made, seat=0):
    page.goto(server.url + made["seats"][seat]["invite"])
    page.wait_for_function(f"() => document.body.dataset.seat === '{seat}'")


def version(page):
    return page.evaluate("document.body.dataset.version")


def random_move(page, rnd):
    """One legal move from the list of choices (so no board tap is spent on it)."""
    v = version(page)
    buttons = page.locator("#actions button.action")
    buttons.nth(rnd.randrange(buttons.count())).evaluate("b => b.click()")
    page.wait_for_function("v => document.body.dataset.version !== v", arg=v, timeout=15000)
    wait_ready(page)


# A board thing marked "why" whose middle is really on top there (a tap lands on it).
TAP_POINTS_JS = """
() => [...document.querySelectorAll('#board svg [data-why]')].map((e) => {
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && e.contains(hit) && r.width > 0 ? { x, y, json: e.getAttribute('data-why') } : null;
}).filter(Boolean)
"""


def tap(page, x, y):
    if page.size_name == "phone":
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_tap_on_what_is_not_a_legal_move_says_why(sized, live_server, artifacts, game_id):
    page = sized
    rnd = random.Random(game_id)
    made = new_table(live_server, game_id)
    token = made["seats"][0]["token"]
    open_seat(page, live_server, made)
    points = []
    for _ in range(80):
        wait_ready(page)
        assert page.evaluate("document.body.dataset.over") != "1", "no position offered a thing to ask about"
        points = page.evaluate(TAP_POINTS_JS)
        if points:
            break
        random_move(page, rnd)
    assert points, "the board never marked a thing that is not a legal move"
    point = rnd.choice(points)
    page.locator("#board").scroll_into_view_if_needed()
    points = [p for p in page.evaluate(TAP_POINTS_JS) if p["json"] == point["json"]] or page.evaluate(TAP_POINTS_JS)
    point = points[0]
    before = version(page)
    tap(page, point["x"], point["y"])
    page.wait_for_selector("#toast.show.why", timeout=5000)
    page.wait_for_timeout(400)  # (the toast slides in)
    shown = page.locator("#toast").inner_text()
    # the engine's reason, as the server gives it to this seat
    answer = httpx.post(f"{live_server.url}/api/tables/{made['table']['id']}/why", headers={"X-Seat-Token": token},
                        json={"action": json.loads(point["json"])}).json()
    assert answer["legal"] is False and shown == answer["reason"]
    assert version(page) == before  # nothing was played
    if game_id == "splendor":
        assert re.search(r"you need \d+ more \w+", shown)
    page.screenshot(path=str(artifacts / f"explain-why-{game_id}-{page.size_name}.png"))
    assert page.js_errors == []


def _sintra_all_break(page, rnd, moves=400):
    """Play Sintra from the list until a take on the board would break every pane."""
    for _ in range(moves):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            return None
        mark = page.locator("#board svg .act:has(.si-all-break)")
        if mark.count():
            return mark
        random_move(page, rnd)
    return None


def test_sintra_asks_once_before_every_pane_breaks(sized, live_server, artifacts):
    page = sized
    rnd = random.Random(5)
    made = new_table(live_server, "sintra", seed=3)
    open_seat(page, live_server, made)
    mark = _sintra_all_break(page, rnd)
    assert mark is not None, "no take that breaks every pane came up"
    before = version(page)
    mark.first.scroll_into_view_if_needed()
    mark.first.click()
    dialog = page.locator("#confirm-dialog")
    dialog.wait_for(state="visible")
    assert "break" in dialog.inner_text()
    page.screenshot(path=str(artifacts / f"explain-sintra-confirm-{page.size_name}.png"))
    page.click("#confirm-no")  # choose again: nothing played
    dialog.wait_for(state="detached")
    assert version(page) == before
    mark.first.click()
    dialog.wait_for(state="visible")
    page.check("#confirm-stop")
    page.click("#confirm-yes")
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before, timeout=15000)
    assert page.evaluate("localStorage.getItem('gt.confirm')") == "0"
    assert not page.locator("#confirm-toggle").is_checked()  # the menu's setting follows
    # from now on such a take is played at once
    mark = _sintra_all_break(page, rnd)
    if mark is not None:
        before = version(page)
        mark.first.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before, timeout=15000)
        assert page.locator("#confirm-dialog").count() == 0
    assert page.js_errors == []


def _ring(page):
    return page.evaluate("""() => {
      const r = document.querySelector('#board svg .focus-ring');
      if (!r) return null;
      const [o, i] = [r.querySelector('.focus-ring-outer'), r.querySelector('.focus-ring-inner')];
      const box = r.getBoundingClientRect();
      return { outer: getComputedStyle(o).stroke, inner: getComputedStyle(i).stroke, w: box.width, h: box.height };
    }""")


def _luminance(css):
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.parametrize("game_id", GAMES)
def test_keyboard_focus_stays_on_the_board_with_a_visible_ring(sized, live_server, artifacts, game_id):
    page = sized
    made = new_table(live_server, game_id)
    open_seat(page, live_server, made)
    for step in range(4):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        if step == 0:
            page.keyboard.press("Tab")  # keyboard use: the focus is shown
            page.evaluate("document.querySelector('#board svg .act[tabindex]').focus()")
        focused = page.evaluate("document.activeElement.closest('#board') !== null")
        assert focused, f"move {step}: the focus left the board ({page.evaluate('document.activeElement.tagName')})"
        ring = _ring(page)
        assert ring and ring["w"] > 10 and ring["h"] > 10, "no focus ring around the focused target"
        # two tones far apart: one of them stands out on any colour of the board
        light, dark = sorted((_luminance(ring["outer"]), _luminance(ring["inner"])), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 7, ring
        if step == 0:
            page.screenshot(path=str(artifacts / f"explain-focus-{game_id}-{page.size_name}.png"))
        v = version(page)
        page.keyboard.press("Enter")
        try:
            page.wait_for_function("v => document.body.dataset.version !== v", arg=v, timeout=4000)
        except PlaywrightTimeout:
            pass  # a first half of a choice (a token, a piece): the board redrew here
        wait_ready(page)
        page.wait_for_timeout(100)
    assert page.evaluate("document.activeElement !== document.body")
    assert page.js_errors == []


# visible text and SVG tooltips of the page
TEXTS_JS = """() => [document.body.innerText,
  ...[...document.querySelectorAll('svg title, [aria-label]')].map((e) => e.textContent + ' ' + (e.getAttribute('aria-label') || ''))].join('\\n')"""


@pytest.mark.parametrize("game_id", GAMES)
def test_hints_say_tap_on_a_phone_and_click_with_a_mouse(sized, live_server, game_id):
    page = sized
    rnd = random.Random(game_id + "hints")
    made = new_table(live_server, game_id)
    open_seat(page, live_server, made)
    wrong = re.compile(r"\bclick" if page.size_name == "phone" else r"\btap(s|ping)?\b", re.IGNORECASE)
    for _ in range(25):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        found = wrong.findall(page.evaluate(TEXTS_JS))
        assert not found, f"{page.size_name}: the page says {found[0]!r}"
        # a board target (it may only select, showing a hint), else a move from the list
        board = page.locator("#board svg .act[data-action]")
        v = version(page)
        if board.count() and rnd.random() < 0.6:
            board.nth(rnd.randrange(board.count())).evaluate("e => e.dispatchEvent(new MouseEvent('click', {bubbles: true}))")
            page.wait_for_timeout(150)
            found = wrong.findall(page.evaluate(TEXTS_JS))
            assert not found, f"{page.size_name}: the page says {found[0]!r}"
            if version(page) == v and page.locator("#actions button.action").count():
                continue
        else:
            random_move(page, rnd)


def test_every_game_s_options_are_worded_for_players(sized, live_server, artifacts):
    page = sized
    page.goto(live_server.url + "/")
    page.wait_for_selector("#create")
    games = httpx.get(live_server.url + "/api/games").json()
    for g in games:
        page.select_option("#game", g["id"])
        labels = page.locator(".options .option-label")
        assert labels.count() == len(g["options"])
        for k, o in enumerate(g["options"]):
            assert labels.nth(k).inner_text() == o["label"]  # the game package's own wording
            shown = page.locator(f".options select[data-option='{o['name']}'] option").all_inner_texts()
            assert shown == o["choice_labels"]
        text = page.locator(".options").inner_text()
        assert not re.search(r"_|\btrue\b|\bfalse\b", text), text
        if g["options"]:
            page.locator(".options").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / f"explain-options-{g['id']}-{page.size_name}.png"))
    assert page.js_errors == []


def test_invite_links_only_where_another_person_sits(sized, live_server):
    page = sized
    alone = new_table(live_server, GAMES[0])
    open_seat(page, live_server, alone)
    wait_ready(page)
    page.locator("#seats").wait_for()
    assert page.locator("#show-invites").count() == 0
    two = new_table(live_server, GAMES[0], seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
    open_seat(page, live_server, two)
    page.locator("#show-invites").wait_for()


def test_a_chat_message_out_of_sight_pops_up_clear_of_the_prompt(sized, browser, live_server, artifacts):
    page = sized
    made = new_table(live_server, "splendor", seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
    open_seat(page, live_server, made)
    wait_ready(page)
    if page.size_name == "desktop":
        page.locator("#chat-panel > summary").click()  # folded: the message is out of sight
    assert page.locator("#chat-toast").is_hidden()
    other = browser.new_context()
    bob = other.new_page()
    try:
        open_seat(bob, live_server, made, seat=1)
        bob.fill("#chat-input", "nice opening, Ann")
        bob.click("#chat-send")
        toast = page.locator("#chat-toast")
        toast.wait_for(state="visible", timeout=5000)
        page.wait_for_timeout(300)
        assert "Bob" in toast.inner_text() and "nice opening, Ann" in toast.inner_text()
        a, p = toast.bounding_box(), page.locator("#prompt").bounding_box()
        assert a["y"] >= p["y"] + p["height"] or a["y"] + a["height"] <= p["y"], "the message covers the prompt"
        assert a["y"] + a["height"] <= page.viewport_size["height"] and a["x"] >= 0
        page.screenshot(path=str(artifacts / f"explain-chat-toast-{page.size_name}.png"))
        toast.click()
        page.wait_for_function("() => document.getElementById('chat-panel').open")
        assert toast.is_hidden()
        # the chat came into sight (scrolled to); a message in plain sight does not pop up
        page.wait_for_function("""() => { const r = document.getElementById('chat-log').getBoundingClientRect();
                                         return r.top >= 0 && r.bottom <= innerHeight; }""")
        bob.fill("#chat-input", "second line")
        bob.click("#chat-send")
        page.locator("#chat-log li", has_text="second line").wait_for()
        page.wait_for_timeout(200)
        assert toast.is_hidden()
    finally:
        other.close()
    assert page.js_errors == []
