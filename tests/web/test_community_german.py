"""The community pages in German, as a player whose browser asks for German sees them: settings,
friends, tournaments (the list and one tournament), the admin page, a profile's and a
leaderboard's statistics, at 1280x800 and on a 390x844 phone.  No English word of these pages'
catalogue entries is left, nothing is cut off, nothing scrolls sideways (screenshots in
tests/web/artifacts/community-de-*.png)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import httpx
import pytest
from babel.messages.pofile import read_po
from sqlalchemy import update

from .conftest import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
WEB_PO = Path(__file__).resolve().parents[2] / "src" / "gemtable" / "web" / "locale" / "de.po"
MODULES = ("community.js", "stats.js", "moderation.js", "review.js", "hints.js", "analysis.js", "tournaments.js")


def english_words() -> set[str]:
    """The English of every entry these pages' modules use whose German differs (field-free ones)."""
    from gemtable.core import i18n

    web = WEB_PO.parent.parent
    used = i18n.extract([web / m for m in MODULES], {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)},
                        method="javascript")
    with WEB_PO.open("rb") as f:
        po = read_po(f, locale="de")
    out = set()
    for (ctx, text, plural) in used:
        entry = po.get(text if plural is None else (text, plural), context=ctx)
        german = entry.string if isinstance(entry.string, str) else entry.string[0]
        if "{" not in text and german.replace("\u00ad", "") != text:
            out.add(text)
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Greta (an admin) follows Hans, who hosts a waiting table; a report, a mute, an open
    tournament and four finished, rated games of Greta's."""
    from gemtable.server import moderation
    from gemtable.server.db import Database, PlayerRow, RatingHistoryRow, TableRow, utcnow
    from gemtable.server.limits import Limits

    url = f"sqlite:///{tmp_path_factory.mktemp('communityde') / 'web.sqlite3'}"
    srv = LiveServer(url, limits=Limits.relaxed()).start()
    greta, hans, ida = (httpx.Client(base_url=srv.url, headers={"Origin": srv.url}) for _ in range(3))
    for c, name in ((greta, "Greta"), (hans, "Hans"), (ida, "Ida")):
        assert c.post("/api/account/register", json={"name": name, "password": "correct horse"}).status_code == 200
    assert moderation.grant(srv.app.state.manager.db, "Greta") == "Greta"
    assert greta.post("/api/me/follows", json={"name": "Hans"}).status_code == 200
    r = hans.post("/api/tables", json={"game": "splendor", "players": 3, "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
    assert r.status_code == 201, r.text
    assert hans.post("/api/reports", json={"player": "Ida", "reason": "spam"}).status_code in (200, 201)
    assert greta.post("/api/admin/mute", json={"player": "Ida", "minutes": 60, "reason": "spam"}).status_code == 200
    r = greta.post("/api/tournaments", json={"name": "Herbstpokal", "game": "splendor", "players": 2, "format": "swiss",
                                             "rounds": 3, "starts_in": 7200, "clock": {"mode": "none"}})
    assert r.status_code in (200, 201), r.text
    tournament = r.json()["id"]
    made = []
    for _ in range(4):
        r = greta.post("/api/tables", json={"game": "splendor", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
        made.append(r.json()["table"]["id"])
    db = Database(url)
    now = utcnow()
    with db.session() as s:
        pid = s.query(PlayerRow.id).filter(PlayerRow.name == "Greta").scalar()
        for i, tid in enumerate(made):
            ranking = [1, 2] if i % 2 == 0 else [2, 1]
            s.execute(update(TableRow).where(TableRow.id == tid).values(
                status="finished", updated_at=now - dt.timedelta(days=i),
                result={"ranking": ranking, "scores": [15 + i, 12], "winners": [ranking.index(1)]}))
            s.add(RatingHistoryRow(game_id="splendor", subject=f"p:{pid}", table_id=tid, mu=25 + i, sigma=8 - i,
                                   at=now - dt.timedelta(days=4 - i)))
        s.commit()
    db.dispose()
    srv.tournament = tournament
    yield srv
    srv.stop()


# every element whose text is cut: overflowing its own box where it hides the overflow, or a
# word running past the box's right edge
CLIPPED = """() => {
  const out = [];
  for (const e of document.querySelectorAll('#app *')) {
    if (!e.offsetParent || !e.textContent.trim() || e.closest('.sr-only')) continue;
    const s = getComputedStyle(e);
    const hides = ['hidden', 'clip'].includes(s.overflowX) || s.textOverflow === 'ellipsis';
    if (hides && e.scrollWidth > e.clientWidth + 1 && !e.matches('.table-scroll, .tourn-scroll, .mod-scroll'))
      out.push(e.tagName + ': ' + e.textContent.trim().slice(0, 60));
  }
  return out;
}"""

# the texts these modules show and say (text nodes, placeholders, titles, labels) under `scope`
# (the whole page, or on a profile and a leaderboard the panels these modules add to it)
TEXTS = """(scope) => {
  const out = [];
  for (const root of document.querySelectorAll(scope)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) if (n.textContent.trim()) out.push(n.textContent.trim());
    for (const e of root.querySelectorAll('[placeholder], [title], [aria-label]'))
      for (const a of ['placeholder', 'title', 'aria-label']) if (e.getAttribute(a)) out.push(e.getAttribute(a));
  }
  return out;
}"""

PAGES = [  # name, address, what shows it is drawn, where these modules' words are
    ("settings", "/settings", "#mail-settings", "#app"),
    ("friends", "/friends", "#friends-list", "#app"),
    ("tournaments", "/tournaments", "#tourn-open", "#app"),
    ("tournament", None, "#tourn-status", "#app"),
    ("admin", "/admin", "#mod-sanctions", "#app"),
    ("profile", "/players/Hans", "#report-row", "#profile-stats, #profile-actions, #report-row"),
    ("mystats", "/players/Greta", "#stats-games", "#profile-stats"),
    ("leaderboard", "/leaderboard/splendor", "#stats-per-day svg", "#game-stats"),
]


@pytest.mark.parametrize("size", list(SIZES))
def test_community_pages_read_in_german(browser, site, artifacts, size):
    english = english_words()
    context = browser.new_context(viewport=SIZES[size], locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(site.url + "/api/games")
    r = page.request.post(site.url + "/api/account/login", data={"name": "Greta", "password": "correct horse"})
    assert r.ok, r.text()
    seen: dict[str, list[str]] = {}
    for name, path, ready, scope in PAGES:
        page.goto(site.url + (path or f"/tournaments/{site.tournament}"))
        page.wait_for_selector(ready, timeout=15000)
        if name == "tournaments":
            page.locator("#tourn-create summary").click()  # the form open: its labels and choices
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.lang") == "de"
        page.screenshot(path=str(artifacts / f"community-de-{name}-{size}.png"), full_page=True)
        texts = page.evaluate(TEXTS, scope)
        seen[name] = texts
        left = sorted({t for t in texts if t in english or t.rstrip(" :") in english})
        assert left == [], f"{name}: English words left: {left}"
        assert page.evaluate(CLIPPED) == [], name
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], f"{name}: the page scrolls sideways ({wide})"
    # some German of each page, read as a player reads it
    assert "Einstellungen" in seen["settings"] and "Wenn du dran bist" in seen["settings"]
    assert any(re.fullmatch(r"Splendor · 3 Spieler · 2 freie Plätze", t) for t in seen["friends"]), seen["friends"]
    assert "So laufen Turniere" in seen["tournaments"] and "Schweizer System" in seen["tournaments"]
    assert any(t.startswith("Anmeldung offen · beginnt ") for t in seen["tournament"])
    assert any("stummgeschaltet bis" in t for t in seen["admin"]), seen["admin"]
    assert "Entfolgen" in seen["profile"] and "Blockieren" in seen["profile"] and "Melden" in seen["profile"]
    assert "Statistik" in seen["mystats"] and "Vorteil jedes Platzes" in seen["leaderboard"]
    assert errors == []
    context.close()


def test_refusal_on_a_page_reads_in_german(browser, site):
    """A refusal the server sends (here: following an unknown player) shows in German."""
    context = browser.new_context(viewport=SIZES["desktop"], locale="de-DE")
    page = context.new_page()
    page.goto(site.url + "/api/games")
    assert page.request.post(site.url + "/api/account/login", data={"name": "Hans", "password": "correct horse"}).ok
    page.goto(site.url + "/friends")
    page.wait_for_selector("#follow-name")
    page.fill("#follow-name", "Niemand")
    page.click("#follow-go")
    page.wait_for_function("() => document.getElementById('follow-error').textContent.length > 0")
    assert page.locator("#follow-error").text_content() == "Einen Spieler mit diesem Namen gibt es nicht."
    context.close()
