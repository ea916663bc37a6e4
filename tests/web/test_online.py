"""Online play in the browser: names, the lobby, the waiting room, chat,
clocks, undo, the connection banner, rematch, my games, leaderboard and profile.

Two browser contexts are two players (each with its own cookie).  The tests run
against their own live server (restarted in one test) at 1280×800 and 390×844;
screenshots go to tests/web/artifacts/online-*.png.
"""

from __future__ import annotations

import random
import re
import time

import httpx
import pytest

from .conftest import LiveServer
from .test_browser import click_once, wait_ready
from .test_mobile import SIZES, _check_shell

pytestmark = pytest.mark.browser

QUICK = "glassworks"  # the shortest game to finish


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from gemtable.server.limits import Limits

    db = tmp_path_factory.mktemp("onlinedb") / "online.sqlite3"
    srv = LiveServer(f"sqlite:///{db}", limits=Limits.relaxed()).start()
    yield srv
    srv.stop()


def _context(browser, size):
    ctx = browser.new_context(viewport=SIZES[size])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.size_name = size
    return ctx, page


@pytest.fixture(params=list(SIZES))
def two(request, browser):
    """Two players in two browser contexts at the same screen size."""
    a = _context(browser, request.param)
    b = _context(browser, request.param)
    yield a[1], b[1]
    a[0].close()
    b[0].close()


@pytest.fixture(params=list(SIZES))
def one(request, browser):
    ctx, page = _context(browser, request.param)
    yield page
    ctx.close()


def pick_name(page, server, name, artifacts=None):
    """First visit: the name picker card in the lobby."""
    page.goto(server.url + "/")
    page.wait_for_selector("#name-picker")
    if artifacts is not None:
        _check_shell(page, f"first visit {page.size_name}")
        shot(page, artifacts, "name-picker", full=False)
    page.fill("#pick-name", name)
    page.click("#pick-go")
    page.wait_for_selector("#name-picker", state="detached")
    assert page.locator("#me-name").text_content() == name
    assert page.evaluate("fetch('/api/me').then(r => r.json())")["player"]["name"] == name


def unique(prefix):
    return f"{prefix}{random.randrange(10**6)}"


def create(page, game, kinds, clock=None, private=False):
    """The new-table form: seat kinds ('me', 'open', 'human', 'bot:random', ...), a time control."""
    page.wait_for_selector("#create")
    page.select_option("#game", game)
    page.select_option("#players", str(len(kinds)))
    for i, kind in enumerate(kinds):
        page.locator(".seat-kind").nth(i).select_option(kind)
    if clock:
        page.select_option("#clock-mode", clock[0])
        if clock[0] == "realtime":
            page.select_option("#clock-base", str(clock[1]))
            page.select_option("#clock-increment", str(clock[2]))
        elif clock[0] == "turn":
            page.select_option("#clock-per-move", str(clock[1]))
    if private:
        page.check("#private")
    page.click("#create")
    page.wait_for_url(re.compile(r"/table/\w+"))
    return page.url.split("/table/")[1].split("#")[0]


def body_is(page, key, value, timeout=15000):
    page.wait_for_function("([k, v]) => document.body.dataset[k] === v", arg=[key, value], timeout=timeout)


def shot(page, artifacts, name, full=True):
    page.screenshot(path=str(artifacts / f"online-{name}-{page.size_name}.png"), full_page=full)


def mine_to_move(page):
    return page.locator("#actions button.action").count() > 0 and page.evaluate("document.body.dataset.over") == "0"


