"""Fairness at the web table, at 1280×800 and 390×844: the result says what a stand-in bot did
(and the game stays rated), resigning with a confirmation, the profile's share of finished
games, and the rematch as a proposal the other player accepts, declines or lets expire.

Screenshots go to tests/web/artifacts/fair-*.png.
"""

from __future__ import annotations

import random
import re
import time

import httpx
import pytest

from .test_browser import wait_ready
from .test_mobile import _check_shell
from .test_online import (  # noqa: F401
    QUICK,
    _finish_by_api,
    body_is,
    create,
    one,
    pick_name,
    server,
    two,
    unique,
)

pytestmark = pytest.mark.browser


def shot(page, artifacts, name, full=False):
    page.screenshot(path=str(artifacts / f"fair-{name}-{page.size_name}.png"), full_page=full)


def register(page):
    r = page.evaluate("""() => fetch('/api/account/register', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({password: 'a long enough password'})}).then(r => r.status)""")
    assert r == 200


def make_table(page, game, seats, clock=None):
    """A table made with this browser's cookie (so 'me' is this player); its id."""
    made = page.evaluate("""([game, seats, clock]) => fetch('/api/tables', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({game, players: seats.length, seats, ...(clock ? {clock} : {})})}).then(r => r.json())""",
                         [game, seats, clock])
    return made["table"]["id"]


def my_token(page, table):
    return page.evaluate(f"Object.values(JSON.parse(localStorage.getItem('gt.tokens.{table}')))[0]")


def to_result(page):
    """The result panel in sight (under the board on a phone)."""
    page.locator("#result").scroll_into_view_if_needed()


# -- 1. a stand-in's moves are named in the result, and the game stays rated ---------------------
def test_the_result_says_what_the_stand_in_played_and_the_game_is_rated(one, server, artifacts):
    page = one
    manager, inplay = server.app.state.manager, server.app.state.inplay
    name = unique("Away")
    pick_name(page, server, name)
    register(page)
    old = (manager.bot_delay, inplay.settings.grace)
    manager.bot_delay, inplay.settings.grace = 1.5, 600  # the stand-in moves slowly; the seat taken back keeps time
    try:
        table = make_table(page, QUICK, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}],
                           {"mode": "realtime", "base": 2, "increment": 0})
        page.goto(f"{server.url}/table/{table}")
        page.wait_for_function("() => document.body.dataset.seat === '0'")
        page.wait_for_selector("#take-seat", timeout=20000)  # out of time: a bot plays the seat
        # this player made no move: a move of seat 0 in the log is the stand-in's
        deadline = time.time() + 20
        while not any(e["seat"] == 0 for e in httpx.get(f"{server.url}/api/tables/{table}/state").json()["log"]):
            assert time.time() < deadline, "the stand-in did not move"
            time.sleep(0.1)
        page.click("#take-seat")
        page.wait_for_selector("#take-seat", state="detached")
    finally:
        manager.bot_delay, inplay.settings.grace = old
    _finish_by_api(server, table, my_token(page, table), random.Random(3))
    body_is(page, "over", "1", timeout=30000)
    result = httpx.get(f"{server.url}/api/tables/{table}/state").json()["result"]
    (entry,) = result["stand_ins"]
    assert entry["seat"] == 0 and 1 <= entry["moves"] <= entry["of"] / 5, entry
    page.wait_for_selector("#result .fairness-note")
    row = page.locator("#result tr", has_text=name)
    assert f"a bot played {entry['moves']} of {entry['of']} moves" in row.inner_text()
    assert "a bot finished" not in page.locator("#result").inner_text()
    note = page.locator("#result .fairness-note").inner_text()
    assert note.startswith(f"A bot played {entry['moves']} of {entry['of']} moves for {name}")
    assert "counts for ratings as usual" in note and "not rated" not in page.locator("#result").inner_text()
    to_result(page)
    _check_shell(page, f"result with a stand-in {page.size_name}")
    shot(page, artifacts, "stand-in-result")
    # rated: this player and the bot level have a rating in this game now
    deadline = time.time() + 20
    while not httpx.get(f"{server.url}/api/players/{name}").json()["ratings"].get(QUICK):
        assert time.time() < deadline, "the game was not rated"
        time.sleep(0.2)
    # the leaderboard says the rule in players' words
    page.goto(f"{server.url}/leaderboard/{QUICK}")
    page.wait_for_selector("#leaderboard")
    assert "If a bot plays more than one of your moves in five while you are away" in page.locator("main, #app").first.inner_text()
    assert page.js_errors == []


