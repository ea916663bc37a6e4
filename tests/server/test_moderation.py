"""Moderation: the first admin from the command line, mutes and bans (a ban closes the player's
open sockets at once), hidden chat lines, closed tables, reports and their rate limit, the
audit log; every new endpoint fuzzed (no 5xx, a refusal changes nothing)."""

from __future__ import annotations

import datetime as dt
import json
import time

import httpx

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from gemtable.cli.main import app as cli
from gemtable.server import moderation as modmod
from gemtable.server.db import AdminRow, AuditRow, ChatRow, RatingRow, ReportRow, SanctionRow, TableRow

from .conftest import create, seat_socket
from .test_chat import until
from .test_players import other
from .test_robustness import JSON, SETTINGS
from .test_sessions import account, me
from .test_workers import workers  # noqa: F401  (the fixture: gemtable serve processes)


def grant_cli(db_url, name):
    return CliRunner().invoke(cli, ["admin", "grant", name, "--db", db_url])


def site(client, db_url):
    """An admin (Ada), and Ann and Bob at one table with an open socket each: (ada, ann, bob, tid, tokens)."""
    ada = account(client, "Ada", host="203.0.113.30")
    assert grant_cli(db_url, "ada").exit_code == 0
    ann = account(client, "Ann", host="203.0.113.31")
    bob = account(client, "Bob", host="203.0.113.32")
    res = create(ann, seats=[{"kind": "me"}, {"kind": "open"}])
    tid = res["table"]["id"]
    joined = bob.post(f"/api/tables/{tid}/join", json={})
    assert joined.status_code == 200, joined.text
    return ada, ann, bob, tid, [res["seats"][0]["token"], joined.json()["token"]]


def rows(client, row) -> list:
    with client.app.state.manager.db.session() as s:
        return list(s.scalars(select(row)))


def act(c, action, **body):
    return c.post(f"/api/admin/{action}", json=body)


# -- the first admin -------------------------------------------------------------------------------
def test_the_first_admin_is_made_from_the_command_line(db_url, client):
    ann = account(client, "Ann")
    guest = other(client, "203.0.113.40")
    assert guest.post("/api/me", json={"name": "Gus"}).status_code == 200
    assert ann.get("/api/moderation/me").json()["admin"] is False
    assert ann.get("/api/admin/overview").status_code == 403
    for name in ["Nobody", "Gus", ""]:  # no such player; a guest (no password) cannot be an admin
        result = grant_cli(db_url, name)
        assert result.exit_code == 1 and "no account is called" in result.output, result.output
    result = grant_cli(db_url, "ANN")
    assert result.exit_code == 0 and "Ann is an admin." in result.output
    assert ann.get("/api/moderation/me").json()["admin"] is True
    assert ann.get("/api/admin/overview").status_code == 200
    assert [(a.admin, a.action, a.target) for a in rows(client, AuditRow)] == [("(command line)", "grant", "Ann")]
    # an admin grants another account from the page; a guest is refused
    bob = account(client, "Bob", host="203.0.113.41")
    assert act(ann, "grant", player="Gus").status_code == 409
    assert act(ann, "grant", player="bob").json() == {"player": "Bob", "admin": True}
    assert bob.get("/api/admin/overview").status_code == 200


def test_only_admins_act(db_url, client):
    ada, ann, bob, tid, _ = site(client, db_url)
    for c, status in ((other(client, "203.0.113.50"), 401), (ann, 403)):
        for action in modmod_actions():
            r = act(c, action, player="Bob", table=tid, chat_id=1, report=1)
            assert r.status_code == status, (action, r.text)
        assert c.get("/api/admin/overview").status_code == status
    assert rows(client, SanctionRow) == [] and len(rows(client, AuditRow)) == 1  # the grant only


def modmod_actions():
    from gemtable.server.routes.moderation import ACTIONS

    return ACTIONS


