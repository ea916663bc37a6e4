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
    check_palace,
    empty_table,
    find_side,
    palace,
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
    palace(s, 0, {0: strip_with(O, 2)})
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.phase == PLACE and s.pcol == O and s.pn == 2
    assert s.fac[0:5] == [0, 0, 0, 0, 0]
    assert s.centre == [1, 0, 0, 1, 0]
    assert s.left == 4 + 2
    assert total_panes(s) == 100


def test_take_all_of_a_colour_from_the_centre_first_taker_gets_marker_and_breaks_one():
    s = empty_table()
    put(s, [{Y: 4}], centre={O: 3, B: 2})
    palace(s, 0, {0: strip_with(O, 2)})
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
def test_amanda_three_orange_panes_on_the_shipped_strips():
    """Rulebook example, on the shipped strips: Amanda takes 3 orange panes. Strip A (left of her
    glazier) has an empty orange space but is out of reach; strip B under the glazier has one
    empty orange space (1 fits, 2 break: 2 spaces down the broken-glass track); strip C to the
    right has 3 empty orange spaces: all 3 fit once the glazier moves there."""
    c_code = find_side(lambda pat: pat.count(O) == 3 and JOKER not in pat)
    b_code = find_side(lambda pat: pat.count(O) == 1 and JOKER not in pat, exclude=(c_code // 2,))
    a_code = find_side(lambda pat: O in pat and JOKER not in pat, exclude=(c_code // 2, b_code // 2))
    s = empty_table()
    put(s, [{O: 3, W: 1}, {Y: 4}])
    # A, B, C at the three rightmost positions: no other strip is right of the glazier
    palace(s, 0, {5: a_code, 6: b_code, 7: c_code}, glazier=6)
    filled = {c: NEED[b_code][c] for c in range(5) if c != O}  # strip B: only its orange space empty
    set_strip(s, 0, 6, b_code, filled=filled)
    check_palace(s, 0)
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.pn == 3
    assert [a_.args["position"] for a_ in s.legal_actions(0)] == [6, 7]
    with pytest.raises(IllegalAction, match="left of your glazier"):
        s.apply(0, act("place", position=5))

    # option B: 1 pane on the strip under the glazier, 2 broken
    s_b = s.clone()
    tower_before = s_b.tower[O]
    s_b.apply(0, act("place", position=6))
    assert s_b.glz[0] == 6 and s_b.trk[0] == 2 and s_b.tower[O] == tower_before + 2
    assert s_b.on[6 * 5 + O] == 1 and s_b.empty[6] == 0

    # option C: all 3 on the 3 empty orange spaces of strip C, the glazier moves there
    s.apply(0, act("place", position=7))
    assert s.glz[0] == 7 and s.trk[0] == 0 and s.tower[O] == 0
    assert s.on[7 * 5 + O] == 3 and s.need[7 * 6 + O] == 0 and s.empty[7] == 2
    assert s.need[7 * 6 + 5] == 0  # no joker space helped


def test_must_place_on_a_fitting_strip_when_one_is_reachable():
    s = empty_table()
    put(s, [{P: 1, W: 3}, {Y: 4}])
    no_p = strip_without(P)
    with_p = strip_with(P, 1, exclude=(no_p // 2,))
    palace(s, 0, {6: no_p, 7: with_p}, glazier=6)
    s.apply(0, act("take_factory", factory=0, colour=P))
    assert [a.args["position"] for a in s.legal_actions(0)] == [7]
    with pytest.raises(IllegalAction, match="no empty pink or joker space"):
        s.apply(0, act("place", position=6))


def test_all_panes_break_when_no_reachable_strip_fits_and_the_glazier_stays():
    s = empty_table()
    put(s, [{P: 3, W: 1}, {Y: 4}])
    no_p = strip_without(P)
    with_p = strip_with(P, 1, exclude=(no_p // 2,))
    palace(s, 0, {0: with_p, 7: no_p}, glazier=7)  # pink fits only left of the glazier
    s.apply(0, act("take_factory", factory=0, colour=P))
    assert s.phase == CHOOSE and s.to_move() == (1,)
    assert s.trk[0] == 3 and s.glz[0] == 7 and s.tower[P] == 3
    assert s.turn == 1


def test_all_taken_panes_go_to_one_strip_surplus_breaks():
    s = empty_table()
    put(s, [{B: 4}, {Y: 4}])
    first = strip_with(B, 2)
    second = strip_with(B, 2, exclude=(first // 2,))
    palace(s, 0, {0: first, 1: second})
    s.apply(0, act("take_factory", factory=0, colour=B))
    s.apply(0, act("place", position=0))
    placed = NEED[first][B]
    assert 2 <= placed < 4
    assert s.on[0 * 5 + B] == placed and s.on[1 * 5 + B] == 0
    assert s.trk[0] == 4 - placed


def test_joker_spaces_take_any_colour_after_the_colour_spaces():
    s = empty_table()
    put(s, [{W: 4}, {Y: 4}])
    jc = strip_with(W, joker=True)
    assert W not in PATTERNS[jc]
    palace(s, 0, {7: jc}, glazier=7)
    set_window(s, 0, 7, upper=B)  # the joker side faces up once its window holds a pane
    s.apply(0, act("take_factory", factory=0, colour=W))
    s.apply(0, act("place", position=7))
    assert s.on[7 * 5 + W] == 2 and s.need[7 * 6 + 5] == 0 and s.trk[0] == 2  # 2 on jokers, 2 broken
    # a colour that has its own spaces fills those first, the jokers only take the surplus
    own = next(c for c in range(5) if c in PATTERNS[jc])
    k = PATTERNS[jc].count(own)
    s2 = empty_table()
    put(s2, [{own: k + 1, (own + 1) % 5: 3 - k} if k < 3 else {own: 4}, {O if own != O else W: 4}])
    palace(s2, 0, {7: jc}, glazier=7)
    set_window(s2, 0, 7, upper=B)
    s2.apply(0, act("take_factory", factory=0, colour=own))
    s2.apply(0, act("place", position=7))
    assert s2.need[7 * 6 + own] == 0 and s2.need[7 * 6 + 5] == 1 and s2.on[7 * 5 + own] == k + 1


def test_view_shows_which_joker_spaces_hold_which_colour():
    s = empty_table()
    jc = strip_with(W, joker=True)
    palace(s, 0, {0: jc})
    set_window(s, 0, 0, upper=B)
    set_strip(s, 0, 0, jc, jokers=[W])
    spaces = s.view(0)["players"][0]["strips"][0]["spaces"]
    jokers = [sp for sp in spaces if sp["space"] == "joker"]
    assert [sp["pane"] for sp in jokers] == ["white", None]


# ----------------------------------------------------------------- step 3: complete a strip
def _completing_state(round_colour=Y, pos=2):
    """Player 0's palace holds the shipped side with exactly 2 yellow spaces at `pos`, all
    filled but one non-yellow space; factory 1 holds that missing colour."""
    s = empty_table()
    code = find_side(lambda pat: pat.count(Y) == 2 and JOKER not in pat)
    missing = next(c for c in PATTERNS[code] if c != Y)
    palace(s, 0, {pos: code}, glazier=pos)
    filled = {c: NEED[code][c] for c in range(5) if NEED[code][c]}
    filled[missing] -= 1
    set_strip(s, 0, pos, code, filled=filled)
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
    code = find_side(lambda pat: pat.count(Y) == 2 and JOKER not in pat)
    absent = next(c for c in range(5) if c not in PATTERNS[code])
    s, code, missing = _completing_state(absent)
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
    """When all 5 panes share one colour there is nothing to choose: the pane goes to the window
    at once. On the shipped strips this happens on the joker side (3 spaces of one colour and 2
    jokers); that side faces up only after its window got its upper pane, so the strip then
    completes the window and leaves the game."""
    s = empty_table()
    jc = find_side(lambda pat: JOKER in pat)
    c0 = next(c for c in range(5) if PATTERNS[jc].count(c) + PATTERNS[jc].count(JOKER) == 5)
    palace(s, 0, {0: jc})
    set_window(s, 0, 0, upper=B)
    set_strip(s, 0, 0, jc, filled={c0: PATTERNS[jc].count(c0)}, jokers=[c0])
    put(s, [{c0: 1, (c0 + 1) % 5: 3}, {O if c0 != O else W: 4}])
    s.apply(0, act("take_factory", factory=0, colour=c0))
    s.apply(0, act("place", position=0))
    assert s.phase == CHOOSE and s.to_move() == (1,)
    assert s.win[0] == B and s.win[1] == c0
    assert s.code[0] == -1 and s.glz[0] == 0
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
    palace(s, 0, {7: strip_without(P)}, glazier=7)
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


def test_return_from_a_gap_left_of_every_strip_is_not_allowed():
    """Decision 11: over a gap with every remaining strip to its right, the glazier is treated as
    over the leftmost strip: the return would be a pass, so it is not allowed."""
    s = empty_table()
    put(s, [{O: 4}])
    for pos in range(4):
        remove_strip(s, 0, pos)
    s.glz[0] = 2
    assert act("return_glazier") not in s.legal_actions(0)
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="No strip lies left of your glazier"):
        s.apply(0, act("return_glazier"))
    assert canonical(s.to_json()) == before
    assert "return" not in s.prompt(0)
    # the same gap with a strip left of it: the return is allowed and moves left
    s.glz[0] = 5
    assert act("return_glazier") in s.legal_actions(0)
    s.apply(0, act("return_glazier"))
    assert s.glz[0] == 4


def test_prompt_offers_the_return_only_when_it_is_legal():
    s = empty_table()
    put(s, [{O: 4}, {B: 4}])
    assert s.glz[0] == 0 and act("return_glazier") not in s.legal_actions(0)
    assert "return" not in s.prompt(0)  # at the start the glazier stands over the leftmost strip
    assert "return" not in s.why_illegal(0, act("place", position=0))
    s.glz[0] = 3
    assert act("return_glazier") in s.legal_actions(0)
    assert "return your glazier" in s.prompt(0)
    assert "return your glazier" in s.why_illegal(0, act("place", position=0))
    assert s.view(0)["prompt"] == s.prompt(0)
