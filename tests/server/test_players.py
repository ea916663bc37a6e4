"""Players: the guest cookie, accounts, names, login limits, seat lookup by cookie."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from gemtable.server import create_app
from gemtable.server.db import PlayerRow, SettingRow
from gemtable.server.limits import Limits

from .conftest import create
from .test_robustness import JSON, SETTINGS


def other(client, host="203.0.113.7") -> TestClient:
    """A second browser (own cookie jar, own address) on the same running server (and event loop)."""
    c = TestClient(client.app, client=(host, 5000))
    c.portal = client.portal  # the server's loop: tasks started by a request (bots) keep running
    return c


def named(client, name="Ann", host="203.0.113.7") -> TestClient:
    c = other(client, host)
    r = c.post("/api/me", json={"name": name})
    assert r.status_code == 200, r.text
    return c


def players(client) -> list[PlayerRow]:
    with client.app.state.manager.db.session() as s:
        return list(s.scalars(select(PlayerRow)))


def cookie_header(response) -> str:
    return response.headers.get("set-cookie", "")


# -- the cookie ------------------------------------------------------------------------------
def test_a_guest_gets_a_signed_httponly_samesite_cookie_holding_only_a_session_secret(client):
    assert client.get("/api/me").json() == {"player": None}
    r = client.post("/api/me", json={"name": "Ann"})
    assert r.status_code == 200 and r.json() == {"player": {"name": "Ann", "account": False}}
    header = cookie_header(r)
    attrs = [a.strip().lower() for a in header.split(";")]
    assert attrs[0].startswith("gt_player=")
    assert "httponly" in attrs and "samesite=lax" in attrs and "path=/" in attrs
    assert "secure" not in attrs  # plain http
    assert any(a.startswith("max-age=") and int(a.split("=")[1]) > 30 * 86400 for a in attrs)
    value = client.cookies["gt_player"].strip('"')
    (row,) = players(client)
    # a random session secret and its signature, nothing else (no name, no player id)
    secret, _, signature = value.partition(".")
    assert len(secret) == 43 and signature and "Ann" not in value and row.id not in value
    assert client.get("/api/me").json() == {"player": {"name": "Ann", "account": False}}


def test_the_cookie_is_secure_over_https(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed()), base_url="https://testserver") as c:
        r = c.post("/api/me", json={"name": "Ann"})
        assert "secure" in [a.strip().lower() for a in cookie_header(r).split(";")]


def test_a_forged_or_foreign_cookie_is_no_player(client):
    client.post("/api/me", json={"name": "Ann"})
    value = client.cookies["gt_player"].strip('"')
    pid = value.partition(".")[0]  # the session secret
    for forged in [pid, pid + ".AAAA", value[:-2] + ("AA" if not value.endswith("AA") else "BB"), "x" * 300]:
        c = other(client)
        c.cookies.set("gt_player", forged)
        assert c.get("/api/me").json() == {"player": None}, forged
    raw = other(client).get("/api/me", headers={"Cookie": b"gt_player=\xc3\xa9.\xff\xfe"})
    assert raw.status_code == 200 and raw.json() == {"player": None}
    from itsdangerous import Signer

    c = other(client)
    c.cookies.set("gt_player", Signer("another secret", salt="gemtable.session").sign(pid.encode()).decode())
    assert c.get("/api/me").json() == {"player": None}


def test_the_secret_is_stored_once_and_shared_by_every_worker(db_url, toy_registered, monkeypatch):
    monkeypatch.delenv("GEMTABLE_SECRET", raising=False)
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as one:
        one.post("/api/me", json={"name": "Ann"})
        cookie = one.cookies["gt_player"]
        # a second worker on the same database, running at the same time
        with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as two:
            two.cookies.set("gt_player", cookie)
            assert two.get("/api/me").json()["player"]["name"] == "Ann"
        with one.app.state.manager.db.session() as s:
            assert s.scalar(select(func.count()).select_from(SettingRow)) == 1


def test_the_secret_comes_from_the_environment_when_set(db_url, toy_registered, monkeypatch):
    from itsdangerous import Signer

    monkeypatch.setenv("GEMTABLE_SECRET", "a secret from the environment")
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        c.post("/api/me", json={"name": "Ann"})
        value = c.cookies["gt_player"].strip('"')
        assert Signer("a secret from the environment", salt="gemtable.session").unsign(value)
        with c.app.state.manager.db.session() as s:
            assert s.get(SettingRow, "cookie_secret") is None


# -- names ------------------------------------------------------------------------------------
def test_names_are_unique_regardless_of_case_and_width(client):
    named(client, "Ann")
    for taken in ["ann", "ANN", " Ann ", "\uff21nn"]:  # fullwidth A
        c = other(client)
        r = c.post("/api/me", json={"name": taken})
        assert r.status_code == 409 and r.json()["error"] == "name_taken", taken
        assert "gt_player" not in c.cookies
    assert len(players(client)) == 1


@pytest.mark.parametrize("raw", [
    '"\\ud800x"', '"a\\u0000b"', '"a\\u202eb"', '"a\\u200bb"', '"line\\nbreak"', '"\\u001b[31mred"',
    '""', '"   "', '"' + "x" * 25 + '"', "123", "null", '["Ann"]', '"bot: easy"', '"BOT:hard"',
])
def test_bad_names_are_refused_with_422_and_nothing_is_stored(client, raw):
    c = other(client)
    r = c.post("/api/me", content='{"name": ' + raw + "}", headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"] in ("bad_name", "malformed") and r.json()["detail"]
    assert "set-cookie" not in r.headers and players(client) == []
    r = c.post("/api/account/register", content='{"password": "long enough", "name": ' + raw + "}",
               headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and players(client) == []


def test_names_are_normalised(client):
    c = other(client)
    assert c.post("/api/me", json={"name": "  Zoe\u0301   Smith "}).json()["player"]["name"] == "Zo\u00e9 Smith"


def test_renaming_keeps_the_player_and_refuses_a_taken_name(client):
    named(client, "Bob", host="203.0.113.8")
    ann = named(client, "Ann")
    pid = players(client)[1].id if players(client)[1].name == "Ann" else players(client)[0].id
    assert ann.post("/api/me", json={"name": "Anna"}).json()["player"]["name"] == "Anna"
    r = ann.post("/api/me", json={"name": "bob"})
    assert r.status_code == 409
    assert ann.get("/api/me").json()["player"]["name"] == "Anna"
    assert {p.id for p in players(client) if p.name == "Anna"} == {pid}


@pytest.fixture
def slow_client(db_url, toy_registered):
    """The default bursts, refilled so slowly that a slow machine cannot refill a token mid-test."""
    limits = Limits(login_rate=1 / 3600, login_name_rate=1 / 3600, player_rate=1 / 3600)
    with TestClient(create_app(db_url, bot_delay=0.0, limits=limits)) as c:
        yield c


# -- accounts ---------------------------------------------------------------------------------
def test_a_guest_registers_then_logs_in_on_another_browser(client):
    ann = named(client, "Ann")
    r = ann.post("/api/account/register", json={"password": "correct horse"})
    assert r.status_code == 200 and r.json()["player"] == {"name": "Ann", "account": True}
    (row,) = players(client)
    assert row.password_hash.startswith("$argon2id$") and "correct horse" not in row.password_hash
    assert ann.post("/api/account/register", json={"password": "another one"}).status_code == 409
    phone = other(client, "203.0.113.9")
    assert phone.post("/api/account/login", json={"name": "ann", "password": "wrong horse"}).status_code == 403
    assert "gt_player" not in phone.cookies
    r = phone.post("/api/account/login", json={"name": "ann", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["player"] == {"name": "Ann", "account": True}
    assert phone.get("/api/me").json()["player"]["name"] == "Ann"
    r = phone.post("/api/account/logout")
    assert r.json() == {"player": None} and phone.get("/api/me").json() == {"player": None}
    assert ann.get("/api/me").json()["player"]["name"] == "Ann"  # the other browser stays logged in


def test_a_new_visitor_registers_in_one_step(client):
    c = other(client)
    assert c.post("/api/account/register", json={"password": "correct horse"}).status_code == 422  # no name
    r = c.post("/api/account/register", json={"name": "Cleo", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["player"] == {"name": "Cleo", "account": True}
    assert c.get("/api/me").json()["player"]["account"] is True


@pytest.mark.parametrize("password", ["short", "x" * 201, 12345678, None, "\ud800" * 9])
def test_bad_passwords_are_refused_and_change_nothing(client, password):
    ann = named(client, "Ann")
    r = ann.post("/api/account/register", content=json.dumps({"password": password}),
                 headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert players(client)[0].password_hash is None


@pytest.mark.parametrize("password", ["\ud800" * 10, "x" * 201, 5, None])
def test_a_login_with_a_broken_password_is_refused_not_500(client, password):
    c = named(client, "Ann")
    c.post("/api/account/register", json={"password": "correct horse"})
    r = other(client).post("/api/account/login", content=json.dumps({"name": "Ann", "password": password}),
                           headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "set-cookie" not in r.headers


def test_failed_logins_at_a_name_lock_out_only_the_addresses_that_failed(slow_client):
    c = named(slow_client, "Ann")
    assert c.post("/api/account/register", json={"password": "correct horse"}).status_code == 200
    codes = []
    for i in range(7):  # a different address each time: the per-name limit counts them all
        r = other(slow_client, f"198.51.100.{i + 1}").post("/api/account/login",
                                                              json={"name": "Ann", "password": f"guess {i}xx"})
        codes.append(r.status_code)
    assert codes == [403] * 7, codes  # each address's first try is checked
    # the name's failures are spent: an address that failed at it is refused, even the right password
    r = other(slow_client, "198.51.100.1").post("/api/account/login", json={"name": "ANN", "password": "correct horse"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.json()["error"] == "rate_limited"
    # the owner, from an address that has not failed, gets in
    r = other(slow_client, "198.51.100.99").post("/api/account/login", json={"name": "ANN", "password": "correct horse"})
    assert r.status_code == 200
    # another name is not locked for the addresses that failed at Ann
    assert other(slow_client, "198.51.100.2").post(
        "/api/account/login", json={"name": "Bob", "password": "whatever1"}).status_code == 403


def test_logins_are_rate_limited_per_address(slow_client):
    attacker = other(slow_client, "192.0.2.66")
    codes = [attacker.post("/api/account/login", json={"name": f"name{i}", "password": "whatever1"}).status_code
             for i in range(12)]
    assert codes[:10] == [403] * 10 and codes[10:] == [429, 429], codes
    r = attacker.post("/api/account/register", json={"name": "Eve", "password": "whatever1"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert players(slow_client) == []
    # another address is not limited
    assert other(slow_client, "192.0.2.67").post(
        "/api/account/login", json={"name": "name0", "password": "whatever1"}).status_code == 403


def test_new_guests_are_rate_limited_per_address(slow_client):
    codes = [other(slow_client, "192.0.2.70").post("/api/me", json={"name": f"Guest {i}"}).status_code
             for i in range(12)]
    assert codes[:10] == [200] * 10 and codes[10:] == [429, 429]
    assert len(players(slow_client)) == 10


# -- seats by cookie ----------------------------------------------------------------------------
def test_the_players_seat_is_found_by_cookie_from_any_browser(client):
    ann = named(client, "Ann")
    ann.post("/api/account/register", json={"password": "correct horse"})
    res = create(ann, seats=[{"kind": "me"}, {"kind": "human", "name": "Bob"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    assert res["seats"][0]["name"] == "Ann" and res["table"]["seats"][0]["player"] == "Ann"
    assert ann.get(f"/api/tables/{tid}/seat").json() == {"seat": 0, "token": token}
    laptop = other(client, "203.0.113.50")
    assert laptop.get(f"/api/tables/{tid}/seat").status_code == 401
    laptop.post("/api/account/login", json={"name": "Ann", "password": "correct horse"})
    assert laptop.get(f"/api/tables/{tid}/seat").json() == {"seat": 0, "token": token}
    bob = named(client, "Bob", host="203.0.113.51")
    r = bob.get(f"/api/tables/{tid}/seat")
    assert r.status_code == 404 and token not in r.text
    assert ann.get("/api/tables/nope/seat").status_code == 404


def test_a_me_seat_needs_a_player(client):
    r = other(client).post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "bot"}]})
    assert r.status_code == 422 and r.json()["error"] == "no_player"
    ann = named(client, "Ann")
    r = ann.post("/api/tables", json={"game": "toy", "players": 2, "seats": [{"kind": "me"}, {"kind": "me"}]})
    assert r.status_code == 422


def test_no_identity_in_log_lines(client, caplog):
    caplog.set_level(logging.DEBUG)
    ann = named(client, "Ann")
    ann.post("/api/account/register", json={"password": "correct horse"})
    res = create(ann, seats=[{"kind": "me"}, {"kind": "open"}])
    bob = named(client, "Bob", host="203.0.113.60")
    joined = bob.post(f"/api/tables/{res['table']['id']}/join", json={}).json()
    other(client).post("/api/account/login", json={"name": "Ann", "password": "wrong horse"})
    secrets_ = [ann.cookies["gt_player"].strip('"'), bob.cookies["gt_player"].strip('"'), joined["token"],
                res["seats"][0]["token"], "correct horse", "wrong horse"] + [p.id for p in players(client)]
    text = "\n".join(r.getMessage() for r in caplog.records)
    for secret in secrets_:
        assert secret not in text


# -- fuzzing ------------------------------------------------------------------------------------
NAME_VALUES = st.sampled_from(["Ann", "ann", "\ud800x", "a\x00b", "\u202eevil", "x" * 30, "", "bot: easy", "Zoe\u0301"]) | JSON
BODIES = st.fixed_dictionaries({}, optional={"name": NAME_VALUES, "password": st.sampled_from(
    ["correct horse", "short", "\ud800" * 10, "x" * 300]) | JSON}) | JSON


@SETTINGS
@given(path=st.sampled_from(["/api/me", "/api/account/register", "/api/account/login", "/api/account/logout"]),
       body=BODIES, with_cookie=st.booleans())
def test_player_endpoints_never_500_and_refusals_change_nothing(client, path, body, with_cookie):
    if with_cookie and "gt_player" not in client.cookies:
        client.post("/api/me", json={"name": "Keeper"})
    if not with_cookie:
        client.cookies.clear()
    before = [(p.id, p.name, p.password_hash) for p in players(client)]
    r = client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["error"] and r.json()["detail"]
        assert [(p.id, p.name, p.password_hash) for p in players(client)] == before
        assert "set-cookie" not in r.headers


@SETTINGS
@given(cookie=st.binary(max_size=120).filter(lambda b: b"\r" not in b and b"\n" not in b and b";" not in b),
       path=st.sampled_from(["/api/me", "/api/me/games", "/api/tables/abc/seat"]))
def test_any_cookie_value_is_no_player_never_500(client, cookie, path):
    r = other(client).get(path, headers={"Cookie": b"gt_player=" + cookie})
    assert r.status_code in (200, 401, 404), r.text
    if path == "/api/me":
        assert r.json() == {"player": None}


def test_a_guest_who_logs_in_brings_its_games_to_the_account(client):
    home = named(client, "Ann")
    home.post("/api/account/register", json={"password": "correct horse"})
    laptop = named(client, "Guesty", host="203.0.113.61")  # a guest on another browser
    res = create(laptop, seats=[{"kind": "me"}, {"kind": "open"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    assert laptop.post("/api/account/login", json={"name": "Ann", "password": "correct horse"}).status_code == 200
    assert laptop.get("/api/me").json()["player"] == {"name": "Ann", "account": True}
    assert home.get(f"/api/tables/{tid}/seat").json() == {"seat": 0, "token": token}
    assert [t["id"] for t in home.get("/api/me/games").json()["waiting"]] == [tid]
    assert home.post(f"/api/tables/{tid}/start", json={}).status_code == 200  # hosts it now
    assert [p.name for p in players(client)] == ["Ann"]  # the guest is gone, its name free
    assert named(client, "Guesty", host="203.0.113.62").get("/api/me").json()["player"]["name"] == "Guesty"