# -- 1. two players meet, play, chat ------------------------------------------------------------
def test_two_players_meet_in_the_lobby_play_and_chat(two, server, artifacts):
    a, b = two
    alice, bob = unique("Alice"), unique("Bob")
    pick_name(a, server, alice, artifacts)
    shot(a, artifacts, "lobby-named")
    table = create(a, "splendor", ["me", "open"], clock=("realtime", 600, 5))
    # the waiting room: my seat, an open seat, the host can start (with bots) but waits for Bob
    a.wait_for_selector("#waiting-room:not([hidden]) .wait-seat.open")
    body_is(a, "status", "waiting")
    assert a.locator("#start").is_visible()
    assert "(you)" in a.locator(".wait-seat.you").inner_text()
    _check_shell(a, f"waiting room {a.size_name}")
    shot(a, artifacts, "waiting-room")

    # Bob picks a name, sees the table in the lobby's list and joins with one click
    pick_name(b, server, bob)
    row = b.locator(f"#lobby-list tr[data-table='{table}']")
    row.wait_for()
    assert alice in row.inner_text()
    _check_shell(b, f"lobby with an open table {b.size_name}")
    shot(b, artifacts, "lobby-open-table")
    row.locator("button.join").click()
    b.wait_for_url(re.compile(rf"/table/{table}"))
    # every seat taken: the game starts by itself for both
    body_is(b, "status", "running")
    body_is(a, "status", "running")
    assert b.evaluate("document.body.dataset.seat") == "1"
    assert a.locator("#waiting-room").is_hidden() and a.locator("#board svg").count() == 1

    # real-time clocks: one chip per seat; the running one counts down
    a.wait_for_selector("#clocks .clock.running")
    assert a.locator("#clocks .clock").count() == 2
    t0 = a.locator("#clocks .clock.running .time").text_content()
    time.sleep(1.3)
    t1 = a.locator("#clocks .clock.running .time").text_content()
    assert t0 != t1 and re.fullmatch(r"\d+:\d\d", t1), (t0, t1)

    # a few moves each, by clicking
    rnd = random.Random(15)
    for _ in range(3):
        for pg in (a, b):
            pg.wait_for_function("() => document.querySelector('#actions button.action') || document.body.dataset.myTurn === '0'")
            if mine_to_move(pg):
                wait_ready(pg)
                v = pg.evaluate("document.body.dataset.version")
                click_once(pg, rnd, prefer_board=0.5)
                other = b if pg is a else a
                other.wait_for_function("v => Number(document.body.dataset.version) >= Number(v) + 1", arg=v)
    # the tab title says whose turn it is
    mover = a if mine_to_move(a) else b
    assert mover.title().startswith("● Your turn")

    # chat both ways; markup typed in chat stays text
    for pg in (a, b):
        if not pg.locator("#chat-panel").evaluate("e => e.open"):
            pg.locator("#chat-panel > summary").click()
    a.fill("#chat-input", "<b>hello</b> & good luck")
    assert a.locator("#chat-count").text_content() == f"{len('<b>hello</b> & good luck')}/500"
    a.click("#chat-send")
    line = b.locator("#chat-log li.chat-line", has_text="good luck")
    line.wait_for()
    assert line.locator(".chat-text").text_content() == "<b>hello</b> & good luck"
    assert line.locator("b:not(.chat-name)").count() == 0  # no element made from the text
    assert alice in line.locator(".chat-name").text_content()
    b.fill("#chat-input", "thanks, you too")
    b.press("#chat-input", "Enter")
    a.locator("#chat-log li", has_text="thanks, you too").wait_for()
    assert b.input_value("#chat-input") == ""
    _check_shell(a, f"table with chat {a.size_name}")
    shot(a, artifacts, "table-chat")
    shot(b, artifacts, "table-chat-b", full=False)
    assert a.js_errors == [] and b.js_errors == []


