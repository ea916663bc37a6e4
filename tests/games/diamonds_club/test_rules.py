"""Diamonds Club: one test per rule and the rulebook's worked examples (hand-made states)."""

from __future__ import annotations

import io
import json

import pytest

from gemtable.core import IllegalAction, Rng, canonical
from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club import rules as R
from gemtable.games.diamonds_club.data import ANIMAL, HAT, MINE, PIT, SHIP, TRACK
from gemtable.core.i18n import render

A = GAME.actions
PASS = A.get("pass")
BLUE, YELLOW, GREEN, RED, DIA = range(5)
FOUNTAIN, ORANGERY, PAVILION, ROSE = range(4)
POND, DEER, AVIARY = range(3)


def buy(i):
    return A.get("buy", space=i)


def build(board, tile=None):
    return A.get("build", board=board, tile=tile or board)


def pay(*v):
    return A.get("pay", gems=tuple(v))


def new(n=4, seed=0):
    return GAME.new(n, seed)


def set_goods(s, i, kind, val, *more):
    """Hand-made market space ``i`` showing (kind, val) and any further (kind, val) goods."""
    g = list(s.market_goods)
    g[i] = ((kind, val),) + tuple(more)
    s.market_goods = tuple(g)


def set_gems(s, p, b=0, y=0, g=0, r=0, d=0):
    s.gems[p * 5:p * 5 + 5] = [b, y, g, r, d]


def to_build_phase(s, order=None):
    """Hand-made: jump to phase 5 with the given playing order."""
    s.phase = R.BUILD
    s.order = tuple(order or range(s.num_players))
    s.oi = 0
    s.passed = 0
    s.pend = -1
    return s


def to_gems_phase(s, order=None):
    s.phase = R.GEMS
    s.order = tuple(order or range(s.num_players))
    s.oi = 0
    s.stage = 0
    s.gdec = 0
    return s


def mover(s):
    return s.to_move()[0]


def finish_build(s, p):
    """Make the first offered choice while ``p``'s build still asks for a payment or a pile."""
    while s.to_move() == (p,) and s.phase == R.BUILD and (s.pend >= 0 or s.fpile):
        s.apply(p, s.legal_actions(p)[0])


def all_pass_buy(s):
    while s.phase == R.BUY:
        s.apply(mover(s), PASS)


# -- set-up --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup(n):
    s = new(n, 7)
    for p in range(n):
        assert s.coins[p] == 10
        assert s.gems[p * 5:p * 5 + 5] == [1, 1, 1, 1, 0]
        assert s.tr[p * 3:p * 3 + 3] == [0, 0, 0]
    # start track: the starting player on 0, the others clockwise on 1, 2, 3
    for k in range(n):
        assert s.pos[(s.start + k) % n] == k
    assert s.to_move() == (s.start,)
    assert s.phase == R.BUY


@pytest.mark.parametrize("n", [2, 3, 4])
def test_market_has_n_dark_then_n_light_strips(n):
    s = new(n, 3)
    colours = [c for c, _, _ in s.strips]
    assert colours == [0] * n + [1] * n
    assert len({(c, i) for c, i, _ in s.strips}) == 2 * n  # different strips
    assert len(s.goods) == 6 * 2 * n  # 6 rows x 2N columns; the rest of the board is closed
    assert s.view(None)["closed_market"] == (n < 4)


def test_market_is_reshuffled_and_randomly_turned():
    seen_faces, seen_sets = set(), set()
    for seed in range(30):
        s = new(2, seed)
        seen_faces |= {f for _, _, f in s.strips}
        seen_sets.add(tuple(sorted(i for c, i, _ in s.strips if c == 0)))
    assert seen_faces == {0, 1}
    assert len(seen_sets) > 5
    # a new round sets out a new market
    s = new(2, 1)
    all_pass_buy(s)
    while s.phase != R.BUY:
        s.apply(mover(s), s.legal_actions(mover(s))[-1])
    assert s.round == 2
    # the goods table follows the newly set-out strips
    assert s.market_goods == tuple(R.D.strips[c][i][f][r] for r in range(6) for c, i, f in s.strips)


# -- phase 2: buy -----------------------------------------------------------------------
def test_market_prices_example_1_3_5():
    """Rulebook: space A costs 1, B 3 (2 adjoining coins), C 5 (4 adjoining coins)."""
    s = new(4, 0)
    cols = s.cols  # 8
    C = 2 * cols + 2
    B = 4 * cols + 5
    A_ = 0 * cols + 7
    s.coins = [30] * 4
    for i in (1 * cols + 2, 3 * cols + 2, 2 * cols + 1, 2 * cols + 3, 3 * cols + 5, 4 * cols + 6):
        p = mover(s)
        assert s.sur[i] == 0
        s.apply(p, buy(i))
    assert 1 + s.sur[A_] == 1
    assert 1 + s.sur[B] == 3
    assert 1 + s.sur[C] == 5
    view = s.view(None)
    assert view["market"][4][5]["price"] == 3 and view["market"][2][2]["price"] == 5
    p = mover(s)
    before = s.coins[p]
    s.apply(p, buy(C))
    assert s.coins[p] == before - 5
    assert s.cm[C] == 5


def test_surcharge_counts_coins_not_spaces():
    s = new(4, 0)
    s.coins = [30] * 4
    s.apply(mover(s), buy(9))  # 1 coin
    s.apply(mover(s), buy(10))  # 2 coins (next to space 9)
    # space 11 touches space 10 (2 coins); space 18 touches 10 (2) and 17 (0)
    assert 1 + s.sur[11] == 3
    assert 1 + s.sur[17] == 2  # touches 9 (1 coin)


