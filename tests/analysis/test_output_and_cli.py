"""Writers, plots and the `simulate` / `tournament` commands."""

import csv
import json

import pytest
import typer
from typer.testing import CliRunner

from gemtable.analysis import (
    public_rows,
    run_games,
    tournament_specs,
    tournament_summary,
)
from gemtable.analysis.output import write_results
from gemtable.analysis.plots import tournament_plots
from gemtable.cli import simulate as simulate_cli
from gemtable.cli import tournament as tournament_cli

TOY = "tests.bots.toygame:GAME"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def small_run():
    specs = tournament_specs(TOY, ["random", "greedy", "mcts:iterations=6,rollout=2"], 4, seed=1)
    result = run_games(specs, jobs=1)
    return result, tournament_summary(result.rows, result.timing)


def test_csv_and_json_writers(tmp_path, small_run):
    result, summary = small_run
    files = write_results(tmp_path / "r.csv", result.rows, summary)
    assert [f.name for f in files] == ["r.csv", "r.summary.csv"]
    with files[0].open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12 and "_think" not in rows[0]
    assert [int(r["index"]) for r in rows] == list(range(12))
    with files[1].open() as fh:
        table = list(csv.DictReader(fh))
    assert {r["bot"] for r in table} == {"random", "greedy", "mcts:iterations=6,rollout=2"}
    assert "rating_ordinal" in table[0] and "wilson_low" in table[0]
    (path,) = write_results(tmp_path / "r.json", result.rows, summary)
    data = json.loads(path.read_text())
    assert data["games"] == public_rows(result.rows)
    assert data["summary"]["kind"] == "tournament"
    with pytest.raises(ValueError, match=".csv or .json"):
        write_results(tmp_path / "r.txt", result.rows)


def test_plots_are_pngs(tmp_path, small_run):
    result, summary = small_run
    paths = tournament_plots(result.rows, summary, tmp_path / "plots", "Toy bid")
    assert sorted(p.name for p in paths) == ["scores.png", "seats.png", "win_matrix.png"]
    for p in paths:
        assert p.read_bytes()[:8] == PNG and p.stat().st_size > 5000


def _app():
    app = typer.Typer()
    simulate_cli.register(app)
    tournament_cli.register(app)
    return app


def test_simulate_command(tmp_path):
    out = tmp_path / "sim.json"
    runner = CliRunner()
    args = ["simulate", TOY, "-n", "12", "--players", "3", "--bots", "random,greedy,random",
            "--jobs", "1", "--seed", "4", "--out", str(out), "--option", "unused=b"]
    res = runner.invoke(_app(), args)
    assert res.exit_code == 0, res.output
    assert "win rate" in res.output and "95% CI" in res.output and "decisions" in res.output
    data = json.loads(out.read_text())
    assert len(data["games"]) == 12 and data["summary"]["players"] == 3
    assert data["games"][0]["options"] == '{"unused": "b"}'
    # same seed, other job count: same games
    out2 = tmp_path / "sim2.json"
    res = runner.invoke(_app(), args[:-4] + ["--out", str(out2), "--option", "unused=b", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    assert json.loads(out2.read_text())["games"] == data["games"]


def test_simulate_refuses_mistakes_clearly():
    runner = CliRunner()
    res = runner.invoke(_app(), ["simulate", TOY, "-n", "2", "--bots", "greedy:depth=3"])
    assert res.exit_code == 2 and "no parameter 'depth'" in res.output
    res = runner.invoke(_app(), ["simulate", "no_such_game"])
    assert res.exit_code == 2 and "unknown game" in res.output
    res = runner.invoke(_app(), ["simulate", TOY, "--option", "unused=zzz"])
    assert res.exit_code == 2 and "must be one of" in res.output
    res = runner.invoke(_app(), ["simulate", TOY, "--players", "2", "--bots", "random,random,random"])
    assert res.exit_code == 2 and "at most one bot per seat" in res.output


def test_tournament_command(tmp_path):
    runner = CliRunner()
    res = runner.invoke(_app(), ["tournament", TOY, "--bots", "random,greedy", "--bots", "mcts:iterations=5,rollout=2",
                                 "-n", "4", "--jobs", "1", "--out", str(tmp_path / "t.csv"),
                                 "--plots", str(tmp_path / "plots")])
    assert res.exit_code == 0, res.output
    for word in ("rating", "head to head", "first-player", "greedy", "random"):
        assert word in res.output
    assert (tmp_path / "t.csv").exists() and (tmp_path / "t.summary.csv").exists()
    assert (tmp_path / "plots" / "win_matrix.png").read_bytes()[:8] == PNG
    with (tmp_path / "t.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 3 * 4


def test_tournament_journal_goes_on_where_a_run_stopped(tmp_path):
    runner = CliRunner()
    journal = tmp_path / "run.jsonl"
    args = ["tournament", TOY, "--bots", "random,greedy", "-n", "4", "--jobs", "1", "--seed", "2"]
    whole = runner.invoke(_app(), [*args, "--out", str(tmp_path / "whole.json")])
    assert whole.exit_code == 0, whole.output
    first = runner.invoke(_app(), [*args, "--journal", str(journal)])
    assert first.exit_code == 0, first.output
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:2]) + "\n")  # as if the run had been killed after two games
    res = runner.invoke(_app(), [*args, "--journal", str(journal), "--out", str(tmp_path / "resumed.json")])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "2 of 4 games already played" in said and "4 games (2 from the journal; 2 played in" in said
    assert json.loads((tmp_path / "resumed.json").read_text())["summary"]["resumed_games"] == 2
    assert "resumed_games" not in json.loads((tmp_path / "whole.json").read_text())["summary"]
    assert len(journal.read_text().splitlines()) == 4
    rows = [json.loads((tmp_path / f).read_text())["games"] for f in ("whole.json", "resumed.json")]
    assert rows[0] == rows[1]
    other = runner.invoke(_app(), [*args[:-1], "3", "--journal", str(journal)])  # another seed, same file
    assert other.exit_code == 2 and "another run's game" in other.output and "Traceback" not in other.output
    from gemtable.cli import ladder as ladder_cli

    app = _app()
    ladder_cli.register(app)
    for command in (["simulate", TOY, "-n", "3"], ["ladder", TOY, "--levels", "easy,medium:iterations=3", "-n", "2"]):
        path = tmp_path / f"{command[0]}.jsonl"
        for _ in range(2):
            res = runner.invoke(app, [*command, "--jobs", "1", "--journal", str(path)])
            assert res.exit_code == 0, res.output
        assert "already played" in res.output
