"""Moderation in the browser: a player reports a chat line with its flag, the admin hides it
from the admin page (it changes on the other player's open page at once) and bans its author
(whose open table page shows the reason at once); a profile's Report button.  At desktop and
phone sizes (screenshots in tests/web/artifacts/moderation-*.png)."""

from __future__ import annotations

import re

import pytest

from gemtable.server import moderation

from .conftest import LiveServer
from .test_mobile import _check_shell

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from gemtable.server.limits import Limits

    db = tmp_path_factory.mktemp("moderationdb") / "web.sqlite3"
    server = LiveServer(f"sqlite:///{db}", limits=Limits.relaxed()).start()
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
    page.screenshot(path=str(artifacts / f"moderation-{name}.png"))
    _check_shell(page, name)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_report_hide_and_ban_from_the_admin_page(browser, site, artifacts, size):
    ada, ann, bob = (account(browser, site, f"{n}{size}", size) for n in ("Ada", "Ann", "Bob"))
    assert moderation.grant(site.app.state.manager.db, f"Ada{size}") == f"Ada{size}"
    r = ann.request.post(site.url + "/api/tables", data={"game": "splendor", "players": 2,
                                                         "seats": [{"kind": "me"}, {"kind": "open"}]})
    tid = r.json()["table"]["id"]
    assert bob.request.post(f"{site.url}/api/tables/{tid}/join", data={}).ok
    for p in (ann, bob):
        p.goto(f"{site.url}/table/{tid}")
        p.wait_for_function("() => document.body.dataset.seat !== undefined && document.body.dataset.seat !== ''")
        if p.locator("#chat-panel:not([open]) summary").count():
            p.click("#chat-panel summary")
    bob.fill("#chat-input", "you are all idiots")
    bob.click("#chat-send")
    line = ann.locator(".chat-line", has_text="you are all idiots")
    line.wait_for()
    assert bob.locator(".chat-line.mine .chat-report").count() == 0  # no flag on one's own lines
    line.locator(".chat-report").click()
    ann.wait_for_selector("#report-dialog[open]")
    ann.fill("#report-reason", "insults")
    shoot(ann, artifacts, f"report-{size}")
    ann.click("#report-send")
    ann.wait_for_selector("#report-dialog", state="detached")

    ada.goto(site.url + "/")
    ada.wait_for_selector("#nav-admin:not([hidden])", state="attached")
    ada.goto(site.url + "/admin")
    ada.wait_for_selector("#mod-reports .mod-report")
    assert "you are all idiots" in ada.locator("#mod-reports").text_content()
    shoot(ada, artifacts, f"admin-{size}")
    ada.get_by_role("button", name="Hide line").click()
    ada.wait_for_selector("#mod-reports.muted")  # no open reports
    # the line changes on Ann's open page at once
    ann.locator(".chat-line", has_text=moderation.HIDDEN_TEXT).wait_for(timeout=5000)
    assert ann.locator(".chat-line", has_text="you are all idiots").count() == 0
    # the ban: Bob's open table page shows why, at once
    ada.fill("#mod-player", f"Bob{size}")
    ada.fill("#mod-reason", "insults at the table")
    ada.click("#mod-ban")
    ada.wait_for_selector("#mod-sanctions li")
    bob.wait_for_function("(t) => document.body.innerText.includes(t)", arg="insults at the table", timeout=5000)
    shoot(bob, artifacts, f"banned-{size}")
    ada.wait_for_selector("#mod-audit tbody tr")
    assert {"grant", "hide", "ban"} <= {t.strip() for t in ada.locator("#mod-audit td:nth-child(3)").all_text_contents()}
    shoot(ada, artifacts, f"admin-after-{size}")
    # a profile's Report button
    ann.goto(f"{site.url}/players/Ada{size}")
    ann.wait_for_selector("#report-player")
    shoot(ann, artifacts, f"profile-{size}")
    assert ann.js_errors == [] and ada.js_errors == [] and bob.js_errors == []
    for p in (ada, ann, bob):
        p.context.close()


def test_a_player_sees_no_admin_link_and_the_admin_page_says_why(browser, site):
    ann = account(browser, site, "Plain", "desktop")
    ann.goto(site.url + "/admin")
    ann.wait_for_selector(".moderation h1")
    assert re.search("admins", ann.locator(".moderation").text_content())
    assert ann.locator("#nav-admin").is_hidden()
    ann.context.close()
