"""Turn alerts by mail, the "your turn" list, friends, blocks and seat invitations.

Mails go through a real SMTP server started in the test process (aiosmtpd) and are read back
from what it received.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import logging
import re
import threading
import time

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from gemtable.server import create_app
from gemtable.server.db import (
    BlockRow,
    FollowRow,
    MailAddressRow,
    MailRow,
    SeatInviteRow,
    TurnRow,
)
from gemtable.server.limits import Limits
from gemtable.server.mail import MailSettings

from .conftest import free_port
from .test_lobby import pick, state, wait_for
from .test_players import named, other

aiosmtpd_controller = pytest.importorskip("aiosmtpd.controller")


class Inbox:
    """What the test SMTP server received: one parsed message per accepted DATA."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.lock = threading.Lock()
        self.hold = 0.0  # seconds to wait before answering a DATA command
        self.arrived = threading.Event()  # a DATA command arrived (before the answer)

    async def handle_DATA(self, server, session, envelope):
        import asyncio

        self.arrived.set()
        if self.hold:
            await asyncio.sleep(self.hold)
        transport = getattr(server, "transport", None)
        if transport is not None and transport.is_closing():
            return "421 the client went away"  # never answered: the client did not see it accepted
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(msg)
        return "250 OK"

    def of_kind(self, subject_part: str) -> list[email.message.EmailMessage]:
        with self.lock:
            return [m for m in self.messages if subject_part in m["Subject"]]

    def wait(self, subject_part: str, count: int = 1, timeout: float = 20.0) -> list[email.message.EmailMessage]:
        assert wait_for(lambda: len(self.of_kind(subject_part)) >= count, timeout), \
            f"{count} mail(s) '{subject_part}' expected, got {[m['Subject'] for m in self.messages]}"
        return self.of_kind(subject_part)


class SmtpServer:
    def __init__(self, inbox: Inbox, port: int | None = None) -> None:
        self.inbox = inbox
        self.port = port or free_port()
        self.controller = None

    def start(self) -> None:
        self.controller = aiosmtpd_controller.Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def smtp():
    server = SmtpServer(Inbox())
    server.start()
    yield server
    server.stop()


def mail_settings(port: int, **kw) -> MailSettings:
    return MailSettings(**{"host": "127.0.0.1", "port": port, "tls": "none", "site": "http://gt.test", "poll": 0.1,
                           "timeout": 2.0, "lease": 5.0, "retry": 0.3, **kw})


@pytest.fixture
def mclient(db_url, toy_registered, smtp):
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed(), mail=mail_settings(smtp.port))
    with TestClient(app) as c:
        yield c


def token_of(msg, path: str) -> str:
    text = msg.get_body(("plain",)).get_content()
    found = re.search(rf"http://gt\.test{path}#t=([A-Za-z0-9._-]+)", text)
    assert found, text
    return found.group(1)


def confirmed(client, who, address, inbox) -> None:
    r = who.put("/api/me/mail", json={"address": address})
    assert r.status_code == 200, r.text
    assert r.json()["address"] == address and r.json()["confirmed"] is False
    msg = [m for m in inbox.wait("Confirm your e-mail") if m["To"] == address][-1]
    token = token_of(msg, "/mail/confirm")
    assert other(client, "198.51.100.9").post("/api/mail/confirm", json={"token": token}).json() == {"confirmed": True}
    assert who.get("/api/me/mail").json()["confirmed"] is True


def started_table(client, host_name="Ann", guest_name="Bob"):
    """A toy table of two players (named browsers); the game has started."""
    ann = named(client, host_name, host="203.0.113.7")
    r = ann.post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
    assert r.status_code == 201, r.text
    tid, ann_token = r.json()["table"]["id"], r.json()["seats"][0]["token"]
    bob = named(client, guest_name, host="203.0.113.20")
    return ann, bob, tid, ann_token, bob


def join(bob, tid):
    r = bob.post(f"/api/tables/{tid}/join", json={})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def turn_mails(inbox, to):
    return [m for m in inbox.of_kind("Your turn") if m["To"] == to]


