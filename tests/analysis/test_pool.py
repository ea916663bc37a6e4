"""`gemtable pool`: one table from several tournament runs between the same bots."""

import json

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gemtable.analysis import public_rows, run_games, simulate_specs, tournament_specs, tournament_summary
from gemtable.analysis.output import write_results
from gemtable.analysis.pool import pool
from gemtable.cli import tournament as tournament_cli

TOY = "tests.bots.toygame:GAME"
BOTS = ["random", "greedy"]


def _run(tmp_path, seed, n=4, bots=BOTS, name=None, journal=False):
    specs = tournament_specs(TOY, bots, n, seed=seed)
    path = tmp_path / (name or f"run{seed}.json")
    result = run_games(specs, jobs=1, journal=tmp_path / f"run{seed}.jsonl" if journal else None)
    write_results(path, result.rows, tournament_summary(result.rows, result.timing))
    return path, result


def test_pooled_runs_make_one_summary_of_all_their_games(tmp_path):
    (a, ra), (b, rb) = _run(tmp_path, 1), _run(tmp_path, 2, n=6)
    rows, timing, runs = pool([a, b])
    assert [r["index"] for r in rows] == list(range(10))
    strip = [{k: v for k, v in r.items() if k != "index"} for r in rows]
    assert strip == [{k: v for k, v in r.items() if k != "index"} for r in public_rows(ra.rows + rb.rows)]
    summary = tournament_summary(rows, timing)
    wins = {e["bot"]: e["wins"] for e in summary["table"]}
    both = {e["bot"]: e["wins"] for e in tournament_summary(ra.rows + rb.rows)["table"]}
    assert wins == both and summary["games"] == 10
    assert [r["games"] for r in runs] == [4, 6]
    per_move = {e["bot"]: e["seconds_per_move"] for e in summary["table"]}
    expect = {label: (ra_t[0] / ra_t[1] * 4 + rb_t[0] / rb_t[1] * 6) / 10
              for label, ra_t, rb_t in ((b, ra.timing[b], rb.timing[b]) for b in BOTS)}
    assert per_move == pytest.approx(expect, rel=1e-6)  # each run's per-move time, weighted by games


def test_a_journal_pools_like_the_run_it_kept(tmp_path):
    path, result = _run(tmp_path, 3, journal=True)
    rows, timing, _ = pool([tmp_path / "run3.jsonl"])
    assert public_rows([dict(r, index=0) for r in rows]) == public_rows([dict(r, index=0) for r in result.rows])
    assert {k: t[0] / t[1] for k, t in timing.items()} == pytest.approx(
        {k: t[0] / t[1] for k, t in result.timing.items()})


def test_no_game_counts_twice_and_runs_must_match(tmp_path):
    a, _ = _run(tmp_path, 1, journal=True)
    with pytest.raises(ValueError, match="repeats a game"):
        pool([a, a])
    with pytest.raises(ValueError, match="repeats a game"):
        pool([a, tmp_path / "run1.jsonl"])  # a run and its own journal
    other, _ = _run(tmp_path, 2, bots=["random", "mcts:iterations=3"])
    with pytest.raises(ValueError, match="the first file's is"):
        pool([a, other])
    sim = tmp_path / "sim.json"
    result = run_games(simulate_specs(TOY, 2, ["random"], 2, seed=1), jobs=1)
    write_results(sim, result.rows, {"kind": "simulate"})
    with pytest.raises(ValueError, match="not the results of a tournament"):
        pool([sim])
    csv_file, _ = _run(tmp_path, 5, name="run5.csv")
    with pytest.raises(ValueError, match="reads the .json results"):
        pool([csv_file])
    with pytest.raises(ValueError, match="no such file"):
        pool([tmp_path / "missing.json"])
    with pytest.raises(ValueError, match="at least one"):
        pool([])


def _app():
    app = typer.Typer()
    tournament_cli.register(app)
    return app


def test_pool_command(tmp_path):
    (a, _), (b, _) = _run(tmp_path, 1), _run(tmp_path, 2)
    runner = CliRunner()
    res = runner.invoke(_app(), ["pool", str(a), str(b), "--out", str(tmp_path / "all.json")])
    assert res.exit_code == 0, res.output
    assert "8 games pooled from 2 runs" in " ".join(res.output.split())
    data = json.loads((tmp_path / "all.json").read_text())
    assert data["summary"]["games"] == 8 and len(data["games"]) == 8
    res = runner.invoke(_app(), ["pool", str(a), str(a)])
    assert res.exit_code == 2 and "repeats a game" in res.output and "Traceback" not in res.output


ROWISH = st.dictionaries(
    st.sampled_from(["game", "players", "bot_0", "bot_1", "win_0", "win_1", "score_0", "score_1", "rank_0",
                     "rank_1", "turns", "decisions", "seed", "_think", "_moves"]),
    st.one_of(st.integers(-1, 3), st.booleans(), st.floats(allow_nan=True), st.text(max_size=4), st.none(),
              st.lists(st.one_of(st.integers(), st.text(max_size=2)), max_size=3)),
    max_size=15)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ROWISH, max_size=3), junk=st.text(max_size=200),
       summary=st.one_of(st.none(), st.text(max_size=5), st.fixed_dictionaries(
           {"kind": st.just("tournament"), "table": st.one_of(st.text(max_size=3), st.lists(st.dictionaries(
               st.sampled_from(["bot", "seconds_per_move"]),
               st.one_of(st.text(max_size=3), st.floats(), st.none(), st.integers())), max_size=2))})))
def test_fuzzed_files_are_pooled_or_refused_with_a_clear_error(tmp_path, rows, junk, summary):
    files = {
        "a.jsonl": "".join(json.dumps(r) + "\n" for r in rows) + junk,
        "b.json": json.dumps({"summary": summary, "games": rows}),
        "c.json": junk,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        try:
            pooled, timing, _ = pool([path])
        except ValueError as exc:
            assert str(path) in str(exc) or "at least one" in str(exc)
        else:
            tournament_summary(pooled, timing)  # whatever was accepted makes a summary