# -- 2. undo ----------------------------------------------------------------------------------
def test_undo_against_a_bot(one, server, artifacts):
    page = one
    pick_name(page, server, unique("Una"))
    create(page, "splendor", ["me", "bot:random"])
    wait_ready(page)
    assert page.locator("#undo").count() == 0  # nothing to take back yet
    rnd = random.Random(4)
    click_once(page, rnd, prefer_board=0)
    wait_ready(page)
    page.wait_for_selector("#undo")
    before = int(page.evaluate("document.body.dataset.version"))
    shot(page, artifacts, "undo", full=False)
    page.click("#undo")
    # the move (and the bot's answer) are taken back; the log and chat say so
    page.wait_for_function("v => Number(document.body.dataset.version) < v", arg=before)
    page.locator("#chat-log li.system", has_text="took back").wait_for(state="attached")
    assert page.js_errors == []


# -- 3. the connection drops ----------------------------------------------------------------------
def test_connection_banner_reconnects_and_blocks_actions(one, server, artifacts):
    page = one
    pick_name(page, server, unique("Nets"))
    create(page, "splendor", ["me", "bot:random"])
    wait_ready(page)
    assert page.locator("#conn-banner").is_hidden()
    body_is(page, "online", "1")
    version = page.evaluate("document.body.dataset.version")

    # the browser goes offline: banner, actions disabled, board not clickable
    page.context.set_offline(True)
    page.wait_for_selector("#conn-banner:not([hidden])")
    body_is(page, "online", "0")
    assert "reconnecting" in page.locator("#conn-banner").inner_text().lower()
    assert page.locator("#actions button.action").first.is_disabled()
    assert page.locator("#board").evaluate("e => getComputedStyle(e).pointerEvents") == "none"
    shot(page, artifacts, "offline", full=False)
    page.locator("#actions button.action").first.click(force=True)  # does nothing
    assert page.evaluate("document.body.dataset.version") == version
    page.context.set_offline(False)
    body_is(page, "online", "1")
    page.wait_for_selector("#conn-banner", state="hidden")
    assert page.locator("#actions button.action").first.is_enabled()

    # the server goes away and comes back: reconnects by itself (with backoff), game intact
    server.stop()
    page.wait_for_selector("#conn-banner:not([hidden])")
    body_is(page, "online", "0")
    server.start()
    body_is(page, "online", "1", timeout=40000)
    page.wait_for_selector("#conn-banner", state="hidden")
    wait_ready(page)
    assert page.evaluate("document.body.dataset.version") == version
    rnd = random.Random(8)
    click_once(page, rnd, prefer_board=0)  # and play goes on

    # a table that does not exist (or expired): a clear message, no endless retries
    page.goto(server.url + "/table/nosuchtable")
    page.wait_for_selector("#table-gone")
    assert "gone" in page.locator("#table-gone h2").inner_text()
    assert page.js_errors == []


# -- 4. finish, rematch, my games, leaderboard, profile -----------------------------------------------
def _finish_by_api(server, table, token, rnd):
    """Play the rest of the game for the seat with ``token`` through the REST API (fast)."""
    headers = {"X-Seat-Token": token}
    deadline = time.time() + 120
    while time.time() < deadline:
        state = httpx.get(f"{server.url}/api/tables/{table}/state", headers=headers).json()
        if state["over"]:
            return state
        if state["legal"]:
            choice = rnd.choice(state["legal"])
            httpx.post(f"{server.url}/api/tables/{table}/actions", headers=headers,
                       json={"version": state["version"], "action": choice["json"]})
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not finish")