# -- mail ----------------------------------------------------------------------------------------
def test_a_confirmed_player_gets_one_escaped_turn_mail_per_table_per_quarter_hour(mclient, smtp):
    inbox = smtp.inbox
    ann, bob, tid, ann_token, _ = started_table(mclient, host_name="Ann <i>&amp;", guest_name="Bob")
    confirmed(mclient, bob, "bob@example.org", inbox)
    bob_token = join(bob, tid)  # the game starts: both seats pick (toy)
    msg = inbox.wait("Your turn")[0]
    assert msg["To"] == "bob@example.org" and msg["Subject"] == "Your turn at Toy Picks"
    assert msg["Message-ID"] and msg["List-Unsubscribe"].startswith("<http://gt.test/api/mail/unsubscribe/")
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    page = msg.get_body(("html",)).get_content()
    assert "Ann &lt;i&gt;&amp;amp;" in page and "<i>" not in page
    assert f"http://gt.test/table/{tid}" in page
    # Bob's list of tables waiting for him
    assert [t["table"] for t in bob.get("/api/me/turns").json()["turns"]] == [tid]
    # a whole round: the next round waits for Bob again, within the quarter hour: no second mail
    assert pick(mclient, tid, ann_token).status_code == 200
    assert pick(mclient, tid, bob_token).status_code == 200
    assert wait_for(lambda: tid in [t["table"] for t in bob.get("/api/me/turns").json()["turns"]])
    time.sleep(1.0)
    assert len(turn_mails(inbox, "bob@example.org")) == 1
    # a quarter hour later the next turn is mailed again
    with mclient.app.state.manager.db.session() as s:
        s.execute(update(MailRow).values(created_at=MailRow.created_at - dt.timedelta(minutes=16)))
        s.commit()
    assert pick(mclient, tid, ann_token).status_code == 200
    assert pick(mclient, tid, bob_token).status_code == 200
    assert len(inbox.wait("Your turn", 2)) == 2
    # when Bob has picked the table no longer waits for him
    assert pick(mclient, tid, bob_token).status_code == 200
    assert wait_for(lambda: bob.get("/api/me/turns").json()["turns"] == [])
    assert ann.get("/api/me/turns").json()["turns"][0]["table"] == tid


def test_a_player_with_the_table_open_gets_no_turn_mail(mclient, smtp):
    from .conftest import seat_socket

    _, bob, tid, ann_token, _ = started_table(mclient)
    confirmed(mclient, bob, "bob@example.org", smtp.inbox)
    bob_token = join(bob, tid)
    smtp.inbox.wait("Your turn")  # the page was not open
    with mclient.app.state.manager.db.session() as s:  # the quarter hour has passed
        s.execute(update(MailRow).values(created_at=MailRow.created_at - dt.timedelta(minutes=16)))
        s.commit()
    with seat_socket(mclient, tid, bob_token) as ws:
        ws.receive_json()
        assert pick(mclient, tid, bob_token).status_code == 200
        assert pick(mclient, tid, ann_token).status_code == 200  # a new round: Bob to move, his page open
        assert wait_for(lambda: tid in [t["table"] for t in bob.get("/api/me/turns").json()["turns"]])
        time.sleep(1.0)
    assert len(turn_mails(smtp.inbox, "bob@example.org")) == 1


