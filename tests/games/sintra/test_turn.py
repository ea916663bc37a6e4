"""A turn: take (step 1), place (step 2), complete a strip (step 3), glazier return (action B)."""

import pytest

from gemtable.core import IllegalAction, canonical
from gemtable.games.sintra.data import JOKER
from gemtable.games.sintra.rules import (
    CHOOSE,
    COLOURS,
    KEEP,
    NEED,
    PATTERNS,
    PLACE,
    TRACK,
    WINDOW_VALUES,
)

from .helpers import (
    B,
    O,
    P,
    W,
    Y,
    act,
    empty_table,
    find_side,
    put,
    remove_strip,
    set_round,
    set_strip,
    set_window,
    total_panes,
)


def strip_with(colour, at_least=1, joker=False, exclude=()):
    if joker:
        return find_side(lambda pat: JOKER in pat, exclude)
    return find_side(lambda pat: pat.count(colour) >= at_least and JOKER not in pat, exclude)


def strip_without(colour, exclude=()):
    return find_side(lambda pat: colour not in pat and JOKER not in pat, exclude)


# ----------------------------------------------------------------- step 1: take
def test_take_all_of_a_colour_from_a_factory_rest_to_centre():
    s = empty_table()
    put(s, [{O: 2, B: 1, W: 1}, {Y: 4}])
    set_strip(s, 0, 0, strip_with(O, 2))
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.phase == PLACE and s.pcol == O and s.pn == 2
    assert s.fac[0:5] == [0, 0, 0, 0, 0]
    assert s.centre == [1, 0, 0, 1, 0]
    assert s.left == 4 + 2
    assert total_panes(s) == 100


def test_take_all_of_a_colour_from_the_centre_first_taker_gets_marker_and_breaks_one():
    s = empty_table()
    put(s, [{Y: 4}], centre={O: 3, B: 2})
    set_strip(s, 0, 0, strip_with(O, 2))
    s.apply(0, act("take_centre", colour=B))
    assert s.centre == [0, 0, 3, 0, 0] and s.pn == 2
    assert s.holder == 0 and s.mic is False and s.trk[0] == 1
    s.apply(0, s.legal_actions(0)[0])  # place somewhere
    # the second player taking from the centre does not get the marker or a break
    s.apply(1, act("take_centre", colour=O))
    assert s.holder == 0 and s.trk[1] == 0


def test_cannot_take_a_colour_that_is_not_there():
    s = empty_table()
    put(s, [{O: 4}], centre={B: 1})
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="Factory 1 holds no pink"):
        s.apply(0, act("take_factory", factory=0, colour=P))
    with pytest.raises(IllegalAction, match="no factory 9"):
        s.apply(0, act("take_factory", factory=8, colour=P))
    with pytest.raises(IllegalAction, match="centre holds no white"):
        s.apply(0, act("take_centre", colour=W))
    assert canonical(s.to_json()) == before


def test_must_take_before_placing_and_only_current_player_moves():
    s = empty_table()
    put(s, [{O: 4}])
    with pytest.raises(IllegalAction, match="First take"):
        s.apply(0, act("place", position=0))
    with pytest.raises(IllegalAction, match="not your turn"):
        s.apply(1, act("take_factory", factory=0, colour=O))
    assert s.legal_actions(1) == []


