"""Issue 18: bot levels come from ``gemtable.bots.LEVELS`` everywhere, with their ladder ratings."""

from __future__ import annotations

import json

import pytest

from gemtable.analysis import ladder
from gemtable.bots import LEVELS
from gemtable.games.registry import all_games

from .test_lobby import hosted
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
