"""Hints at practice tables: only for a seat whose every opponent is a bot, at its turn, from
its own view; a hinted game is marked and not rated; never a 5xx."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gemtable.server.db import HintRow, TableRow

from .conftest import create
from .test_lobby import state, wait_for
from .test_robustness import SETTINGS

PRACTICE = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


def my_turn(client, tid, token):
    got = {}

    def ready():
        got.update(state(client, tid, token))
        return bool(got.get("legal"))
    assert wait_for(ready)
    return got


def play_out(client, tid, token, timeout=120.0):
    """Play the seat's moves (a purchase when there is one, else the first legal move) until the
    game is over; the bot moves meanwhile."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = state(client, tid, token)
        if s["over"]:
            return s
        if s["legal"]:  # buy when it can (taking gems only can go on for ever)
            move = next((e for e in s["legal"] if e["type"].startswith("buy")), s["legal"][0])
            client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                        json={"version": s["version"], "action": move["json"]})
        else:
            time.sleep(0.01)
    return s


def ask(client, tid, token, version):
    return client.post(f"/api/tables/{tid}/hint", headers={"X-Seat-Token": token} if token else {},
                       json={"version": version})


def test_a_practice_seat_gets_three_hints_and_the_game_is_marked(client):
    res = create(client, game="splendor", players=2, seats=PRACTICE)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    s = my_turn(client, tid, token)
    assert s["hints"] is True
    r = ask(client, tid, token, s["version"])
    assert r.status_code == 200, r.text
    hints = r.json()["hints"]
    assert len(hints) == 3 and all(h["text"] and 0 <= h["chance"] <= 1 for h in hints)
    legal = [e["json"] for e in s["legal"]]
    assert all(h["action"] in legal for h in hints)
    with client.app.state.manager.db.session() as db:
        assert db.get(HintRow, (tid, 0)) is not None