def test_finish_rematch_and_my_games(one, server, artifacts):
    page = one
    name = unique("Rita")
    pick_name(page, server, name)
    table = create(page, QUICK, ["me", "bot:random"])
    wait_ready(page)
    click_once(page, random.Random(1), prefer_board=0)
    token = page.evaluate(f"Object.values(JSON.parse(localStorage.getItem('gt.tokens.{table}')))[0]")
    _finish_by_api(server, table, token, random.Random(2))
    body_is(page, "over", "1", timeout=30000)
    page.wait_for_selector("#rematch")
    assert re.match(r"Game over: .+ wins?\.", page.locator("#prompt").inner_text())
    if page.size_name == "phone":  # the result is under the board: the prompt leads there
        page.click("#to-result")
        page.wait_for_function("() => document.querySelector('#rematch').getBoundingClientRect().bottom <= innerHeight")
    _check_shell(page, f"game over {page.size_name}")
    shot(page, artifacts, "game-over")

    # my games: the finished game with its result and replay
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    open_menu_link(page, "#nav-me")
    page.wait_for_selector("#my-finished")
    row = page.locator(f"#my-finished tr[data-table='{table}']")
    assert row.count() == 1
    assert re.search(r"won|shared win|2nd of 2", row.inner_text())
    _check_shell(page, f"my games {page.size_name}")
    shot(page, artifacts, "my-games")
    row.locator("a", has_text="Replay").click()
    page.wait_for_selector("#counter")
    page.goto(server.url + "/me")  # the page's own address works too (a reload)
    page.wait_for_selector(f"#my-finished tr[data-table='{table}']")

    # rematch against a bot: nobody to ask, it starts at once with the seats moved round one
    # place (a new deal), and this browser follows to the new table
    page.goto(f"{server.url}/table/{table}")
    page.wait_for_selector("#rematch")
    page.click("#rematch")
    page.wait_for_url(lambda url: f"/table/{table}" not in url)
    new = page.url.split("/table/")[1].split("#")[0]
    assert new != table
    page.wait_for_function("() => document.body.dataset.seat === '1'")  # (not the old table's '0')
    wait_ready(page)
    assert name in page.locator(".seat-item.you").inner_text()
    # the second rematch request gives the same table (idempotent)
    page.goto(f"{server.url}/table/{table}")
    page.wait_for_selector("#rematch-go, #rematch")
    assert page.js_errors == []


def open_menu_link(page, selector):
    """A header link: behind the menu button on a phone."""
    if page.size_name == "phone":
        page.click("#menu-button")
    page.click(selector)


def test_leaderboard_and_profile(one, server, artifacts):
    page = one
    name = unique("Lea")
    pick_name(page, server, name)
    open_menu_link(page, "#nav-leaderboard")
    page.wait_for_selector(".leaderboard .tabs a.current")
    page.locator(".leaderboard .tabs a", has_text="Splendor").click()
    page.wait_for_url(re.compile(r"/leaderboard/splendor$"))
    page.wait_for_function("() => document.querySelector('.leaderboard .tabs a.current').textContent === 'Splendor'")
    page.wait_for_selector("#leaderboard, #leaderboard-empty")
    _check_shell(page, f"leaderboard {page.size_name}")
    shot(page, artifacts, "leaderboard")
    page.reload()  # the page's own address works too
    page.wait_for_selector("#leaderboard, #leaderboard-empty")
    open_menu_link(page, "#me-name")
    page.wait_for_selector(".profile h1")
    assert name in page.locator(".profile h1").inner_text()
    assert "guest" in page.locator(".profile h1").inner_text()
    _check_shell(page, f"profile {page.size_name}")
    shot(page, artifacts, "profile")
    assert page.js_errors == []


