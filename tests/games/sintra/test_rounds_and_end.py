"""Round end (Rundenende), game end and final scoring (Spielende), tie-break."""

import pytest

from gemtable.core import Rng, run_random_game
from gemtable.games.sintra.data import JOKER
from gemtable.games.sintra.rules import CHOOSE, NC, OVER, PATTERNS, TRACK

from .helpers import (
    B,
    O,
    P,
    W,
    Y,
    act,
    empty_table,
    find_side,
    fresh,
    palace,
    put,
    set_round,
    set_strip,
    set_window,
    total_panes,
)


def no_colour(c):
    return find_side(lambda pat: c not in pat and JOKER not in pat)


def _last_take_state(n=2, side="A"):
    """Only 1 orange pane left on the table (factory 1); player 0 to move; nobody can use it:
    every glazier stands over the rightmost strip, a side without orange."""
    s = empty_table(n, side)
    put(s, [{O: 1}])
    for p in range(n):
        palace(s, p, {7: no_colour(O)}, glazier=7)
    return s


# ----------------------------------------------------------------- round end
def test_round_ends_when_factories_and_centre_are_empty_and_round_pane_goes_to_the_tower():
    s = _last_take_state()
    top = s.rcol[0]
    tower = list(s.tower)
    s.holder = 1  # player 1 took the start marker this round
    s.mic = False
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.rnd == 1
    expected = tower[:]
    expected[O] += 1  # the broken pane
    expected[top] += 1  # the round indicator's top pane
    assert s.tower == expected
    # the marker holder refilled every factory with 4 panes, puts the marker back and starts
    assert all(sum(s.fac[f * NC:(f + 1) * NC]) == 4 for f in range(s.nf))
    assert s.to_move() == (1,) and s.mic is True and s.phase == CHOOSE
    assert total_panes(s) == 100


def test_round_continues_while_panes_remain():
    s = empty_table()
    put(s, [{O: 1}], centre={B: 1})
    palace(s, 0, {7: no_colour(O)}, glazier=7)
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.rnd == 0 and s.to_move() == (1,)


def test_nobody_took_from_the_centre_the_start_player_keeps_the_marker():
    s = _last_take_state()
    assert s.holder == 0 and s.mic is True
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.rnd == 1 and s.to_move() == (0,) and s.holder == 0


def test_bag_refilled_from_the_tower_when_empty():
    s = _last_take_state()
    # move all but 6 bag panes to the tower: the refill needs 20
    for c in range(NC):
        s.tower[c] += s.bag[c]
        s.bag[c] = 0
    s.bag[W] = 6
    s.tower[W] -= 6
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert sum(s.fac) == 4 * s.nf
    assert sum(s.fac[c] for c in range(W, len(s.fac), NC)) >= 6  # the 6 white came first
    assert sum(s.bag) + sum(s.fac) + sum(s.tower) == 100 - 5  # 5 round panes left on the indicator
    assert sum(s.tower) == 0  # the tower was emptied into the bag
    assert total_panes(s) == 100


def test_bag_and_tower_empty_factories_stay_short():
    s = _last_take_state()
    # put nearly every pane on player 1's windows/strips so only 6 panes stay free
    free = sum(s.bag)
    assert sum(s.tower) == 0
    keep = 6
    for w in range(8):
        for field in range(2):
            c = next((c for c in range(NC) if s.bag[c]), None)
            if c is not None and sum(s.bag) > keep:
                s.bag[c] -= 1
                s.win[(1 * 8 + w) * 2 + field] = c
    while sum(s.bag) > keep:  # the rest lies in a pile on player 0's strips' "on" counts
        c = next(c for c in range(NC) if s.bag[c])
        s.bag[c] -= 1
        s.on[(0 * 8 + 7) * NC + c] += 1
    assert free > keep
    s.apply(0, act("take_factory", factory=0, colour=O))  # breaks: 1 pane to the tower
    # 6 in the bag + the broken pane + the round pane = 8 panes for 5 factories of 4
    assert sum(s.fac) == 8 and s.left == 8
    assert sum(s.bag) == 0 and sum(s.tower) == 0


def test_with_bag_and_tower_empty_the_round_pane_alone_is_drawn():
    """All free panes lie on strips: the next round has just the panes that reached the tower
    (the broken one and the removed round pane), so it still has something to take."""
    s = _last_take_state()
    for c in range(NC):
        while s.bag[c]:
            s.bag[c] -= 1
            s.on[(0 * 8 + 7) * NC + c] += 1
    s.apply(0, act("take_factory", factory=0, colour=O))
    # round 2 gets the 2 panes from the tower (broken pane + round pane), so it is played
    assert s.rnd == 1 and s.left == 2
    # the same with nothing broken: only the round pane itself comes back
    s2 = _last_take_state()
    for c in range(NC):
        s2.on[(0 * 8 + 7) * NC + c] += s2.bag[c]
        s2.bag[c] = 0
    s2.on[(0 * 8 + 6) * NC + O] += 1  # the orange on factory 1 lies elsewhere
    s2.fac[O] = 0
    s2.left = 0
    s2.phase, s2.cur = CHOOSE, 0
    s2._end_turn(None)
    assert s2.rnd == 1 and s2.left == 1  # the round pane came back from the tower