def test_unconfirmed_daily_and_never_get_no_turn_mail_and_the_digest_lists_the_tables(mclient, smtp):
    inbox = smtp.inbox
    _, bob, tid, _, _ = started_table(mclient)
    assert bob.put("/api/me/mail", json={"address": "bob@example.org"}).status_code == 200
    inbox.wait("Confirm your e-mail")
    join(bob, tid)
    time.sleep(1.0)
    assert turn_mails(inbox, "bob@example.org") == []  # not confirmed: only the confirm mail
    token = token_of(inbox.of_kind("Confirm")[0], "/mail/confirm")
    assert mclient.post("/api/mail/confirm", json={"token": token}).status_code == 200
    assert bob.post("/api/me/mail/prefs", json={"mode": "daily"}).json()["mode"] == "daily"
    time.sleep(0.5)
    assert inbox.of_kind("wait") == []  # the first digest a day after choosing it
    with mclient.app.state.manager.db.session() as s:
        s.execute(update(MailAddressRow).values(digest_at=MailAddressRow.digest_at - dt.timedelta(hours=25)))
        s.commit()
    digest = inbox.wait("waits for your move")[0]
    assert f"http://gt.test/table/{tid}" in digest.get_body(("plain",)).get_content()
    time.sleep(1.0)
    assert len(inbox.of_kind("waits for your move")) == 1  # one a day
    assert bob.post("/api/me/mail/prefs", json={"mode": "never"}).json()["mode"] == "never"
    with mclient.app.state.manager.db.session() as s:
        s.execute(update(MailAddressRow).values(digest_at=MailAddressRow.digest_at - dt.timedelta(hours=25)))
        s.commit()
    time.sleep(1.0)
    assert len(inbox.of_kind("waits for your move")) == 1 and turn_mails(inbox, "bob@example.org") == []


def test_the_unsubscribe_link_needs_no_login_and_a_forged_one_changes_nothing(mclient, smtp):
    _, bob, tid, _, _ = started_table(mclient)
    confirmed(mclient, bob, "bob@example.org", smtp.inbox)
    join(bob, tid)
    msg = smtp.inbox.wait("Your turn")[0]
    token = token_of(msg, "/mail/unsubscribe")
    stranger = other(mclient, "198.51.100.10")
    for forged in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "x" * 40, token + "x"):
        r = stranger.post("/api/mail/unsubscribe", json={"token": forged})
        assert r.status_code == 400 and r.json()["error"] == "bad_token"
    assert bob.get("/api/me/mail").json()["mode"] == "move"
    assert stranger.post("/api/mail/unsubscribe", json={"token": token}).json() == {"unsubscribed": True}
    assert bob.get("/api/me/mail").json()["mode"] == "never"
    # the mail program's one-click POST (RFC 8058) works the same
    assert bob.post("/api/me/mail/prefs", json={"mode": "move"}).status_code == 200
    one_click = msg["List-Unsubscribe"].strip("<>").replace("http://gt.test", "")
    r = stranger.post(one_click, content=b"List-Unsubscribe=One-Click",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 204
    assert bob.get("/api/me/mail").json()["mode"] == "never"
    # saving the same confirmed address again changes nothing
    sent = len(smtp.inbox.messages)
    assert bob.put("/api/me/mail", json={"address": "bob@example.org"}).json()["confirmed"] is True
    time.sleep(0.5)
    assert len(smtp.inbox.messages) == sent
    # a new address: the old address's links stop working
    assert bob.put("/api/me/mail", json={"address": "bob2@example.org"}).status_code == 200
    assert stranger.post("/api/mail/unsubscribe", json={"token": token}).status_code == 400


def test_an_address_is_shown_to_its_owner_only_and_never_logged(mclient, smtp, caplog):
    caplog.set_level(logging.DEBUG)
    ann, bob, tid, _, _ = started_table(mclient)
    confirmed(mclient, bob, "secret.bob@example.org", smtp.inbox)
    assert ann.post("/api/me/follows", json={"name": "Bob"}).status_code == 200
    join(bob, tid)
    smtp.inbox.wait("Your turn")
    seen = [ann.get(p).text for p in ("/api/me/mail", "/api/me/friends", "/api/me/turns", "/api/players/Bob",
                                      "/api/tables", f"/api/tables/{tid}", "/api/me/games", "/api/me/invites")]
    assert all("secret.bob" not in text for text in seen)
    assert "secret.bob" in bob.get("/api/me/mail").text
    # (aiosmtpd's own log, "mail.log", is the receiving server's, not gemtable's)
    ours = [r for r in caplog.records if not r.name.startswith("mail.log")]
    assert ours and not [r for r in ours if "secret.bob" in r.getMessage()]


def test_a_mail_server_that_is_down_loses_nothing(db_url, toy_registered):
    inbox = Inbox()
    server = SmtpServer(inbox)  # not started: the port refuses connections
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed(), mail=mail_settings(server.port))
    with TestClient(app) as client:
        bob = named(client, "Bob")
        assert bob.put("/api/me/mail", json={"address": "bob@example.org"}).status_code == 200
        db = client.app.state.manager.db

        def row():
            with db.session() as s:
                return s.scalars(select(MailRow)).one()

        assert wait_for(lambda: row().attempts >= 2)
        assert row().status == "queued" and row().sent_at is None
        server.start()
        try:
            assert len(inbox.wait("Confirm your e-mail", timeout=30)) == 1
            assert wait_for(lambda: row().status == "sent")
            assert inbox.messages[0]["Message-ID"].strip() == row().message_id
        finally:
            server.stop()