# -- 5. accounts: a taken name, create an account, log out, log in on another browser -------------------
def test_account_register_logout_login(browser, server, artifacts):
    ctx1, a = _context(browser, "desktop")
    ctx2, b = _context(browser, "phone")
    try:
        name = unique("Acct")
        pick_name(a, server, name)
        # the same name (any case) is taken for somebody else: the picker says so and stays
        b.goto(server.url + "/")
        b.wait_for_selector("#name-picker")
        b.fill("#pick-name", name.upper())
        b.click("#pick-go")
        b.wait_for_selector("#pick-error:not(:empty)")
        assert "taken" in b.locator("#pick-error").inner_text().lower()
        assert b.locator("#name-picker").is_visible()
        # a password makes the guest an account
        a.click("#me-register")
        a.fill("#register-password", "correct horse battery")
        a.click("#register-go")
        a.wait_for_selector("#account-dialog", state="detached")
        a.wait_for_selector("#me-logout")
        a.screenshot(path=str(artifacts / "online-account-desktop.png"))
        a.click("#me-logout")
        a.click("#logout-go")
        a.wait_for_selector("#me-login")
        assert a.evaluate("fetch('/api/me').then(r => r.json())")["player"] is None
        # the other browser logs in with it (through the phone's menu)
        b.click("#pick-have-account")
        b.fill("#login-name", name)
        b.fill("#login-password", "wrong password")
        b.click("#login-go")
        b.wait_for_selector("#login-error:not(:empty)")
        b.fill("#login-password", "correct horse battery")
        b.click("#login-go")
        b.wait_for_selector("#account-dialog", state="detached")
        b.wait_for_selector("#name-picker", state="detached")
        b.click("#menu-button")
        assert b.locator("#me-name").inner_text() == name
        _check_shell(b, "menu with a player, phone")
        b.screenshot(path=str(artifacts / "online-menu-phone.png"))
        assert a.js_errors == [] and b.js_errors == []
    finally:
        ctx1.close()
        ctx2.close()


# -- 6. out of time: a bot plays the seat, the player takes it back ----------------------------------
def test_out_of_time_bot_takes_over_and_player_takes_the_seat_back(one, server, artifacts):
    page = one
    pick_name(page, server, unique("Slow"))
    # a 2-second real-time clock (the form offers 1 minute at least): created with this browser's cookie
    made = page.evaluate("""() => fetch('/api/tables', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({game: 'splendor', players: 2, seats: [{kind: 'me'}, {kind: 'bot', bot: 'random'}],
                              clock: {mode: 'realtime', base: 2, increment: 0}})}).then(r => r.json())""")
    table = made["table"]["id"]
    page.goto(f"{server.url}/table/{table}")  # no token in the address: the cookie's seat is found
    page.wait_for_function("() => document.body.dataset.seat === '0'")
    page.wait_for_selector("#clocks .clock.mine")
    # the clock runs out: a bot plays the seat, the prompt offers it back
    page.wait_for_selector("#take-seat", timeout=20000)
    assert page.locator(".seat-item.you .badge.away").count() == 1
    assert page.locator("#actions button.action").count() == 0  # the bot decides until the seat is taken back
    assert page.locator("#chat-log li.system").count() >= 1
    _check_shell(page, f"away seat {page.size_name}")
    shot(page, artifacts, "away", full=False)
    page.click("#take-seat")
    page.wait_for_selector("#take-seat", state="detached")
    assert page.locator(".seat-item.you .badge.away").count() == 0
    wait_ready(page)
    assert page.js_errors == []


# -- 7. the waiting room: join without a name yet, leave, kick, start with bots ----------------------------
def test_waiting_room_leave_kick_and_start_with_bots(two, server, artifacts):
    a, b = two
    pick_name(a, server, unique("Host"))
    table = create(a, "splendor", ["me", "open", "open"])
    a.wait_for_selector("#waiting-room .wait-seat.open")
    # Bob has not picked a name: Join asks for one in a dialog, then sits down
    b.goto(server.url + "/")
    b.locator(f"#lobby-list tr[data-table='{table}'] button.join").click()
    b.wait_for_selector("#account-dialog[open]")
    bob = unique("Bob")
    b.fill("#dlg-pick-name", bob)
    b.click("#dlg-pick-go")
    b.wait_for_url(re.compile(rf"/table/{table}"))
    b.wait_for_function("() => document.body.dataset.seat === '1'")
    a.locator(".wait-seat[data-seat='1']", has_text=bob).wait_for()
    assert a.locator(".wait-seat[data-seat='1'] .kick").is_visible()  # the host may remove Bob
    assert b.locator(".kick").count() == 0 and b.locator("#start").count() == 0  # Bob may not
    _check_shell(b, f"waiting room, seated guest {b.size_name}")
    shot(b, artifacts, "waiting-room-guest")
    # Bob leaves, comes back, and the host removes him
    b.click("#leave")
    b.wait_for_url(re.compile(r"/$"))
    a.wait_for_selector(".wait-seat[data-seat='1'].open")
    b.locator(f"#lobby-list tr[data-table='{table}'] button.join").click()
    b.wait_for_function("() => document.body.dataset.seat === '1'")
    a.locator(".wait-seat[data-seat='1']", has_text=bob).wait_for()
    a.click(".wait-seat[data-seat='1'] .kick")
    a.wait_for_selector(".wait-seat[data-seat='1'].open")
    b.wait_for_function("() => document.body.dataset.seat === ''")  # Bob watches now
    assert b.locator("#waiting-room .sit").count() == 2
    # the host starts: easy bots take the free seats and the game runs
    a.select_option("#start-bots", "easy")
    a.click("#start")
    body_is(a, "status", "running")
    body_is(b, "status", "running")
    assert a.locator(".seat-item .badge", has_text="bot · easy").count() == 2
    assert a.js_errors == [] and b.js_errors == []