# -- mutes ------------------------------------------------------------------------------------------
def test_a_muted_player_cannot_chat_until_the_mute_ends(db_url, client, monkeypatch):
    ada, ann, bob, tid, tokens = site(client, db_url)
    r = act(ada, "mute", player="bob", minutes=30, reason="insults")
    assert r.status_code == 200 and r.json()["kind"] == "mute", r.text
    with seat_socket(client, tid, tokens[0]) as a, seat_socket(client, tid, tokens[1]) as b:
        until(a, lambda m: m["type"] == "state")
        until(b, lambda m: m["type"] == "state")
        b.send_json({"type": "chat", "text": "you fool"})
        err = until(b, lambda m: m["type"] == "error")
        assert err["code"] == "muted" and "muted" in err["message"] and "insults" in err["message"]
        a.send_json({"type": "chat", "text": "hello"})
        assert until(b, lambda m: m["type"] == "chat")["line"]["text"] == "hello"
        # thirty minutes later the mute is over
        later = modmod.utcnow() + dt.timedelta(minutes=31)
        monkeypatch.setattr(modmod, "utcnow", lambda: later)
        b.send_json({"type": "chat", "text": "sorry"})
        assert until(a, lambda m: m["type"] == "chat" and m["line"]["name"] == "Bob")["line"]["text"] == "sorry"
    with client.app.state.manager.db.session() as s:
        assert [r.text for r in s.scalars(select(ChatRow).where(ChatRow.system.is_(False)))] == ["hello", "sorry"]


def test_a_mute_for_good_is_lifted_by_an_admin(db_url, client):
    ada, ann, bob, tid, tokens = site(client, db_url)
    assert act(ada, "mute", player="Bob", minutes=None).status_code == 200
    assert bob.get("/api/moderation/me").json()["mute"]["until"] is None
    with seat_socket(client, tid, tokens[1]) as b:
        until(b, lambda m: m["type"] == "state")
        b.send_json({"type": "chat", "text": "hi"})
        assert "for good" in until(b, lambda m: m["type"] == "error")["message"]
        assert act(ada, "unmute", player="Bob").status_code == 200
        b.send_json({"type": "chat", "text": "hi"})
        assert until(b, lambda m: m["type"] == "chat")["line"]["text"] == "hi"
    assert act(ada, "unmute", player="Bob").status_code == 409
    assert [a.action for a in rows(client, AuditRow)] == ["grant", "mute", "unmute"]


# -- bans -------------------------------------------------------------------------------------------
def test_a_ban_closes_the_players_open_socket_at_once_and_keeps_them_out(db_url, client):
    ada, ann, bob, tid, tokens = site(client, db_url)
    with seat_socket(client, tid, tokens[0]) as a, seat_socket(client, tid, tokens[1]) as b:
        until(a, lambda m: m["type"] == "state")
        until(b, lambda m: m["type"] == "state")
        r = act(ada, "ban", player="Bob", minutes=None, reason="cheating")
        assert r.status_code == 200 and r.json()["closed"] == 1, r.text
        with pytest.raises(WebSocketDisconnect) as exc:
            until(b, lambda m: False)
        assert exc.value.code == modmod.CLOSE_BANNED
        assert "banned" in exc.value.reason and "cheating" in exc.value.reason
        # the other player's socket stays open
        a.send_json({"type": "ping"})
        assert until(a, lambda m: m["type"] == "pong")
    # the session ended; the account cannot log in; the seat's socket and actions are refused
    assert me(bob) is None
    r = other(client, "203.0.113.60").post("/api/account/login", json={"name": "Bob", "password": "correct horse"})
    assert r.status_code == 403 and r.json()["error"] == "banned"
    with seat_socket(client, tid, tokens[1]) as b:
        assert until(b, lambda m: True)["code"] == "banned"
        with pytest.raises(WebSocketDisconnect) as exc:
            b.receive_json()
        assert exc.value.code == modmod.CLOSE_BANNED
    r = client.post(f"/api/tables/{tid}/actions", json={"action": {"n": 1}, "version": 0},
                    headers={"X-Seat-Token": tokens[1]})
    assert r.status_code == 403 and r.json()["error"] == "banned"
    # a wrong password is told nothing about the ban
    r = other(client, "203.0.113.61").post("/api/account/login", json={"name": "Bob", "password": "wrong horse"})
    assert r.status_code == 403 and r.json()["error"] == "bad_login"
    # lifted: Bob logs in again
    assert act(ada, "unban", player="Bob").status_code == 200
    r = other(client, "203.0.113.62").post("/api/account/login", json={"name": "Bob", "password": "correct horse"})
    assert r.status_code == 200
    assert [a.action for a in rows(client, AuditRow)] == ["grant", "ban", "unban"]


