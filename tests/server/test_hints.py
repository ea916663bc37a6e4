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


def my_turn(client, tid, token):
    got = {}

    def ready():
        got.update(state(client, tid, token))
        return bool(got.get("legal"))
    assert wait_for(ready)
    return got


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
    for _ in range(3000):  # play it out with the first legal move
        s = state(ann, tid, token)
        if s["over"]:
            break
        if s["legal"]:
            ann.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                     json={"version": s["version"], "action": s["legal"][0]["json"]})
    assert s["over"] and s["result"]["hinted"] == [0]

    def settled():
        with client.app.state.manager.db.session() as db:
            return db.get(TableRow, tid).rated
    assert wait_for(settled)
    from .test_ratings import rows
    assert rows(client) == {}


@SETTINGS
@given(body=st.one_of(st.none(), st.integers(), st.text(), st.dictionaries(st.text(max_size=8), st.integers() | st.text())))
def test_the_hint_route_never_500(client, body):
    res = create(client, game="splendor", players=2, seats=PRACTICE)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    r = client.post(f"/api/tables/{tid}/hint", headers={"X-Seat-Token": token}, json=body)
    assert r.status_code < 500, r.text