# -- 8. invite links again, spectators muted, your-turn sound ----------------------------------------------
def test_invite_links_again_mute_spectators_and_turn_sound(two, server, artifacts):
    a, b = two
    pick_name(a, server, unique("Inv"))
    # sound on my turn (off by default)
    assert a.evaluate("localStorage.getItem('gt.sound')") is None
    if a.size_name == "phone":
        a.click("#menu-button")
    a.check("#sound-toggle")
    if a.size_name == "phone":
        a.keyboard.press("Escape")  # the menu closes
    table = create(a, "splendor", ["me", "human", "bot:random"])
    wait_ready(a)
    # the host shows the invite seat's link again (it was never shown at creation)
    a.click("#show-invites")
    a.wait_for_selector("#invites-dialog .invite")
    link = a.locator("#invites-dialog .invite").input_value()
    assert f"/table/{table}#token=" in link
    _check_shell(a, f"invite links dialog {a.size_name}")
    shot(a, artifacts, "invites-dialog", full=False)
    a.click("#invites-dialog .dlg-close")
    # a spectator can chat until the host mutes spectators
    b.goto(f"{server.url}/table/{table}")
    b.wait_for_function("() => document.body.dataset.seat === ''")
    if not b.locator("#chat-panel").evaluate("e => e.open"):
        b.locator("#chat-panel > summary").click()
    assert b.locator("#chat-input").is_enabled()
    if not a.locator("#chat-panel").evaluate("e => e.open"):
        a.locator("#chat-panel > summary").click()
    a.check("#mute-spectators")
    b.wait_for_function("() => document.querySelector('#chat-input').disabled")
    assert "muted" in b.locator("#chat-input").get_attribute("placeholder")
    # the invite link seats a second person; when it is the host's turn again, a chime plays
    b.goto(link)
    b.wait_for_function("() => document.body.dataset.seat === '1'")
    rnd = random.Random(6)
    chimes = int(a.evaluate("document.body.dataset.chimes || '0'"))
    for _ in range(3):
        if mine_to_move(a):
            wait_ready(a)
            click_once(a, rnd, prefer_board=0)
        b.wait_for_function("() => document.querySelector('#actions button.action') || document.body.dataset.over === '1'")
        wait_ready(b)
        click_once(b, rnd, prefer_board=0)
        a.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=20000)
    assert int(a.evaluate("document.body.dataset.chimes || '0'")) > chimes
    assert b.evaluate("document.body.dataset.chimes") is None  # Bob left the sound off
    assert a.js_errors == [] and b.js_errors == []