def test_a_temporary_refusal_is_tried_again_a_permanent_one_is_not(db_url, toy_registered, smtp):
    class Picky(Inbox):
        def __init__(self):
            super().__init__()
            self.answers = ["451 try later"]

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address.startswith("never@"):
                return "550 no such user"
            if self.answers:
                return self.answers.pop()
            envelope.rcpt_tos.append(address)
            return "250 OK"

    smtp.stop()
    smtp.inbox = Picky()
    smtp.start()
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed(), mail=mail_settings(smtp.port))
    with TestClient(app) as client:
        assert named(client, "Bob").put("/api/me/mail", json={"address": "bob@example.org"}).status_code == 200
        assert named(client, "Nev", host="203.0.113.9").put("/api/me/mail", json={"address": "never@example.org"}).status_code == 200
        smtp.inbox.wait("Confirm your e-mail")
        db = client.app.state.manager.db

        def statuses():
            with db.session() as s:
                return {r.address: (r.status, r.attempts) for r in s.scalars(select(MailRow))}

        assert wait_for(lambda: statuses().get("never@example.org", ("",))[0] == "failed")
        assert wait_for(lambda: statuses()["bob@example.org"] == ("sent", 2))
        time.sleep(0.5)
        assert statuses()["never@example.org"] == ("failed", 1)