def test_cannot_buy_occupied_or_unaffordable_space():
    s = new(4, 0)
    p = mover(s)
    s.apply(p, buy(0))
    q = mover(s)
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="already occupied"):
        s.apply(q, buy(0))
    s.coins[q] = 1
    with pytest.raises(IllegalAction, match="costs 2 coins"):
        s.apply(q, buy(1))  # next to space 0
    s.coins[q] = 10
    assert canonical(s.to_json()) == before


def test_closed_market_spaces_do_not_exist_with_fewer_players():
    s = new(2, 0)
    assert max(a["space"] for a in s.legal_actions(mover(s)) if a.type == "buy") == 23
    with pytest.raises(IllegalAction, match="closed market"):
        s.apply(mover(s), buy(40))


def test_buying_goes_round_clockwise_and_pass_is_final():
    s = new(3, 5)
    st = s.start
    s.apply(st, buy(0))
    assert mover(s) == (st + 1) % 3
    s.apply((st + 1) % 3, PASS)
    s.apply((st + 2) % 3, buy(5))
    assert mover(s) == st  # the passed player is skipped
    s.apply(st, PASS)
    assert mover(s) == (st + 2) % 3
    s.apply((st + 2) % 3, PASS)
    assert s.phase != R.BUY  # everybody passed: phase 2 is over


def test_equipment_goods():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, PIT, RED)
    s.apply(p, buy(0))
    q = mover(s)
    set_goods(s, 5, MINE, 4)
    s.apply(q, buy(5))
    set_goods(s, 7, SHIP, 3)
    s.apply(p, buy(7))
    assert s.pits[p * 4 + RED] == 1
    assert s.mines[q * 10 + 4] == 1
    assert s.ships[p * 10 + 3] == 1


def test_top_hats_move_and_stack_on_top():
    s = new(3, 0)
    p0, p1, p2 = s.order
    assert (s.pos[p0], s.pos[p1], s.pos[p2]) == (0, 1, 2)
    set_goods(s, 0, HAT, 2)
    s.apply(p0, buy(0))  # 0 -> 2, on top of p2
    assert s.pos[p0] == 2 and s.seq[p0] > s.seq[p2]
    set_goods(s, 3, HAT, 3)
    s.pos[p1] = 8
    s.apply(p1, buy(3))  # overshoots space 9
    assert s.pos[p1] == R.BEYOND == 10


def test_animal_goes_to_a_free_park_space():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, ANIMAL, DEER)
    s.apply(p, buy(0))
    assert s.ani[p * 3 + DEER] == 1 and s.gen[p] == 1 and s.apile[DEER] == 6


def test_animal_never_on_mandatory_or_dark_space_before_park_is_complete():
    s = new(2, 0)
    p = mover(s)
    s.gen[p] = R.GENMAX  # ordinary light spaces full, mandatory spaces open
    set_goods(s, 0, ANIMAL, POND)
    s.apply(p, buy(0))
    assert s.ani[p * 3 + POND] == 0 and s.dark[p] == 0 and s.apile[POND] == 7


def test_animal_on_dark_space_once_park_complete():
    s = new(2, 0)
    p = mover(s)
    s.gen[p] = R.GENMAX
    s.mand[p] = R.MANDFULL
    set_goods(s, 0, ANIMAL, AVIARY)
    s.apply(p, buy(0))
    assert s.ani[p * 3 + AVIARY] == 1 and s.dark[p] == 1


def test_animal_that_completes_the_park_ends_the_game_after_the_round():
    s = new(2, 0)
    p = mover(s)
    s.gen[p] = R.GENMAX - 1
    s.mand[p] = R.MANDFULL
    set_goods(s, 0, ANIMAL, AVIARY)
    s.apply(p, buy(0))
    assert s.ending and not s.is_over()
    all_pass_buy(s)
    while not s.is_over():
        assert s.phase in (R.GEMS, R.BUILD)
        s.apply(mover(s), s.legal_actions(mover(s))[-1])
    assert s.round == 1


def test_development_track_steps_and_money_coin():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, TRACK, 2)  # money
    s.apply(p, buy(0))
    assert s.tr[p * 3 + 2] == 1 and s.coins[p] == 10 - 1 + 1
    q = mover(s)
    set_goods(s, 5, TRACK, 0)  # forest
    s.apply(q, buy(5))
    assert s.tr[q * 3] == 1
    s.tr[p * 3 + 1] = 4  # technology at its last space: the step is lost
    set_goods(s, 11, TRACK, 1)
    s.apply(p, buy(11))
    assert s.tr[p * 3 + 1] == 4


def test_question_mark_lets_the_player_choose_the_track():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, TRACK, 3)
    s.apply(p, buy(0))
    assert mover(s) == p
    assert [a["track"] for a in s.legal_actions(p)] == ["forest", "tech", "money"]
    with pytest.raises(IllegalAction):
        s.apply(p, PASS)
    s.apply(p, A.get("track", track="money"))
    assert s.tr[p * 3 + 2] == 1 and s.coins[p] == 10
    assert mover(s) != p
    # tracks at their end are not offered
    q = mover(s)
    s.tr[q * 3] = 4
    set_goods(s, 7, TRACK, 3)
    s.apply(q, buy(7))
    assert [a["track"] for a in s.legal_actions(q)] == ["tech", "money"]


