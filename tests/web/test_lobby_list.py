"""The lobby's list in the browser: filters (game, players, time control, open seat), pages and
Play now, at 1280x800 and 390x844.  Screenshots: tests/web/artifacts/lobby-list-*.png."""

from __future__ import annotations

import dataclasses
import re
import time

import httpx
import pytest

from .conftest import LiveServer
from .test_browser import create_table
from .test_mobile import SIZES, _check_shell
from .test_online import _context, pick_name, unique

pytestmark = pytest.mark.browser

REALTIME = {"mode": "realtime", "base": 600, "increment": 5}


@pytest.fixture(params=list(SIZES))
def lobby(request, browser, tmp_path):
    """A server of its own (the list starts empty) with 24 listed tables, and a browser page."""
    from gemtable.server.limits import Limits

    limits = dataclasses.replace(Limits.relaxed(), lobby_per_creator=1000)  # every table comes from 127.0.0.1
    srv = LiveServer(f"sqlite:///{tmp_path / 'lobby.sqlite3'}", limits=limits).start()
    made = []
    games = ["splendor", "sintra", "mille_fiori", "glassworks"]
    for i in range(24):
        host = httpx.Client(base_url=srv.url, headers={"Origin": srv.url})
        host.post("/api/me", json={"name": f"Host{i}"}).raise_for_status()
        open_seat = i % 3 != 0
        body = {"game": games[i % 4], "players": 2,
                "seats": [{"kind": "me"}, {"kind": "open"} if open_seat else {"kind": "bot", "bot": "random"}]}
        if i % 2:
            body["clock"] = REALTIME
        r = host.post("/api/tables", json=body)
        r.raise_for_status()
        made.append({"id": r.json()["table"]["id"], "game": body["game"], "open": open_seat, "clock": bool(i % 2)})
        host.close()
    ctx, page = _context(browser, request.param)
    yield srv, page, made
    ctx.close()
    srv.stop()


def rows(page):
    return page.eval_on_selector_all("#lobby-list tbody tr[data-table]", "rs => rs.map(r => r.dataset.table)")


def wait_rows(page, expected):
    page.wait_for_function("(ids) => JSON.stringify([...document.querySelectorAll('#lobby-list tbody tr')]"
                           ".map(r => r.dataset.table)) === JSON.stringify(ids)", arg=expected)


def test_filters_and_pages(lobby, artifacts):
    srv, page, made = lobby
    newest_first = [t["id"] for t in reversed(made)]
    per = 10 if page.size_name == "phone" else 20  # a phone's pages are shorter
    page.goto(srv.url + "/")
    wait_rows(page, newest_first[:per])
    assert page.locator("#lobby-count").inner_text().startswith(f"1–{per} of 24")
    assert page.locator("#page-newer").is_disabled() and page.locator("#page-older").is_enabled()
    _check_shell(page, f"lobby list {page.size_name}")
    page.screenshot(path=str(artifacts / f"lobby-list-{page.size_name}.png"), full_page=True)
    seen = []
    while True:  # page by page to the end: every table once, in order
        seen += rows(page)
        if page.locator("#page-older").is_disabled():
            break
        page.click("#page-older")
        wait_rows(page, newest_first[len(seen):len(seen) + per])
    assert seen == newest_first
    last = len(rows(page))
    assert page.locator("#lobby-count").inner_text().startswith(f"{24 - last + 1}–24 of 24")
    page.locator("#lobby-list").screenshot(path=str(artifacts / f"lobby-list-last-page-{page.size_name}.png"))
    page.click("#page-newer")
    wait_rows(page, newest_first[24 - last - per:24 - last])

    # game + open seat: only the open Splendor tables; the filters go into the address
    page.select_option("#f-game", "splendor")
    page.check("#f-open")
    want = [t["id"] for t in reversed(made) if t["game"] == "splendor" and t["open"]]
    wait_rows(page, want)
    assert all(page.locator(f"tr[data-table='{t}'] button.join").count() == 1 for t in want)
    assert re.search(r"[?&]game=splendor", page.url) and "open=1" in page.url
    page.screenshot(path=str(artifacts / f"lobby-list-filtered-{page.size_name}.png"), full_page=True)
    # the time control narrows further; a reload keeps every filter
    page.select_option("#f-clock", "realtime")
    want = [t["id"] for t in reversed(made) if t["game"] == "splendor" and t["open"] and t["clock"]]
    wait_rows(page, want)
    page.reload()
    wait_rows(page, want)
    assert page.locator("#f-game").input_value() == "splendor" and page.locator("#f-open").is_checked()
    assert page.locator("#f-clock").input_value() == "realtime"
    # a player count no table has: an empty list that says so
    page.select_option("#f-clock", "")
    page.select_option("#f-players", "4")
    page.wait_for_selector("#lobby-list .empty")
    assert page.js_errors == []