# -- friends, blocks, invitations -------------------------------------------------------------------
def test_friends_online_with_open_tables_and_an_invitation_shown_and_mailed(mclient, smtp):
    ann = named(mclient, "Ann", host="203.0.113.7")
    bob = named(mclient, "Bob", host="203.0.113.20")
    confirmed(mclient, bob, "bob@example.org", smtp.inbox)
    assert bob.post("/api/me/follows", json={"name": "ann"}).json() == {"following": "Ann"}
    friends = bob.get("/api/me/friends").json()["friends"]
    assert friends == [{"name": "Ann", "online": False, "tables": []}]
    ann.get("/api/me/turns")  # Ann's page is open
    r = ann.post("/api/tables", json={"game": "toy", "players": 3,
                                      "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
    tid = r.json()["table"]["id"]
    friends = bob.get("/api/me/friends").json()["friends"]
    assert friends[0]["online"] is True
    assert friends[0]["tables"] == [{"table": tid, "game": "toy", "title": "Toy Picks", "players": 3, "free": 2}]
    # Ann invites Bob to seat 2
    assert ann.post(f"/api/tables/{tid}/invite", json={"name": "Bob", "seat": 2}).json() == {"invited": "Bob", "seat": 2}
    invites = bob.get("/api/me/invites").json()["invites"]
    assert [(i["table"], i["seat"], i["from"]) for i in invites] == [(tid, 2, "Ann")]
    msg = smtp.inbox.wait("invites you")[0]
    assert msg["To"] == "bob@example.org" and msg["Subject"] == "Ann invites you to Toy Picks"
    # accepting is joining the seat; the invitation is gone then
    assert bob.post(f"/api/tables/{tid}/join", json={"seat": 2}).status_code == 200
    assert bob.get("/api/me/invites").json()["invites"] == []
    # only a seated player invites, only to a free open seat
    cleo = named(mclient, "Cleo", host="203.0.113.21")
    assert cleo.post(f"/api/tables/{tid}/invite", json={"name": "Bob"}).status_code == 403
    assert ann.post(f"/api/tables/{tid}/invite", json={"name": "Cleo", "seat": 2}).status_code == 409
    assert ann.post(f"/api/tables/{tid}/invite", json={"name": "Cleo"}).json()["seat"] == 1
    assert cleo.post(f"/api/me/invites/{tid}/decline").status_code == 200
    assert cleo.get("/api/me/invites").json()["invites"] == []
    assert bob.post("/api/me/unfollow", json={"name": "Ann"}).status_code == 200
    assert bob.get("/api/me/friends").json()["friends"] == []


def test_a_blocked_player_cannot_join_invite_or_follow(mclient, smtp):
    ann = named(mclient, "Ann", host="203.0.113.7")
    bob = named(mclient, "Bob", host="203.0.113.20")
    assert bob.post("/api/me/follows", json={"name": "Ann"}).status_code == 200
    assert ann.post("/api/me/blocks", json={"name": "Bob"}).json() == {"blocked": "Bob"}
    assert bob.get("/api/me/friends").json()["friends"] == []  # the follow was dropped
    assert ann.get("/api/me/friends").json()["blocked"] == ["Bob"]
    r = ann.post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
    tid = r.json()["table"]["id"]
    r = bob.post(f"/api/tables/{tid}/join", json={})
    assert r.status_code == 403 and r.json()["error"] == "blocked"
    assert mclient.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    assert bob.post("/api/me/follows", json={"name": "Ann"}).status_code == 403
    r2 = bob.post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
    assert bob.post(f"/api/tables/{r2.json()['table']['id']}/invite", json={"name": "Ann"}).status_code == 403
    assert ann.get("/api/me/invites").json()["invites"] == []
    # unblocked: Bob may join again
    assert ann.post("/api/me/unblock", json={"name": "Bob"}).status_code == 200
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200


def test_follows_invites_and_address_changes_are_rate_limited(db_url, toy_registered, smtp):
    app = create_app(db_url, bot_delay=0.0, mail=mail_settings(smtp.port))
    with TestClient(app) as client:
        ann = named(client, "Ann")
        for i in range(3):
            named(client, f"P{i}", host=f"203.0.113.{50 + i}")
        codes = [ann.post("/api/me/follows", json={"name": f"P{i % 3}"}).status_code for i in range(25)]
        assert codes[:20] == [200] * 20 and 429 in codes[20:]
        codes = [ann.put("/api/me/mail", json={"address": f"a{i}@example.org"}).status_code for i in range(5)]
        assert codes[:3] == [200] * 3 and codes[3:] == [429, 429]
        r = ann.post("/api/tables", json={"game": "toy", "players": 3,
                                          "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
        tid = r.json()["table"]["id"]
        codes = [ann.post(f"/api/tables/{tid}/invite", json={"name": f"P{i % 3}"}).status_code for i in range(12)]
        assert codes[:10] == [200] * 10 and codes[10:] == [429, 429]


# -- bad input --------------------------------------------------------------------------------------
ENDPOINTS = [
    ("put", "/api/me/mail"), ("post", "/api/me/mail/prefs"), ("post", "/api/mail/confirm"),
    ("post", "/api/mail/unsubscribe"), ("post", "/api/me/follows"), ("post", "/api/me/unfollow"),
    ("post", "/api/me/blocks"), ("post", "/api/me/unblock"), ("post", "/api/tables/{tid}/invite"),
    ("post", "/api/me/invites/{tid}/decline"), ("delete", "/api/me/mail"), ("post", "/api/mail/unsubscribe/{tid}"),
    ("get", "/api/me/mail"), ("get", "/api/me/turns"), ("get", "/api/me/friends"), ("get", "/api/me/invites"),
]
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=10)
BODIES = st.one_of(
    JSONISH,
    st.fixed_dictionaries({}, optional={"address": JSONISH, "mode": JSONISH, "invites": JSONISH, "token": JSONISH,
                                        "name": JSONISH, "seat": JSONISH}),
)


def community_rows(client):
    with client.app.state.manager.db.session() as s:
        return tuple(sorted(repr((type(r).__name__, {k: v for k, v in vars(r).items() if not k.startswith("_")}))
                            for kind in (MailAddressRow, FollowRow, BlockRow, SeatInviteRow, TurnRow)
                            for r in s.scalars(select(kind))))


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(ENDPOINTS), body=BODIES, logged_in=st.booleans(), path_text=st.text(max_size=40))
def test_community_endpoints_never_500_and_refusals_change_nothing(mclient, which, body, logged_in, path_text):
    client = mclient
    if not hasattr(client, "fuzz"):
        ann = named(client, "Ann", host="203.0.113.7")
        r = ann.post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]})
        client.fuzz = (ann, other(client, "203.0.113.99"), r.json()["table"]["id"])
    ann, stranger, tid = client.fuzz
    who = ann if logged_in else stranger
    method, path = which
    from urllib.parse import quote

    path = path.replace("{tid}", tid if path_text == "" else quote(path_text, safe=""))
    before = community_rows(client)
    r = who.request(method.upper(), path, json=body) if method != "get" else who.get(path)
    assert r.status_code < 500, (method, path, body, r.text)
    if r.status_code >= 400:
        assert community_rows(client) == before, (method, path, body, r.text)


