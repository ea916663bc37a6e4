"""Schedules and the parallel runner: same results whatever the number of processes."""

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gemtable.analysis import (
    entrant_labels,
    lineups,
    play_game,
    public_rows,
    run_games,
    seat_bots,
    simulate_specs,
    tournament_specs,
)
from gemtable.analysis.runner import GameSpec, resolve_game
from gemtable.core import OptionError

TOY = "tests.bots.toygame:GAME"


def test_seat_bots():
    assert seat_bots(["greedy"], 3) == ("greedy",) * 3
    assert seat_bots(["a", "b"], 2) == ("a", "b")
    assert seat_bots(["a", "b"], 3) == ("a", "b", "a")
    with pytest.raises(ValueError, match="at most one bot per seat"):
        seat_bots(["a", "b", "c"], 2)


def test_simulate_specs_validate_players_and_options():
    with pytest.raises(OptionError):
        simulate_specs(TOY, 3, ["random"], 5)
    with pytest.raises(OptionError):
        simulate_specs(TOY, 3, ["random"], 2, options={"colour": "red"})
    specs = simulate_specs(TOY, 3, ["random"], 2, seed=1, options={"unused": "b"})
    assert [s.index for s in specs] == [0, 1, 2]
    assert len({s.seed for s in specs}) == 3
    assert specs == simulate_specs(TOY, 3, ["random"], 2, seed=1, options={"unused": "b"})
    assert specs[0].seed != simulate_specs(TOY, 1, ["random"], 2, seed=2)[0].seed