def test_a_ban_closes_the_sockets_where_the_player_only_watches(db_url, client):
    ada, ann, bob, _, _ = site(client, db_url)
    cara = account(client, "Cara", host="203.0.113.33")
    watched = create(cara, seats=[{"kind": "me"}, {"kind": "open"}])["table"]["id"]  # Bob does not sit here
    with seat_socket(bob, watched) as b, seat_socket(ann, watched) as a, seat_socket(client, watched) as nobody:
        for ws in (a, b, nobody):
            until(ws, lambda m: m["type"] == "state")
        r = act(ada, "ban", player="Bob", minutes=60, reason="abuse")
        assert r.status_code == 200 and r.json()["closed"] == 1, r.text
        with pytest.raises(WebSocketDisconnect) as exc:
            until(b, lambda m: False)
        assert exc.value.code == modmod.CLOSE_BANNED and "abuse" in exc.value.reason
        # the other spectators watch on: another player, and a browser with no player
        for ws in (a, nobody):
            ws.send_json({"type": "ping"})
            assert until(ws, lambda m: m["type"] == "pong")


def test_an_admin_cannot_ban_themself_or_nobody(db_url, client):
    ada, *_ = site(client, db_url)
    assert act(ada, "ban", player="Ada").status_code == 409
    assert act(ada, "ban", player="Nobody").status_code == 404
    assert act(ada, "ban", player="Bob", minutes=0).status_code == 422
    assert act(ada, "ban", player="Bob", minutes=True).status_code == 422
    assert rows(client, SanctionRow) == []


# -- reports and hidden lines --------------------------------------------------------------------------
def test_a_reported_line_hidden_disappears_for_everyone_and_from_later_reads(db_url, client):
    ada, ann, bob, tid, tokens = site(client, db_url)
    with seat_socket(client, tid, tokens[0]) as a, seat_socket(client, tid, tokens[1]) as b:
        until(a, lambda m: m["type"] == "state")
        until(b, lambda m: m["type"] == "state")
        b.send_json({"type": "chat", "text": "a rude remark"})
        line = until(a, lambda m: m["type"] == "chat" and not m["line"]["system"])["line"]
        r = ann.post("/api/reports", json={"chat_id": line["id"], "reason": "rude"})
        assert r.status_code == 200, r.text
        reports = ada.get("/api/admin/overview").json()["reports"]
        assert [(x["reporter"], x["player"], x["chat"]["text"], x["reason"]) for x in reports] == \
            [("Ann", "Bob", "a rude remark", "rude")]
        assert act(ada, "hide", chat_id=line["id"]).status_code == 200
        for ws in (a, b):
            hidden = until(ws, lambda m: m["type"] == "chat_hidden")
            assert hidden["id"] == line["id"] and hidden["line"]["text"] == modmod.HIDDEN_TEXT
    with seat_socket(client, tid) as late:
        chat = until(late, lambda m: m["type"] == "state")["chat"]
        assert "a rude remark" not in json.dumps(chat) and modmod.HIDDEN_TEXT in json.dumps(chat)
    with client.app.state.manager.db.session() as s:
        assert s.scalar(select(func.count()).select_from(ChatRow).where(ChatRow.text == "a rude remark")) == 0
    overview = ada.get("/api/admin/overview").json()
    assert overview["reports"] == [] and "a rude remark" not in json.dumps(overview)
    assert act(ada, "hide", chat_id=line["id"]).status_code == 409  # now a system line


