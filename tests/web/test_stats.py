"""Statistics in the browser: the profile's per-game table and rating chart, the leaderboard's
games per day and seat advantage; readable on a phone (SVG text at least MIN_TEXT CSS px,
nothing scrolls sideways).  Screenshots: tests/web/artifacts/stats-*.png."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from sqlalchemy import update

from .conftest import LiveServer
from .test_mobile import SIZES, _check_shell

pytestmark = pytest.mark.browser

MIN_TEXT = 10  # CSS px
RESULTS = ([1, 2], [2, 1], [1, 2], [1, 1], [1, 2])  # seat 0 is Sam

SVG_TEXT_JS = r"""
(sel) => [...document.querySelectorAll(sel + ' svg text')].map((t) => {
  const m = t.getScreenCTM();
  return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) };
})
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server with one account, five finished tables, one waiting table and a rating history."""
    from gemtable.server.db import (
        Database,
        PlayerRow,
        RatingHistoryRow,
        TableRow,
        utcnow,
    )
    from gemtable.server.limits import Limits

    url = f"sqlite:///{tmp_path_factory.mktemp('statsdb') / 'stats.sqlite3'}"
    srv = LiveServer(url, limits=Limits.relaxed()).start()
    c = httpx.Client(base_url=srv.url)
    assert c.post("/api/me", json={"name": "Sam"}).status_code == 200
    assert c.post("/api/account/register", json={"password": "correct horse"}).status_code == 200
    made = []
    for _ in range(len(RESULTS) + 1):
        r = c.post("/api/tables", json={"game": "splendor", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
        assert r.status_code == 201, r.text
        made.append(r.json()["table"]["id"])
    db = Database(url)
    now = utcnow()
    with db.session() as s:
        pid = s.query(PlayerRow.id).filter(PlayerRow.name == "Sam").scalar()
        for i, (tid, ranking) in enumerate(zip(made, RESULTS)):
            s.execute(update(TableRow).where(TableRow.id == tid).values(
                status="finished", updated_at=now - dt.timedelta(days=i),
                result={"ranking": ranking, "scores": [15 + i, 12], "winners": [p for p in (0, 1) if ranking[p] == 1]}))
            s.add(RatingHistoryRow(game_id="splendor", subject=f"p:{pid}", table_id=tid, mu=25 + i, sigma=8 - i,
                                   at=now - dt.timedelta(days=len(RESULTS) - i)))
        # a table still waiting for players, with a result stored: never counted
        s.execute(update(TableRow).where(TableRow.id == made[-1]).values(result={"ranking": [2, 1]}))
        s.commit()
    db.dispose()
    yield srv
    srv.stop()


@pytest.fixture(params=list(SIZES))
def page(request, browser):
    ctx = browser.new_context(viewport=SIZES[request.param])
    p = ctx.new_page()
    p.js_errors = []
    p.on("pageerror", lambda exc: p.js_errors.append(str(exc)))
    p.size_name = request.param
    yield p
    ctx.close()


def _readable(page, sel):
    texts = page.evaluate(SVG_TEXT_JS, sel)
    assert texts, f"{sel}: no chart text"
    small = [t for t in texts if t["px"] < MIN_TEXT - 0.01]
    assert small == [], f"{sel} {page.size_name}: chart text below {MIN_TEXT} px: {small}"


def test_profile_statistics(page, site, artifacts):
    page.goto(f"{site.url}/players/Sam")
    page.wait_for_selector("#stats-games tbody tr")
    cells = page.locator("#stats-games tbody tr").first.locator("td").all_inner_texts()
    wins = sum(r[0] == 1 for r in RESULTS)
    places = sum(r[0] for r in RESULTS) / len(RESULTS)
    assert cells == ["Splendor", str(len(RESULTS)), f"{wins}\n{round(100 * wins / len(RESULTS))}%",
                     f"{sum(15 + i for i in range(len(RESULTS))) / len(RESULTS):.1f}", f"{places:.2f}", "100%"]
    chart = page.locator("#profile-stats .stats-figure svg")
    assert chart.count() == 1 and chart.locator("circle").count() == len(RESULTS)
    _readable(page, "#profile-stats")
    _check_shell(page, f"profile statistics {page.size_name}")
    page.locator("#profile-stats").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"stats-profile-{page.size_name}.png"), full_page=True)
    assert page.js_errors == []


def test_leaderboard_statistics(page, site, artifacts):
    page.goto(f"{site.url}/leaderboard/splendor")
    page.wait_for_selector("#game-stats .seat-advantage")
    bars = page.locator("#stats-per-day rect.bar")
    assert bars.count() == 30
    heights = page.evaluate("() => [...document.querySelectorAll('#stats-per-day rect.bar')].slice(-5).map((r) => +r.getAttribute('height'))")
    assert all(x > 0 for x in heights)  # one finished game on each of the last five days
    table = page.locator("#game-stats .seat-advantage[data-players='2']")
    assert f"{len(RESULTS)} games" in table.locator("caption").inner_text()  # the waiting table does not count
    rows = table.locator("tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(1).inner_text() == "3.5"  # a shared first place is split
    _readable(page, "#game-stats")
    _check_shell(page, f"leaderboard statistics {page.size_name}")
    page.screenshot(path=str(artifacts / f"stats-leaderboard-{page.size_name}.png"), full_page=True)
    assert page.js_errors == []
