"""The community in the browser: the "your turn" list and notifications, mail settings with the
links of real mails (aiosmtpd in the test process), friends, invitations and blocks; at desktop
and phone sizes (screenshots in tests/web/artifacts/community-*.png)."""

from __future__ import annotations

import re

import pytest

from tests.server.test_community import Inbox, SmtpServer, mail_settings, wait_for

from .conftest import LiveServer
from .test_mobile import _check_shell

pytest.importorskip("aiosmtpd")

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# Notifications as the page sees them: permission granted, every one recorded
FAKE_NOTIFICATIONS = """
window.__notes = [];
window.Notification = class {
  constructor(title, opts) { window.__notes.push({ title, tag: (opts || {}).tag }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
document.hasFocus = () => false;
"""


@pytest.fixture(scope="module")
def smtp():
    server = SmtpServer(Inbox())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory, smtp):
    from gemtable.server.limits import Limits

    db = tmp_path_factory.mktemp("communitydb") / "web.sqlite3"
    server = LiveServer(f"sqlite:///{db}", limits=Limits.relaxed())
    server.app_options["mail"] = mail_settings(smtp.port, site=server.url)
    server.start()
    yield server
    server.stop()


def player(browser, site, name, size="desktop", notifications=False, locale=None):
    context = browser.new_context(viewport=SIZES[size], **({"locale": locale} if locale else {}))
    if notifications:
        context.add_init_script(FAKE_NOTIFICATIONS)
        context.add_init_script("localStorage.setItem('gt.notify', '1')")
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    page.goto(site.url + "/api/games")
    r = page.request.post(site.url + "/api/me", data={"name": name})
    assert r.ok, r.text()
    return page


def hosted_table(page, site, players=2):
    r = page.request.post(site.url + "/api/tables", data={
        "game": "splendor", "players": players, "seats": [{"kind": "me"}] + [{"kind": "open"}] * (players - 1)})
    assert r.status == 201, r.text()
    return r.json()["table"]["id"]


def shoot(page, artifacts, name):
    """A screenshot; on a phone the page is also checked as every page is (test_mobile: no
    sideways scrolling, no text too small to read, no tap target too small)."""
    page.wait_for_timeout(200)
    page.screenshot(path=str(artifacts / f"community-{name}.png"))
    page.size_name = "phone" if name.endswith("-phone") else "desktop"
    _check_shell(page, name)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_header_lists_my_turns_and_the_browser_notifies(browser, site, artifacts, size):
    ann = player(browser, site, f"Ann{size}", size, notifications=True)
    bob = player(browser, site, f"Bob{size}", size)
    tid = hosted_table(ann, site)
    assert bob.request.post(f"{site.url}/api/tables/{tid}/join", data={}).ok  # the game starts: Ann moves
    ann.goto(site.url + "/")
    ann.wait_for_selector("#turns:not([hidden])")
    assert ann.locator(".turns-count").text_content() == "1"
    assert wait_for(lambda: ann.evaluate("window.__notes.length") >= 1, 10)
    assert ann.evaluate("window.__notes")[0] == {"title": "Your turn at Splendor", "tag": f"gt-turn-{tid}"}
    ann.click("#turns-button")
    link = ann.locator(f".turns-list a[data-table='{tid}']")
    assert link.is_visible() and f"with Bob{size}" in link.text_content()
    box = ann.locator("#turns-list").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"]  # inside the screen
    shoot(ann, artifacts, f"turns-{size}")
    link.click()
    ann.wait_for_url(re.compile(rf"/table/{tid}"))
    # Bob's own list is empty: no badge
    bob.goto(site.url + "/")
    bob.wait_for_selector("#nav-friends", state="attached")
    bob.wait_for_timeout(500)
    assert bob.locator("#turns").is_hidden()
    assert ann.js_errors == [] and bob.js_errors == []
    ann.context.close()
    bob.context.close()


