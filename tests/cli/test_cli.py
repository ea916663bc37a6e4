"""The command line: games, play (driven through stdin), replay, bench."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gemtable.cli.main import app
from gemtable.core import Match
from gemtable.games.registry import all_games

runner = CliRunner()


def test_games_lists_every_registered_game():
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.output
    listed = {g["id"] for g in json.loads(result.output)}
    assert listed == set(all_games())


def test_play_a_whole_game_against_bots_and_replay_it(tmp_path):
    save = tmp_path / "game.json"
    answers = "help\nlog\nfoo\n999\n" + "1\n" * 3000
    result = runner.invoke(app, ["play", "splendor", "--players", "2", "--bots", "random", "--seed", "5",
                                 "--save", str(save)], input=answers)
    assert result.exit_code == 0, result.output
    assert "not a choice" in result.output  # bad input re-prompts with a reason
    assert "Final result" in result.output
    match = Match.load(save)
    assert match.replay().is_over()
    again = runner.invoke(app, ["replay", str(save)])
    assert again.exit_code == 0, again.output
    assert "Scores:" in again.output


def test_quit_saves_and_resume_continues(tmp_path):
    save = tmp_path / "g.json"
    result = runner.invoke(app, ["play", "splendor", "--seed", "3", "--bots", "random", "--save", str(save)],
                           input="1\n1\nquit\n")
    assert result.exit_code == 0, result.output
    saved = Match.load(save)
    assert 2 <= len(saved.actions)
    result = runner.invoke(app, ["play", "splendor", "--resume", str(save)], input="1\n" * 3000)
    assert result.exit_code == 0, result.output
    assert Match.load(save).replay().is_over()


def test_play_rejects_bad_arguments_clearly():
    result = runner.invoke(app, ["play", "splendor", "--players", "7"])
    assert result.exit_code == 2 and "2, 3, 4 players" in result.output
    result = runner.invoke(app, ["play", "nosuchgame"])
    assert result.exit_code == 2 and "unknown game" in result.output


def test_replay_of_a_damaged_file_gives_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "not valid JSON" in result.output
    bad.write_text(json.dumps({"format": "gemtable-match", "version": 1, "game": "splendor", "players": 2,
                               "seed": 1, "actions": [[0, {"type": "buy", "card": 89}]]}))
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "does not replay" in result.output
    result = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_bench_reports_rates_as_json():
    result = runner.invoke(app, ["bench", "splendor", "--players", "2", "--runs", "1", "--seconds", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    row = data["rows"][0]
    assert row["game"] == "splendor" and row["turns_per_s"] > 0 and row["decisions_per_s"] >= row["turns_per_s"]


def test_rules_shows_the_players_how_to_play_in_the_terminal(tmp_path):
    result = runner.invoke(app, ["play", "splendor", "--seed", "3", "--bots", "random", "--save", str(tmp_path / "g.json")],
                           input="rules\nhelp\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Goal" in result.output and "Where the rulebook is unclear" in result.output
    assert "RULES.md" not in result.output and "/gemtable/" not in result.output  # no file path for players
