"""Bot specs, levels and the registry."""

import pytest

from gemtable.bots import BOT_KINDS, LEVELS, Bot, make_bot, parse_spec, split_specs
from gemtable.bots.greedy import GreedyBot
from gemtable.bots.mcts import MctsBot
from gemtable.bots.puct import PuctBot


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