# -- phase 3: diamonds ---------------------------------------------------------------------
def test_diamond_for_most_unused_coins_all_tied_players():
    s = new(3, 0)
    s.coins = [4, 7, 7]
    s.pos = [0, 1, 2]
    s.seq = [1, 2, 3]
    s._assign_diamonds(None)
    # seats 1 and 2 tie on coins; seat 2 leads the track
    assert [s.gems[p * 5 + DIA] for p in range(3)] == [0, 1, 2]


def test_diamond_for_track_leaders_and_top_piece_starts():
    s = new(4, 0)
    s.coins = [0, 0, 0, 0]  # nobody has coins left: no coin diamond
    s.pos = [7, 7, 3, 5]
    s.seq = [10, 12, 11, 9]
    s._assign_diamonds(None)
    assert [s.gems[p * 5 + DIA] for p in range(4)] == [1, 1, 0, 0]
    assert s.start == 1  # on top of the stack on the furthest space


def test_playing_order_from_the_start_track_example():
    """Rulebook: order blue, red, white, bronze; stacks top first."""
    s = new(4, 0)
    white, bronze, blue, red = range(4)
    s.coins = [0] * 4
    s.pos = [4, 2, 6, 4]
    s.seq = [20, 21, 22, 23]  # red lies on top of white
    s._assign_diamonds(None)
    assert s.order == (blue, red, white, bronze)
    assert s.start == blue


def test_overshooting_nine_makes_the_new_starting_player():
    s = new(2, 0)
    s.coins = [0, 0]
    s.pos = [10, 9]
    s.seq = [1, 5]
    s._assign_diamonds(None)
    assert s.start == 0 and s.order == (0, 1)


# -- phase 4: purchase gems ---------------------------------------------------------------
def test_technology_example_4_green_plus_tech_space():
    """Rulebook: the tiles give 4 green; on this tech space 5 green and a diamond."""
    s = new(2, 0)
    p = 0
    s.pits[p * 4 + GREEN] = 1
    s.mines[p * 10 + 4] = 1
    s.ships[p * 10 + 5] = 1
    s.tr[p * 3 + 1] = 3  # +1 gem +1 diamond
    set_gems(s, p)
    to_gems_phase(s, (0, 1))
    s._gems_advance(None)
    assert s.gems[p * 5:p * 5 + 5] == [0, 0, 5, 0, 1]
    assert sum(s.pits[0:4]) == sum(s.mines[0:10]) == sum(s.ships[0:10]) == 0
    # without technology: min(4, 5) = 4 green
    t = new(2, 0)
    t.pits[GREEN], t.mines[4], t.ships[5] = 1, 1, 1
    set_gems(t, 0)
    to_gems_phase(t, (0, 1))
    t._gems_advance(None)
    assert t.gems[0:5] == [0, 0, 4, 0, 0]


def _two_set_state():
    s = new(2, 0)
    p = 0
    s.pits[YELLOW] = s.pits[RED] = 1
    for v in (5, 3, 2):
        s.mines[v] = 1
    for v in (5, 3):
        s.ships[v] = 1
    set_gems(s, p)
    return to_gems_phase(s, (0, 1))


def test_two_set_example_both_ways_and_mining_rights_2_kept():
    """Rulebook: 5 yellow + 3 red or 5 red + 3 yellow; mining rights 2 kept."""
    outcomes = set()
    for first, second in ((("yellow", 5, 5), ("red", 3, 3)), (("red", 5, 5), ("yellow", 3, 3))):
        s = _two_set_state()
        s._gems_advance(None)
        assert s.to_move() == (0,)
        legal = s.legal_actions(0)
        assert len(legal) == 2 * 3 * 2
        s.apply(0, A.get("trade", pit=first[0], mine=first[1], ship=first[2]))
        s.apply(0, A.get("trade", pit=second[0], mine=second[1], ship=second[2]))
        outcomes.add(tuple(s.gems[0:4]))
        assert s.mines[0:10] == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]  # mining rights 2 kept
        assert sum(s.pits[0:4]) == 0 and sum(s.ships[0:10]) == 0
        assert s.turn == 1
    assert outcomes == {(0, 5, 0, 3), (0, 3, 0, 5)}


def test_complete_sets_must_be_traded_before_keeping():
    s = _two_set_state()
    s._gems_advance(None)
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="complete sets must always be traded"):
        s.apply(0, A.get("keep", pit="yellow", mine=5, ship=0))
    assert canonical(s.to_json()) == before


def test_keep_exactly_one_incomplete_set():
    s = new(2, 0)
    s.pits[BLUE] = 2
    s.pits[RED] = 1
    s.mines[3] = 1
    s.mines[4] = 1
    to_gems_phase(s, (0, 1))
    s._gems_advance(None)
    # no complete set (no ship): keep one pit and one mining rights tile
    opts = {(a["pit"], a["mine"], a["ship"]) for a in s.legal_actions(0)}
    assert opts == {(c, m, 0) for c in ("blue", "red") for m in (3, 4)}
    s.apply(0, A.get("keep", pit="red", mine=4, ship=0))
    assert s.pits[0:4] == [0, 0, 0, 1]
    assert s.mines[0:10] == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    # a single kind: only one tile can be kept
    t = new(2, 0)
    t.ships[2] = 3
    to_gems_phase(t, (0, 1))
    t._gems_advance(None)
    assert t.ships[0:10] == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_phase_four_runs_in_start_track_order_then_build():
    s = new(2, 0)
    all_pass_buy(s)
    assert s.phase == R.BUILD  # nobody had equipment: straight to phase 5
    assert s.to_move() == (s.order[0],)


