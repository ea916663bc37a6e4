"""Setup (Spielvorbereitung)."""

import pytest

from gemtable.core import OptionError
from gemtable.games.sintra import GAME
from gemtable.games.sintra.data import DATA
from gemtable.games.sintra.rules import CHOOSE, JOKER_CODE, NC

from .helpers import fresh, total_panes


@pytest.mark.parametrize("n,factories", [(2, 5), (3, 7), (4, 9)])
def test_factories_by_player_count_hold_4_panes_each(n, factories):
    s = fresh(n)
    assert s.nf == factories
    for f in range(factories):
        assert sum(s.fac[f * NC:(f + 1) * NC]) == 4
    assert sum(s.centre) == 0 and s.left == 4 * factories


def test_only_2_to_4_players_and_sides_a_b():
    with pytest.raises(OptionError):
        GAME.new(1, 0)
    with pytest.raises(OptionError):
        GAME.new(5, 0)
    with pytest.raises(OptionError):
        GAME.new(2, 0, palace_side="C")
    assert fresh(2, "B").side == 1 and fresh(2, "A").side == 0
    assert GAME.new(2, 0).side == 0  # side A is the default


@pytest.mark.parametrize("seed", range(10))
def test_round_indicator_one_of_each_colour_on_rounds_2_to_6_and_a_bag_pane_on_round_1(seed):
    s = fresh(3, seed=seed)
    assert len(s.rcol) == 6
    assert sorted(s.rcol[1:]) == [0, 1, 2, 3, 4]
    # 100 panes: indicator 6, factories 28, the rest in the bag, tower empty
    assert total_panes(s) == 100
    assert sum(s.bag) == 100 - 6 - 28
    assert sum(s.tower) == 0


@pytest.mark.parametrize("seed", range(20))
def test_strips_shuffled_random_side_joker_side_face_down(seed):
    s = fresh(4, seed=seed)
    for p in range(4):
        codes = s.code[p * 8:(p + 1) * 8]
        assert sorted(c // 2 for c in codes) == list(range(8))  # each strip once
        assert JOKER_CODE not in codes
        assert s.glz[p] == 0  # glazier over the leftmost strip
        assert s.score[p] == 0 and s.trk[p] == 0 and s.lost[p] == 0
        assert all(e == 5 for e in s.empty[p * 8:(p + 1) * 8])
        assert all(w == -1 for w in s.win[p * 16:(p + 1) * 16])


def test_strip_order_and_sides_vary_with_the_seed():
    layouts = {tuple(fresh(2, seed=seed).code) for seed in range(10)}
    assert len(layouts) == 10
    sides = {c % 2 for seed in range(10) for c in fresh(2, seed=seed).code}
    assert sides == {0, 1}


def test_start_player_puts_marker_in_the_centre_and_moves_first():
    s = fresh(2)
    assert s.holder == 0 and s.mic is True
    assert s.to_move() == (0,) and s.phase == CHOOSE
    assert s.view(None)["start_marker_in_centre"] is True


def test_component_totals():
    s = fresh(4)
    counts = s.component_counts()
    assert all(counts[f"panes_{c}"] == DATA.panes_per_colour for c in DATA.colours)
    assert counts["strips"] == 32
