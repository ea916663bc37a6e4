"""`gemtable bench --bot`: search iterations and CPU time per decision, bots side by side."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gemtable.cli import main as cli
from gemtable.cli.main import app
from gemtable.games.registry import get_game

runner = CliRunner()


def test_bench_bot_reports_iterations_and_time_per_decision_for_each_bot():
    result = runner.invoke(app, ["bench", "diamonds_club", "--players", "2", "--positions", "2", "--json",
                                 "--bot", "mcts:iterations=30,puct:iterations=20", "--bot", "greedy"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [r["bot"] for r in rows] == ["mcts:iterations=30", "puct:iterations=20", "greedy"]
    mcts, puct, greedy = rows
    assert mcts["iterations_per_decision"] == 30 and puct["iterations_per_decision"] == 20
    assert mcts["iterations_per_s"] > 0 and mcts["ms_per_decision"] > 0
    assert greedy["iterations_per_decision"] is None and greedy["iterations_per_s"] is None
    table = runner.invoke(app, ["bench", "splendor", "-p", "2", "--positions", "1", "--bot", "mcts:iterations=10"])
    assert table.exit_code == 0 and "iterations/s" in table.output and "mcts:iterations=10" in table.output


def test_bench_positions_are_fixed_and_spread_through_the_game():
    game = get_game("splendor")
    a = cli._bench_positions(game, 2, 3)
    b = cli._bench_positions(game, 2, 3)
    assert [s.to_json() for s in a] == [s.to_json() for s in b]
    assert all(not s.is_over() for s in a)
    turns = [s.turn for s in a]
    assert turns[0] < turns[1] < turns[2]  # a quarter, half and three quarters through (similar games)


def test_bench_bot_refuses_bad_specs_and_counts():
    for args, text in ((["--bot", "nosuch"], "unknown bot"), (["--bot", "mcts:depth=3"], "no parameter"),
                       (["--bot", "mcts", "--positions", "0"], "at least 1"), (["--bot", "mcts", "-p", "9"], "not played")):
        result = runner.invoke(app, ["bench", "splendor", *args])
        assert result.exit_code == 2 and text in result.output, result.output
