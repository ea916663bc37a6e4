"""`gemtable review FILE` and `gemtable play --hints`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gemtable.cli.main import app
from gemtable.core import Match, Rng

runner = CliRunner()


def _finished(tmp_path, gid="splendor", n=2, seed=3, upto=None):
    match = Match(gid, n, seed, {}, meta={"names": ["Ann", "Bo", "Cy"][:n]})
    state = match.start()
    rng = Rng(seed)
    while not state.is_over() and (upto is None or len(match.actions) < upto):
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        match.play(state, p, acts[rng.below(len(acts))])
    return match.save(tmp_path / f"{gid}.json"), match


def test_review_prints_each_seat_and_its_drops(tmp_path):
    path, match = _finished(tmp_path)
    result = runner.invoke(app, ["review", str(path), "--samples", "2"])
    assert result.exit_code == 0, result.output
    assert f"{len(match.actions)} moves" in result.output and "Ann" in result.output and "Bo" in result.output
    assert "Biggest drops" in result.output


def test_review_json_has_a_chance_per_move(tmp_path):
    path, match = _finished(tmp_path, "sintra", 3)
    result = runner.invoke(app, ["review", str(path), "--samples", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [len(c) for c in data["chances"]] == [len(match.actions) + 1] * 3


def test_review_refuses_a_running_game_and_bad_files(tmp_path):
    path, _ = _finished(tmp_path, upto=10)
    result = runner.invoke(app, ["review", str(path)])
    assert result.exit_code == 2 and "only a finished game" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["review", str(bad)])
    assert result.exit_code == 2 and "not valid JSON" in result.output
    bad.write_text(json.dumps({"format": "gemtable-match", "version": 1, "game": "splendor", "players": 2,
                               "seed": 1, "actions": [[0, {"type": "fly"}]]}))
    result = runner.invoke(app, ["review", str(bad)])
    assert result.exit_code == 2 and "does not replay" in result.output
    result = runner.invoke(app, ["review", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_play_with_hints_shows_three_moves_and_marks_the_game(tmp_path):
    save = tmp_path / "g.json"
    result = runner.invoke(app, ["play", "splendor", "--seed", "3", "--bots", "random", "--hints",
                                 "--save", str(save)], input="hint\nquit\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("hint ") >= 3
    assert json.loads(save.read_text())["meta"]["hinted"] is True


def test_hint_without_hints_is_refused(tmp_path):
    result = runner.invoke(app, ["play", "splendor", "--seed", "3", "--bots", "random",
                                 "--save", str(tmp_path / "g.json")], input="hint\nquit\n")
    assert result.exit_code == 0 and "Hints are off" in result.output


def test_review_bench_times_every_game():
    from gemtable.core.registry import all_games

    result = runner.invoke(app, ["review-bench", "--games", "1", "--players", "2", "--samples", "1"])
    assert result.exit_code == 0, result.output
    for gid in all_games():
        assert gid in result.output
