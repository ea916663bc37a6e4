"""Bot levels come from ``gemtable.bots.LEVELS`` everywhere, with their ladder ratings."""

from __future__ import annotations

import json

import pytest

from gemtable.analysis import ladder
from gemtable.bots import LEVELS
from gemtable.games.registry import all_games

from .conftest import create
from .test_lobby import hosted, wait_for
from .test_players import named
from .test_ratings import account, finished_game, rows, settled


@pytest.fixture
def added(monkeypatch):
    """A level added after the others (cheap: it plays at random)."""
    monkeypatch.setitem(LEVELS, "grandmaster", "random")
    return "grandmaster"


@pytest.fixture
def toy_ladder(monkeypatch, tmp_path):
    """The toy game ships a ladder (in a temporary folder); the real games' files are untouched."""
    real = ladder.levels_path

    def path(game):
        return tmp_path / "toy.levels.json" if game.id == "toy" else real(game)

    monkeypatch.setattr(ladder, "levels_path", path)
    record = {"format": 1, "game": "toy",
              "levels": {"easy": {"spec": LEVELS["easy"], "mu": 21.5, "sigma": 1.5, "rating": 17.0, "games": 40},
                         "medium": {"spec": LEVELS["medium"], "mu": 26.0, "sigma": 1.0, "rating": 23.0, "games": 40}},
              "command": "gemtable ladder toy --levels easy,medium -n 20 --players 2 --seed 0 --install",
              "seed": 0, "games_per_pairing": 20, "players": 2, "date": "2026-11-25", "machine": "test"}
    (tmp_path / "toy.levels.json").write_text(json.dumps(record))
    return record


def test_api_bots_lists_the_levels_in_order_and_each_games_level_ratings(client, toy_ladder, added):
    body = client.get("/api/bots").json()
    assert list(body["levels"]) == list(LEVELS) and body["levels"]["grandmaster"] == "random"
    assert set(body["ratings"]) == set(all_games())
    assert body["ratings"]["toy"] == {
        "easy": {"rating": 17.0, "mu": 21.5, "sigma": 1.5, "games": 40},
        "medium": {"rating": 23.0, "mu": 26.0, "sigma": 1.0, "games": 40}}
    assert list(body["ratings"]["toy"]) == ["easy", "medium"]  # easiest first
    assert "levels.json" not in json.dumps(body) and "/" not in json.dumps(body["ratings"])


def test_api_bots_without_a_ladder_or_with_a_broken_one_gives_none(client, toy_ladder, tmp_path):
    (tmp_path / "toy.levels.json").write_text('{"format": 1, "game": "toy", "levels": {}}')
    assert client.get("/api/bots").json()["ratings"]["toy"] is None
    (tmp_path / "toy.levels.json").unlink()
    assert client.get("/api/bots").json()["ratings"]["toy"] is None


def test_the_host_starts_with_a_level_added_to_the_levels(client, added):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}])
    tid = res["table"]["id"]
    r = ann.post(f"/api/tables/{tid}/start", json={"bots": "brutal"})
    assert r.status_code == 422 and r.json()["error"] == "bad_bot"
    assert "easy, medium, hard, expert, grandmaster" in r.json()["detail"] and "'brutal'" in r.json()["detail"]
    r = ann.post(f"/api/tables/{tid}/start", json={"bots": "grandmaster"})
    assert r.status_code == 200, r.text
    seat = r.json()["table"]["seats"][1]
    assert seat["kind"] == "bot" and seat["bot"] == "grandmaster"


@pytest.fixture
def beginner():
    """A level put before the others: the easiest."""
    saved = dict(LEVELS)
    LEVELS.clear()
    LEVELS.update({"beginner": "random", **saved})
    yield "beginner"
    LEVELS.clear()
    LEVELS.update(saved)


def test_start_without_a_level_takes_the_easiest(client, beginner):
    ann, res = hosted(client, seats=[{"kind": "me"}, {"kind": "open"}])
    r = ann.post(f"/api/tables/{res['table']['id']}/start", json={})
    assert r.status_code == 200 and r.json()["table"]["seats"][1]["bot"] == "beginner"


