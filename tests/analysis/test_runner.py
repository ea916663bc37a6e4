"""Schedules and the parallel runner: same results whatever the number of processes."""

import json
from collections import Counter

import pytest

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