# -- phase 5: build ------------------------------------------------------------------------
def test_white_players_build_options_example():
    s = to_build_phase(new(4, 0))
    white, bronze, blue, red = range(4)
    set_gems(s, white, 9, 9, 9, 9, 0)
    bp = {b.name: b.index for b in R.D.boards}
    s.bp[bp["fountain"]] = 1 << white  # (1) white built a fountain this round
    s.used[white] = 1
    s.bp[bp["rose_garden"]] = (1 << blue) | (1 << red)  # (3) two other pieces
    for name in ("any_tile", "forest_2", "forest_3"):
        s.bp[bp[name]] = 1 << bronze  # (4) one opponent piece each
    legal = {(a["board"], a["tile"]) for a in s.legal_actions(white) if a.type == "build"}
    assert not any(b == "fountain" for b, _ in legal)
    with pytest.raises(IllegalAction, match="once per round"):
        s.apply(white, build("fountain"))
    # (2) orangery and pavilion at the printed price
    assert s.price(bp["orangery"], white) == 3 and s.price(bp["pavilion"], white) == 3
    # (3) rose garden: printed price + 2
    assert s.price(bp["rose_garden"], white) == 3 + 2
    # (4) printed price + 1 gem of any colour
    assert s.price(bp["any_tile"], white) == 4 + 1
    assert s.price(bp["forest_2"], white) == 2 + 1
    assert s.price(bp["forest_3"], white) == 3 + 1
    assert ("any_tile", "forest") in legal and ("any_tile", "orangery") in legal
    s.apply(white, build("rose_garden"))
    paid = s.legal_actions(white)
    assert all(sum(a["gems"]) == 5 for a in paid)
    assert all(a["gems"][RED] + a["gems"][DIA] >= 2 for a in paid)
    s.apply(white, pay(1, 1, 0, 3, 0))  # 2 red + 1 blue + 2 any (1 yellow, 1 red)
    assert s.gems[0:5] == [8, 8, 9, 6, 0]
    assert s.bld[ROSE] == 1 and s.mand[white] & 0b100  # mandatory rose garden space


def test_build_price_exact_and_unaffordable():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 2, 0, 0, 0, 0)
    legal = s.legal_actions(0)
    assert A.get("build", board="fountain", tile="fountain") not in legal  # no yellow, no diamond
    assert A.get("build", board="forest_2", tile="forest") in legal  # 2 blue
    with pytest.raises(IllegalAction, match="cannot pay"):
        s.apply(0, build("fountain"))


def test_diamonds_are_jokers():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 1, 0, 0, 0, 2)
    s.apply(0, build("fountain"))  # 2 blue + 1 yellow -> 1 blue + 2 diamonds is the only way
    assert s.gems[0:5] == [0, 0, 0, 0, 0]
    assert s.bld[FOUNTAIN] == 1
    t = to_build_phase(new(2, 0), (0, 1))
    set_gems(t, 0, 2, 1, 0, 0, 1)
    t.apply(0, build("fountain"))
    assert {a["gems"] for a in t.legal_actions(0)} == {(2, 1, 0, 0, 0), (1, 1, 0, 0, 1), (2, 0, 0, 0, 1)}


def test_forest_2_needs_two_gems_of_one_colour():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 1, 1, 1, 1, 0)
    assert A.get("build", board="forest_2", tile="forest") not in s.legal_actions(0)
    set_gems(s, 0, 1, 1, 1, 1, 1)
    s.apply(0, build("forest_2", "forest"))
    assert {a["gems"] for a in s.legal_actions(0)} == {
        (1, 0, 0, 0, 1), (0, 1, 0, 0, 1), (0, 0, 1, 0, 1), (0, 0, 0, 1, 1)}


def test_forest_is_turned_from_the_fullest_building_pile():
    s = to_build_phase(new(2, 0), (0, 1))
    s.tiles = [20, 18, 21, 19]
    set_gems(s, 0, 3, 0, 0, 0, 0)
    s.apply(0, build("forest_3", "forest"))
    assert s.tiles == [20, 18, 20, 19] and s.forests[0] == 1 and s.gen[0] == 1


def test_build_turns_alternate_and_pass_is_final():
    s = to_build_phase(new(3, 0), (2, 0, 1))
    for p in range(3):
        set_gems(s, p, 9, 9, 9, 9, 0)
    s.apply(2, build("forest_2", "forest"))
    assert s.pend >= 0  # four possible colours: the payment is a choice
    s.apply(2, pay(2, 0, 0, 0, 0))
    assert s.fpile  # all four piles still full: the player picks the one to turn over
    s.apply(2, A.get("forest_pile", pile="orangery"))
    assert mover(s) == 0
    s.apply(0, PASS)
    assert mover(s) == 1
    s.apply(1, PASS)
    assert mover(s) == 2
    s.apply(2, build("orangery"))
    if s.to_move() == (2,):
        s.apply(2, s.legal_actions(2)[0])
    assert mover(s) == 2  # the others have passed for the rest of the phase
    s.apply(2, PASS)
    assert s.phase == R.BUY and s.round == 2


def test_each_board_once_per_round_and_limited_pieces():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 0, 0, 0, 0, 40)
    s.passed = 1 << 1
    used = []
    while s.to_move() == (0,) and s.phase == R.BUILD:
        acts = [a for a in s.legal_actions(0) if a.type == "build"]
        if not acts:
            break
        a = acts[0]
        used.append(a["board"])
        s.apply(0, a)
        finish_build(s, 0)
    assert len(used) == len(set(used)) == R.BOARD_PIECES == 6  # 10 pieces - 3 tracks - 1 start track
    assert s.legal_actions(0) == [PASS]