def test_reports_of_players_are_rate_limited_and_dismissed(db_url, client):
    ada, ann, bob, tid, tokens = site(client, db_url)
    assert ann.post("/api/reports", json={"player": "Ann"}).status_code == 409  # not oneself
    assert ann.post("/api/reports", json={"player": "Nobody"}).status_code == 404
    for _ in range(modmod.REPORT_BURST):
        assert ann.post("/api/reports", json={"player": "bob", "reason": "spam"}).status_code == 200
    r = ann.post("/api/reports", json={"player": "bob"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    assert len(rows(client, ReportRow)) == modmod.REPORT_BURST
    assert other(client, "203.0.113.70").post("/api/reports", json={"player": "Bob"}).status_code == 401
    first = ada.get("/api/admin/overview").json()["reports"][0]["id"]
    assert act(ada, "dismiss", report=first).status_code == 200
    assert act(ada, "dismiss", report=first).status_code == 404
    assert len(ada.get("/api/admin/overview").json()["reports"]) == modmod.REPORT_BURST - 1


# -- closing a table -------------------------------------------------------------------------------------
def test_a_closed_table_ends_unrated_with_a_note(db_url, client):
    ada, ann, bob, tid, tokens = site(client, db_url)
    with seat_socket(client, tid, tokens[0]) as a:
        until(a, lambda m: m["type"] == "state")
        r = act(ada, "close", table=tid, note="Reported abuse.")
        assert r.status_code == 200, r.text
        state = until(a, lambda m: m["type"] == "state" and m.get("over"))
        assert state["result"]["ended_by"] == "closed" and state["result"]["note"] == "Reported abuse."
    with client.app.state.manager.db.session() as s:
        row = s.get(TableRow, tid)
        assert row.status == "finished" and row.rated is True
        assert s.scalar(select(func.count()).select_from(RatingRow)) == 0
        assert any("not rated" in t for t in s.scalars(select(ChatRow.text).where(ChatRow.table_id == tid)))
    assert act(ada, "close", table=tid).status_code == 409
    assert act(ada, "close", table="nosuchtable").status_code == 404


# -- fuzzing ------------------------------------------------------------------------------------------
def snapshot(client):
    with client.app.state.manager.db.session() as s:
        return (sorted((r.player_id, r.kind, r.until) for r in s.scalars(select(SanctionRow))),
                s.scalar(select(func.count()).select_from(AuditRow)),
                sorted((r.id, r.open) for r in s.scalars(select(ReportRow))),
                sorted(s.scalars(select(AdminRow.player_id))),
                sorted((r.id, r.text) for r in s.scalars(select(ChatRow))),
                sorted((r.id, r.status) for r in s.scalars(select(TableRow))))


VALUES = st.sampled_from([None, "Bob", "bob", "Ada", "Nobody", "", "\ud800", 0, 1, -1, 2**70, True, 1.5,
                          "x" * 600]) | JSON
BODY = st.fixed_dictionaries({}, optional={k: VALUES for k in
                                           ("player", "kind", "minutes", "reason", "chat_id", "table", "note",
                                            "report")}) | JSON


@pytest.fixture
def fuzz_site(db_url, client):
    return site(client, db_url)


@SETTINGS
@given(path=st.sampled_from([f"/api/admin/{a}" for a in ("mute", "ban", "unmute", "unban", "hide", "close",
                                                         "dismiss", "grant", "nothing")] + ["/api/reports"]),
       body=BODY, who=st.sampled_from(["admin", "player", "nobody"]))
def test_moderation_endpoints_never_500_and_refusals_change_nothing(client, fuzz_site, path, body, who):
    ada, ann, bob, tid, tokens = fuzz_site
    c = {"admin": ada, "player": ann, "nobody": other(client, "203.0.113.90")}[who]
    before = snapshot(client)
    r = c.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["error"] and r.json()["detail"]
        assert snapshot(client) == before
    assert c.get("/api/moderation/me").status_code == 200


@SETTINGS
@given(text=st.text(max_size=30) | JSON)
def test_whatever_a_muted_or_banned_player_types_is_refused_and_nothing_is_stored(client, fuzz_site, text):
    ada, ann, bob, tid, tokens = fuzz_site
    if not any(r.kind == "mute" for r in rows(client, SanctionRow)):
        assert act(ada, "mute", player="Bob").status_code == 200
    before = snapshot(client)
    with seat_socket(client, tid, tokens[1]) as b:
        until(b, lambda m: m["type"] == "state")
        b.send_json({"type": "chat", "text": text})
        err = until(b, lambda m: m["type"] == "error")
        assert err["code"] in ("muted", "bad_chat")
    assert snapshot(client) == before


def test_no_address_session_or_player_id_in_the_audit_log_or_the_server_log(db_url, client, caplog):
    ada, ann, bob, tid, tokens = site(client, db_url)
    act(ada, "mute", player="Bob", minutes=5)
    ann.post("/api/reports", json={"player": "Bob"})
    overview = json.dumps(ada.get("/api/admin/overview").json())
    text = "\n".join(r.getMessage() for r in caplog.records) + overview
    ids = [p for p in (a.player_id for a in rows(client, AdminRow))] + [r.player_id for r in rows(client, SanctionRow)]
    for secret in ids + ["203.0.113.3", bob.cookies["gt_player"].strip('"')]:
        assert secret not in text


# -- two workers on PostgreSQL -------------------------------------------------------------------------
def test_a_ban_and_a_hidden_line_made_at_one_worker_reach_sockets_at_the_other(workers, postgres_url):
    """Ann and Bob have their sockets at worker B; the admin acts at worker A.  The hidden line
    changes on Ann's page at once; the ban closes Bob's socket at once (its close code), and the
    one where he only watches another table; Ann's sockets stay open; the table closed at A ends
    on Ann's page."""
    from .test_seat_authority import Socket

    a, b = workers(2)
    with httpx.Client(base_url=a.url, timeout=30) as ada, httpx.Client(base_url=a.url, timeout=30) as ann, \
            httpx.Client(base_url=a.url, timeout=30) as bob:
        for c, name in ((ada, "Ada"), (ann, "Ann"), (bob, "Bob")):
            r = c.post("/api/account/register", json={"name": name, "password": "correct horse"})
            assert r.status_code == 200, r.text
        assert CliRunner().invoke(cli, ["admin", "grant", "Ada", "--db", postgres_url]).exit_code == 0
        r = ann.post("/api/tables", json={"game": "splendor", "players": 2,
                                          "seats": [{"kind": "me"}, {"kind": "open"}]})
        assert r.status_code == 201, r.text
        tid, ann_token = r.json()["table"]["id"], r.json()["seats"][0]["token"]
        bob_token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
        # a second table where Bob only watches (his browser's socket, at B)
        r = ann.post("/api/tables", json={"game": "splendor", "players": 2,
                                          "seats": [{"kind": "me"}, {"kind": "open"}]})
        assert r.status_code == 201, r.text
        watched = r.json()["table"]["id"]
        at_ann, at_bob = Socket(b.port, tid, ann_token), Socket(b.port, tid, bob_token)
        bob_watching, ann_watching = Socket(b.port, watched, None, bob.cookies), Socket(b.port, watched, None, ann.cookies)
        try:
            for sock in (at_ann, at_bob, bob_watching, ann_watching):
                sock.until(lambda m: m["type"] == "state")
            at_bob.send({"type": "chat", "text": "a rude remark"})
            line = at_ann.until(lambda m: m["type"] == "chat" and m["line"]["name"] == "Bob")["line"]
            assert ada.post("/api/admin/hide", json={"chat_id": line["id"]}).status_code == 200
            hidden = at_ann.until(lambda m: m["type"] == "chat_hidden", timeout=10)
            assert hidden["id"] == line["id"] and hidden["line"]["text"] == modmod.HIDDEN_TEXT
            started = time.monotonic()
            r = ada.post("/api/admin/ban", json={"player": "Bob", "reason": "abuse"})
            assert r.status_code == 200, r.text
            at_bob.rest(timeout=10)
            assert at_bob.code == modmod.CLOSE_BANNED
            bob_watching.rest(timeout=10)
            assert bob_watching.code == modmod.CLOSE_BANNED
            assert time.monotonic() - started < 5
            for sock in (at_ann, ann_watching):
                sock.send({"type": "ping"})
                assert sock.until(lambda m: m["type"] == "pong")
            # the table closed at A ends at once on Ann's page at B, unrated
            r = ada.post("/api/admin/close", json={"table": tid, "note": "Abuse at the table."})
            assert r.status_code == 200, r.text
            over = at_ann.until(lambda m: m["type"] == "state" and m["over"], timeout=10)
            assert over["result"]["ended_by"] == "closed" and over["result"]["note"] == "Abuse at the table."
        finally:
            for sock in (at_ann, at_bob, bob_watching, ann_watching):
                sock.close()
    for w in (a, b):
        assert w.errors() == []
