"""Sessions: logging out ends a copied cookie, password changes, expiry, the admin command,
cookies from before sessions, and login limits that cannot lock an owner out."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select
from typer.testing import CliRunner

from gemtable.cli.main import app as cli
from gemtable.server import create_app
from gemtable.server import players as players_module
from gemtable.server.db import SessionRow
from gemtable.server.limits import Limits

from .conftest import create
from .test_players import named, other, players
from .test_robustness import JSON, SETTINGS


def sessions(client) -> list[SessionRow]:
    with client.app.state.manager.db.session() as s:
        return list(s.scalars(select(SessionRow)))


def cookie_of(c: TestClient) -> str:
    return c.cookies["gt_player"].strip('"')


def holding(client, value: str, host: str = "192.0.2.200") -> TestClient:
    """Another browser whose cookie is ``value`` (set by hand, where the server would set it)."""
    c = other(client, host)
    c.cookies.set("gt_player", value, domain="testserver.local")
    return c


def copy_of(client, c: TestClient, host: str = "192.0.2.200") -> TestClient:
    """Another browser holding a copy of ``c``'s cookie (as an attacker who took it would)."""
    return holding(client, cookie_of(c), host)


def me(c: TestClient):
    return c.get("/api/me").json()["player"]


def account(client, name="Ann", password="correct horse", host="203.0.113.7") -> TestClient:
    c = named(client, name, host)
    assert c.post("/api/account/register", json={"password": password}).status_code == 200
    return c