def test_other_players_pieces_raise_the_price():
    s = to_build_phase(new(3, 0), (0, 1, 2))
    for p in range(3):
        set_gems(s, p, 9, 9, 9, 9, 0)
    s.apply(0, build("pavilion"))
    finish_build(s, 0)
    assert s.price(2, 1) == 4 and s.price(2, 0) == 3


def test_buildings_cover_mandatory_spaces_first():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 9, 9, 9, 9, 0)
    s.apply(0, build("fountain"))
    assert s.mand[0] == 0b001 and s.gen[0] == 0
    s.apply(1, PASS)
    s.apply(0, build("orangery"))  # no mandatory orangery space
    assert s.gen[0] == 1


def test_no_dark_green_spaces_while_mandatory_spaces_are_open():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 9, 9, 9, 9, 9)
    s.gen[0] = R.GENMAX
    s.mand[0] = 0b011  # rose garden still open
    builds = {(a["board"], a["tile"]) for a in s.legal_actions(0) if a.type == "build"}
    assert builds == {("rose_garden", "rose_garden"), ("any_tile", "rose_garden")}
    with pytest.raises(IllegalAction, match="dark-green"):
        s.apply(0, build("forest_2", "forest"))
    s.apply(0, build("rose_garden"))
    finish_build(s, 0)
    assert s.ending  # all 14 light-green spaces covered
    s.apply(1, PASS)
    s.apply(0, build("forest_3", "forest"))
    finish_build(s, 0)
    assert s.dark[0] == 1 and s.forests[0] == 1


def test_bonus_three_of_a_kind_first_player_only():
    s = to_build_phase(new(2, 0), (0, 1))
    s.bld[0 * 4 + PAVILION] = 2
    s.bld[1 * 4 + PAVILION] = 2
    set_gems(s, 0, 9, 9, 9, 9)
    set_gems(s, 1, 9, 9, 9, 9)
    s.apply(0, build("pavilion"))
    assert s.triple[PAVILION] == 0
    s.apply(1, build("pavilion"))
    assert s.triple[PAVILION] == 0
    assert s.breakdown(0)["bonus"] == 3 and s.breakdown(1)["bonus"] == 0


def test_bonus_all_four_first_and_second_even_same_player():
    s = to_build_phase(new(2, 0), (0, 1))
    s.bld[0:4] = [1, 1, 1, 0]
    set_gems(s, 0, 9, 9, 9, 9)
    s.passed = 2
    s.apply(0, build("rose_garden"))
    assert s.all4 == [0]
    s.bp = [0] * R.NBOARDS
    s.used[0] = 0
    s.bld[0:4] = [2, 2, 2, 1]
    s.apply(0, build("rose_garden"))
    assert s.all4 == [0, 0]
    assert s.breakdown(0)["bonus"] == 5 + 3


def test_bonus_five_identical_and_forests_do_not_count():
    s = to_build_phase(new(2, 0), (0, 1))
    s.bld[1 * 4 + FOUNTAIN] = 4
    s.forests[0] = 8
    set_gems(s, 0, 9, 9, 9, 9)
    set_gems(s, 1, 9, 9, 9, 9)
    s.apply(0, build("forest_2", "forest"))
    finish_build(s, 0)
    assert s.five == [] and s.all4 == []
    s.apply(1, build("fountain"))
    assert s.five == [1]
    assert s.triple[FOUNTAIN] == 1


def test_end_of_round_reset():
    s = to_build_phase(new(3, 0), (1, 2, 0))
    s.start = 1
    s.tr[2 * 3 + 2] = 3  # seat 2 on money 13
    s.coins = [2, 0, 5]
    s.bp[0] = 0b011
    s.used = [1, 1, 0]
    for p in (1, 2, 0):
        s.apply(p, PASS)
    assert s.round == 2 and s.phase == R.BUY
    assert s.coins == [10, 10, 13]
    assert s.bp == [0] * R.NBOARDS and s.used == [0, 0, 0]
    assert s.pos[1] == 0 and s.pos[2] == 1 and s.pos[0] == 2
    assert s.to_move() == (1,)


# -- end and scoring ---------------------------------------------------------------------------
def _player(s, p, buildings, forests, forest_track, animals, tech=0, money=0):
    s.bld[p * 4:p * 4 + 4] = buildings
    s.forests[p] = forests
    s.tr[p * 3:p * 3 + 3] = [forest_track, tech, money]
    s.ani[p * 3:p * 3 + 3] = animals
    s.mand[p] = R.MANDFULL


def test_scoring_table_example():
    """Rulebook: Fred 57, Ron 62, Sandra 58, Vivian 59, rebuilt from the categories."""
    s = new(4, 0)
    fred, ron, sandra, vivian = range(4)
    _player(s, fred, [4, 3, 3, 1], 0, 0, [0, 0, 0], money=2)  # 11 buildings, money 12 -> 1 VP
    _player(s, ron, [2, 0, 1, 1], 9, 2, [1, 1, 1])  # 4 buildings, 9 forests at 4, one animal set
    _player(s, sandra, [1, 1, 2, 3], 1, 0, [2, 2, 2])  # 7 buildings, 1 forest at 2, two sets
    _player(s, vivian, [1, 0, 1, 1], 6, 4, [1, 1, 1], money=2)  # 3 buildings, 6 forests at 6
    # Fred: three fountains, orangeries, pavilions (3 each) + all four, second (3) = 12;
    # Sandra: three rose gardens (3) + all four, first (5) = 8
    s.triple = [fred, fred, fred, sandra]
    s.all4 = [sandra, fred]
    s.five = []
    rows = [s.breakdown(p) for p in range(4)]
    assert [r["buildings"] for r in rows] == [44, 16, 28, 12]
    assert [r["forests"] for r in rows] == [0, 36, 2, 36]
    assert [r["animals"] for r in rows] == [0, 10, 20, 10]
    assert [r["bonus"] for r in rows] == [12, 0, 8, 0]
    assert [r["tracks"] for r in rows] == [1, 0, 0, 1]
    assert [r["total"] for r in rows] == [57, 62, 58, 59]
    s.phase = R.OVER
    assert s.scores() == [57.0, 62.0, 58.0, 59.0]
    assert s.winners() == [ron]


