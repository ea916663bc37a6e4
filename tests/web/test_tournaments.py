"""Tournaments in the browser: the list with the create form, registering from a tournament's
page, and a running tournament's rounds (tables to play or watch) and standings updating by
themselves.  At desktop and phone sizes (screenshots in tests/web/artifacts/tournaments-*.png)."""

from __future__ import annotations

import time

import pytest

from .conftest import LiveServer
from .test_mobile import _check_shell

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from gemtable.server.limits import Limits

    db = tmp_path_factory.mktemp("tournamentdb") / "web.sqlite3"
    server = LiveServer(f"sqlite:///{db}", limits=Limits.relaxed()).start()
    server.app.state.tournaments.settings.sweep = 0.2
    yield server
    server.stop()


def account(browser, site, name, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    page.goto(site.url + "/api/games")
    r = page.request.post(site.url + "/api/account/register", data={"name": name, "password": "correct horse"})
    assert r.ok, r.text()
    page.size_name = size
    return page


def shoot(page, artifacts, name):
    page.wait_for_timeout(250)
    page.screenshot(path=str(artifacts / f"tournaments-{name}.png"), full_page=True)
    _check_shell(page, name)


def wait_api(page, url, pred, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = page.request.get(url).json()
        if pred(data):
            return data
        time.sleep(0.2)
    raise AssertionError(f"timed out: {url}")


def start_now(site, tid):
    """Move a tournament's start time to now; the server's sweep then starts it."""
    from sqlalchemy import update

    from gemtable.server.db import TournamentRow, utcnow

    with site.app.state.tournaments.m.db.session() as s:
        s.execute(update(TournamentRow).where(TournamentRow.id == tid).values(starts_at=utcnow()))
        s.commit()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_register_then_follow_a_running_tournament(browser, site, artifacts, size):
    people = [account(browser, site, f"{n}{size[0]}", size) for n in ("Ann", "Bob", "Cat", "Dan", "Eve")]
    ann = people[0]
    # an open one to register for, and one that starts at once
    later = ann.request.post(site.url + "/api/tournaments", data={
        "name": f"Sunday Cup {size}", "game": "splendor", "players": 2, "rounds": 4, "starts_in": 7200,
        "clock": {"mode": "turn", "per_move": 86400}}).json()
    now = ann.request.post(site.url + "/api/tournaments", data={
        "name": f"Quick Swiss {size}", "game": "splendor", "players": 2, "rounds": 2, "starts_in": 3600,
        "clock": {"mode": "realtime", "base": 600, "increment": 5}}).json()
    for p in people:
        assert p.request.post(f"{site.url}/api/tournaments/{now['id']}/register").ok
    start_now(site, now["id"])  # everyone is in: its start time comes (however slow the machine)

    # the list, with the form
    ann.goto(site.url + "/tournaments")
    ann.wait_for_selector("#tourn-open")
    ann.click("#tourn-create summary")
    ann.wait_for_selector("#tourn-submit")
    assert ann.locator(f"#tourn-open a:has-text('Sunday Cup {size}')").count() == 1
    shoot(ann, artifacts, f"list-{size}")

    # registering from the page
    bob = people[1]
    bob.goto(f"{site.url}/tournaments/{later['id']}")
    bob.click("#tourn-register")
    bob.wait_for_selector("#tourn-unregister")
    assert bob.request.get(f"{site.url}/api/tournaments/{later['id']}").json()["registered"] is True
    shoot(bob, artifacts, f"open-{size}")

    # the running one: its rounds, tables and standings; a result shows up by itself
    view = wait_api(ann, f"{site.url}/api/tournaments/{now['id']}", lambda v: v["status"] == "running" and v["rounds_played"])
    ann.goto(f"{site.url}/tournaments/{now['id']}")
    ann.wait_for_selector("#tourn-standings")
    assert "Round 1 of 2" in ann.inner_text("#tourn-status")
    games = view["rounds_played"][0]["games"]
    assert ann.locator("#tourn-round-1 .tourn-games > li").count() == len(games) == 3
    assert ann.locator("#tourn-round-1 li:has-text('Bye')").count() == 1
    mine = next(g for g in games if not g["bye"] and f"Ann{size[0]}" in g["players"])
    assert ann.locator(f"#tourn-round-1 a[href='/table/{mine['table']}']").inner_text() == "Play"
    # the other player at Ann's table resigns: the page shows the result without a reload
    other = people[[f"{n}{size[0]}" for n in ("Ann", "Bob", "Cat", "Dan", "Eve")].index(
        next(n for n in mine["players"] if n != f"Ann{size[0]}"))]
    assert other.request.post(f"{site.url}/api/tables/{mine['table']}/resign").ok
    ann.wait_for_function(f"() => document.querySelector(\"#tourn-round-1 a[href='/table/{mine['table']}']\")"
                          f" && document.querySelector(\"#tourn-round-1 a[href='/table/{mine['table']}']\").textContent === 'Replay'",
                          timeout=20000)
    first = ann.locator("#tourn-standings tbody tr").first.inner_text()
    assert f"Ann{size[0]}" in first or "1" in first
    shoot(ann, artifacts, f"running-{size}")
    # the table says it belongs to the tournament; "Play" opens it
    ann.click(f"#tourn-round-1 a[href='/table/{mine['table']}']")
    ann.wait_for_url(f"**/table/{mine['table']}")
    for p in people:
        assert p.js_errors == [], p.js_errors