def test_a_level_added_to_the_levels_is_rated_and_has_a_profile(client, added):
    ann = account(client, "Ann", "203.0.113.60")
    tid, _ = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "grandmaster"}])
    settled(client, tid)
    assert "bot:grandmaster" in rows(client)
    board = client.get("/api/leaderboard/toy").json()
    assert "bot: grandmaster" in {e["name"] for e in board}
    profile = named(client, "Zoe", host="203.0.113.61").get("/api/players/bot: grandmaster").json()
    assert profile["bot"] is True and profile["ratings"]["toy"]["games"] == 1


# -- a game's own level specs ----------------------------------------------------------------------
@pytest.fixture
def toy_levels(toy_registered, monkeypatch):
    """The toy game plays ``hard`` with a greedy bot of its own (the default is a search)."""
    monkeypatch.setitem(toy_registered.extra, "levels", {"hard": "greedy:epsilon=0.1"})
    return toy_registered


def test_api_bots_lists_each_games_own_level_specs(client, toy_levels):
    body = client.get("/api/bots").json()
    assert body["levels"] == LEVELS  # the default table
    assert body["specs"]["toy"] == {**LEVELS, "hard": "greedy:epsilon=0.1"}
    assert list(body["specs"]["toy"]) == list(LEVELS)
    assert set(body["specs"]) == set(all_games()) and body["specs"]["splendor"]["easy"] == LEVELS["easy"]


def test_a_bot_seat_plays_the_games_own_spec_for_its_level(client, toy_levels):
    from gemtable.bots.greedy import GreedyBot
    from gemtable.bots.mcts import MctsBot

    tid = create(client, seats=[{"kind": "human"}, {"kind": "bot", "bot": "hard"},
                                {"kind": "bot", "bot": "medium"}], players=3)["table"]["id"]
    tables = client.app.state.manager.tables
    assert wait_for(lambda: 1 in tables[tid].bots and 2 in tables[tid].bots)
    hard, medium = tables[tid].bots[1], tables[tid].bots[2]
    assert isinstance(hard, GreedyBot) and hard.epsilon == 0.1
    assert isinstance(medium, MctsBot)  # a level the game leaves alone: the default


def test_a_games_own_level_spec_is_held_to_the_servers_limits(client, toy_registered, monkeypatch):
    limit = client.app.state.manager.limits.bot_iterations
    monkeypatch.setitem(toy_registered.extra, "levels", {"hard": f"mcts:iterations={limit + 1}"})
    r = client.post("/api/tables", json={"game": "toy", "players": 2,
                                         "seats": [{"kind": "human"}, {"kind": "bot", "bot": "hard"}]})
    assert r.status_code == 422 and r.json()["error"] == "bot_limit", r.text
    assert "iterations" in r.json()["detail"]


def test_a_gumbel_seat_is_held_to_the_servers_simulation_limit(client):
    from gemtable.server.limits import clamp_bot

    limits = client.app.state.manager.limits
    cap = int(limits.bot_params["simulations"])
    r = client.post("/api/tables", json={"game": "toy", "players": 2,
                                         "seats": [{"kind": "human"}, {"kind": "bot", "bot": f"gumbel:simulations={cap + 1}"}]})
    assert r.status_code == 422 and r.json()["error"] == "bot_limit", r.text
    assert "simulations" in r.json()["detail"]
    # a spec stored before the limit plays within it, and within the seconds bound
    from gemtable.bots import make_bot
    bot = clamp_bot(make_bot(f"gumbel:simulations={cap * 3}"), limits)
    assert bot.simulations == cap and bot.seconds == limits.bot_seconds
    assert bot.budget() <= cap


def test_a_tables_search_bot_stops_once_its_move_is_settled(client):
    """At a table, a search bot ends its search once more iterations could not change its move
    (``stop=1``) unless its spec says otherwise."""
    m = client.app.state.manager
    r = client.post("/api/tables", json={"game": "toy", "players": 2,
                                         "seats": [{"kind": "human"}, {"kind": "bot", "bot": "hard"}]})
    assert r.status_code == 201, r.text
    table = m.tables[r.json()["table"]["id"]]
    assert m.bots._bot(table, 1, seed=1).stop is True
    table.bots.clear()
    table.seats[1].bot = "mcts:iterations=50,stop=0"
    assert m.bots._bot(table, 1, seed=1).stop is False
    table.bots.clear()
    table.seats[1].bot = "greedy"
    assert not hasattr(m.bots._bot(table, 1, seed=1), "stop")
