"""Time control: real-time Fischer and turn-based clocks, bots for away seats,
taking a seat back, and clocks that survive a restart without charging the downtime.

Time is driven by hand: ``inplay.time`` is replaced by a fake clock and the clock check
(``InPlay.tick``) is called by the tests, so nothing here depends on the machine's speed.
"""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from gemtable.server import create_app, inplay
from gemtable.server.clocks import ClockError, PlayState, parse_clock
from gemtable.server.db import PlayRow, TableRow
from gemtable.server.limits import Limits

from .conftest import seat_socket

HUMANS2 = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
PICK = {"type": "pick", "n": 1}


class FakeTime:
    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def time(self) -> float:
        return self.ms / 1000

    def advance(self, seconds: float) -> None:
        self.ms += int(seconds * 1000)


@pytest.fixture
def fake(monkeypatch):
    clock = FakeTime()
    monkeypatch.setattr(inplay, "time", clock)
    return clock


def app_client(db_url):
    return TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed()))


@pytest.fixture
def timed(fake, db_url, toy_registered):
    with app_client(db_url) as c:
        c.app.state.inplay.settings.tick = 3600  # the tests call tick() themselves
        yield c


def until(ws, pred, limit=80):
    for _ in range(limit):
        msg = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("expected message never came")


def clock(client, tid):
    return client.get(f"/api/tables/{tid}").json()["clock"]


def pick(client, tid, token, version):
    r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                    json={"version": version, "action": PICK})
    assert r.status_code == 200, r.text
    return r.json()


def tick(client):
    return client.portal.call(client.app.state.inplay.tick)


def new_table(client, clock_config, seats=HUMANS2):
    r = client.post("/api/tables", json={"game": "toy", "players": 2, "seats": seats, "clock": clock_config})
    assert r.status_code == 201, r.text
    res = r.json()
    return res["table"]["id"], [s.get("token") for s in res["seats"]]


# -- configuration ----------------------------------------------------------------------
@pytest.mark.parametrize("config", [
    "fast", 5, [], {"mode": "blitz"}, {"mode": "realtime", "base": 0}, {"mode": "realtime", "base": 1.5},
    {"mode": "realtime", "base": True}, {"mode": "realtime", "base": 10**9}, {"mode": "realtime", "increment": -1},
    {"mode": "turn", "per_move": 5}, {"mode": "turn", "per_move": "1d"}, {"mode": "none", "extra": 1},
])
def test_bad_time_controls_are_refused_and_create_nothing(timed, config):
    r = timed.post("/api/tables", json={"game": "toy", "players": 2, "clock": config})
    assert r.status_code == 422 and r.json()["detail"], r.text
    with timed.app.state.manager.db.session() as s:
        assert s.scalar(select(func.count()).select_from(TableRow)) == 0
        assert s.scalar(select(func.count()).select_from(PlayRow)) == 0


CLOCKS = st.fixed_dictionaries({}, optional={
    "mode": st.sampled_from(["none", "realtime", "turn", "x"]) | st.integers() | st.none(),
    "base": st.integers(-5, 10**8) | st.floats() | st.text(max_size=3) | st.none(),
    "increment": st.integers(-5, 10**5) | st.floats() | st.booleans(),
    "per_move": st.integers(-5, 10**8) | st.floats(),
}) | st.none() | st.integers() | st.text(max_size=4) | st.lists(st.integers(), max_size=2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=CLOCKS)
def test_fuzzed_time_controls_never_500(timed, config):
    body = json.dumps({"game": "toy", "players": 2, "clock": config}, allow_nan=True)
    r = timed.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code in (201, 422), r.text
    if r.status_code == 201:
        got = r.json()["table"]["clock"]
        assert got == dict(got, **{k: v for k, v in parse_clock(config).items()})


# -- real time (Fischer) -------------------------------------------------------------------
def test_realtime_clocks_run_for_every_seat_to_move_and_gain_the_increment(timed, fake):
    tid, tokens = new_table(timed, {"mode": "realtime", "base": 60, "increment": 5})
    c = clock(timed, tid)
    assert (c["mode"], c["base"], c["increment"]) == ("realtime", 60, 5)
    assert c["remaining"] == [60000, 60000] and c["running"] == [0, 1]  # simultaneous picks: both run
    fake.advance(10)
    assert clock(timed, tid)["remaining"] == [50000, 50000]
    payload = pick(timed, tid, tokens[0], 0)
    assert payload["clock"]["remaining"] == [55000, 50000] and payload["clock"]["running"] == [1]
    assert payload["clock"]["server_now"] == fake.ms
    fake.advance(5)
    pick(timed, tid, tokens[1], 1)  # the round ends: both decide again
    c = clock(timed, tid)
    assert c["remaining"] == [55000, 50000] and c["running"] == [0, 1]
    with timed.app.state.manager.db.session() as s:  # stored with the action
        assert s.get(PlayRow, tid).data["remaining"] == [55000, 50000]


