"""Bot specs, levels and the registry."""

import pytest

from gemtable.bots import (
    BOT_KINDS,
    LEVELS,
    Bot,
    game_levels,
    level_spec,
    make_bot,
    parse_spec,
    split_specs,
)
from gemtable.bots.greedy import GreedyBot
from gemtable.bots.mcts import MctsBot
from gemtable.bots.puct import PuctBot
from gemtable.games.registry import all_games, get_game


def test_parse_spec_reads_typed_parameters():
    assert parse_spec("mcts:iterations=400,c=1.2,rollout=-1") == ("mcts", {"iterations": 400, "c": 1.2, "rollout": -1})
    assert parse_spec(" greedy ") == ("greedy", {})
    with pytest.raises(ValueError, match="name=value"):
        parse_spec("mcts:iterations")


def test_split_specs_keeps_parameters_with_their_bot():
    assert split_specs("random,mcts:iterations=400,c=1.2,greedy") == ["random", "mcts:iterations=400,c=1.2", "greedy"]
    assert split_specs("greedy:lookahead=0, random") == ["greedy:lookahead=0", "random"]


def test_every_kind_is_registered_and_levels_resolve():
    assert {"random", "greedy", "mcts", "puct"} <= set(BOT_KINDS)
    assert list(LEVELS) == ["easy", "medium", "hard", "expert"]  # easiest first
    easy, medium, hard, expert = (make_bot(level) for level in LEVELS)
    assert isinstance(easy, GreedyBot) and easy.epsilon > 0
    assert isinstance(medium, MctsBot) and isinstance(hard, MctsBot)
    assert hard.iterations > medium.iterations
    assert isinstance(expert, PuctBot) and expert.iterations == hard.iterations
    # a level's parameters can be overridden
    assert make_bot("hard:iterations=7").iterations == 7


def test_unknown_bots_and_parameters_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown bot 'nope'"):
        make_bot("nope")
    with pytest.raises(ValueError, match="no parameter 'iteration'.*iterations"):
        make_bot("mcts:iteration=5")
    with pytest.raises(ValueError, match="no parameter"):
        make_bot("random:depth=2")
    with pytest.raises(ValueError, match="at least 1"):
        make_bot("mcts:iterations=0")
    with pytest.raises(ValueError, match="epsilon"):
        make_bot("greedy:epsilon=2")


def test_bots_are_bots_with_readable_names():
    bot = make_bot("mcts:iterations=5,c=1.5")
    assert isinstance(bot, Bot)
    assert repr(bot) == "mcts:iterations=5,c=1.5"


@pytest.mark.parametrize("spec", ["mcts:seconds=inf", "mcts:seconds=nan", "mcts:iterations=-inf", "greedy:epsilon=NaN"])
def test_non_finite_numbers_are_refused(spec):
    # float() accepts "inf" and "nan": an endless budget must not pass as a number
    with pytest.raises(ValueError, match="finite"):
        make_bot(spec)


# -- levels declared by a game -------------------------------------------------------------------
@pytest.fixture
def own_levels(monkeypatch):
    """Splendor declares its own ``hard`` (a cheap greedy bot, to tell it from the default)."""
    game = get_game("splendor")
    monkeypatch.setitem(game.extra, "levels", {"hard": "greedy:epsilon=0.1"})
    return game


def test_a_game_that_declares_a_level_gets_its_own_spec(own_levels):
    game = own_levels
    assert list(game_levels(game)) == list(LEVELS)  # the same names, in the same order
    assert game_levels(game) == {**LEVELS, "hard": "greedy:epsilon=0.1"}
    assert level_spec("hard", game) == level_spec("hard", "splendor") == "greedy:epsilon=0.1"
    for ref in (game, "splendor"):
        bot = make_bot("hard", seed=1, game=ref)
        assert isinstance(bot, GreedyBot) and bot.epsilon == 0.1
    assert make_bot("hard:epsilon=0.2", game=game).epsilon == 0.2  # overrides go over the game's spec
    assert isinstance(make_bot("medium", game=game), MctsBot)  # the levels it leaves keep the default
    assert isinstance(make_bot("hard"), MctsBot)  # without a game: the default table
    assert game_levels(None) == LEVELS and level_spec("hard") == LEVELS["hard"]


def test_unknown_levels_are_refused_clearly_in_a_game(own_levels, monkeypatch):
    with pytest.raises(ValueError, match=r"unknown bot 'brutal' \(known: .*expert"):
        make_bot("brutal", game=own_levels)
    with pytest.raises(ValueError, match=r"unknown level 'brutal' \(levels: easy, medium, hard, expert\)"):
        level_spec("brutal", own_levels)
    monkeypatch.setitem(own_levels.extra, "levels", {"grandmaster": "random"})  # a game cannot add a level
    with pytest.raises(ValueError, match=r"splendor declares a spec for level 'grandmaster'.*\(levels: easy"):
        make_bot("hard", game=own_levels)


@pytest.mark.parametrize("game_id", sorted(all_games()))
def test_every_games_levels_are_the_named_ones_and_build(game_id):
    game = get_game(game_id)
    levels = game_levels(game)
    assert list(levels) == list(LEVELS)
    for level, spec in levels.items():
        assert isinstance(spec, str)
        assert "seconds" not in parse_spec(spec)[1], f"{game_id} {level}: a level's budget is iterations (reproducible)"
        make_bot(level, game=game)