def login(client, name="Ann", password="correct horse", host="203.0.113.8") -> TestClient:
    c = other(client, host)
    r = c.post("/api/account/login", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    return c


@pytest.fixture
def clock(monkeypatch):
    """The sessions' clock, moved by hand: ``clock.advance(days=…)``."""

    class Clock:
        at = dt.datetime(2030, 1, 1)

        def advance(self, **delta) -> None:
            self.at += dt.timedelta(**delta)

    c = Clock()
    monkeypatch.setattr(players_module, "now", lambda: c.at)
    return c


# -- logging out ----------------------------------------------------------------------------
def test_a_copied_cookie_stops_working_after_logout(client):
    ann = account(client)
    res = create(ann, seats=[{"kind": "me"}, {"kind": "human"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    thief = copy_of(client, ann)
    laptop = login(client)
    assert me(thief)["name"] == "Ann"
    assert thief.get(f"/api/tables/{tid}/seat").json() == {"seat": 0, "token": token}
    r = ann.post("/api/account/logout")
    assert r.status_code == 200 and r.json() == {"player": None}
    assert me(ann) is None
    assert me(thief) is None
    r = thief.get(f"/api/tables/{tid}/seat")
    assert r.status_code == 401 and token not in r.text
    assert thief.get("/api/me/games").status_code == 401
    # the account's other browser keeps its own session
    assert me(laptop)["name"] == "Ann"
    assert laptop.get(f"/api/tables/{tid}/seat").json() == {"seat": 0, "token": token}


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_url(request, db_url):
    return db_url if request.param == "sqlite" else request.getfixturevalue("postgres_url")


def test_a_logout_at_one_worker_ends_the_session_at_every_worker(shared_url, toy_registered):
    name = f"Wanda {shared_url[:5]}"
    with TestClient(create_app(shared_url, bot_delay=0.0, limits=Limits.relaxed())) as one, \
            TestClient(create_app(shared_url, bot_delay=0.0, limits=Limits.relaxed())) as two:
        ann = account(one, name)
        at_two = copy_of(two, ann)
        assert me(at_two)["name"] == name
        laptop = login(two, name)
        assert ann.post("/api/account/logout").status_code == 200
        assert me(at_two) is None and me(laptop)["name"] == name
        copied = copy_of(one, laptop)
        assert me(copied)["name"] == name
        laptop.post("/api/account/logout", json={"everywhere": True})
        assert me(copied) is None


def test_logout_everywhere_ends_every_session_of_the_player(client):
    ann = account(client)
    thief = copy_of(client, ann)
    laptop = login(client)
    bob = account(client, "Bob", host="203.0.113.9")
    r = laptop.post("/api/account/logout", json={"everywhere": "yes"})
    assert r.status_code == 422 and r.json()["error"] == "malformed" and "set-cookie" not in r.headers
    assert me(laptop)["name"] == "Ann" and me(ann)["name"] == "Ann"  # refused: nothing ended
    assert laptop.post("/api/account/logout", json={"everywhere": True}).json() == {"player": None}
    assert me(laptop) is None and me(ann) is None and me(thief) is None
    assert me(bob)["name"] == "Bob"  # another player is untouched
    assert [s.player_id for s in sessions(client)] == [p.id for p in players(client) if p.name == "Bob"]
    assert login(client, host="203.0.113.10") is not None  # the account itself still logs in


def test_the_web_shells_logout_with_an_empty_body_works(client):
    ann = account(client)
    thief = copy_of(client, ann)
    assert ann.post("/api/account/logout", json={}).json() == {"player": None}
    assert me(thief) is None


def test_logging_in_replaces_the_browsers_guest_session(client):
    account(client)
    laptop = named(client, "Guesty", host="203.0.113.61")
    planted = copy_of(client, laptop)  # a session id known to someone else before the login
    before = cookie_of(laptop)
    assert laptop.post("/api/account/login", json={"name": "Ann", "password": "correct horse"}).status_code == 200
    assert cookie_of(laptop) != before and me(laptop)["name"] == "Ann"
    assert me(planted) is None
    assert cookie_of(login(client, host="203.0.113.62")) != cookie_of(laptop)  # every login: its own session


def test_registering_starts_a_fresh_session_and_ends_the_guests_others(client):
    ann = named(client, "Ann")
    copied = copy_of(client, ann)
    before = cookie_of(ann)
    assert ann.post("/api/account/register", json={"password": "correct horse"}).status_code == 200
    assert cookie_of(ann) != before and me(ann) == {"name": "Ann", "account": True}
    assert me(copied) is None
    assert len(sessions(client)) == 1


# -- changing the password ------------------------------------------------------------------------
def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(client):
    ann = account(client)
    laptop = login(client)
    thief = copy_of(client, laptop)
    r = ann.post("/api/account/password", json={"password": "wrong horse", "new_password": "battery staple"})
    assert r.status_code == 403 and r.json()["error"] == "bad_password"
    assert me(laptop)["name"] == "Ann" and me(thief)["name"] == "Ann"  # refused: nothing ended
    r = ann.post("/api/account/password", json={"password": "correct horse", "new_password": "short"})
    assert r.status_code == 422 and me(laptop)["name"] == "Ann"
    r = ann.post("/api/account/password", json={"password": "correct horse", "new_password": "battery staple"})
    assert r.status_code == 200 and r.json()["player"] == {"name": "Ann", "account": True}
    assert me(ann)["name"] == "Ann"
    assert me(laptop) is None and me(thief) is None
    assert len(sessions(client)) == 1
    phone = other(client, "203.0.113.20")
    assert phone.post("/api/account/login", json={"name": "Ann", "password": "correct horse"}).status_code == 403
    assert phone.post("/api/account/login", json={"name": "Ann", "password": "battery staple"}).status_code == 200
    assert players(client)[0].password_hash.startswith("$argon2id$")


def test_a_password_change_needs_an_account_session(client):
    r = other(client).post("/api/account/password", json={"password": "whatever1", "new_password": "whatever2"})
    assert r.status_code == 401 and r.json()["error"] == "no_player"
    guest = named(client, "Guesty", host="203.0.113.30")
    r = guest.post("/api/account/password", json={"password": "whatever1", "new_password": "whatever2"})
    assert r.status_code == 409 and r.json()["error"] == "no_account"
    assert players(client)[0].password_hash is None


# -- expiry -------------------------------------------------------------------------------------
def test_an_unused_session_expires_and_a_used_one_slides(client, clock):
    ann = account(client)
    laptop = login(client)
    clock.advance(days=59)
    assert me(ann)["name"] == "Ann"  # used: its 60 days start again
    clock.advance(days=59)
    assert me(ann)["name"] == "Ann"
    assert me(laptop) is None  # unused for 118 days
    assert len(sessions(client)) == 1  # the ended row is gone
    clock.advance(days=61)
    assert me(ann) is None


def test_last_use_is_written_at_most_hourly(client, clock):
    ann = account(client)
    (row,) = sessions(client)
    clock.advance(minutes=30)
    me(ann)
    assert sessions(client)[0].last_seen == row.last_seen
    clock.advance(minutes=31)
    me(ann)
    assert sessions(client)[0].last_seen == clock.at


def test_a_session_ends_at_the_cookies_lifetime_however_often_it_is_used(client, clock):
    ann = account(client)
    for _ in range(7):
        clock.advance(days=55)
        assert me(ann)["name"] == "Ann"
    clock.advance(days=400 - 7 * 55)
    assert me(ann) is None
    assert sessions(client) == []


def test_ended_sessions_are_swept_when_a_session_starts(client, clock):
    for i in range(3):
        named(client, f"Guest {i}", host=f"203.0.113.{40 + i}")
    clock.advance(days=61)
    named(client, "Late", host="203.0.113.50")  # the first session started by this worker sweeps
    assert [s.player_id for s in sessions(client)] == [p.id for p in players(client) if p.name == "Late"]


# -- the admin command ----------------------------------------------------------------------------
def test_admin_logout_ends_every_session_of_a_player(db_url, client):
    ann = account(client)
    laptop = login(client)
    bob = named(client, "Bob", host="203.0.113.9")
    runner = CliRunner()
    result = runner.invoke(cli, ["admin", "logout", "ANN", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "Ended 2 sessions of ANN" in result.output
    assert me(ann) is None and me(laptop) is None
    assert me(bob)["name"] == "Bob"
    login(client, host="203.0.113.11")  # the account logs in again
    for unknown in ["Nobody", "bot: easy", ""]:
        result = runner.invoke(cli, ["admin", "logout", unknown, "--db", db_url])
        assert result.exit_code == 1 and "no player is called" in result.output, result.output
    assert me(bob)["name"] == "Bob"
    missing = db_url.replace("server.sqlite3", "missing.sqlite3")
    result = runner.invoke(cli, ["admin", "logout", "Bob", "--db", missing])
    assert result.exit_code == 1 and "there is no database" in result.output
    assert not Path(missing[len("sqlite:///"):]).exists()


# -- cookies from before sessions ------------------------------------------------------------------
OLD_SCHEMA = """
CREATE TABLE gt_players (id VARCHAR(32) NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL,
                         name_key VARCHAR(100) NOT NULL, password_hash VARCHAR(200), created_at DATETIME);
CREATE UNIQUE INDEX ix_gt_players_name_key ON gt_players (name_key);
CREATE TABLE gt_settings (key VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(200) NOT NULL);
"""
GUEST_ID, ACCOUNT_ID, SECRET = "a" * 32, "b" * 32, "the secret of a server from before sessions"


@pytest.fixture
def old_server(tmp_path, toy_registered, monkeypatch):
    """A database made before sessions (a guest and an account), served by this version."""
    monkeypatch.delenv("GEMTABLE_SECRET", raising=False)
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
        conn.execute("INSERT INTO gt_players VALUES (?, 'Gus', 'gus', NULL, '2024-01-01 00:00:00')", (GUEST_ID,))
        conn.execute("INSERT INTO gt_players VALUES (?, 'Ann', 'ann', ?, '2024-01-01 00:00:00')",
                     (ACCOUNT_ID, "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"))
        conn.execute("INSERT INTO gt_settings VALUES ('cookie_secret', ?)", (SECRET,))
    with TestClient(create_app(f"sqlite:///{path}", bot_delay=0.0, limits=Limits.relaxed())) as c:
        yield c


def old_cookie(player_id: str, secret: str = SECRET) -> str:
    from itsdangerous import Signer

    return Signer(secret, salt="gemtable.player").sign(player_id.encode()).decode()


def test_an_old_guest_cookie_is_upgraded_then_refused(old_server, clock):
    old = old_cookie(GUEST_ID)
    gus = holding(old_server, old, "203.0.113.70")
    r = gus.get("/api/me")
    assert r.json()["player"] == {"name": "Gus", "account": False}
    new = cookie_of(gus)
    assert new != old and GUEST_ID not in new and "gt_player=" in r.headers["set-cookie"]
    assert me(gus)["name"] == "Gus" and cookie_of(gus) == new  # no second upgrade
    (row,) = sessions(old_server)
    assert row.player_id == GUEST_ID
    # other tabs that loaded at the same moment still carry the old cookie, for a short while
    tab = holding(old_server, old, "203.0.113.70")
    assert me(tab)["name"] == "Gus"
    clock.advance(minutes=3)
    stale = holding(old_server, old, "203.0.113.71")
    r = stale.get("/api/me")
    assert r.json() == {"player": None} and "set-cookie" not in r.headers
    assert stale.get("/api/me/games").status_code == 401
    assert me(gus)["name"] == "Gus"  # the session cookie goes on


def test_an_old_guest_cookie_works_for_seats_and_ends_at_logout(old_server):
    old = old_cookie(GUEST_ID)
    gus = holding(old_server, old, "203.0.113.70")
    assert gus.get("/api/me/games").status_code == 200  # not upgraded, still honoured
    copied = holding(old_server, old, "203.0.113.72")
    assert gus.post("/api/account/logout").json() == {"player": None}
    assert me(copied) is None


def test_an_old_account_cookie_is_refused(old_server):
    ann = holding(old_server, old_cookie(ACCOUNT_ID), "203.0.113.73")
    r = ann.get("/api/me")
    assert r.json() == {"player": None} and "set-cookie" not in r.headers
    assert ann.get("/api/me/games").status_code == 401
    # a forged old-format cookie (another secret) is nobody either
    gus = holding(old_server, old_cookie(GUEST_ID, "another secret"), "203.0.113.74")
    assert me(gus) is None


def test_an_old_format_cookie_of_a_new_guest_is_refused(client):
    guest = named(client, "Newbie")
    (player,) = players(client)
    secret = client.app.state.identity._secret()
    forged = holding(client, old_cookie(player.id, secret), "203.0.113.75")
    assert me(forged) is None and me(guest)["name"] == "Newbie"


# -- what the cookie holds ----------------------------------------------------------------------
def test_the_cookie_holds_neither_the_player_id_nor_the_stored_hash(client):
    ann = account(client)
    laptop = login(client)
    bob = named(client, "Bob", host="203.0.113.9")
    rows = sessions(client)
    assert len(rows) == 3
    ids = [p.id for p in players(client)]
    for c in (ann, laptop, bob):
        value = cookie_of(c)
        secret = value.partition(".")[0]
        for row in rows:
            assert row.id not in value
        for pid in ids:
            assert pid not in value
        # the row holds the hash of the secret, not the secret
        assert hashlib.sha256(secret.encode()).hexdigest() in [r.id for r in rows]
        assert secret not in [r.id for r in rows]
    # a cookie made from a row's stored value is nobody
    from itsdangerous import Signer

    key = client.app.state.identity._secret()
    forged = holding(client, Signer(key, salt="gemtable.session").sign(rows[0].id.encode()).decode(), "203.0.113.76")
    assert me(forged) is None


# -- login limits ------------------------------------------------------------------------------------
@pytest.fixture
def slow_client(db_url, toy_registered):
    """The default bursts, refilled so slowly that a slow machine cannot refill a token mid-test."""
    limits = Limits(login_rate=1 / 3600, login_pair_rate=1 / 3600, login_name_rate=1 / 3600,
                    player_rate=1 / 3600)
    with TestClient(create_app(db_url, bot_delay=0.0, limits=limits)) as c:
        yield c


def test_an_attacker_cannot_lock_the_owner_out(slow_client):
    account(slow_client)
    attacker = other(slow_client, "198.51.100.66")
    codes = [attacker.post("/api/account/login", json={"name": "Ann", "password": f"guess {i}xx"}).status_code
             for i in range(8)]
    assert codes == [403] * 5 + [429] * 3, codes
    owner = other(slow_client, "203.0.113.99")
    r = owner.post("/api/account/login", json={"name": "ann", "password": "correct horse"})
    assert r.status_code == 200 and me(owner)["name"] == "Ann"
    r = attacker.post("/api/account/login", json={"name": "Ann", "password": "correct horse"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1 and "set-cookie" not in r.headers


def test_password_changes_are_rate_limited_like_logins(slow_client):
    ann = account(slow_client)
    codes = [ann.post("/api/account/password", json={"password": f"guess {i}xx", "new_password": "battery staple"})
             .status_code for i in range(7)]
    assert codes == [403] * 5 + [429] * 2, codes
    r = ann.post("/api/account/password", json={"password": "correct horse", "new_password": "battery staple"})
    assert r.status_code == 429
    assert me(ann)["name"] == "Ann"
    # the owner elsewhere still logs in with the unchanged password
    assert other(slow_client, "203.0.113.98").post(
        "/api/account/login", json={"name": "Ann", "password": "correct horse"}).status_code == 200


# -- fuzzing ------------------------------------------------------------------------------------
PASSWORDS = st.sampled_from(["wrong horse", "short", "\ud800" * 10, "x" * 300, "", "battery staple"]) | JSON
BODIES = st.fixed_dictionaries({}, optional={
    "password": PASSWORDS, "new_password": PASSWORDS, "everywhere": st.booleans() | JSON}) | JSON


def keep_logged_in(client) -> None:
    if "gt_player" not in client.cookies or me(client) is None:
        client.cookies.clear()
        r = client.post("/api/account/login", json={"name": "Keeper", "password": "correct horse"})
        if r.status_code == 403:  # the first example: no account yet
            r = client.post("/api/account/register", json={"name": "Keeper", "password": "correct horse"})
        assert r.status_code == 200, r.text


@SETTINGS
@given(path=st.sampled_from(["/api/account/password", "/api/account/logout"]), body=BODIES)
def test_session_endpoints_never_500_and_refusals_change_nothing(client, path, body):
    keep_logged_in(client)
    before = [(p.id, p.name, p.password_hash, p.old_cookie_until) for p in players(client)]
    rows = [(s.id, s.player_id, s.expires_at) for s in sessions(client)]
    r = client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["error"] and r.json()["detail"]
        assert [(p.id, p.name, p.password_hash, p.old_cookie_until) for p in players(client)] == before
        assert [(s.id, s.player_id, s.expires_at) for s in sessions(client)] == rows
        assert "set-cookie" not in r.headers
        assert me(client)["name"] == "Keeper"  # the session is still valid
    elif path == "/api/account/logout":
        assert me(client) is None


@SETTINGS
@given(cookie=st.binary(max_size=120).filter(lambda b: b"\r" not in b and b"\n" not in b and b";" not in b),
       path=st.sampled_from(["/api/account/password", "/api/account/logout", "/api/me"]),
       body=BODIES)
def test_any_cookie_value_on_the_session_endpoints_never_500_and_ends_nothing(client, cookie, path, body):
    keep_logged_in(client)
    rows = {(s.id, s.player_id) for s in sessions(client)}
    r = other(client).post(path, content=json.dumps(body),
                           headers={"Cookie": b"gt_player=" + cookie, "Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    assert rows <= {(s.id, s.player_id) for s in sessions(client)}  # (a new guest may have begun)
    assert me(client)["name"] == "Keeper"