def test_a_seat_out_of_time_is_played_by_a_bot_until_taken_back(timed, fake):
    timed.app.state.inplay.settings.away_after = 10**6  # only the clock matters here
    tid, tokens = new_table(timed, {"mode": "realtime", "base": 20, "increment": 0})
    with seat_socket(timed, tid, tokens[0]) as ann, seat_socket(timed, tid, tokens[1]) as bob, \
            seat_socket(timed, tid) as spec:
        for ws in (ann, bob, spec):
            until(ws, lambda m: m["type"] == "state")
        pick(timed, tid, tokens[0], 0)
        fake.advance(19)
        assert tick(timed) == []
        fake.advance(1)
        assert tick(timed) == [(tid, 1, "time")]
        line = until(spec, lambda m: m["type"] == "chat")["line"]
        assert line["system"] and line["text"].startswith("Bob ran out of time: a bot (medium) plays for them")
        # the bot plays Bob's picks (round 1, then round 2 at once)
        st_ = until(bob, lambda m: m["type"] == "state" and m["version"] >= 3)
        assert st_["table"]["seats"][1]["away"] is True and st_["clock"]["remaining"][1] == 0
        assert st_["clock"]["running"] == [0]  # a bot's seat has no running clock
        bob.send_json({"type": "take_seat"})
        back = until(bob, lambda m: m["type"] == "chat")["line"]
        assert back["text"] == "Bob took their seat back."
        st_ = until(bob, lambda m: m["type"] == "state" and not m["table"]["seats"][1]["away"])
        assert st_["clock"]["remaining"][1] == 30000  # the grace, once
        bob.send_json({"type": "take_seat"})
        assert until(bob, lambda m: m["type"] == "error")["code"] == "not_away"
        for token in (tokens[0], tokens[1], tokens[0]):
            pick(timed, tid, token, timed.get(f"/api/tables/{tid}").json()["version"])
        final = until(spec, lambda m: m["type"] == "state" and m["over"])
        assert final["result"]["replaced"] == [1]
        # chat is the same for everyone (it can hold no seat's secret) and names public facts only
        chats = [timed.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": t} if t else {}).json()["chat"]
                 for t in (tokens[0], tokens[1], None)]
        assert chats[0] == chats[1] == chats[2]
        assert [x["text"][:12] for x in chats[0]] == ["Bob ran out ", "Bob took the"]
    with timed.app.state.manager.db.session() as s:
        assert s.get(TableRow, tid).result["replaced"] == [1]


def test_the_grace_is_given_once():
    play = PlayState.new({"mode": "realtime", "base": 60, "increment": 0}, 2)
    play.sync({0, 1}, True, 0)
    play.go_away(1, 70_000)
    assert play.remaining[1] == 0 and 1 in play.away and play.replaced == {1}
    assert play.take_back(1, 30_000) and play.remaining[1] == 30_000
    play.sync({0, 1}, True, 70_000)
    play.go_away(1, 100_000)
    assert not play.take_back(1, 30_000) and 1 in play.away  # nothing left: the bot finishes


def test_a_disconnected_seat_to_move_goes_to_a_bot_in_real_time_only(timed, fake):
    manager = timed.app.state.manager
    timed.app.state.inplay.settings.away_after = 60
    tid, tokens = new_table(timed, {"mode": "realtime", "base": 600, "increment": 0})
    turn_tid, _ = new_table(timed, {"mode": "turn", "per_move": 86400})
    with seat_socket(timed, tid, tokens[1]) as bob:  # Bob opens the table, then his connection drops
        until(bob, lambda m: m["type"] == "state")
    fake.advance(30)
    assert tick(timed) == []  # Ann never opened her invite: only her clock counts against her
    with seat_socket(timed, tid, tokens[0]) as ann:
        until(ann, lambda m: m["type"] == "state")
        fake.advance(29)
        assert tick(timed) == []
        fake.advance(1)
        assert tick(timed) == [(tid, 1, "disconnected")]
        line = until(ann, lambda m: m["type"] == "chat")["line"]
        assert line["text"].startswith("Bob was away too long while to move")
    # a turn-based table does not care who is connected, only about its clock
    fake.advance(86400 - 60 - 1)
    assert [h for h in tick(timed) if h[0] == turn_tid] == []
    fake.advance(1)
    assert sorted(h for h in tick(timed) if h[0] == turn_tid) == [(turn_tid, 0, "time"), (turn_tid, 1, "time")]