def test_clock_formats(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    got = page.evaluate("""() => import('/static/online.js').then((m) => [
        m.formatClock(0, 'realtime'), m.formatClock(9001, 'realtime'), m.formatClock(605000, 'realtime'),
        m.formatClock(3723000, 'realtime'), m.formatClock(-5, 'realtime'), m.formatClock(null, 'turn'),
        m.formatClock(86400000, 'turn'), m.formatClock(5 * 3600e3 + 7 * 60e3, 'turn'), m.formatClock(1800e3, 'turn'),
        m.clockLabel({mode: 'realtime', base: 600, increment: 5}), m.clockLabel({mode: 'turn', per_move: 86400}),
        m.clockLabel({mode: 'none'})])""")
    assert got == ["0:00", "0:10", "10:05", "1:02:03", "0:00", "–", "1 d 0 h", "5 h 07 m", "30:00",
                   "real time: 10 min + 5 s a move", "turn based: 1 day a move", "no clock"]


# -- 9. a rated game: an account against an easy bot shows on the leaderboard and the profile ---------------
def test_rated_game_shows_on_leaderboard_and_profile(one, server, artifacts):
    page = one
    name = unique("Ranked")
    pick_name(page, server, name)
    page.evaluate("""() => fetch('/api/account/register', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({password: 'a long enough password'})})""")
    table = create(page, QUICK, ["me", "bot:easy"])
    wait_ready(page)
    token = page.evaluate(f"Object.values(JSON.parse(localStorage.getItem('gt.tokens.{table}')))[0]")
    _finish_by_api(server, table, token, random.Random(5))
    body_is(page, "over", "1", timeout=30000)
    page.goto(f"{server.url}/leaderboard/{QUICK}")
    mine = page.locator("#leaderboard tr.mine")
    mine.wait_for()
    assert name in mine.inner_text()
    assert page.locator("#leaderboard tr.bot", has_text="bot: easy").count() == 1
    _check_shell(page, f"leaderboard with ratings {page.size_name}")
    shot(page, artifacts, "leaderboard-rated")
    mine.locator("a").click()
    page.wait_for_selector("#profile-ratings")
    assert "River Valley Glassworks" in page.locator("#profile-ratings").inner_text()
    assert page.locator(f"#profile-recent tr[data-table='{table}']").count() == 1
    _check_shell(page, f"profile with ratings {page.size_name}")
    shot(page, artifacts, "profile-rated")
    assert page.js_errors == []


def test_hotseat_rematch_keeps_every_seat_on_this_screen(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    page.select_option("#game", QUICK)
    page.select_option("#players", "2")
    for i in range(2):
        page.locator(".seat-kind").nth(i).select_option("human")
    page.click("#create")
    page.click("#hotseat")
    page.wait_for_url(re.compile(r"#token="))
    table = page.url.split("/table/")[1].split("#")[0]
    tokens = page.evaluate(f"JSON.parse(localStorage.getItem('gt.tokens.{table}'))")
    assert len(tokens) == 2
    # both seats played to the end through the API (fast), one after the other
    rnd = random.Random(9)
    deadline = time.time() + 120
    while True:
        states = [httpx.get(f"{server.url}/api/tables/{table}/state", headers={"X-Seat-Token": t}).json() for t in tokens.values()]
        if states[0]["over"]:
            break
        assert time.time() < deadline
        for tok, st in zip(tokens.values(), states):
            if st["legal"]:
                httpx.post(f"{server.url}/api/tables/{table}/actions", headers={"X-Seat-Token": tok},
                           json={"version": st["version"], "action": rnd.choice(st["legal"])["json"]})
                break
    body_is(page, "over", "1", timeout=30000)
    page.click("#rematch")
    page.wait_for_url(lambda url: f"/table/{table}" not in url)
    new = page.url.split("/table/")[1].split("#")[0]
    held = page.evaluate(f"JSON.parse(localStorage.getItem('gt.tokens.{new}'))")
    assert sorted(held) == ["0", "1"] and set(held.values()).isdisjoint(tokens.values())
    assert page.evaluate(f"localStorage.getItem('gt.hotseat.{new}')") == "1"
    wait_ready(page)
    assert page.js_errors == []