def test_single_animals_score_one_each():
    s = new(2, 0)
    s.ani[0:3] = [3, 1, 2]  # one set + 3 singles
    assert s.breakdown(0)["animals"] == 10 + 3


def test_track_victory_points():
    s = new(2, 0)
    s.tr[0:3] = [0, 4, 4]
    assert s.breakdown(0)["tracks"] == 2 + 3
    s.tr[0:3] = [0, 3, 3]
    assert s.breakdown(0)["tracks"] == 0 + 2


def test_player_missing_mandatory_spaces_is_not_scored():
    s = new(3, 0)
    _player(s, 0, [6, 0, 0, 0], 0, 0, [0, 0, 0])
    _player(s, 1, [1, 1, 1, 0], 0, 0, [0, 0, 0])
    _player(s, 2, [1, 1, 1, 0], 0, 0, [0, 0, 0])
    s.mand[0] = 0b001  # pavilion and rose garden spaces never covered
    s.phase = R.OVER
    assert s.scores()[0] == 0.0
    assert s.ranking()[0] == 3


def test_tie_broken_by_gems_then_shared():
    s = new(3, 0)
    for p in range(3):
        _player(s, p, [1, 1, 1, 0], 0, 0, [0, 0, 0])
    set_gems(s, 0, 1, 0, 0, 0, 2)
    set_gems(s, 1, 3, 0, 0, 0, 0)
    set_gems(s, 2, 0, 0, 0, 0, 1)
    s.phase = R.OVER
    assert s.ranking() == [1, 1, 3]
    assert s.winners() == [0, 1]


def test_game_over_only_after_phase_five_of_the_round():
    s = to_build_phase(new(2, 0), (0, 1))
    s.gen[0] = R.GENMAX - 1
    s.mand[0] = R.MANDFULL
    set_gems(s, 0, 9, 9, 9, 9)
    s.apply(0, build("orangery"))
    assert s.ending and not s.is_over()
    assert s.to_move() == (1,)  # the round's build phase continues
    s.apply(1, PASS)
    s.apply(0, PASS)
    assert s.is_over() and s.to_move() == ()
    with pytest.raises(IllegalAction, match="over"):
        s.apply(0, PASS)


# -- general -------------------------------------------------------------------------------------
def test_json_round_trip_and_determinism():
    a, b = new(4, 11), new(4, 11)
    ra, rb = Rng(3), Rng(3)
    for _ in range(150):
        if a.is_over():
            break
        p = mover(a)
        la, lb = a.legal_actions(p), b.legal_actions(p)
        a.step(p, la[ra.below(len(la))])
        b.step(p, lb[rb.below(len(lb))])
        again = GAME.from_json(json.loads(json.dumps(a.to_json())))
        assert canonical(again.to_json()) == canonical(a.to_json())
    assert canonical(a.to_json()) == canonical(b.to_json())


def test_view_renders_and_has_no_secrets():
    from rich.console import Console

    s = new(3, 2)
    v = s.view(0)
    text = json.dumps(v)
    assert str(s.rng.s) not in text and '"seed"' not in text
    assert v["phase"] == "buy" and v["to_move"] == [s.start] and v["prompt"]
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(GAME.render_text(v, 0))
    assert "Market" in console.export_text()


def test_heuristic_prefers_more_points():
    s = new(2, 0)
    base = GAME.heuristic(s, 0)
    s.bld[0] = 1
    s.mand[0] = 1
    assert GAME.heuristic(s, 0) > base


# -- decisions (RULES.md) ---------------------------------------------------------------------
def test_no_coin_diamond_when_nobody_has_coins_left():
    s = new(2, 0)
    s.coins = [0, 0]
    s.pos = [3, 1]
    s.seq = [1, 2]
    s._assign_diamonds(None)
    assert [s.gems[p * 5 + DIA] for p in range(2)] == [1, 0]  # only the track leader's diamond


def test_building_needs_a_tile_left_in_its_pile():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 9, 9, 9, 9)
    s.tiles[FOUNTAIN] = 0
    legal = s.legal_actions(0)
    assert A.get("build", board="fountain", tile="fountain") not in legal
    assert A.get("build", board="any_tile", tile="fountain") not in legal
    with pytest.raises(IllegalAction, match="No fountain tiles are left"):
        s.apply(0, build("fountain"))


def test_animal_lost_when_its_pile_is_empty():
    s = new(2, 0)
    p = mover(s)
    s.apile[POND] = 0
    set_goods(s, 0, ANIMAL, POND)
    s.apply(p, buy(0))
    assert s.ani[p * 3 + POND] == 0 and s.gen[p] == 0


def test_payment_is_a_decision_only_when_there_is_a_choice():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 2, 1, 0, 0, 0)
    s.apply(0, build("fountain"))  # exactly 2 blue + 1 yellow: paid at once
    assert s.pend == -1 and s.to_move() == (1,)
    t = to_build_phase(new(2, 0), (0, 1))
    set_gems(t, 0, 1, 1, 1, 1, 0)
    t.apply(0, build("forest_3", "forest"))  # 3 of 4 colours: four ways
    assert t.pend >= 0 and len(t.legal_actions(0)) == 4
    with pytest.raises(IllegalAction, match="does not match"):
        t.apply(0, pay(2, 1, 0, 0, 0))


