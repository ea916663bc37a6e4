"""Every option of every game comes with its player wording, from the game's own package."""

from __future__ import annotations

import re

import pytest

from gemtable.core import Option
from gemtable.games.registry import all_games

CODE_LIKE = re.compile(r"_|\b(true|false|none)\b", re.IGNORECASE)


@pytest.mark.parametrize("game_id", sorted(all_games()))
def test_options_are_worded_for_players(game_id):
    for o in all_games()[game_id].describe()["options"]:
        assert o["label"] and not CODE_LIKE.search(o["label"]), o
        assert len(o["choice_labels"]) == len(o["choices"]) and len(set(o["choice_labels"])) == len(o["choices"])
        for text in o["choice_labels"]:
            assert text and not CODE_LIKE.search(text), o


def test_an_option_without_wording_still_reads_as_words():
    o = Option("palace_side", "A", ("A", "B")).describe()
    assert o["label"] == "palace side" and o["choice_labels"] == ["A", "B"]
    with pytest.raises(ValueError, match="one label per choice"):
        Option("x", 1, (1, 2), choice_labels=("one",))
