"""The kernel: RNG, actions, options, matches."""

from __future__ import annotations

import pickle

import pytest

from gemtable.core import ActionSpace, IllegalAction, Match, MatchFileError, Option, OptionError, Rng


def test_rng_is_splitmix64_with_the_reference_sequence():
    r = Rng(0)
    assert r.next64() == 0xE220A8397B1DCDAF  # published splitmix64 test vector for seed 0
    assert r.next64() == 0x6E789E6AA1B965F4


def test_rng_below_shuffle_and_clone_are_deterministic():
    a, b = Rng(123), Rng(123)
    xs, ys = list(range(50)), list(range(50))
    a.shuffle(xs)
    b.shuffle(ys)
    assert xs == ys and sorted(xs) == list(range(50)) and xs != list(range(50))
    c = a.clone()
    assert [a.below(6) for _ in range(20)] == [c.below(6) for _ in range(20)]
    assert all(0 <= a.below(7) < 7 for _ in range(1000))
    assert "hidden" in repr(a)


def test_action_space_json_round_trip_and_pickle():
    space = ActionSpace("kernel-test")
    a = space.add("take", "take white, blue", colours=["white", "blue"])
    assert space.from_json({"type": "take", "colours": ["white", "blue"]}) is a
    assert a.to_json() == {"type": "take", "colours": ["white", "blue"]}
    assert pickle.loads(pickle.dumps(a)) is a
    with pytest.raises(IllegalAction):
        space.from_json({"type": "take", "colours": ["red"]})
    with pytest.raises(IllegalAction):
        space.from_json("take")
    with pytest.raises(ValueError):
        space.add("take", "again", colours=["white", "blue"])


def test_option_parsing():
    opt = Option("palace_side", "A", ("A", "B"))
    assert opt.parse("b") == "B"
    with pytest.raises(OptionError, match="must be one of A, B"):
        opt.parse("C")


def test_match_file_errors(tmp_path):
    with pytest.raises(MatchFileError, match="format marker"):
        Match.from_json({"game": "splendor"})
    with pytest.raises(MatchFileError, match="unknown game"):
        Match.from_json({"format": "gemtable-match", "version": 1, "game": "chess", "players": 2, "seed": 0})
    with pytest.raises(MatchFileError, match="players"):
        Match.from_json({"format": "gemtable-match", "version": 1, "game": "splendor", "players": 9, "seed": 0})
    m = Match("splendor", 2, 11)
    path = m.save(tmp_path / "m.json")
    assert Match.load(path).to_json() == m.to_json()


def test_every_game_package_loads():
    from gemtable.games.registry import all_games, load_errors

    assert load_errors() == {}
    assert {"splendor", "sintra", "mille_fiori", "glassworks", "diamonds_club"} <= set(all_games())


def test_format_text_treats_names_as_data():
    from gemtable.core import format_text

    assert format_text("{P0} gives {P1} a gem.", ["Ann", "Bob"]) == "Ann gives Bob a gem."
    # a seat named like a placeholder is shown as written, not as another seat's name
    assert format_text("{P0} passes to {P1}.", ["{P1}", "Bob"]) == "{P1} passes to Bob."
    assert format_text("{P1} waits for {P0}.", ["Ann", "{P0}"]) == "{P0} waits for Ann."
    assert format_text("{P7} is not at the table.", ["Ann"]) == "{P7} is not at the table."


def test_result_explains_the_tie_break_only_when_scores_tie():
    from gemtable.core import State

    class Ended(State):
        def __init__(self, scores):
            self.num_players = len(scores)
            self._scores = scores

        def scores(self):
            return list(self._scores)

        def tiebreak_explained(self, lang="en"):
            return "Ties go to the fewest cards."

    assert Ended([12, 9]).result()["tiebreak"] == ""
    assert Ended([12, 12, 3]).result()["tiebreak"] == "Ties go to the fewest cards."
    assert Ended([5, 3, 3]).result()["tiebreak"] == "Ties go to the fewest cards."  # a tie for second
