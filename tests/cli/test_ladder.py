"""``gemtable ladder`` (tiny budgets; the shipped file goes to a temporary folder)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gemtable.analysis import ladder
from gemtable.bots import LEVELS
from gemtable.cli.main import app
from gemtable.games.registry import get_game

GAME = "glassworks"


@pytest.fixture
def cheap_levels(monkeypatch):
    """Levels as players would meet them, but cheap: random, greedy, and no search levels.
    The tests may change ``LEVELS`` further: the whole table, in its order, comes back after."""
    saved = dict(LEVELS)
    LEVELS.clear()
    LEVELS.update({"easy": "random", "medium": "greedy"})
    monkeypatch.setitem(get_game(GAME).extra, "levels", {})  # the game's own specs: none here
    yield
    LEVELS.clear()
    LEVELS.update(saved)


def invoke(*args):
    return CliRunner().invoke(app, ["ladder", *args])


def test_ladder_with_overridden_levels_prints_ratings_and_writes_rows(tmp_path):
    out = tmp_path / "ladder.json"
    res = invoke(GAME, "--levels", "easy,medium:iterations=8", "-n", "2", "--jobs", "1", "--seed", "3",
                 "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "ladder: 2 games" in res.output and "rating" in res.output and "vs easy" in res.output
    data = json.loads(out.read_text())
    assert data["summary"]["kind"] == "ladder" and len(data["games"]) == 2
    assert [e["label"] for e in data["summary"]["levels"]] == ["easy", "medium:iterations=8"]
    assert {g["bot_0"] for g in data["games"]} == {"easy", "medium:iterations=8"}


def test_unknown_levels_are_refused_naming_the_known_ones():
    res = invoke(GAME, "--levels", "easy,expertish", "-n", "1")
    assert res.exit_code == 2
    assert "unknown level 'expertish'" in res.output and "easy, medium, hard" in res.output


def test_install_refuses_overridden_levels(shipped, tmp_path):
    res = invoke(GAME, "--levels", "easy,medium:iterations=8", "-n", "1", "--install")
    assert res.exit_code == 2 and "medium:iterations=8" in res.output
    assert list(tmp_path.iterdir()) == []  # nothing played, nothing written


def test_install_then_show(cheap_levels, shipped):
    game = get_game(GAME)
    res = invoke(GAME, "--show")
    assert res.exit_code == 0 and "has no level ratings yet" in res.output
    res = invoke(GAME, "-n", "4", "--jobs", "1", "--install")
    assert res.exit_code == 0, res.output
    data = json.loads(shipped(game).read_text())
    assert list(data["levels"]) == ["easy", "medium"]
    assert data["levels"]["easy"]["spec"] == "random" and data["levels"]["medium"]["spec"] == "greedy"
    assert data["levels"]["medium"]["rating"] > data["levels"]["easy"]["rating"]  # greedy won all 4
    assert data["command"] == "gemtable ladder glassworks --levels easy,medium -n 4 --players 2 --seed 0 --install"
    assert data["games_per_pairing"] == 4 and data["seed"] == 0 and data["players"] == 2
    assert ladder.current_ratings(game)["medium"]["rating"] == data["levels"]["medium"]["rating"]
    res = CliRunner().invoke(app, ["ladder", GAME, "--show"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert f"{data['levels']['medium']['rating']:.1f}" in res.output
    assert "Reproduce: gemtable ladder glassworks --levels easy,medium -n 4" in res.output
    assert "changed since" not in res.output


def test_show_marks_a_level_whose_bot_changed(cheap_levels, shipped, monkeypatch):
    assert invoke(GAME, "-n", "2", "--jobs", "1", "--install").exit_code == 0
    LEVELS.update({"medium": "greedy:lookahead=2", "hard": "mcts:iterations=50"})
    res = CliRunner().invoke(app, ["ladder", GAME, "--show"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert "changed since" in res.output and "not measured" in res.output
    assert "Not shown to players: the bot of medium changed" in res.output


def test_the_ladder_plays_and_ships_the_games_own_spec_for_a_level(cheap_levels, shipped, monkeypatch):
    game = get_game(GAME)
    monkeypatch.setitem(game.extra, "levels", {"medium": "greedy:epsilon=0.5"})
    assert invoke(GAME, "-n", "2", "--jobs", "1", "--install").exit_code == 0
    data = json.loads(shipped(game).read_text())
    assert data["levels"]["medium"]["spec"] == "greedy:epsilon=0.5" and data["levels"]["easy"]["spec"] == "random"
    assert ladder.current_ratings(game) is not None  # current: the game's own spec is the level's
    LEVELS["hard"] = "mcts:iterations=50"
    monkeypatch.setitem(game.extra, "levels", {"medium": "greedy:epsilon=0.5", "hard": "greedy:epsilon=0.4"})
    res = CliRunner().invoke(app, ["ladder", GAME, "--show"], terminal_width=200)
    assert res.exit_code == 0 and "greedy:epsilon=0.4" in res.output and "not measured" in res.output
    assert "changed since" not in res.output