def test_turn_counts_whole_player_turns():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, TRACK, 3)
    s.apply(p, buy(0))  # a ? space: the turn goes on with the track choice
    assert s.turn == 0
    s.apply(p, A.get("track", track="tech"))
    assert s.turn == 1
    s.apply(mover(s), PASS)
    assert s.turn == 2


def test_events_name_what_happened():
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, MINE, 4)
    events = s.apply(p, buy(0))
    assert events[0]["type"] == "buy" and "mining rights 4" in render(events[0]["text"])
    assert render(events[0]["text"]).startswith("{P%d}" % p)


def test_greedy_heuristic_beats_random():
    """One-ply greedy on the heuristic wins most 2-player games against random play."""
    wins = 0
    for game in range(6):
        s = new(2, 500 + game)
        rng = Rng(game)
        gseat = game % 2
        while not s.is_over():
            p = mover(s)
            acts = s.legal_actions(p)
            if p == gseat:
                best = None
                for a in acts:
                    c = s.clone()
                    c.step(p, a)
                    v = GAME.heuristic(c, p)
                    if best is None or v > best[0]:
                        best = (v, a)
                a = best[1]
            else:
                a = acts[rng.below(len(acts))]
            s.step(p, a)
        wins += s.returns()[gseat]
    assert wins >= 5


# -- forests from tied piles, spaces with several goods, the text board ------------------------
def pile(name):
    return A.get("forest_pile", pile=name)


def test_tied_fullest_piles_let_the_player_choose_the_forest_pile():
    """Phase 5: the player chooses a building of a sort with the most tiles left."""
    s = to_build_phase(new(2, 0), (0, 1))
    s.tiles = [20, 21, 19, 21]
    set_gems(s, 0, 3, 0, 0, 0, 0)
    tiles_before = s.component_counts()["landscape_tiles"]
    s.apply(0, build("forest_3", "forest"))  # 3 blue: one way to pay, so straight to the pile
    assert s.to_move() == (0,) and s.turn == 0
    assert s.forests[0] == 1 and s.gen[0] == 1 and s.gems[0:5] == [0, 0, 0, 0, 0]
    assert s.legal_actions(0) == [pile("orangery"), pile("rose_garden")]
    assert s.view(0)["pending"] == {"choose": "forest_pile", "piles": ["orangery", "rose_garden"]}
    assert "orangery or rose garden" in s.prompt(0)
    assert s.action_text(0, pile("orangery")) == "turn over an orangery tile for the forest (the orangery pile has 21 tiles)"
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match=r"most tiles left \(21\): orangery or rose garden"):
        s.apply(0, pile("fountain"))
    with pytest.raises(IllegalAction, match="cannot pass now"):
        s.apply(0, PASS)
    with pytest.raises(IllegalAction, match="one at a time"):
        s.apply(0, build("fountain"))
    assert canonical(s.to_json()) == before
    # the piece count stays whole while the choice is open
    assert s.component_counts()["landscape_tiles"] == tiles_before
    # a JSON round trip keeps the open choice
    again = GAME.from_json(json.loads(json.dumps(s.to_json())))
    assert again.legal_actions(0) == s.legal_actions(0)
    events = s.apply(0, pile("rose_garden"))
    assert s.tiles == [20, 21, 19, 20] and s.fpile == 0
    assert s.to_move() == (1,) and s.turn == 1
    assert events[0]["type"] == "forest_pile" and events[0]["pile"] == "rose_garden"
    t = GAME.from_json(json.loads(before))
    t.apply(0, pile("orangery"))
    assert t.tiles == [20, 20, 19, 21]


def test_forest_pile_is_asked_after_the_payment_and_only_on_a_real_tie():
    s = to_build_phase(new(2, 0), (0, 1))  # all four piles full: a four-way tie
    set_gems(s, 0, 1, 1, 1, 1, 0)
    s.apply(0, build("any_tile", "forest"))  # 4 gems of any colours: exactly the four held
    assert [a["pile"] for a in s.legal_actions(0)] == ["fountain", "orangery", "pavilion", "rose_garden"]
    s.apply(0, pile("pavilion"))
    assert s.tiles == [21, 21, 20, 21]
    t = to_build_phase(new(2, 0), (0, 1))
    set_gems(t, 0, 1, 1, 1, 1, 0)
    t.apply(0, build("forest_3", "forest"))  # 3 of 4 colours: the payment comes first
    assert t.pend >= 0 and {a.type for a in t.legal_actions(0)} == {"pay"}
    t.apply(0, pay(1, 1, 1, 0, 0))
    assert {a.type for a in t.legal_actions(0)} == {"forest_pile"}
    # a single fullest pile is turned over without asking
    u = to_build_phase(new(2, 0), (0, 1))
    u.tiles = [21, 20, 20, 20]
    set_gems(u, 0, 3, 0, 0, 0, 0)
    u.apply(0, build("forest_3", "forest"))
    assert u.tiles == [20, 20, 20, 20] and u.to_move() == (1,)


def test_forest_pile_actions_keep_the_earlier_action_ids():
    """The new choice is added at the end of the action space: earlier ids do not move."""
    ids = [pile(b).id for b in R.D.buildings]
    assert ids == list(range(len(A) - 4, len(A)))
    assert all(a.type != "forest_pile" for a in list(A)[:-4])