# -- 2. resigning, with a confirmation; the profile's finished share ------------------------------
def test_resign_with_a_confirmation_and_the_profile_shows_the_finished_share(one, server, artifacts):
    page = one
    name = unique("Quit")
    pick_name(page, server, name)
    register(page)
    # three players: the resigned seat goes to a bot and the others play on
    table = make_table(page, QUICK, [{"kind": "me"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}])
    page.goto(f"{server.url}/table/{table}")
    wait_ready(page)
    page.click("#resign")
    page.wait_for_selector("#resign-dialog[open]")
    assert "A bot plays your seat to the end and the others play on" in page.locator("#resign-dialog").inner_text()
    page.click("#resign-no")  # changed their mind: nothing happens
    page.wait_for_selector("#resign-dialog", state="detached")
    assert httpx.get(f"{server.url}/api/tables/{table}").json()["seats"][0]["resigned"] is False
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_selector("#prompt:has-text('You resigned: a bot plays your seat to the end.')")
    assert page.locator(".seat-item.you .badge.away").inner_text() == "resigned: a bot plays"
    assert page.locator("#take-seat").count() == 0 and page.locator("#resign").count() == 0
    body_is(page, "over", "1", timeout=90000)  # the bots play it out
    assert page.locator("#result tr", has_text=name).locator("td").first.inner_text() == "3rd"

    # two players: resigning ends the game at once
    table = make_table(page, QUICK, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    page.goto(f"{server.url}/table/{table}")
    wait_ready(page)
    page.click("#resign")
    page.wait_for_selector("#resign-dialog[open]")
    assert "the game ends now" in page.locator("#resign-dialog").inner_text()
    _check_shell(page, f"resign confirmation {page.size_name}")
    shot(page, artifacts, "resign-confirm")
    page.click("#resign-yes")
    body_is(page, "over", "1")
    assert re.match(r"Game over: .+ wins\.", page.locator("#prompt").inner_text())
    page.wait_for_selector("#result .fairness-note")
    assert page.locator("#result .fairness-note").inner_text() == f"{name} resigned and takes the last place."
    assert "resigned" in page.locator("#result tr", has_text=name).inner_text()
    to_result(page)
    shot(page, artifacts, "resigned-result")

    # leaving for good: the clock runs out, the stand-in plays the seat to the end (abandoned)
    table = make_table(page, QUICK, [{"kind": "me"}, {"kind": "bot", "bot": "random"}],
                       {"mode": "realtime", "base": 2, "increment": 0})
    page.goto(f"{server.url}/")  # this player is gone
    deadline = time.time() + 180
    while httpx.get(f"{server.url}/api/tables/{table}").json()["status"] != "finished":
        assert time.time() < deadline, "the stand-in did not finish the game"
        time.sleep(0.5)
    page.goto(f"{server.url}/players/{name}")
    page.wait_for_selector("#profile-finished")
    assert page.locator("#profile-finished").inner_text() == \
        "Finishes 67% of games · 2 of 3 played to the end, 1 abandoned (a bot finished after they left)"
    _check_shell(page, f"profile finished share {page.size_name}")
    shot(page, artifacts, "profile-finished")
    page.goto(f"{server.url}/table/{table}")
    page.wait_for_selector("#result .fairness-note")
    assert "left the game and a bot finished it: abandoned, last place" in page.locator("#result").inner_text()
    assert page.js_errors == []


# -- 3. the rematch is a proposal: expire, decline, accept; the seats move round ----------------------
def test_rematch_is_proposed_and_starts_only_when_accepted(two, server, artifacts):
    a, b = two
    inplay = server.app.state.inplay
    ria, ben = unique("Ria"), unique("Ben")
    pick_name(a, server, ria)
    table = create(a, QUICK, ["me", "open"])
    pick_name(b, server, ben)
    b.locator(f"#lobby-list tr[data-table='{table}'] button.join").click()
    body_is(b, "status", "running")
    tokens = [my_token(pg, table) for pg in (a, b)]
    rnd = random.Random(12)
    deadline = time.time() + 120
    while True:
        states = [httpx.get(f"{server.url}/api/tables/{table}/state", headers={"X-Seat-Token": t}).json() for t in tokens]
        if states[0]["over"]:
            break
        assert time.time() < deadline
        for tok, st in zip(tokens, states):
            if st["legal"]:
                httpx.post(f"{server.url}/api/tables/{table}/actions", headers={"X-Seat-Token": tok},
                           json={"version": st["version"], "action": rnd.choice(st["legal"])["json"]})
                break
    body_is(a, "over", "1", timeout=30000)
    body_is(b, "over", "1", timeout=30000)
    tables_before = len(httpx.get(f"{server.url}/api/tables").json())

    # a proposal nobody answers expires (a short wait for this test)
    inplay.settings.rematch_wait = 4
    try:
        to_result(a)
        a.click("#rematch")
        a.wait_for_selector("#rematch-wait")
    finally:
        inplay.settings.rematch_wait = 120
    b.wait_for_selector("#rematch-offer")
    for pg in (a, b):
        pg.wait_for_selector("#rematch-status:has-text('The rematch proposal expired.')", timeout=15000)

    # proposed again: Ria stays at the finished table, no new table (and no clock) until Ben answers
    a.click("#rematch")
    a.wait_for_selector("#rematch-wait")
    assert ben in a.locator("#rematch-wait").inner_text()
    b.wait_for_selector("#rematch-offer")
    assert ria in b.locator("#rematch-offer").inner_text()
    assert b.locator("#to-result").inner_text() == f"{ria} proposes a rematch: answer"  # in the prompt too
    assert re.search(r"\d:\d\d", b.locator("#rematch-left").inner_text())
    assert f"/table/{table}" in a.url and httpx.get(f"{server.url}/api/tables/{table}").json()["rematch"] is None
    assert len(httpx.get(f"{server.url}/api/tables").json()) == tables_before
    to_result(b)
    _check_shell(b, f"rematch proposal {b.size_name}")
    shot(b, artifacts, "rematch-proposal")
    shot(a, artifacts, "rematch-waiting")
    # Ben declines: Ria is told, and may propose again
    b.click("#rematch-decline")
    a.wait_for_selector(f"#rematch-status:has-text('{ben} declined the rematch.')")
    b.wait_for_selector("#rematch")
    a.click("#rematch")
    b.wait_for_selector("#rematch-accept")
    b.click("#rematch-accept")
    # both follow to the new table, where the seats moved round: Ben starts at seat 1 (index 0)
    for pg in (a, b):
        pg.wait_for_url(lambda url: f"/table/{table}" not in url, timeout=15000)
    new = a.url.split("/table/")[1].split("#")[0]
    assert b.url.split("/table/")[1].split("#")[0] == new
    a.wait_for_function("() => document.body.dataset.seat === '1'")
    b.wait_for_function("() => document.body.dataset.seat === '0'")
    info = httpx.get(f"{server.url}/api/tables/{new}").json()
    assert [s["name"] for s in info["seats"]] == [ben, ria]
    assert a.js_errors == [] and b.js_errors == []
