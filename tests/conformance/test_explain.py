"""Every game puts a move's effect into player words (``Game.explain``)."""

import pytest

from gemtable.core import Rng
from gemtable.core.explain import Words, describe, explainer
from gemtable.games.registry import all_games


def test_describe_orders_rounds_and_skips_small_changes():
    names = ("points", "gems", "reach")
    words = (Words("points", 15.0, "+{n} point{s}", "−{n} point{s}"),
             Words("reach", 10.0, "closer", "further", 0.5),
             Words("gems", 10.0, "+{n} gem{s}", "−{n} gem{s}"))
    assert describe(names, [0, 0.3, 0], [1 / 15, 0.1, 0.01], words) == ["+1 point", "−2 gems"]
    assert describe(names, [0, 0, 0], [3 / 15, 0, 0.1], words, limit=1) == ["+3 points"]
    assert describe(names, [0, 0, 0], [0, 0, 0], words) == []


def test_words_for_a_feature_the_game_lacks_are_refused():
    with pytest.raises(ValueError, match="unknown value features: luck"):
        explainer(("points",), (Words("luck", 1.0, "up", "down"),))


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_every_game_explains_its_moves(gid):
    game = all_games()[gid]
    assert game.explain is not None and game.value_features is not None
    n = min(game.player_counts)
    state = game.new(n, 7)
    rng = Rng(7)
    said = 0
    while not state.is_over():
        p = state.to_move()[0]
        before = game.value_features(state, p)
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
        phrases = game.explain(before, game.value_features(state, p))
        assert all(isinstance(x, str) and x and "{" not in x for x in phrases) and len(phrases) <= 2
        said += bool(phrases)
    assert said > 5  # most games' moves change something a player can name