def test_game_ends_after_the_sixth_round():
    s = _last_take_state()
    set_round(s, 5)
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.is_over() and s.phase == OVER and s.to_move() == ()
    assert s.legal_actions(0) == [] and s.legal_actions(1) == []
    assert s.final is not None
    assert total_panes(s) == 100


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_last_six_rounds(n):
    s = run_random_game(fresh(n, seed=n), Rng(n))
    assert s.rnd == 6 and s.is_over() and s.turn > 6 * 5


# ----------------------------------------------------------------- final scoring
def _final(side="A"):
    s = _last_take_state(side=side)
    set_round(s, 5)
    return s  # no panes left on any strip by default


def _fill_first(s, p, pos, k):
    """The strip at pos (left of the glazier) with its first k spaces filled."""
    from collections import Counter

    code = s.code[p * 8 + pos]
    assert JOKER not in PATTERNS[code][:k]
    set_strip(s, p, pos, code, filled=dict(Counter(PATTERNS[code][:k])))


def test_seven_leftover_panes_give_two_points():
    s = _final()
    _fill_first(s, 0, 0, 4)  # 4 + 3 = 7 panes left on strips (rulebook example: 2 points)
    _fill_first(s, 0, 1, 3)
    assert s.leftover_panes(0) == 7
    _fill_first(s, 1, 2, 3)
    _fill_first(s, 1, 3, 2)  # 5 panes: 1 point
    s.apply(0, act("take_factory", factory=0, colour=O))  # breaks 1: track space 1
    assert s.final[0][0] == 2 and s.final[1][0] == 1
    assert s.score[0] == 2 + TRACK[1]
    assert s.score[1] == 1


def test_broken_glass_space_minus_8_costs_8():
    s = _final()
    s.trk[0] = TRACK.index(-8) - 1  # the last pane breaks onto the -8 space
    s.score[0] = 20
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.trk[0] == TRACK.index(-8)
    assert s.final[0][1] == -8
    assert s.score[0] == 20 - 8
    assert s.lost[0] == 8


def test_side_a_ornaments_example_23_points():
    """Rulebook example: 4 panes around ornaments 1 and 2 (2 × 10) and 2 around ornament 4 (3)."""
    s = _final("A")
    for w in range(4):
        set_window(s, 0, w, upper=W, lower=B)
    set_window(s, 0, 6, upper=P)
    set_window(s, 0, 7, upper=Y)
    assert s.side_bonus(0) == 23
    set_window(s, 0, 4, upper=O)  # 1 field around ornament 3: still nothing
    assert s.side_bonus(0) == 23
    set_window(s, 0, 5, upper=O)  # 2 fields: 3 points
    assert s.side_bonus(0) == 26
    set_window(s, 0, 5, upper=O, lower=O)  # 3 fields: 6 points
    assert s.side_bonus(0) == 29
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.final[0][2] == 29


def test_side_b_four_completed_windows_times_five_orange_is_20():
    """Rulebook example: 4 finished windows and 5 orange panes in the palace: 4 × 5 = 20."""
    s = _final("B")
    set_window(s, 0, 0, upper=O, lower=O)
    set_window(s, 0, 1, upper=O, lower=W)
    set_window(s, 0, 2, upper=O, lower=B)
    set_window(s, 0, 3, upper=W, lower=P)
    set_window(s, 0, 6, upper=O)  # a started window counts for colours, not as finished
    assert s.side_bonus(0) == 20
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.final[0][2] == 20


def test_side_b_uses_the_best_colour():
    s = _final("B")
    set_window(s, 0, 0, upper=W, lower=W)
    set_window(s, 0, 1, upper=W, lower=B)
    set_window(s, 0, 2, upper=B)
    assert s.side_bonus(0) == 2 * 3


def test_final_scoring_order_leftover_minus_track_plus_side():
    s = _final("A")
    s.score[1] = 10
    s.trk[1] = 3
    set_window(s, 1, 0, upper=W, lower=W)
    set_window(s, 1, 1, upper=W, lower=W)
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.score[1] == 10 + 0 + TRACK[3] + 10


def test_tie_broken_by_fewer_points_lost_to_broken_glass_then_shared():
    s = _final()
    s.score = [20, 20]
    s.lost = [18, 0]
    s.trk = [0, 0]
    s.apply(0, act("take_factory", factory=0, colour=O))  # player 0 breaks 1 more
    assert s.scores()[0] == s.scores()[1] + TRACK[1]
    s.score = [15, 15]
    assert s.winners() == [1] and s.ranking() == [2, 1]
    s.lost = [5, 5]
    assert s.winners() == [0, 1] and s.returns() == [0.5, 0.5]
    assert "broken glass" in s.tiebreak_explained()