def test_turn_based_clocks_restart_with_every_decision(timed, fake):
    tid, tokens = new_table(timed, {"mode": "turn", "per_move": 3600})
    assert clock(timed, tid)["remaining"] == [3_600_000, 3_600_000]
    fake.advance(1000)
    pick(timed, tid, tokens[0], 0)
    c = clock(timed, tid)
    assert c["remaining"] == [2_600_000, 2_600_000] and c["running"] == [1]
    fake.advance(600)
    pick(timed, tid, tokens[1], 1)
    assert clock(timed, tid)["remaining"] == [3_600_000, 3_600_000]  # a new decision for both


def test_no_clock_means_no_timeouts(timed, fake):
    tid, _ = new_table(timed, None)
    c = clock(timed, tid)
    assert c["mode"] == "none" and c["remaining"] == [None, None] and c["running"] == []
    fake.advance(10**7)
    assert tick(timed) == []


# -- restarts --------------------------------------------------------------------------------
def test_clocks_survive_a_crash_and_the_downtime_is_not_charged(fake, db_url, toy_registered):
    with app_client(db_url) as c:
        inp = c.app.state.inplay
        inp.settings.tick = 3600
        tid, tokens = new_table(c, {"mode": "realtime", "base": 600, "increment": 5})
        fake.advance(10)
        pick(c, tid, tokens[0], 0)  # Ann: 590 s + 5 s; Bob's clock keeps running
        fake.advance(20)
        tick(c)  # a heartbeat: the server is alive 30 s after the start
        fake.advance(5)

        async def no_beat(*_a, **_k):  # what a crash does: no last heartbeat
            return None

        inp.beat = no_beat
    fake.advance(1000)  # the server is down for 1000 s
    with app_client(db_url) as c:
        c2 = clock(c, tid)
        # Bob is charged up to the last heartbeat (30 s), not for the downtime
        assert c2["remaining"] == [595_000, 570_000] and c2["running"] == [1]
        fake.advance(7)
        assert clock(c, tid)["remaining"] == [595_000, 563_000]


def test_a_clean_restart_charges_up_to_the_stop(fake, db_url, toy_registered):
    with app_client(db_url) as c:
        tid, _ = new_table(c, {"mode": "realtime", "base": 600, "increment": 0})
        fake.advance(42)
    fake.advance(3600)
    with app_client(db_url) as c:
        assert clock(c, tid)["remaining"] == [558_000, 558_000]


def test_parse_clock_defaults():
    assert parse_clock(None) == {"mode": "none"}
    assert parse_clock({"mode": "realtime"}) == {"mode": "realtime", "base": 600, "increment": 5}
    assert parse_clock({"mode": "turn"}) == {"mode": "turn", "per_move": 86400}
    with pytest.raises(ClockError):
        parse_clock({"mode": "turn", "per_move": float("nan")})


def test_a_bots_seat_has_no_running_clock(timed, fake):
    tid, _tokens = new_table(timed, {"mode": "realtime", "base": 60, "increment": 0},
                            seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}])
    assert clock(timed, tid)["running"] == [0]
    fake.advance(10**6)
    assert tick(timed) == [(tid, 0, "time")]  # only the person's clock can run out


def test_a_bot_move_under_way_is_dropped_when_the_seat_is_taken_back(timed, fake):
    import asyncio
    import threading
    import time

    manager = timed.app.state.manager
    timed.app.state.inplay.settings.away_after = 10**6
    tid, tokens = new_table(timed, {"mode": "realtime", "base": 20, "increment": 0})
    gate = threading.Event()
    original = manager.bots.pool.run

    async def held(key, fn):  # the bot thinks until the gate opens
        await asyncio.get_running_loop().run_in_executor(None, gate.wait, 30)
        return await original(key, fn)

    manager.bots.pool.run = held
    pick(timed, tid, tokens[0], 0)
    fake.advance(21)
    assert tick(timed) == [(tid, 1, "time")]
    table = manager.tables[tid]
    assert table.bot_task is not None and not table.bot_task.done()  # thinking for Bob
    with seat_socket(timed, tid, tokens[1]) as bob:
        until(bob, lambda m: m["type"] == "state")
        bob.send_json({"type": "take_seat"})
        until(bob, lambda m: m["type"] == "chat" and m["line"]["text"] == "Bob took their seat back.")
        gate.set()
        deadline = time.monotonic() + 20
        while not table.bot_task.done() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert table.bot_task.done()
        state = timed.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[1]}).json()
        assert state["version"] == 1 and state["to_move"] == [1] and state["legal"]  # Bob decides himself