def test_greedy_turns_over_the_pile_its_opponent_needs_not_its_own():
    from gemtable.bots import make_bot

    s = to_build_phase(new(2, 0), (0, 1))
    s.tiles = [3, 3, 1, 3]  # fountain, orangery and rose garden tie for the most tiles
    s.bld[0:4] = [1, 1, 1, 0]
    s.mand[0] = 0b011  # seat 0 still needs its mandatory rose garden
    s.bld[4:8] = [0, 1, 1, 1]
    s.mand[1] = 0b110  # seat 1 still needs its mandatory fountain
    set_gems(s, 0, 3, 0, 0, 0, 0)
    s.apply(0, build("forest_3", "forest"))
    assert {a["pile"] for a in s.legal_actions(0)} == {"fountain", "orangery", "rose_garden"}
    value = {}
    for a in s.legal_actions(0):
        c = s.clone()
        c.apply(0, a)
        value[a["pile"]] = GAME.heuristic(c, 0)
    assert value["rose_garden"] < min(value["fountain"], value["orangery"])  # its own need
    for seed in range(3):
        assert make_bot("greedy", seed).choose(s, 0) == pile("fountain")  # what seat 1 needs


def _goods_of(s, i):
    return s.market_goods[i]


def test_a_market_space_with_two_goods_gives_both():
    """Phase 2: the player gets all the goods shown on the space."""
    s = new(2, 0)
    p = mover(s)
    set_goods(s, 0, PIT, RED, (MINE, 4))
    assert s.goods[0] == (PIT, RED)  # the first good of each space, for one-good readers
    assert s.action_text(p, buy(0)) == "place 1 coin on strip 1, row 1: red pit + mining rights 4"
    v = s.view(p)["market"][0][0]
    assert v["goods"] == "pit:red+mine:4" and v["items"] == ["pit:red", "mine:4"]
    assert v["label"] == "red pit + mining rights 4"
    events = s.apply(p, buy(0))
    assert s.pits[p * 4 + RED] == 1 and s.mines[p * 10 + 4] == 1
    assert "red pit + mining rights 4" in render(events[0]["text"])
    q = mover(s)
    set_goods(s, 5, ANIMAL, POND, (HAT, 2), (TRACK, 2))
    s.apply(q, buy(5))
    assert s.ani[q * 3 + POND] == 1 and s.tr[q * 3 + 2] == 1 and s.coins[q] == 10 - 1 + 1
    assert mover(s) == p


def test_question_mark_steps_of_a_space_are_chosen_after_its_other_goods():
    s = new(2, 0)
    p = mover(s)
    s.tr[p * 3 + 2] = 3  # one money step left
    set_goods(s, 0, TRACK, 3, (TRACK, 2), (TRACK, 3))  # ?, money, ?
    s.apply(p, buy(0))
    assert s.tr[p * 3 + 2] == 4  # the money step came first: money is no longer offered
    assert s.to_move() == (p,) and [a["track"] for a in s.legal_actions(p)] == ["forest", "tech"]
    assert s.view(p)["pending"] == {"choose": "track"}
    again = GAME.from_json(json.loads(json.dumps(s.to_json())))
    s.apply(p, A.get("track", track="forest"))
    assert s.to_move() == (p,)  # the second ? of the same space
    s.apply(p, A.get("track", track="forest"))
    assert s.tr[p * 3:p * 3 + 3] == [2, 0, 4] and s.turn == 1 and mover(s) != p
    again.apply(p, A.get("track", track="tech"))
    assert again.to_move() == (p,) and again.qleft == 0 and again.pend >= 0


def test_text_board_market_legend_keeps_its_brackets():
    from rich.console import Console

    s = new(2, 0)
    set_goods(s, 0, PIT, RED, (SHIP, 3))
    console = Console(width=220, record=True, file=io.StringIO())
    console.print(GAME.render_text(s.view(0), 0))
    text = console.export_text()
    assert "or [coins placed];" in text
    assert "pit red+ship3" in text


def test_two_pieces_beyond_nine_share_the_space_and_the_later_one_starts():
    """Both overshooting pieces stop beyond 9: both get the diamond, the one on top starts."""
    s = new(3, 0)
    p0, p1, p2 = s.order
    s.coins = [30] * 3
    s.pos[p0], s.pos[p1] = 8, 9
    set_goods(s, 0, HAT, 3)
    set_goods(s, 1, HAT, 1)
    s.apply(p0, buy(0))  # 8 + 3: beyond 9
    s.apply(p1, buy(1))  # 9 + 1: beyond 9 as well, on top of p0
    assert s.pos[p0] == s.pos[p1] == R.BEYOND and s.seq[p1] > s.seq[p0]
    s.coins = [0, 0, 0]
    s._assign_diamonds(None)
    assert s.gems[p0 * 5 + DIA] == 1 and s.gems[p1 * 5 + DIA] == 1 and s.gems[p2 * 5 + DIA] == 0
    assert s.start == p1 and s.order == (p1, p0, p2)


def test_keep_choice_is_explained_in_plain_words():
    s = new(2, 0)
    s.pits[BLUE] = 2
    s.pits[RED] = 1
    s.mines[3] = 1
    to_gems_phase(s, (0, 1))
    s._gems_advance(None)
    assert "at most two tiles, never two of the same kind" in s.prompt(0)
    with pytest.raises(IllegalAction, match="never two of the same kind .*when you hold two kinds or more, keep two"):
        s.apply(0, A.get("keep", pit="blue", mine=0, ship=0))
    s.apply(0, A.get("keep", pit="blue", mine=3, ship=0))
    assert s.pits[0:4] == [1, 0, 0, 0] and s.mines[3] == 1