# ----------------------------------------------------------------- step 2: place
def test_amanda_cannot_use_strip_left_of_glazier_and_breaks_two_of_three_orange():
    """Rulebook example: Amanda takes 3 orange; strip A is left of her glazier, strip B under
    it has 1 empty orange space, strip C to the right has 3 empty orange spaces.

    The placeholder strips have at most 2 spaces of one colour, so strip C is the joker side
    (1 orange + 2 joker spaces = 3 fitting spaces) to make the example's arithmetic hold."""
    s = empty_table()
    put(s, [{O: 3, W: 1}, {Y: 4}])
    a = strip_with(O, 1, exclude=())
    set_strip(s, 0, 0, a)  # strip A: empty orange space, but left of the glazier
    b = strip_with(O, 1, exclude=(a // 2,))
    # strip B under the glazier: every space filled except one orange space
    filled = {c: NEED[b][c] for c in range(5)}
    filled[O] -= 1
    set_strip(s, 0, 1, b, filled=filled)
    c_code = strip_with(O, joker=True)
    set_strip(s, 0, 2, c_code)
    for pos in range(3, 8):
        set_strip(s, 0, pos, strip_without(O, exclude=(a // 2, b // 2, c_code // 2)))
    s.glz[0] = 1
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.pn == 3
    assert [a_.args["position"] for a_ in s.legal_actions(0)] == [1, 2]
    with pytest.raises(IllegalAction, match="left of your glazier"):
        s.apply(0, act("place", position=0))

    # option B: 1 pane on the strip under the glazier, 2 broken
    s_b = s.clone()
    tower_before = s_b.tower[O]
    s_b.apply(0, act("place", position=1))
    assert s_b.glz[0] == 1 and s_b.trk[0] == 2 and s_b.tower[O] == tower_before + 2
    assert s_b.on[1 * 5 + O] == NEED[b][O] and s_b.empty[1] == 0

    # option C: all 3 on strip C, the glazier moves there, nothing breaks
    s.apply(0, act("place", position=2))
    assert s.glz[0] == 2 and s.trk[0] == 0 and s.empty[2] == 2
    assert s.on[2 * 5 + O] == 3


def test_must_place_on_a_fitting_strip_when_one_is_reachable():
    s = empty_table()
    put(s, [{P: 1, W: 3}, {Y: 4}])
    no_p = strip_without(P)
    with_p = strip_with(P, 1)
    set_strip(s, 0, 0, no_p)
    set_strip(s, 0, 1, with_p)
    for pos in range(2, 8):
        set_strip(s, 0, pos, no_p)
    s.apply(0, act("take_factory", factory=0, colour=P))
    assert [a.args["position"] for a in s.legal_actions(0)] == [1]
    with pytest.raises(IllegalAction, match="no empty pink or joker space"):
        s.apply(0, act("place", position=0))


def test_all_panes_break_when_no_reachable_strip_fits_and_the_glazier_stays():
    s = empty_table()
    put(s, [{P: 3, W: 1}, {Y: 4}])
    with_p = strip_with(P, 1)
    no_p = strip_without(P)
    set_strip(s, 0, 0, with_p)  # fits, but left of the glazier
    for pos in range(1, 8):
        set_strip(s, 0, pos, no_p)
    s.glz[0] = 3
    s.apply(0, act("take_factory", factory=0, colour=P))
    assert s.phase == CHOOSE and s.to_move() == (1,)
    assert s.trk[0] == 3 and s.glz[0] == 3 and s.tower[P] == 3
    assert s.turn == 1


def test_all_taken_panes_go_to_one_strip_surplus_breaks():
    s = empty_table()
    put(s, [{B: 4}, {Y: 4}])
    code = strip_with(B, 2)
    for pos in range(8):
        set_strip(s, 0, pos, code if pos in (0, 1) else strip_without(B))
    s.apply(0, act("take_factory", factory=0, colour=B))
    s.apply(0, act("place", position=0))
    placed = min(4, NEED[code][B])
    assert placed >= 2
    assert s.on[0 * 5 + B] == placed and s.on[1 * 5 + B] == 0
    assert s.trk[0] == 4 - placed


def test_joker_spaces_take_any_colour_after_the_colour_spaces():
    s = empty_table()
    put(s, [{W: 4}, {Y: 4}])
    jc = strip_with(W, joker=True)
    assert W not in PATTERNS[jc]  # placeholder joker side: J Y J O P
    set_strip(s, 0, 0, jc)
    for pos in range(1, 8):
        set_strip(s, 0, pos, strip_without(W))
    s.apply(0, act("take_factory", factory=0, colour=W))
    s.apply(0, act("place", position=0))
    assert s.on[W] == 2 and s.need[5] == 0 and s.trk[0] == 2  # 2 on jokers, 2 broken
    # a colour that has its own space fills that first, the joker only takes the surplus
    s2 = empty_table()
    put(s2, [{Y: 2, W: 2}, {O: 4}])
    set_strip(s2, 0, 0, jc)
    s2.apply(0, act("take_factory", factory=0, colour=Y))
    s2.apply(0, act("place", position=0))
    assert s2.need[Y] == 0 and s2.need[5] == 1 and s2.on[Y] == 2


def test_view_shows_which_joker_spaces_hold_which_colour():
    s = empty_table()
    jc = strip_with(W, joker=True)
    set_strip(s, 0, 0, jc, jokers=[W])
    spaces = s.view(0)["players"][0]["strips"][0]["spaces"]
    jokers = [sp for sp in spaces if sp["space"] == "joker"]
    assert [sp["pane"] for sp in jokers] == ["white", None]


# ----------------------------------------------------------------- step 3: complete a strip
def _completing_state(round_colour=Y, pos=2):
    """Player 0's strip at `pos` is the side with 2 yellow spaces, all filled but one non-yellow
    space; factory 1 holds that missing colour."""
    s = empty_table()
    code = find_side(lambda pat: pat.count(Y) == 2 and JOKER not in pat)
    missing = next(c for c in PATTERNS[code] if c != Y)
    filled = {c: NEED[code][c] for c in range(5) if NEED[code][c]}
    filled[missing] -= 1
    set_strip(s, 0, pos, code, filled=filled)
    s.glz[0] = pos
    set_round(s, 2, round_colour)  # round 3
    put(s, [{missing: 1, B: 3} if missing != B else {missing: 1, W: 3}, {O: 4}])
    return s, code, missing


def test_colour_bonus_round_3_yellow_two_yellow_panes_score_two():
    """Rulebook example: round 3, top pane of the round indicator yellow, 2 yellow panes on the
    completed strip A: 2 points."""
    s, _code, missing = _completing_state(Y)
    s.apply(0, act("take_factory", factory=0, colour=missing))
    s.apply(0, act("place", position=2))
    assert s.score[0] == 2
    assert s.phase == KEEP and s.to_move() == (0,)


def test_no_colour_bonus_without_round_colour_panes():
    s, code, missing = _completing_state(W)
    assert W not in PATTERNS[code]
    s.apply(0, act("take_factory", factory=0, colour=missing))
    s.apply(0, act("place", position=2))
    assert s.score[0] == 0


def test_keep_one_pane_upper_field_strip_flips_glazier_stays_window_scores():
    """Rulebook example (continued): Amanda keeps one pane for the upper field, flips the strip
    and scores 5 = 2 printed under the window + the windows to its right holding a pane.

    Window values are placeholders: the state uses a window worth 2 with one filled window worth
    3 to its right (plus a filled window on the left and empty ones on the right that do not
    count), so the example's arithmetic holds."""
    pos = WINDOW_VALUES.index(2)
    right = next(w for w in range(pos + 1, 8) if WINDOW_VALUES[w] == 3)
    s, code, missing = _completing_state(Y, pos=pos)
    set_window(s, 0, right, upper=B)
    set_window(s, 0, 0, upper=W, lower=W)
    remove_strip(s, 0, 0)
    s.apply(0, act("take_factory", factory=0, colour=missing))
    s.apply(0, act("place", position=pos))
    assert s.score[0] == 2  # colour bonus
    keep = {a.args["colour"] for a in s.legal_actions(0)}
    assert keep == {COLOURS[c] for c in PATTERNS[code]}
    tower = sum(s.tower)
    absent = next(c for c in range(5) if c not in PATTERNS[code])
    with pytest.raises(IllegalAction, match=f"no {COLOURS[absent]} pane on the completed strip"):
        s.apply(0, act("keep", colour=absent))
    s.apply(0, act("keep", colour=Y))
    assert s.win[pos * 2] == Y and s.win[pos * 2 + 1] == -1
    assert s.score[0] == 2 + 5
    assert sum(s.tower) == tower + 4  # the other four go to the tower
    si = pos
    assert s.code[si] == code ^ 1 and s.empty[si] == 5  # turned to its other, empty side
    assert sum(s.on[si * 5:si * 5 + 5]) == 0
    assert s.glz[0] == pos
    assert s.turn == 1 and s.to_move() == (1,)
    assert total_panes(s) == 100


def test_second_pane_fills_lower_field_strip_removed_glazier_over_the_gap():
    s, _code, missing = _completing_state(Y, pos=5)
    set_window(s, 0, 5, upper=O)
    s.apply(0, act("take_factory", factory=0, colour=missing))
    s.apply(0, act("place", position=5))
    s.apply(0, act("keep", colour=Y))
    assert s.win[10] == O and s.win[11] == Y
    assert s.code[5] == -1 and s.empty[5] == 0 and s.glz[0] == 5
    assert s.score[0] == 2 + WINDOW_VALUES[5]
    assert s.view(0)["players"][0]["strips"][5] is None
    # the gap can never be chosen for placing
    s.glz[0] = 0
    s.cur = 0
    for colour in range(5):
        s.phase, s.pcol, s.pn = PLACE, colour, 1
        assert 5 not in [a.args["position"] for a in s.legal_actions(0)]


def test_single_colour_strip_keeps_without_asking():
    """When all 5 panes share one colour there is nothing to choose: the pane goes up at once.
    (No placeholder side has 5 spaces of one colour, so the 4 panes are set by hand.)"""
    s = empty_table()
    code = find_side(lambda pat: JOKER not in pat)
    c0 = PATTERNS[code][0]
    set_strip(s, 0, 0, code)
    s.need[0:6] = [0, 0, 0, 0, 0, 0]
    s.need[c0] = 1
    s.on[0:5] = [0, 0, 0, 0, 0]
    s.on[c0] = 4
    s.bag[c0] -= 4
    s.empty[0] = 1
    put(s, [{c0: 1, (c0 + 1) % 5: 3}, {O if c0 != O else W: 4}])
    s.apply(0, act("take_factory", factory=0, colour=c0))
    s.apply(0, act("place", position=0))
    assert s.phase == CHOOSE and s.to_move() == (1,)
    assert s.win[0] == c0
    assert NEED[code ^ 1] == tuple(s.need[0:6])
    assert total_panes(s) == 100


# ----------------------------------------------------------------- action B: glazier return
def test_return_glazier_to_leftmost_strip_ends_the_turn():
    s = empty_table()
    put(s, [{O: 4}])
    s.glz[0] = 4
    assert act("return_glazier") in s.legal_actions(0)
    s.apply(0, act("return_glazier"))
    assert s.glz[0] == 0 and s.turn == 1 and s.to_move() == (1,)


def test_return_not_allowed_when_already_leftmost():
    s = empty_table()
    put(s, [{O: 4}])
    assert act("return_glazier") not in s.legal_actions(0)
    with pytest.raises(IllegalAction, match="already stands over your leftmost strip"):
        s.apply(0, act("return_glazier"))


def test_return_goes_to_leftmost_remaining_strip_never_a_gap():
    s = empty_table()
    put(s, [{O: 4}])
    remove_strip(s, 0, 0)
    remove_strip(s, 0, 1)
    s.glz[0] = 2
    assert act("return_glazier") not in s.legal_actions(0)
    s.glz[0] = 6
    s.apply(0, act("return_glazier"))
    assert s.glz[0] == 2


def test_return_from_a_gap_is_allowed_and_no_strips_means_no_return():
    s = empty_table()
    put(s, [{O: 4}])
    remove_strip(s, 0, 3)
    s.glz[0] = 3
    assert act("return_glazier") in s.legal_actions(0)
    for pos in range(8):
        remove_strip(s, 0, pos)
    assert act("return_glazier") not in s.legal_actions(0)
    with pytest.raises(IllegalAction, match="no strips left"):
        s.apply(0, act("return_glazier"))
    s.apply(0, act("take_factory", factory=0, colour=O))  # everything breaks
    assert s.trk[0] == 4


# ----------------------------------------------------------------- broken glass
def test_reaching_minus_18_costs_18_at_once_and_the_marker_returns_to_the_top():
    s = empty_table()
    put(s, [{P: 4}, {O: 4}])
    for pos in range(8):
        set_strip(s, 0, pos, strip_without(P))
    last = len(TRACK) - 1
    s.trk[0] = last - 2
    s.score[0] = 30
    s.apply(0, act("take_factory", factory=0, colour=P))  # 4 break: bottom reached at the 2nd
    assert s.score[0] == 30 - 18
    assert s.lost[0] == 18
    assert s.trk[0] == 2


def test_turn_counts_whole_turns_not_decisions():
    s, _code, missing = _completing_state(Y)
    s.apply(0, act("take_factory", factory=0, colour=missing))
    assert s.turn == 0
    s.apply(0, act("place", position=2))
    assert s.turn == 0
    s.apply(0, s.legal_actions(0)[0])
    assert s.turn == 1


def test_return_from_a_gap_left_of_every_strip_moves_the_glazier_right():
    """Decision 11: the glazier over a gap with every strip to its right is not over the
    leftmost strip, so the return is allowed (it moves right, to the leftmost strip)."""
    s = empty_table()
    put(s, [{O: 4}])
    for pos in range(4):
        remove_strip(s, 0, pos)
    s.glz[0] = 2
    assert act("return_glazier") in s.legal_actions(0)
    s.apply(0, act("return_glazier"))
    assert s.glz[0] == 4
