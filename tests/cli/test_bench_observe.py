"""`gemtable bench --observe`: steps with the observation next to bare engine steps."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gemtable.cli import main as cli
from gemtable.cli.main import app
from gemtable.games.registry import get_game

runner = CliRunner()


def test_bench_observe_reports_both_rates_and_the_ratio():
    result = runner.invoke(app, ["bench", "sintra", "--players", "2", "--runs", "1", "--seconds", "0.15",
                                 "--observe", "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)["rows"][0]
    assert row["decisions_per_s"] > 0 and row["observed_decisions_per_s"] > 0
    assert row["slowdown"] == row["decisions_per_s"] / row["observed_decisions_per_s"]
    assert row["observation_size"] == get_game("sintra").observation_size
    table = runner.invoke(app, ["bench", "sintra", "--players", "2", "--runs", "1", "--seconds", "0.1", "--observe"])
    assert table.exit_code == 0 and "slowdown" in table.output


def test_observed_run_computes_one_observation_per_step():
    game = get_game("splendor")
    calls = []
    fill = cli._observer(game)

    def spy(state, player):
        calls.append((state.turn, player))
        assert player == state.to_move()[0]
        return fill(state, player)

    games, _, decisions, _ = cli._bench_once(game, 2, {}, 0.0, 7, spy)
    assert games == 1
    assert len(calls) == decisions  # after the deal and after every step but the last
    bare = cli._bench_once(game, 2, {}, 0.0, 7)
    assert bare[2] == decisions  # same random game with and without observing