def test_a_blocked_player_does_not_see_the_blockers_chat(mclient):
    from .conftest import seat_socket

    ann, bob, tid, ann_token, _ = started_table(mclient)
    bob_token = join(bob, tid)  # seated before the block
    assert ann.post("/api/me/blocks", json={"name": "Bob"}).status_code == 200

    def lines(ws, until):
        got = []
        while True:
            msg = ws.receive_json()
            if msg["type"] == "chat":
                got.append(msg["line"]["text"])
                if msg["line"]["text"] == until:
                    return got

    time.sleep(0.3)  # the table's blocks are read again after the block
    with seat_socket(mclient, tid, ann_token) as a, seat_socket(mclient, tid, bob_token) as b:
        first_a, first_b = a.receive_json(), b.receive_json()
        assert first_a["type"] == first_b["type"] == "state"
        a.send_json({"type": "chat", "text": "secret plan"})
        b.send_json({"type": "chat", "text": "hello Ann"})
        assert lines(a, "hello Ann")[-2:] == ["secret plan", "hello Ann"]
        assert "secret plan" not in lines(b, "hello Ann")
    # a fresh connection's chat history leaves Ann's lines out for Bob only
    with seat_socket(mclient, tid, bob_token) as b:
        history = [line["text"] for line in b.receive_json()["chat"]]
        assert "hello Ann" in history and "secret plan" not in history
    with seat_socket(mclient, tid, ann_token) as a:
        assert "secret plan" in [line["text"] for line in a.receive_json()["chat"]]
    # unblocked: Bob reads Ann again
    assert ann.post("/api/me/unblock", json={"name": "Bob"}).status_code == 200
    time.sleep(0.3)
    with seat_socket(mclient, tid, bob_token) as b:
        assert "secret plan" in [line["text"] for line in b.receive_json()["chat"]]


def test_a_guest_logging_in_keeps_its_follows_blocks_address_and_turns(mclient, smtp):
    ann, bob, tid, _, _ = started_table(mclient)
    acct = named(mclient, "Acct", host="203.0.113.30")
    assert acct.post("/api/account/register", json={"password": "correct horse"}).status_code == 200
    assert acct.post("/api/me/follows", json={"name": "Ann"}).status_code == 200
    confirmed(mclient, bob, "bob@example.org", smtp.inbox)
    assert bob.post("/api/me/follows", json={"name": "Ann"}).status_code == 200
    assert bob.post("/api/me/blocks", json={"name": "Acct"}).status_code == 200  # (dropped: that is himself now)
    join(bob, tid)
    assert wait_for(lambda: [t["table"] for t in ann.get("/api/me/turns").json()["turns"]] == [tid])
    # the guest Bob logs in to the account: one player, everything kept, nothing twice
    r = bob.post("/api/account/login", json={"name": "Acct", "password": "correct horse"})
    assert r.status_code == 200, r.text
    assert bob.get("/api/me/friends").json() == {"friends": [{"name": "Ann", "online": True, "tables": []}],
                                                 "blocked": []}
    assert bob.get("/api/me/mail").json()["address"] == "bob@example.org"
    assert [t["table"] for t in bob.get("/api/me/turns").json()["turns"]] == [tid]