def test_lineups_and_labels():
    assert lineups(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert len(lineups(4, 3)) == 4
    assert all(len(set(c)) > 1 for c in lineups(2, 3)) and len(lineups(2, 3)) == 2
    assert entrant_labels(["greedy", "random", "greedy"]) == ["greedy", "random", "greedy#2"]
    with pytest.raises(ValueError):
        lineups(1, 2)


def test_tournament_rotates_seats_and_shares_deals():
    specs = tournament_specs(TOY, ["random", "greedy", "mcts:iterations=5"], 4, players=2, seed=9)
    assert len(specs) == 3 * 4
    first = specs[:4]
    assert [s.labels for s in first] == [("random", "greedy"), ("greedy", "random")] * 2
    assert first[0].seed == first[1].seed != first[2].seed == first[3].seed
    seats = Counter((s.labels[0]) for s in specs)
    assert seats == {"random": 4, "greedy": 4, "mcts:iterations=5": 4}  # each entrant first equally


def test_play_game_row():
    spec = GameSpec(0, TOY, ("greedy", "random"), seed=5)
    row = play_game(spec)
    assert row["game"] == "toybid" and row["players"] == 2 and row["finished"] is True
    assert row["bot_0"] == "greedy" and sorted([row["rank_0"], row["rank_1"]])[0] == 1
    assert row["win_0"] + row["win_1"] == pytest.approx(1.0)
    assert row["decisions"] >= 2 * row["turns"]
    assert play_game(spec) | {"_think": None} == row | {"_think": None}


def test_step_limit_stops_a_game_and_says_so():
    row = play_game(GameSpec(0, TOY, ("random", "random"), seed=5, max_steps=3))
    assert row["finished"] is False and row["decisions"] == 3


def test_results_do_not_depend_on_the_number_of_processes():
    specs = tournament_specs(TOY, ["random", "greedy", "mcts:iterations=4,rollout=2"], 6, seed=3)
    seen = []
    one = run_games(specs, jobs=1, progress=seen.append)
    two = run_games(specs, jobs=2, batch=2)
    assert sum(seen) == len(specs)
    assert public_rows(one.rows) == public_rows(two.rows)
    assert [r["index"] for r in two.rows] == list(range(len(specs)))
    assert set(one.timing) == {"random", "greedy", "mcts:iterations=4,rollout=2"}
    json.dumps(public_rows(one.rows))


def test_unknown_game_and_backend():
    with pytest.raises(KeyError, match="unknown game"):
        resolve_game("no_such_game")
    with pytest.raises(ValueError, match="backend"):
        run_games([], backend="spark")


# -- journals: a long run killed part way goes on where it stopped ------------------------------
class _Killed(Exception):
    pass


def _interrupted(specs, path, after):
    """Start a journalled run and stop it (as a kill would) once ``after`` games have ended."""
    seen = []

    def progress(k):
        seen.append(k)
        if sum(seen) >= after:
            raise _Killed

    with pytest.raises(_Killed):
        run_games(specs, jobs=1, batch=1, progress=progress, journal=path)


def test_a_journal_resumes_a_killed_run_with_the_same_results(tmp_path, monkeypatch):
    import gemtable.analysis.runner as runner

    specs = tournament_specs(TOY, ["random", "greedy", "mcts:iterations=4,rollout=2"], 4, seed=3)
    whole = run_games(specs, jobs=1)
    path = tmp_path / "run.jsonl"
    _interrupted(specs, path, 5)
    assert len(path.read_text().splitlines()) == 5
    played = []
    real = runner.play_game
    monkeypatch.setattr(runner, "play_game", lambda spec: played.append(spec.index) or real(spec))
    seen = []
    resumed = run_games(specs, jobs=1, journal=path, progress=seen.append)
    assert len(played) == len(specs) - 5 and seen[0] == 5 and sum(seen) == len(specs)  # only the missing games
    assert public_rows(resumed.rows) == public_rows(whole.rows)
    assert set(resumed.timing) == set(whole.timing)  # the journal keeps the think time of its games
    assert len(path.read_text().splitlines()) == len(specs)
    played.clear()
    again = run_games(specs, jobs=1, journal=path)  # complete: nothing is played
    assert played == [] and public_rows(again.rows) == public_rows(whole.rows)


def test_a_journal_with_parallel_workers(tmp_path):
    specs = tournament_specs(TOY, ["random", "greedy"], 6, seed=4)
    path = tmp_path / "run.jsonl"
    two = run_games(specs, jobs=2, batch=2, journal=path)
    assert sorted(json.loads(line)["index"] for line in path.read_text().splitlines()) == list(range(len(specs)))
    assert public_rows(run_games(specs, jobs=1, journal=path).rows) == public_rows(two.rows)


def test_a_line_cut_short_by_a_kill_is_dropped(tmp_path):
    from gemtable.analysis.runner import read_journal

    specs = tournament_specs(TOY, ["random", "greedy"], 4, seed=5)
    path = tmp_path / "run.jsonl"
    _interrupted(specs, path, 3)
    text = path.read_text()
    path.write_text(text + text.splitlines()[0][:17])  # the kill came while a row was written
    assert len(read_journal(path, specs)) == 3
    assert path.read_text() == text  # the file is whole again, so the next row starts a line
    whole = run_games(specs, jobs=1)
    assert public_rows(run_games(specs, jobs=1, journal=path).rows) == public_rows(whole.rows)


@pytest.mark.parametrize("other, why", [
    (lambda: tournament_specs(TOY, ["random", "greedy"], 4, seed=6), "another seed"),
    (lambda: tournament_specs(TOY, ["random", "mcts:iterations=3"], 4, seed=5), "seats were"),
    (lambda: tournament_specs(TOY, ["random", "greedy"], 4, seed=5, options={"unused": "b"}), "options"),
    (lambda: tournament_specs(TOY, ["random", "greedy"], 2, seed=5), "does not play"),
])
def test_a_journal_of_another_run_is_refused_before_anything_is_played(tmp_path, other, why):
    specs = tournament_specs(TOY, ["random", "greedy"], 4, seed=5)
    path = tmp_path / "run.jsonl"
    run_games(specs, jobs=1, journal=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=why):
        run_games(other(), jobs=1, journal=path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("junk, why", [("not json\n", "not JSON"), ('[1, 2]\n', "no game index"),
                                       ('{"index": "3"}\n', "no game index")])
def test_a_file_that_is_not_a_journal_is_refused(tmp_path, junk, why):
    path = tmp_path / "run.jsonl"
    path.write_text(junk)
    with pytest.raises(ValueError, match=why):
        run_games(tournament_specs(TOY, ["random", "greedy"], 2, seed=5), jobs=1, journal=path)


def test_a_journal_row_that_is_not_whole_is_refused(tmp_path):
    specs = tournament_specs(TOY, ["random", "greedy"], 2, seed=5)
    path = tmp_path / "run.jsonl"
    run_games(specs, jobs=1, journal=path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for key, value in (("_think", None), ("score_1", None), ("_moves", [1])):
        broken = dict(rows[0])
        if value is None:
            del broken[key]
        else:
            broken[key] = value
        path.write_text(json.dumps(broken) + "\n")
        with pytest.raises(ValueError, match="incomplete"):
            run_games(specs, jobs=1, journal=path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300), lines=st.lists(st.dictionaries(
    st.sampled_from(["index", "game", "players", "seed", "options", "bot_0", "bot_1", "_think"]),
    st.one_of(st.integers(-2, 5), st.booleans(), st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=3))),
    max_size=3))
def test_fuzzed_journals_are_read_or_refused_with_a_clear_error(tmp_path, text, lines):
    from gemtable.analysis.runner import read_journal

    specs = tournament_specs(TOY, ["random", "greedy"], 2, seed=5)
    path = tmp_path / "fuzz.jsonl"
    for content in (text, "".join(json.dumps(line) + "\n" for line in lines)):
        path.write_text(content)
        try:
            rows = read_journal(path, specs)
        except ValueError as exc:
            assert str(path) in str(exc)
        else:
            assert rows == []  # nothing here is a finished game of this run


def test_every_games_rows_go_through_a_journal(tmp_path):
    """Each registered game's rows are JSON-safe game rows, so its long runs can be resumed."""
    from gemtable.analysis.runner import is_game_row, read_journal
    from gemtable.games.registry import all_games

    for game in all_games().values():
        specs = tournament_specs(game.id, ["random", "greedy"], 2, seed=1)
        path = tmp_path / f"{game.id}.jsonl"
        result = run_games(specs, jobs=1, journal=path)
        assert all(is_game_row(r) for r in result.rows)
        assert read_journal(path, specs) and public_rows(run_games(specs, jobs=1, journal=path).rows) == \
            public_rows(result.rows)