# the header's targets as the player sees them: where each is and how large
HEADER = """() => [...document.querySelectorAll('.topbar > .brand, #turns-button, #lang-picker, #menu-button')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).display !== 'none')
  .map((e) => { const r = e.getBoundingClientRect(); return { id: e.id || e.className, x: r.x, y: r.y, w: r.width, h: r.height }; })"""


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_header_holds_the_turns_button_and_the_language_picker(browser, site, artifacts, size, lang):
    """With the "your turn" button, the language picker and (on a phone) the menu button, every
    header target stays whole, in the screen and, on a phone, in one row of 40 px targets."""
    gus = player(browser, site, f"Gus{size}{lang}", size, locale="de-DE" if lang == "de" else None)
    hal = player(browser, site, f"Hal{size}{lang}", size)
    tid = hosted_table(gus, site)
    assert hal.request.post(f"{site.url}/api/tables/{tid}/join", data={}).ok
    gus.goto(site.url + "/")
    gus.wait_for_selector("#turns:not([hidden])")
    gus.wait_for_selector("#lang-picker:not([hidden])")
    assert gus.evaluate("document.documentElement.lang") == lang
    shoot(gus, artifacts, f"header-{lang}-{size}")  # (on a phone: every tap target 40 px or more)
    targets = gus.evaluate(HEADER)
    assert len(targets) == (4 if size == "phone" else 3), targets
    for t in targets:
        assert t["x"] >= 0 and t["x"] + t["w"] <= SIZES[size]["width"], t
    if size == "phone":
        assert all(t["w"] >= 40 and t["h"] >= 40 for t in targets), targets
        assert max(t["y"] for t in targets) - min(t["y"] for t in targets) < 20, targets  # one row
    assert gus.js_errors == []
    gus.context.close()
    hal.context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_mail_settings_confirm_and_unsubscribe_with_the_links_of_real_mails(browser, site, smtp, artifacts, size):
    address = f"cleo.{size}@example.org"
    cleo = player(browser, site, f"Cleo{size}", size)
    cleo.goto(site.url + "/settings")
    cleo.wait_for_selector("#mail-form")
    shoot(cleo, artifacts, f"settings-empty-{size}")
    cleo.fill("#mail-address", address)
    cleo.click("#mail-save")
    cleo.wait_for_selector(".mail-status.pending")
    shoot(cleo, artifacts, f"settings-pending-{size}")
    assert wait_for(lambda: any(m["To"] == address for m in smtp.inbox.messages), 20)
    msg = [m for m in smtp.inbox.messages if m["To"] == address][-1]
    link = re.search(r"(http://\S+/mail/confirm#t=\S+)", msg.get_body(("plain",)).get_content()).group(1)
    cleo.goto(link)
    cleo.wait_for_selector("#link-result h1")
    assert cleo.locator("#link-result h1").text_content() == "Address confirmed"
    assert "#t=" not in cleo.url  # the token left the address bar
    shoot(cleo, artifacts, f"confirmed-{size}")
    cleo.goto(site.url + "/settings")
    cleo.wait_for_selector(".mail-status.ok")
    cleo.check("input[name=mail-mode][value=daily]")
    assert wait_for(lambda: cleo.request.get(site.url + "/api/me/mail").json()["mode"] == "daily", 10)
    shoot(cleo, artifacts, f"settings-confirmed-{size}")
    # a turn mail's unsubscribe link, opened in a browser that is not logged in
    dan = player(browser, site, f"Dan{size}", size)
    tid = hosted_table(dan, site)
    assert cleo.request.post(site.url + "/api/me/mail/prefs", data={"mode": "move"}).ok
    assert cleo.request.post(f"{site.url}/api/tables/{tid}/join", data={}).ok
    dan_token = dan.request.get(f"{site.url}/api/tables/{tid}/seat").json()["token"]
    state = dan.request.get(f"{site.url}/api/tables/{tid}/state", headers={"X-Seat-Token": dan_token}).json()
    r = dan.request.post(f"{site.url}/api/tables/{tid}/actions", headers={"X-Seat-Token": dan_token},
                         data={"version": state["version"], "action": state["legal"][0]["json"]})
    assert r.ok, r.text()
    assert wait_for(lambda: any(m["To"] == address and "Your turn" in m["Subject"] for m in smtp.inbox.messages), 20)
    turn = [m for m in smtp.inbox.messages if m["To"] == address and "Your turn" in m["Subject"]][-1]
    link = re.search(r"(http://\S+/mail/unsubscribe#t=\S+)", turn.get_body(("plain",)).get_content()).group(1)
    stranger = browser.new_context(viewport=SIZES[size]).new_page()
    stranger.goto(link)
    stranger.wait_for_selector("#link-result h1")
    assert stranger.locator("#link-result h1").text_content() == "No more mails"
    shoot(stranger, artifacts, f"unsubscribed-{size}")
    assert cleo.request.get(site.url + "/api/me/mail").json()["mode"] == "never"
    assert cleo.js_errors == []
    for p in (cleo, dan, stranger):
        p.context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_follow_invite_accept_and_block_in_the_browser(browser, site, artifacts, size):
    eve, fay = f"Eve{size}", f"Fay{size}"
    e = player(browser, site, eve, size)
    f = player(browser, site, fay, size)
    f.goto(site.url + "/")  # Fay's page is open: she is online
    f.wait_for_selector("#nav-friends", state="attached")
    # Eve follows Fay from her profile
    e.goto(f"{site.url}/players/{fay}")
    e.click("#follow-button")
    e.wait_for_selector("#follow-button:text('Unfollow')")
    shoot(e, artifacts, f"profile-{size}")
    tid = hosted_table(f, site, players=3)
    e.goto(site.url + "/friends")
    e.wait_for_selector(f"li.friend[data-name='{fay}'] .dot.on")
    assert e.locator(f"li.friend[data-name='{fay}'] .friend-tables li").count() == 1
    shoot(e, artifacts, f"friends-{size}")
    # Fay (at her waiting table) invites Eve: Fay follows Eve first
    assert f.request.post(site.url + "/api/me/follows", data={"name": eve}).ok
    f.goto(f"{site.url}/table/{tid}")
    f.wait_for_selector("#invite-go")
    f.select_option("#invite-who", eve)
    f.click("#invite-go")
    f.wait_for_selector("#toast.show")
    assert "invited" in f.locator("#toast").text_content()
    shoot(f, artifacts, f"waiting-invite-{size}")
    e.goto(site.url + "/me")
    e.wait_for_selector("#my-invites")
    assert fay in e.locator("#my-invites").text_content()
    shoot(e, artifacts, f"my-games-invite-{size}")
    e.click("#my-invites .accept")
    e.wait_for_url(re.compile(rf"/table/{tid}"))
    e.wait_for_selector(".wait-seat.you")
    # a blocked player cannot join
    gus = player(browser, site, f"Gus{size}", size)
    f.goto(f"{site.url}/players/Gus{size}")
    f.click("#block-button")
    f.wait_for_selector("#block-button:text('Unblock')")
    r = gus.request.post(f"{site.url}/api/tables/{tid}/join", data={})
    assert r.status == 403 and r.json()["error"] == "blocked"
    f.goto(site.url + "/settings")
    f.wait_for_selector("#blocked-list li")
    assert e.js_errors == [] and f.js_errors == []
    for p in (e, f, gus):
        p.context.close()
