"""Lobby: open seats, waiting tables, join/leave/kick/start, invites, private tables, my games."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import update

from gemtable.server import create_app
from gemtable.server.db import TableRow
from gemtable.server.limits import Limits

from .conftest import create, seat_socket
from .test_players import named, other
from .test_robustness import JSON, SETTINGS

OPEN2 = [{"kind": "me"}, {"kind": "open"}]


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def state(client, tid, token=None):
    headers = {"X-Seat-Token": token} if token else {}
    return client.get(f"/api/tables/{tid}/state", headers=headers).json()


def pick(client, tid, token, n=1):
    s = state(client, tid, token)
    return client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                       json={"version": s["version"], "action": {"type": "pick", "n": n}})


def play_out(client, tid, tokens):
    """Every human seat picks until the (toy) game is over; bots play by themselves."""
    for _ in range(200):
        info = client.get(f"/api/tables/{tid}").json()
        if info["status"] == "finished":
            return info
        moved = False
        for token in tokens:
            s = state(client, tid, token)
            if s["legal"]:
                assert client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                                   json={"version": s["version"], "action": s["legal"][0]["json"]}).status_code == 200
                moved = True
        if not moved:
            time.sleep(0.02)
    raise AssertionError("the game did not finish")


def snapshot(client, tid):
    """A table's public summary without the server's clock reading (it moves by itself)."""
    info = client.get(f"/api/tables/{tid}").json()
    info.pop("clock", None)
    return info


def hosted(client, seats=OPEN2, private=False, players=2, name="Ann"):
    ann = named(client, name, host="203.0.113.7" if name == "Ann" else "203.0.113.77")
    r = ann.post("/api/tables", json={"game": "toy", "players": players, "seats": seats, "private": private})
    assert r.status_code == 201, r.text
    return ann, r.json()


# -- waiting and starting -------------------------------------------------------------------
def test_a_table_with_an_open_seat_waits_nothing_moves(client):
    _, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}], players=3)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    table = res["table"]
    assert table["status"] == "waiting" and table["open"] is True and table["host"] == "Ann"
    assert [s["open"] for s in table["seats"]] == [False, True, False]
    assert [s["player"] for s in table["seats"]] == ["Ann", None, None]
    assert "token" not in res["seats"][1]  # the open seat's token is for whoever joins it
    s = state(client, tid, token)
    assert s["legal"] == [] and s["prompt"] is None and "host starts" in s["waiting_prompt"]
    r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                    json={"version": 0, "action": {"type": "pick", "n": 1}})
    assert r.status_code == 409 and r.json()["error"] == "waiting"
    time.sleep(0.3)  # bots would have moved by now (bot_delay=0)
    assert client.get(f"/api/tables/{tid}").json()["version"] == 0


def test_a_stranger_joins_from_the_lobby_and_the_full_table_starts(client):
    _, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}], players=3)
    tid = res["table"]["id"]
    listed = {t["id"]: t for t in client.get("/api/tables").json()}
    assert listed[tid]["status"] == "waiting" and listed[tid]["open"] is True
    bob = named(client, "Bob", host="203.0.113.20")
    joined = bob.post(f"/api/tables/{tid}/join", json={}).json()
    assert joined["seat"] == 1 and joined["token"]
    assert bob.post(f"/api/tables/{tid}/join", json={}).json() == joined  # a second click: same seat
    info = client.get(f"/api/tables/{tid}").json()
    assert info["status"] == "running" and info["seats"][1]["player"] == "Bob" and info["seats"][1]["name"] == "Bob"
    assert state(client, tid, joined["token"])["seat"] == 1
    assert pick(client, tid, joined["token"]).status_code == 200
    assert wait_for(lambda: state(client, tid)["view"]["picked"][2])  # the bot plays now
    r = named(client, "Cleo", host="203.0.113.21").post(f"/api/tables/{tid}/join", json={})
    assert r.status_code == 409 and r.json()["error"] == "started"


def test_join_needs_a_player_and_a_free_open_seat(client):
    _, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid = res["table"]["id"]
    assert other(client).post(f"/api/tables/{tid}/join", json={}).status_code == 401
    bob = named(client, "Bob", host="203.0.113.22")
    assert bob.post(f"/api/tables/{tid}/join", json={"seat": 0}).json()["error"] == "seat_taken"
    assert bob.post(f"/api/tables/{tid}/join", json={"seat": 7}).status_code == 422
    assert bob.post(f"/api/tables/{tid}/join", json={"seat": True}).status_code == 422
    assert bob.post(f"/api/tables/{tid}/join", json={"seat": 2}).json()["seat"] == 2
    assert client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    assert bob.post("/api/tables/nope/join", json={}).status_code == 404


def test_leaving_frees_the_seat_and_its_old_token_stops_working(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid = res["table"]["id"]
    bob = named(client, "Bob", host="203.0.113.23")
    token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    r = bob.post(f"/api/tables/{tid}/leave")
    assert r.status_code == 200 and r.json()["table"]["seats"][1] == dict(
        r.json()["table"]["seats"][1], open=True, player=None, name="Player 2")
    assert client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": token}).status_code == 403
    assert bob.get(f"/api/tables/{tid}/seat").status_code == 404
    assert bob.post(f"/api/tables/{tid}/leave").status_code == 404
    r = ann.post(f"/api/tables/{tid}/leave")
    assert r.status_code == 409 and r.json()["error"] == "host_seat"
    # Bob may come back, and gets a new token
    again = bob.post(f"/api/tables/{tid}/join", json={}).json()
    assert again["token"] != token


def test_kick_before_the_start(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid, host_token = res["table"]["id"], res["seats"][0]["token"]
    bob = named(client, "Bob", host="203.0.113.24")
    token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    before = snapshot(client, tid)
    for outsider in (bob, other(client), named(client, "Dan", host="203.0.113.26")):
        r = outsider.post(f"/api/tables/{tid}/kick", json={"seat": 1})
        assert r.status_code == 403 and r.json()["error"] == "not_host"
    assert other(client).post(f"/api/tables/{tid}/kick", json={"seat": 1},
                              headers={"X-Seat-Token": token}).status_code == 403  # Bob's token: not the host's
    assert snapshot(client, tid) == before
    assert ann.post(f"/api/tables/{tid}/kick", json={"seat": 0}).status_code == 409
    assert ann.post(f"/api/tables/{tid}/kick", json={"seat": 2}).status_code == 409  # nobody there
    # the host by the host seat's token, from a browser without the cookie
    r = other(client).post(f"/api/tables/{tid}/kick", json={"seat": 1}, headers={"X-Seat-Token": host_token})
    assert r.status_code == 200 and r.json()["table"]["seats"][1]["player"] is None
    assert client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": token}).status_code == 403
    r = bob.post(f"/api/tables/{tid}/join", json={})
    assert r.status_code == 403 and r.json()["error"] == "kicked"


def test_the_host_starts_with_bots_and_the_game_plays_to_the_end(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    bob = named(client, "Bob", host="203.0.113.27")
    bob_token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    assert bob.post(f"/api/tables/{tid}/start", json={"bots": "easy"}).status_code == 403
    assert ann.post(f"/api/tables/{tid}/start", json={"bots": "brutal"}).status_code == 422
    assert client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    r = ann.post(f"/api/tables/{tid}/start", json={"bots": "medium"})
    assert r.status_code == 200
    table = r.json()["table"]
    assert table["status"] == "running"
    assert table["seats"][2]["kind"] == "bot" and table["seats"][2]["bot"] == "medium" and not table["seats"][2]["open"]
    assert ann.post(f"/api/tables/{tid}/start", json={}).status_code == 409
    info = play_out(client, tid, [token, bob_token])
    assert info["status"] == "finished"
    match = client.get(f"/api/tables/{tid}/match").json()
    assert match["meta"]["names"] == ["Ann", "Bob", "Bot 3 (medium)"]


def test_invites_show_every_invite_link_again_to_the_host_only(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "human", "name": "Zed"}, {"kind": "open"}], players=3)
    tid = res["table"]["id"]
    tokens = {s["seat"]: s.get("token") for s in res["seats"]}
    bob = named(client, "Bob", host="203.0.113.28")
    bob_token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]  # the table starts: full
    invites = ann.get(f"/api/tables/{tid}/invites").json()["seats"]
    assert [(s["seat"], s["kind"], s["token"]) for s in invites] == [(0, "me", tokens[0]), (1, "human", tokens[1])]
    assert bob_token not in json.dumps(invites)
    assert bob.get(f"/api/tables/{tid}/invites").status_code == 403
    assert other(client).get(f"/api/tables/{tid}/invites", headers={"X-Seat-Token": tokens[1]}).status_code == 403
    assert other(client).get(f"/api/tables/{tid}/invites", headers={"X-Seat-Token": tokens[0]}).status_code == 200


def test_a_table_created_without_a_player_has_its_first_invite_seat_as_host(client):
    res = create(client, seats=[{"kind": "human"}, {"kind": "open"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    assert res["table"]["host"] == "Player 1" and res["table"]["status"] == "waiting"
    assert client.post(f"/api/tables/{tid}/start", json={}, headers={"X-Seat-Token": token}).status_code == 200


def test_private_tables_are_not_listed_but_joinable_by_address(client):
    _, res = hosted(client, private=True)
    tid = res["table"]["id"]
    assert res["table"]["private"] is True
    assert tid not in [t["id"] for t in client.get("/api/tables").json()]
    bob = named(client, "Bob", host="203.0.113.29")
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200
    assert tid not in [t["id"] for t in client.get("/api/tables").json()]


def test_tables_without_open_seats_start_at_once_as_before(client):
    res = create(client, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    tid = res["table"]["id"]
    assert res["table"]["status"] == "running" and res["table"]["private"] is False
    assert all(s["open"] is False and s["player"] is None for s in res["table"]["seats"])
    assert pick(client, tid, res["seats"][0]["token"]).status_code == 200


def test_waiting_tables_expire_running_ones_stay(client):
    manager = client.app.state.manager
    _, waiting = hosted(client)
    running = create(client, seats=[{"kind": "human"}, {"kind": "human"}])["table"]["id"]
    _, fresh = hosted(client, seats=[{"kind": "human"}, {"kind": "open"}], name="Cleo")
    old = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(hours=7)
    with manager.db.session() as s:
        s.execute(update(TableRow).where(TableRow.id.in_([waiting["table"]["id"], running])).values(updated_at=old))
        s.commit()
    assert client.portal.call(manager.expire) == [waiting["table"]["id"]]
    assert client.get(f"/api/tables/{waiting['table']['id']}").status_code == 404
    assert client.get(f"/api/tables/{running}").status_code == 200
    assert client.get(f"/api/tables/{fresh['table']['id']}").status_code == 200


def test_a_waiting_table_survives_a_restart(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
        tid = res["table"]["id"]
        bob = named(client, "Bob", host="203.0.113.30")
        bob.post(f"/api/tables/{tid}/join", json={})
        ann_cookie, bob_cookie = ann.cookies["gt_player"], bob.cookies["gt_player"]
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        info = client.get(f"/api/tables/{tid}").json()
        assert info["status"] == "waiting" and [s["player"] for s in info["seats"]] == ["Ann", "Bob", None]
        bob = other(client)
        bob.cookies.set("gt_player", bob_cookie)
        assert bob.get(f"/api/tables/{tid}/seat").json()["seat"] == 1
        ann = other(client)
        ann.cookies.set("gt_player", ann_cookie)
        assert ann.post(f"/api/tables/{tid}/start", json={"bots": "easy"}).status_code == 200
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        assert client.get(f"/api/tables/{tid}").json()["status"] == "running"


# -- my games ---------------------------------------------------------------------------------
def test_my_games_lists_waiting_running_and_finished_tables(client):
    ann, waiting = hosted(client)
    running = create(ann, seats=[{"kind": "me"}, {"kind": "human"}])
    done = create(ann, seats=[{"kind": "me"}, {"kind": "bot", "bot": "random"}])
    play_out(client, done["table"]["id"], [done["seats"][0]["token"]])
    create(client, seats=[{"kind": "human"}, {"kind": "human"}])  # not Ann's
    games = ann.get("/api/me/games").json()
    assert [t["id"] for t in games["waiting"]] == [waiting["table"]["id"]]
    assert [t["id"] for t in games["running"]] == [running["table"]["id"]]
    assert [t["id"] for t in games["finished"]] == [done["table"]["id"]]
    assert all(t["my_seat"] == 0 for group in games.values() for t in group)
    assert games["finished"][0]["result"]["ranking"] and "result" not in games["running"][0]
    assert other(client).get("/api/me/games").status_code == 401


def test_lobby_and_my_games_never_carry_tokens_seeds_ids_or_hidden_state(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "human"}], players=3)
    tid = res["table"]["id"]
    bob = named(client, "Bob", host="203.0.113.31")
    bob_token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    table = client.app.state.manager.tables[tid]
    secrets_ = [s.token for s in table.seats] + [str(table.seed), bob_token] + [
        s.player for s in table.seats if s.player] + [ann.cookies["gt_player"].strip('"')]
    for c, path in [(client, "/api/tables"), (client, f"/api/tables/{tid}"), (ann, "/api/me/games"),
                    (bob, "/api/me/games"), (client, "/api/players/Ann"), (client, "/api/players/Bob")]:
        text = c.get(path).text
        for secret in secrets_:
            assert secret not in text, (path, secret)
        assert "my_secret" not in text and "view" not in text, path


# -- fuzzing ------------------------------------------------------------------------------------
@SETTINGS
@given(path=st.sampled_from(["join", "leave", "kick", "start", "invites"]), body=st.fixed_dictionaries(
    {}, optional={"seat": st.integers(-2, 4) | JSON, "bots": st.sampled_from(["easy", "hard", "x"]) | JSON}) | JSON,
       who=st.sampled_from(["host", "guest", "nobody", "token", "badtoken"]))
def test_lobby_endpoints_never_500_and_refusals_change_nothing(client, path, body, who):
    if not hasattr(client, "_lobby_players"):
        client._lobby_players = (named(client, "Ann"), named(client, "Gus", host="203.0.113.32"))
    ann, guest = client._lobby_players
    if not hasattr(client, "_lobby_table"):
        res = create(ann, players=3, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
        client._lobby_table = (res["table"]["id"], res["seats"][0]["token"])
    tid, token = client._lobby_table
    caller = {"host": ann, "guest": guest}.get(who) or other(client)
    headers = {"Content-Type": "application/json"}
    if who in ("token", "badtoken"):
        headers["X-Seat-Token"] = token if who == "token" else "not-a-token"
    before = snapshot(client, tid)
    if path == "invites":
        r = caller.get(f"/api/tables/{tid}/invites", headers=headers)
    else:
        r = caller.post(f"/api/tables/{tid}/{path}", content=json.dumps(body), headers=headers)
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["error"] and r.json()["detail"]
        assert snapshot(client, tid) == before
    elif path == "start" or client.get(f"/api/tables/{tid}").json()["status"] != "waiting":
        # a fresh waiting table for the next example
        del client._lobby_table


def test_an_invite_seat_opened_by_a_named_player_joins_their_games(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "human", "name": "Bob"}])
    tid, invite = res["table"]["id"], res["seats"][1]["token"]
    bob = named(client, "Robert", host="203.0.113.33")
    assert bob.get(f"/api/tables/{tid}/seat").status_code == 404
    with seat_socket(bob, tid, invite) as ws:
        assert ws.receive_json()["type"] == "state"
    assert bob.get(f"/api/tables/{tid}/seat").json() == {"seat": 1, "token": invite}
    assert [t["id"] for t in bob.get("/api/me/games").json()["running"]] == [tid]
    # the host can still show that invite link again
    assert invite in [s["token"] for s in ann.get(f"/api/tables/{tid}/invites").json()["seats"]]
    # a spectator with a player binds nothing; nor does a seat already held
    cleo = named(client, "Cleo", host="203.0.113.34")
    with seat_socket(cleo, tid) as ws:
        assert ws.receive_json()["type"] == "state"
    with seat_socket(cleo, tid, invite) as ws:
        assert ws.receive_json()["type"] == "state"
    assert cleo.get("/api/me/games").json()["running"] == []


LOBBY_CREATE = st.fixed_dictionaries(
    {"game": st.just("toy"), "players": st.sampled_from([2, 3])},
    optional={
        "seats": st.lists(st.fixed_dictionaries({"kind": st.sampled_from(["human", "bot", "open", "me", "x"]) | JSON},
                                                optional={"bot": st.sampled_from(["easy", "random", "zz"]) | JSON,
                                                          "name": st.sampled_from(["\ud800x", "a\x00b", "Ann"]) | JSON}),
                          min_size=2, max_size=3) | JSON,
        "private": st.booleans() | JSON,
    },
)


@SETTINGS
@given(body=LOBBY_CREATE, with_player=st.booleans())
def test_creating_lobby_tables_never_500_and_a_refusal_stores_nothing(client, body, with_player):
    from .test_robustness import _table_count

    if not hasattr(client, "_creator"):
        client._creator = named(client, "Ann")
    caller = client._creator if with_player else other(client)
    before = _table_count(client)
    r = caller.post("/api/tables", content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code in (201, 422), r.text
    assert _table_count(client) == before + (r.status_code == 201)
    if r.status_code == 201:
        kinds = [s.get("kind", "human") if isinstance(s, dict) else None for s in body.get("seats") or []]
        table = r.json()["table"]
        assert table["status"] == ("waiting" if "open" in kinds else "running")
        assert table["private"] is (body.get("private") is True)
        for seat, kind in zip(r.json()["seats"], kinds):
            assert ("token" in seat) == (kind in ("human", "me")), (seat, kind)


def test_the_state_tells_the_host_seat_it_hosts(client):
    _, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid = res["table"]["id"]
    bob = named(client, "Bob", host="203.0.113.35")
    bob_token = bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    assert state(client, tid, res["seats"][0]["token"])["is_host"] is True
    assert state(client, tid, bob_token)["is_host"] is False
    assert state(client, tid)["is_host"] is False


@pytest.mark.parametrize("path", ["/me", "/leaderboard", "/leaderboard/toy", "/players/Ann"])
def test_the_players_pages_serve_the_shell(client, path):
    r = client.get(path)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]


def test_a_database_from_before_the_lobby_gets_its_columns(db_url, toy_registered):
    from sqlalchemy import create_engine, inspect, text

    from gemtable.server.db import Database

    Database(db_url).dispose()
    engine = create_engine(db_url)
    with engine.begin() as conn:
        for column in ("private", "host_seat", "host_player", "rated"):
            conn.execute(text(f"ALTER TABLE gt_tables DROP COLUMN {column}"))
        conn.execute(text("DROP INDEX ix_gt_seats_player_id"))
        for column in ("player_id", "open_seat"):
            conn.execute(text(f"ALTER TABLE gt_seats DROP COLUMN {column}"))
    engine.dispose()
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        _, res = hosted(client)
        assert res["table"]["status"] == "waiting"
        assert named(client, "Bob", host="203.0.113.36").post(
            f"/api/tables/{res['table']['id']}/join", json={}).status_code == 200
    engine = create_engine(db_url)
    assert {"player_id", "open_seat"} <= {c["name"] for c in inspect(engine).get_columns("gt_seats")}
    engine.dispose()


def test_seat_changes_before_the_start_are_system_lines_in_the_chat(client):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], players=3)
    tid = res["table"]["id"]
    bob = named(client, "Bob", host="203.0.113.31")
    cleo = named(client, "Cleo", host="203.0.113.32")
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200
    assert bob.post(f"/api/tables/{tid}/leave").status_code == 200
    assert cleo.post(f"/api/tables/{tid}/join", json={}).status_code == 200
    seat = cleo.get(f"/api/tables/{tid}/seat").json()["seat"]
    assert ann.post(f"/api/tables/{tid}/kick", json={"seat": seat}).status_code == 200
    assert ann.post(f"/api/tables/{tid}/start", json={"bots": "easy"}).status_code == 200
    expected = ["Bob sat down.", "Bob left the table.", "Cleo sat down.",
                "Cleo was removed from the table by the host.",
                "The host started the game: empty seats are played by bots."]

    def lines():
        return [line["text"] for line in state(client, tid)["chat"] if line["system"]]

    assert wait_for(lambda: lines() == expected), lines()


def test_a_clocked_table_runs_its_clocks_as_soon_as_the_last_seat_is_taken(client):
    client.app.state.inplay.settings.tick = 3600  # no periodic clock check during the test
    ann = named(client, "Ann", host="203.0.113.33")
    r = ann.post("/api/tables", json={"game": "toy", "players": 2, "seats": OPEN2,
                                      "clock": {"mode": "realtime", "base": 600, "increment": 5}})
    assert r.status_code == 201, r.text
    tid = r.json()["table"]["id"]
    assert state(client, tid)["table"]["clock"]["running"] == []
    bob = named(client, "Bob", host="203.0.113.34")
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200  # the table is full: it starts
    # nobody moved and no periodic check came: the start itself started both clocks
    assert wait_for(lambda: state(client, tid)["table"]["clock"]["running"] == [0, 1], timeout=5.0)