def test_hints_are_refused_where_something_is_at_stake_or_out_of_turn(client):
    res = create(client, game="splendor", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    tid, tokens = res["table"]["id"], [x["token"] for x in res["seats"]]
    s = state(client, tid, tokens[0])
    assert "hints" not in s
    mover = s["to_move"][0]
    r = ask(client, tid, tokens[mover], s["version"])
    assert r.status_code == 403 and r.json()["error"] == "not_practice"
    assert ask(client, tid, None, s["version"]).status_code == 403  # a spectator
    assert ask(client, tid, "wrong", s["version"]).status_code == 403
    res = create(client, game="splendor", players=2, seats=PRACTICE)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    s = my_turn(client, tid, token)
    assert ask(client, tid, token, s["version"] - 1).json()["error"] == "stale"
    with client.app.state.manager.db.session() as db:
        assert db.get(HintRow, (tid, 0)) is None


def test_a_hinted_game_is_not_rated(client):
    from .test_ratings import account

    ann = account(client, "Ann", "10.0.0.7")
    res = create(ann, game="splendor", players=2, seats=[{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    s = my_turn(ann, tid, token)
    assert ask(ann, tid, token, s["version"]).status_code == 200
    s = play_out(ann, tid, token)
    assert s["over"] and s["result"]["hinted"] == [0]

    def settled():
        with client.app.state.manager.db.session() as db:
            return db.get(TableRow, tid).rated
    assert wait_for(settled, timeout=60)
    from .test_ratings import rows
    assert rows(client) == {}


@SETTINGS
@given(body=st.one_of(st.none(), st.integers(), st.text(), st.dictionaries(st.text(max_size=8), st.integers() | st.text())))
def test_the_hint_route_never_500(client, body):
    res = create(client, game="splendor", players=2, seats=PRACTICE)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    r = client.post(f"/api/tables/{tid}/hint", headers={"X-Seat-Token": token}, json=body)
    assert r.status_code < 500, r.text


def test_the_analysis_board_tries_other_moves_of_a_finished_game(client):
    tid = create(client, game="splendor", players=2, seats=BOTS, seed=3)["table"]["id"]
    assert wait_for(lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished", timeout=60)
    first = client.post(f"/api/tables/{tid}/analysis", json={"move": 6})
    assert first.status_code == 200, first.text
    data = first.json()
    assert len(data["chances"]) == 2 and len(data["best"]) == 3 and data["legal"]
    other = data["legal"][-1]["json"]
    tried = client.post(f"/api/tables/{tid}/analysis", json={"move": 6, "line": [{"seat": data["seat"], "action": other}]})
    assert tried.status_code == 200 and tried.json()["line"] == 1
    wrong = client.post(f"/api/tables/{tid}/analysis", json={"move": 6, "line": [{"seat": 1 - data["seat"], "action": other}]})
    assert wrong.status_code == 422 and "not to move" in wrong.json()["detail"]
    bad = client.post(f"/api/tables/{tid}/analysis", json={"move": 6, "line": [{"seat": data["seat"], "action": {"type": "fly"}}]})
    assert bad.status_code == 422
    assert client.post(f"/api/tables/{tid}/analysis", json={"move": 10**6}).status_code == 422


def test_no_analysis_board_for_a_running_game(client):
    res = create(client, game="splendor", players=2, seats=PRACTICE)
    r = client.post(f"/api/tables/{res['table']['id']}/analysis", json={"move": 0})
    assert r.status_code == 409 and r.json()["error"] == "running"


@SETTINGS
@given(body=st.one_of(st.none(), st.integers(), st.dictionaries(st.sampled_from(["move", "line", "x"]),
                                                                 st.integers() | st.lists(st.integers()) | st.text())))
def test_the_analysis_route_never_500(client, body):
    r = client.post("/api/tables/nosuchtable/analysis", json=body)
    assert r.status_code < 500, r.text


_FINISHED: dict[int, str] = {}


@SETTINGS
@given(move=st.integers(-5, 400), line=st.lists(st.fixed_dictionaries({
    "seat": st.integers(-1, 20),
    "action": st.dictionaries(st.sampled_from(["type", "colours", "card", "n"]),
                              st.sampled_from(["take", "buy", "reserve", 1, -1, None]) | st.lists(st.text(max_size=6))),
}), max_size=4))
def test_lines_on_a_finished_game_never_500(client, move, line):
    if id(client) not in _FINISHED:
        tid = create(client, game="splendor", players=2, seats=BOTS, seed=3)["table"]["id"]
        assert wait_for(lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished", timeout=60)
        _FINISHED[id(client)] = tid
    r = client.post(f"/api/tables/{_FINISHED[id(client)]}/analysis", json={"move": move, "line": line})
    assert r.status_code < 500, r.text


def test_a_table_marked_as_practice_gives_hints_to_people_and_is_not_rated(client):
    from .test_ratings import account

    r = client.post("/api/tables", json={"game": "splendor", "players": 2, "practice": True,
                                         "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 201 and r.json()["table"]["practice"] is True
    tid, tokens = r.json()["table"]["id"], [x["token"] for x in r.json()["seats"]]
    s = state(client, tid, tokens[0])
    mover = s["to_move"][0]
    s = state(client, tid, tokens[mover])
    assert s["hints"] is True
    assert ask(client, tid, tokens[mover], s["version"]).status_code == 200
    # an account against a rated bot level, marked as practice, no hint asked: not rated
    ann = account(client, "Ann", "10.0.0.8")
    res = ann.post("/api/tables", json={"game": "splendor", "players": 2, "practice": True,
                                        "seats": [{"kind": "me"}, {"kind": "bot", "bot": "easy"}]}).json()
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    s = play_out(ann, tid, token)
    assert s["over"] and "hinted" not in s["result"]

    def settled():
        with client.app.state.manager.db.session() as db:
            return db.get(TableRow, tid).rated
    assert wait_for(settled, timeout=60)
    from .test_ratings import rows
    assert rows(client) == {}
