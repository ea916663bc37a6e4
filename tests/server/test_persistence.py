"""Persistence: commit before broadcast, exact resume after a restart, PostgreSQL."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from gemtable.core import canonical
from gemtable.games.registry import all_games
from gemtable.server import create_app
from gemtable.server.db import ActionRow, normalize_url

from .conftest import create, seat_socket

HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def _actions_stored(db_url, table_id):
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(ActionRow).where(ActionRow.table_id == table_id)).scalar()
    finally:
        engine.dispose()


def test_each_action_is_committed_before_it_is_broadcast(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0)) as client:
        res = create(client, "toy", 2, seats=HUMANS)
        tid, toks = res["table"]["id"], [s["token"] for s in res["seats"]]
        with seat_socket(client, tid, toks[0]) as ws:
            ws.receive_json()
            for v in range(6):
                seat = v % 2
                r = client.post(f"/api/tables/{tid}/actions",
                                json={"token": toks[seat], "version": v, "action": {"type": "pick", "n": 1 + v % 3}})
                assert r.status_code == 200
                msg = ws.receive_json()
                while msg["type"] != "state":
                    msg = ws.receive_json()
                # when the message arrives, the action it reports is already in the database
                assert _actions_stored(db_url, tid) >= msg["version"] == v + 1


def _play_some(client, tid, tokens, game, count, rnd_seed=3):
    import random

    rnd = random.Random(rnd_seed)
    for _ in range(count):
        info = client.get(f"/api/tables/{tid}").json()
        if info["status"] == "finished":
            return
        seat = info["to_move"][0]
        st = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[seat]}).json()
        choice = rnd.choice(st["legal"])
        r = client.post(f"/api/tables/{tid}/actions",
                        json={"token": tokens[seat], "version": st["version"], "action": choice["json"]})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("game_id", ["toy"] + sorted(all_games()))
def test_restart_resumes_every_table_exactly(db_url, toy_registered, game_id):
    with TestClient(create_app(db_url, bot_delay=0.0)) as client:
        res = create(client, game_id, 2, seats=HUMANS)
        tid, toks = res["table"]["id"], [s["token"] for s in res["seats"]]
        _play_some(client, tid, toks, game_id, 3 if game_id == "toy" else 12)
        before = {t: client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": t}).json() for t in toks}
        spectator_before = client.get(f"/api/tables/{tid}/state").json()
    # a new server process on the same database
    with TestClient(create_app(db_url, bot_delay=0.0)) as client:
        listed = {t["id"]: t for t in client.get("/api/tables").json()}
        assert tid in listed and listed[tid]["version"] == before[toks[0]]["version"]
        after = {t: client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": t}).json() for t in toks}
        for t in toks:
            assert canonical(after[t]["view"]) == canonical(before[t]["view"])
            assert after[t]["legal"] == before[t]["legal"] and after[t]["version"] == before[t]["version"]
            assert [e["text"] for e in after[t]["log"]] == [e["text"] for e in before[t]["log"]]
        assert canonical(client.get(f"/api/tables/{tid}/state").json()["view"]) == canonical(spectator_before["view"])
        # and play goes on with the same tokens
        _play_some(client, tid, toks, game_id, 3)
        assert client.get(f"/api/tables/{tid}").json()["version"] >= before[toks[0]]["version"] + 1


def test_bots_resume_after_a_restart(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=30.0)) as client:  # bots too slow to move before the stop
        res = create(client, "toy", 2, seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}])
        tid, tok = res["table"]["id"], res["seats"][0]["token"]
        r = client.post(f"/api/tables/{tid}/actions", json={"token": tok, "version": 0, "action": {"type": "pick", "n": 2}})
        assert r.status_code == 200
        assert client.get(f"/api/tables/{tid}").json()["to_move"] == [1]
    with TestClient(create_app(db_url, bot_delay=0.0)) as client:
        deadline = time.time() + 10
        while client.get(f"/api/tables/{tid}").json()["version"] < 2:
            assert time.time() < deadline, "the bot did not resume"
            time.sleep(0.02)
        st = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tok}).json()
        assert st["view"]["round"] == 2 and len(st["legal"]) == 3


def test_postgresql_backend_stores_and_resumes(postgres_url, toy_registered):
    with TestClient(create_app(postgres_url, bot_delay=0.0)) as client:
        res = create(client, "toy", 2, seats=HUMANS)
        tid, toks = res["table"]["id"], [s["token"] for s in res["seats"]]
        _play_some(client, tid, toks, "toy", 4)
        before = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": toks[1]}).json()
    assert _actions_stored(postgres_url, tid) == 4
    with TestClient(create_app(postgres_url, bot_delay=0.0)) as client:
        after = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": toks[1]}).json()
        assert canonical(after["view"]) == canonical(before["view"]) and after["version"] == 4
        _play_some(client, tid, toks, "toy", 10)
        assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