def test_play_now_sits_at_the_oldest_matching_table_or_opens_one(lobby, artifacts):
    srv, page, made = lobby
    pick_name(page, srv, unique("Now"))
    page.select_option("#f-game", "sintra")
    oldest = next(t["id"] for t in made if t["game"] == "sintra" and t["open"])
    page.click("#play-now")
    page.wait_for_url(re.compile(rf"/table/{oldest}"))
    page.wait_for_function("() => document.body.dataset.status === 'running' && document.body.dataset.seat === '1'")
    page.wait_for_selector("#board svg")

    # no open 3-player Diamonds Club table: Play now opens one and waits there
    page.goto(srv.url + "/?game=diamonds_club&players=3")
    page.wait_for_selector("#lobby-list .empty")
    page.click("#play-now")
    page.wait_for_url(re.compile(r"/table/\w+"))
    page.wait_for_selector("#waiting-room:not([hidden]) .wait-seat.open")
    new_id = page.url.split("/table/")[1].split("#")[0]
    info = httpx.get(f"{srv.url}/api/tables/{new_id}").json()
    assert info["game"] == "diamonds_club" and info["players"] == 3 and info["status"] == "waiting"
    page.screenshot(path=str(artifacts / f"lobby-list-play-now-opened-{page.size_name}.png"))
    # Play now without a game asks for one first
    page.goto(srv.url + "/")
    page.wait_for_selector("#lobby-list tbody tr")
    page.click("#play-now")
    page.wait_for_selector("#toast.show")
    assert "game" in page.locator("#toast").inner_text().lower()
    assert page.evaluate("document.activeElement.id") == "f-game"
    assert page.js_errors == []


def test_the_new_tables_links_stay_put_while_the_list_refreshes(browser, tmp_path):
    """'Table ready' keeps its place when the list below it takes new rows, even when the list's
    answer comes after the panel (a slow server): a button must not move under the pointer."""
    srv = LiveServer(f"sqlite:///{tmp_path / 'still.sqlite3'}").start()
    ctx, page = _context(browser, "desktop")
    try:
        page.route("**/api/lobby*", lambda route: (time.sleep(0.4), route.continue_()))
        create_table(page, srv, "splendor", seat_kinds=["human", "human"])
        page.wait_for_selector("#hotseat")
        y = page.locator("#hotseat").bounding_box()["y"]
        page.wait_for_function("() => document.querySelectorAll('#lobby-list tbody tr').length === 1")
        for _ in range(3):  # other people's tables: the list's next refresh grows it by three rows
            httpx.post(srv.url + "/api/tables", json={"game": "splendor", "players": 2, "seats": [
                {"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]}).raise_for_status()
        page.wait_for_function("() => document.querySelectorAll('#lobby-list tbody tr').length === 4",
                               timeout=15000)
        assert page.locator("#hotseat").bounding_box()["y"] == y
        assert page.locator("#hotseat").is_visible()
    finally:
        ctx.close()
        srv.stop()
