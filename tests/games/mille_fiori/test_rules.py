"""Mille Fiori: one test per rule of the seed, every worked example, and the decisions
of reference/mille_fiori.md, on hand-made states."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gemtable.core import DataError, IllegalAction, Rng, canonical
from gemtable.core.i18n import render
from gemtable.games.mille_fiori import data as mdata
from gemtable.games.mille_fiori import rules as R
from gemtable.games.registry import get_game

GAME = get_game("mille_fiori")
D = R.D
RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
ws_space = lambda i: R.W0 + i  # noqa: E731
house = lambda i: R.H0 + i  # noqa: E731
trade = lambda row, col: R.T0 + row * R.NTC + col  # noqa: E731
ship_space = lambda row, i: R.B0 + row * R.NBP + i  # noqa: E731
GLASSWARE, CARAFE, JEWELRY, SWAN = range(4)


def noble(level: str, i: int) -> int:
    return D.pyramid_rows[0][("bot", "mid", "top").index(level)][i]


def commoner(level: str, i: int) -> int:
    return D.pyramid_rows[1][("bot", "mid", "top").index(level)][i]


def blank(n=4, draft="tactical", seed=1) -> R.MilleFioriState:
    """A fresh game (tactical draft, so the flow after a test play stays simple)."""
    return GAME.new(n, seed, draft=draft)


def put(s: R.MilleFioriState, p: int, space: int) -> None:
    """Put a diamond of p on a space as if placed earlier (no scoring)."""
    assert s.owner[space] < 0
    s.owner[space] = p
    s.personal[p] -= 1
    a = R.AREA[space]
    if a == mdata.HOUSES:
        s.houses_next = space - R.H0 + 1
        s.cover[5 * p + a] |= R.HBIT[space - R.H0]
    elif a != mdata.HARBOR:
        s.cover[5 * p + a] |= 1 << R.SYM[space]


def give_bonus(s, p, area):
    bo = s.bonus_owner
    i = next(i for i in range(4) if bo[area * 4 + i] < 0)
    bo[area * 4 + i] = p
    s.got_bonus[p] |= 1 << area
    s.bonus_pts[p] += D.bonus[area][i]
    s.personal[p] -= 1


def take_card(s, code: str) -> int:
    """Remove a card of that kind from wherever it is hidden (deck or hands) for a test play."""
    k = R.CODE_KIND[code]
    for pile in [s.deck] + s.hands + [s.display]:
        if k in pile:
            pile.remove(k)
            return k
    raise LookupError(code)


def play(s, p, code, target, extra=False):
    """Seat p plays card `code` now: target is a space index or 'sail'.  Returns points gained."""
    k = take_card(s, code)
    s.cur, s.phase, s.card, s.card_extra, s.extras, s.order_idx = p, R.USING, k, extra, 0, 0
    s.start = p
    before = list(s.points)
    action = R.SAIL if target == "sail" else R.PLACE[target]
    s.apply(p, action)
    return [s.points[q] - before[q] for q in range(s.num_players)]


def earned_extra(s) -> bool:
    return s.phase == R.EXTRA_CARD and s.extras >= 1


# --- data --------------------------------------------------------------------------------------
def test_board_and_deck_sizes():
    assert D.num_spaces == 109 and len(D.deck) == 109
    assert D.area_start == (0, 30, 50, 62, 74, 94, 109)
    assert sum(1 for k in D.deck if R.KAREA[k] == mdata.WORKSHOPS and R.KSYM[k] == D.doubled_symbol) == 9
    wheels = [R.KWHEEL[k] for k in D.deck]
    assert [wheels.count(w) for w in range(1, 6)] == [23, 23, 24, 20, 19]


def test_adjacency_matches_hex_rule():
    """Listed adjacency = same row |dc| = 2, or neighbouring row |dc| = 1."""
    pos = {}
    for r, row in enumerate(D.ws_rows):
        for dc, s in row:
            pos[s] = (r, dc)
    for s in range(30):
        r, dc = pos[s]
        expect = sorted(t for t, (r2, dc2) in pos.items()
                        if (r2 == r and abs(dc2 - dc) == 2) or (abs(r2 - r) == 1 and abs(dc2 - dc) == 1))
        assert list(D.adjacency[s]) == expect


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = mdata.DATA_PATH.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "data.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old,new,message", [
    ("[1, 7, 8], [0, 2, 8, 9]", "[1, 7], [0, 2, 8, 9]", "not symmetric"),
    ("[0, 7, 8], [1, 2, 9]", "[0, 7, 9], [1, 2, 8]", None),  # still a partition: accepted
    ("[0, 7, 8], [1, 2, 9]", "[0, 7, 8], [1, 2, 8]", "partition"),
    ("wheels = [1, 2, 3, 4, 5]\n", "wheels = [1, 2, 3, 4]\n", "one card per space"),
    ('sym = "PAPLALA"', 'sym = "QAPLALA"', "one card per space"),
    ('bot = ["cross", "coin", "lion", "cross", "coin"]', 'bot = ["cross", "coin", "lion", "cross"]',
     "one space shorter"),
    ("values = [2, 4, 3, 5, 1, 4, 2, 3, 1, 5, 10, 2, 3, 4, 5, 10, 1, 5, 4, 3]",
     "values = [2, 4, 3, 5, 1, 4, 2, 3, 1, 5, 10, 2, 3, 4, 5, 10, 1, 5, 4]", "one card per space"),
    ('symbol = "swan"', 'symbol = "goose"', "does not belong"),
    ('columns = ["glassware", "carafe", "jewelry", "swan"]', 'columns = ["glassware", "carafe", "jewelry", "fish"]',
     "unique"),
    ("personal_diamonds = 27", "personal_diamonds = [27", "not valid TOML"),
])
def test_broken_data_file_is_rejected_with_a_clear_message(tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    if message is None:
        mdata.load(path)
        return
    with pytest.raises(DataError) as info:
        mdata.load(path)
    assert message in str(info.value)


# --- setup and round structure ---------------------------------------------------------------
@pytest.mark.parametrize("n,display,deck", [(2, 9, 90), (3, 4, 90), (4, 9, 80)])
def test_setup(n, display, deck):
    s = GAME.new(n, 3)
    assert len(s.display) == display
    assert len(s.deck) == deck
    assert all(len(h) == 5 for h in s.hands)
    assert s.personal == [27] * n and s.aside == [3] * n
    assert s.ship == [0] * n and s.points == [0] * n
    assert s.to_move() == tuple(range(n))  # simultaneous secret picks


def sail_policy(s):
    """Every seat picks its first card and sails; extra cards are declined."""
    p = s.to_move()[0]
    acts = s.legal_actions(p)
    for a in acts:
        if a.type in ("sail", "decline"):
            return p, a
    return p, acts[0]


@pytest.mark.parametrize("draft", ["simultaneous", "tactical"])
@pytest.mark.parametrize("n,rounds,played", [(2, 10, 3), (3, 7, 4), (4, 5, 4)])
def test_rounds_and_end_when_deck_is_empty(n, rounds, played, draft):
    s = GAME.new(n, 5, draft=draft)
    start_display = len(s.display)
    seen_rounds = 0
    while not s.is_over():
        r = s.round
        p, a = sail_policy(s)
        s.apply(p, a)
        if s.round != r:
            seen_rounds += 1
            # at the end of each round the unplayed cards went to the display
            assert len(s.display) == start_display + seen_rounds * n * (5 - played)
            assert s.start == seen_rounds % n  # start player passes clockwise
    assert seen_rounds + 1 == rounds
    assert s.deck == [] and s.turn == rounds * n * played
    assert len(s.display) == start_display + rounds * n * (5 - played)


def test_hands_pass_to_the_left():
    s = GAME.new(3, 2)
    hands = [list(h) for h in s.hands]
    picks = []
    for p in range(3):
        a = s.legal_actions(p)[0]
        picks.append(R.CODE_KIND[a["card"]])
        s.apply(p, a)
    for _ in range(3):
        p, a = sail_policy(s)
        s.apply(p, a)
    assert s.phase == R.PICKING
    for p in range(3):
        left = (p - 1) % 3  # what seat p holds now came from its right neighbour
        expect = list(hands[left])
        expect.remove(picks[left])
        assert s.hands[p] == expect


def test_simultaneous_picks_are_secret_until_played():
    s = GAME.new(3, 4)
    a = s.legal_actions(0)[0]
    events = s.apply(0, a)
    assert s.view(1)["pick"] is None and s.view(0)["pick"] == a["card"]
    assert events[0]["only"] == [0] and "card" not in events[0]["public"]
    assert s.view(1)["picked"] == [True, False, False]
    assert s.to_move() == (1, 2)
    s.apply(1, s.legal_actions(1)[0])
    events = s.apply(2, s.legal_actions(2)[0])
    # all have picked: seat 1 (start player 0) reveals and plays
    assert s.to_move() == (0,) and s.view(1)["card_in_play"] == a["card"]
    assert any(e["type"] == "play" and e["card"] == a["card"] for e in events)


def test_tactical_draft_picks_on_own_turn():
    s = GAME.new(3, 4, draft="tactical")
    assert s.to_move() == (0,)
    assert {a.type for a in s.legal_actions(0)} == {"pick"}
    assert s.legal_actions(1) == []
    a = s.legal_actions(0)[0]
    s.apply(0, a)
    assert s.to_move() == (0,) and s.view(2)["card_in_play"] == a["card"]


def test_two_players_play_three_cards_and_two_go_to_display():
    s = GAME.new(2, 8, draft="tactical")
    plays = 0
    while s.round == 0:
        p, a = sail_policy(s)
        if a.type == "sail":
            plays += 1
        s.apply(p, a)
    assert plays == 6
    assert len(s.display) == 9 + 4


# --- workshops ---------------------------------------------------------------------------------
def test_workshop_card_places_only_on_its_symbol():
    s = blank()
    k = take_card(s, "quartz-3")
    s.cur, s.phase, s.card = RED, R.USING, k
    spaces = {a["space"] for a in s.legal_actions(RED) if a.type == "place"}
    assert spaces == {x for x in range(30) if D.space_symbol[x] == 0}
    assert R.SAIL in s.legal_actions(RED)
    pig = next(x for x in range(30) if D.space_symbol[x] == D.doubled_symbol)
    with pytest.raises(IllegalAction, match="symbol"):
        s.apply(RED, R.PLACE[pig])


def test_workshop_example_group_of_three_scores_3():
    s = blank()
    put(s, BLUE, ws_space(1))
    put(s, BLUE, ws_space(8))
    put(s, RED, ws_space(10))  # another player's neighbour does not count
    assert D.symbols[0][D.space_symbol[9]] == "quartz"
    gained = play(s, BLUE, "quartz-2", ws_space(9))
    assert gained == [0, 3, 0, 0]


def test_workshop_example_group_of_four_on_pigments_scores_8():
    s = blank()
    for x in (12, 20, 27):
        put(s, BLUE, ws_space(x))
    put(s, BLUE, ws_space(0))  # not connected: not counted
    assert D.symbols[0][D.space_symbol[19]] == "pigments"
    gained = play(s, BLUE, "pigments-4", ws_space(19))
    assert gained == [0, 8, 0, 0]
    assert not earned_extra(s)  # its star triple (18, 19, 26) is not full


def test_workshop_star_triple_last_space_gives_extra_card():
    s = blank()
    put(s, RED, ws_space(0))
    put(s, BLUE, ws_space(7))
    assert set(D.star_triple[8]) == {0, 7, 8}
    play(s, GREEN, "lime-1", ws_space(8))
    assert earned_extra(s) and s.cur == GREEN
    assert {a.type for a in s.legal_actions(GREEN)} == {"extra", "decline"}


def test_workshop_bonus_for_four_materials_and_bonus_example_20_15_10():
    s = blank()
    # Red, then Blue, then Yellow complete the four materials: 20, 15, 10
    for p, spaces in ((RED, (7, 1, 3)), (BLUE, (9, 4, 5)), (YELLOW, (12, 6, 18))):
        for x in spaces:
            put(s, p, ws_space(x))  # quartz, ash, lime
    for p, x, card in ((RED, 0, "pigments-1"), (BLUE, 11, "pigments-2"), (YELLOW, 13, "pigments-3")):
        personal = s.personal[p]
        play(s, p, card, ws_space(x))
        assert s.personal[p] == personal - 2  # the placed diamond and the bonus diamond
    assert s.bonus_pts == [20, 15, 0, 10]
    assert s.bonus_owner[0:4] == [RED, BLUE, YELLOW, -1]
    # once per game: Red's later placements claim no second workshop bonus
    play(s, RED, "pigments-4", ws_space(2))
    assert s.bonus_pts[RED] == 20
    # bonus points are added in the final scoring
    assert s.scores()[RED] == s.points[RED]
    s.phase = R.OVER
    assert s.scores() == [s.points[p] + s.bonus_pts[p] for p in range(4)]


def test_no_bonus_when_all_four_bonus_spaces_are_taken():
    s = blank()
    for p in (BLUE, GREEN, YELLOW, BLUE):
        s.got_bonus[p] = 0
        give_bonus(s, p, 0)
    for x in (7, 1, 3):
        put(s, RED, ws_space(x))
    personal = s.personal[RED]
    play(s, RED, "pigments-1", ws_space(0))
    assert s.bonus_pts[RED] == 0 and s.personal[RED] == personal - 1


def test_harbor_card_places_even_when_ship_is_at_the_end():
    s = blank()
    s.ship[RED] = 20
    gained = play(s, RED, "ship-5", ship_space(4, 0))
    assert s.owner[ship_space(4, 0)] == RED and s.ship[RED] == 20 and gained[RED] == 0


# --- houses ------------------------------------------------------------------------------------
def test_houses_fill_in_order():
    s = blank()
    put(s, RED, house(0))
    k = take_card(s, "key-3")
    s.cur, s.phase, s.card = BLUE, R.USING, k
    places = [a for a in s.legal_actions(BLUE) if a.type == "place"]
    assert places == [R.PLACE[house(1)]]
    with pytest.raises(IllegalAction, match="in order"):
        s.apply(BLUE, R.PLACE[house(2)])


def test_houses_example_run_scores_12_and_yellow_distinct_values():
    s = blank()
    assert D.house_values[:5] == (2, 4, 3, 5, 1)
    put(s, RED, house(0))
    gained = play(s, YELLOW, "key-1", house(1))
    assert gained[YELLOW] == 4
    gained = play(s, YELLOW, "key-1", house(2))
    assert gained[YELLOW] == 7 and not earned_extra(s)
    gained = play(s, YELLOW, "key-1", house(3))
    assert gained[YELLOW] == 12  # 4 + 3 + 5
    assert earned_extra(s)  # 3 distinct values: 4, 3, 5
    s.apply(YELLOW, R.DECLINE)
    gained = play(s, YELLOW, "key-2", house(4))
    assert gained[YELLOW] == 13 and not earned_extra(s)
    assert s.bonus_pts[YELLOW] == 20  # 4 distinct values: 4, 3, 5, 1


def test_houses_run_broken_by_other_player_and_fifth_value_extra_card():
    s = blank()
    for i, p in enumerate([YELLOW, YELLOW, YELLOW, YELLOW, RED, YELLOW, RED, RED, RED]):
        put(s, p, house(i))  # Yellow has 2, 4, 3, 5 (4 distinct values)
    gained = play(s, YELLOW, "key-2", house(9))  # value 5, Red before it: no run
    assert gained[YELLOW] == 5 and not earned_extra(s)
    gained = play(s, YELLOW, "key-2", house(10))  # value 10: fifth distinct value
    assert gained[YELLOW] == 15 and earned_extra(s)


def test_houses_full_only_sail():
    s = blank()
    for i in range(20):
        put(s, i % 4, house(i))
    k = take_card(s, "key-4")
    s.cur, s.phase, s.card = RED, R.USING, k
    assert s.legal_actions(RED) == [R.SAIL]


# --- citizens ----------------------------------------------------------------------------------
def test_pyramid_built_from_the_base_up():
    s = blank()
    k = take_card(s, "coin-1")
    s.cur, s.phase, s.card = RED, R.USING, k
    spaces = {a["space"] for a in s.legal_actions(RED) if a.type == "place"}
    assert spaces == set(D.pyramid_rows[0][0])  # the five base spaces, any symbol
    with pytest.raises(IllegalAction, match="base up"):
        s.apply(RED, R.PLACE[noble("mid", 1)])
    with pytest.raises(IllegalAction, match="nobles"):
        s.apply(RED, R.PLACE[commoner("bot", 0)])


def test_citizens_example_red_on_cross_space_of_level_2():
    s = blank()
    put(s, GREEN, noble("bot", 1))
    put(s, BLUE, noble("bot", 2))
    k = take_card(s, "coin-2")
    s.cur, s.phase, s.card = RED, R.USING, k
    assert R.PLACE[noble("mid", 1)] in s.legal_actions(RED)
    assert R.PLACE[noble("mid", 0)] not in s.legal_actions(RED)  # bot 0 is empty
    s.deck.append(k)
    assert D.symbols[2][D.space_symbol[noble("mid", 1)]] == "cross"
    gained = play(s, RED, "coin-2", noble("mid", 1))
    assert gained == [3, 1, 1, 0]  # not doubled (cross is not coin); owners beneath get 1 each


def test_citizens_example_top_coin_worth_12_and_points_beneath():
    s = blank()
    put(s, RED, noble("bot", 0))
    put(s, GREEN, noble("bot", 1))
    put(s, YELLOW, noble("bot", 2))
    put(s, BLUE, noble("bot", 3))
    put(s, RED, noble("mid", 0))
    put(s, GREEN, noble("mid", 1))
    assert D.symbols[2][D.space_symbol[noble("top", 0)]] == "coin"
    gained = play(s, RED, "coin-3", noble("top", 0))
    assert gained[RED] == 12 + 4  # 2 x 6, plus its own diamonds beneath (3 + 1)
    assert gained[GREEN] == 4 and gained[YELLOW] == 1 and gained[BLUE] == 0
    assert earned_extra(s)  # a top-level space
    # Red now covers cross (bot 0), lion (mid 0), coin (top 0): the nobles bonus
    assert s.bonus_pts[RED] == 20 and s.bonus_owner[2 * 4] == RED


def test_citizens_match_doubles_base_level_and_pyramid_bonuses_are_separate():
    s = blank()
    gained = play(s, RED, "crab-1", commoner("bot", 0))  # crab on crab: 2
    assert gained[RED] == 2
    play(s, RED, "crab-2", commoner("bot", 1))  # shell, not matching: 1
    assert s.points[RED] == 3
    play(s, RED, "shell-1", commoner("bot", 2))  # fish: all three commoner symbols
    assert s.bonus_owner[3 * 4] == RED and s.bonus_owner[2 * 4] == -1
    assert s.bonus_pts[RED] == 20


# --- trade -------------------------------------------------------------------------------------
def test_trade_example_carafes_worth_3():
    s = blank()
    put(s, RED, trade(0, CARAFE))
    put(s, YELLOW, trade(3, CARAFE))
    put(s, BLUE, trade(1, SWAN))
    gained = play(s, RED, "carafe-2", trade(2, CARAFE))
    assert gained == [6, 0, 0, 3]
    assert not earned_extra(s)


def test_trade_card_places_only_in_its_column():
    s = blank()
    k = take_card(s, "jewelry-1")
    s.cur, s.phase, s.card = RED, R.USING, k
    spaces = {a["space"] for a in s.legal_actions(RED) if a.type == "place"}
    assert spaces == {trade(r, JEWELRY) for r in range(5)}


def test_trade_example_red_takes_15_because_20_is_taken():
    s = blank()
    give_bonus(s, YELLOW, 4)
    put(s, RED, trade(0, GLASSWARE))
    put(s, RED, trade(1, JEWELRY))
    put(s, RED, trade(2, SWAN))
    play(s, RED, "carafe-1", trade(3, CARAFE))
    assert s.bonus_owner[16:20] == [YELLOW, RED, -1, -1]
    assert s.bonus_pts[RED] == 15


def test_trade_example_extra_card_when_blue_has_more_swans():
    s = blank()
    put(s, BLUE, trade(0, SWAN))
    put(s, BLUE, trade(1, SWAN))
    gained = play(s, RED, "swan-4", trade(4, SWAN))
    assert gained == [3, 6, 0, 0]
    assert earned_extra(s)


# --- harbor and sea ----------------------------------------------------------------------------
def test_harbor_example_fleet_departs_green_12_red_6():
    s = blank()
    row = 2
    for c in (GLASSWARE, JEWELRY, SWAN):
        put(s, BLUE, trade(row, c))
    put(s, GREEN, ship_space(row, 0))
    put(s, RED, ship_space(row, 1))
    s.ship[GREEN] = 20  # the ship cannot move: only the fleet scores
    gained = play(s, GREEN, "ship-3", ship_space(row, 2))
    assert gained == [6, 0, 12, 0]


def test_harbor_fleet_scores_only_when_full_and_ship_moves():
    s = blank()
    put(s, BLUE, trade(0, CARAFE))
    gained = play(s, RED, "ship-4", ship_space(0, 0))
    assert s.ship[RED] == 4 and gained[RED] == D.sea_points[4] == 3
    gained = play(s, BLUE, "ship-1", ship_space(0, 1))
    assert gained[BLUE] == 1  # only the sea space
    gained = play(s, GREEN, "ship-1", ship_space(0, 2))
    assert gained[RED] == 1 and gained[BLUE] == 1 and gained[GREEN] == 1 + 1  # 1 good: 1 each


def test_sea_track_example_bonus_space_and_5_point_space():
    s = blank()
    s.ship[BLUE] = 4
    gained = play(s, BLUE, "fish-3", "sail")  # any card may sail
    assert s.ship[BLUE] == 7 and gained[BLUE] == 0 and earned_extra(s)
    s.apply(BLUE, R.DECLINE)
    s.ship[GREEN] = 6
    gained = play(s, GREEN, "key-3", "sail")
    assert s.ship[GREEN] == 9 and gained[GREEN] == 5 and not earned_extra(s)


def test_sea_track_stops_at_20_with_10_points_and_extra_card_then_no_more():
    s = blank()
    s.ship[RED] = 18
    gained = play(s, RED, "swan-5", "sail")
    assert s.ship[RED] == 20 and gained[RED] == 10 and earned_extra(s)
    s.apply(RED, R.DECLINE)
    gained = play(s, RED, "swan-3", "sail")  # still a legal way to spend a card
    assert s.ship[RED] == 20 and gained[RED] == 0 and not earned_extra(s)


def test_sailing_discards_the_card():
    s = blank()
    k = R.CODE_KIND["lion-5"]
    n_discard = len(s.discard)
    play(s, RED, "lion-5", "sail")
    assert s.discard[n_discard:] == [k]
    assert s.ship[RED] == 5 and s.points[RED] == 1


# --- extra cards -------------------------------------------------------------------------------
def test_extra_card_from_display_played_like_a_hand_card_and_chains():
    s = blank()
    s.display = sorted([R.CODE_KIND["key-2"], R.CODE_KIND["carafe-1"]])
    s.ship[RED] = 5
    play(s, RED, "lion-2", "sail")  # lands on 7: extra card
    assert earned_extra(s)
    acts = s.legal_actions(RED)
    assert {a.type for a in acts} == {"extra", "decline"}
    assert {a["card"] for a in acts if a.type == "extra"} == {"key-2", "carafe-1"}
    s.apply(RED, R.EXTRA[R.CODE_KIND["key-2"]])
    assert s.phase == R.USING and s.card_extra and len(s.display) == 1
    s.apply(RED, R.SAIL)  # 7 + 2 = 9: 5 points, no chain
    assert s.ship[RED] == 9 and s.points[RED] == 5
    assert s.cur != RED or s.phase != R.EXTRA_CARD  # the turn is over
    with pytest.raises(IllegalAction):
        s.apply(RED, R.EXTRA[R.CODE_KIND["carafe-1"]])


def test_extra_cards_chain():
    s = blank()
    put(s, BLUE, trade(0, SWAN))
    put(s, BLUE, trade(1, SWAN))
    s.deck.extend(s.display)
    s.display = sorted([take_card(s, "swan-1"), take_card(s, "key-2")])
    s.ship[RED] = 5
    play(s, RED, "lion-2", "sail")  # lands on the star at 7: extra card
    s.apply(RED, R.EXTRA[R.CODE_KIND["swan-1"]])
    s.apply(RED, R.PLACE[trade(2, SWAN)])  # Blue has more swans: another extra card
    assert earned_extra(s) and s.cur == RED
    s.apply(RED, R.EXTRA[R.CODE_KIND["key-2"]])
    s.apply(RED, R.SAIL)
    assert s.ship[RED] == 9 and s.points[RED] == 0 + 3 + 5
    assert s.display == [] and s.cur != RED


def test_extra_card_not_in_display_is_refused():
    s = blank()
    s.display = [R.CODE_KIND["key-2"]]
    s.ship[RED] = 5
    play(s, RED, "lion-2", "sail")
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="display"):
        s.apply(RED, R.EXTRA[R.CODE_KIND["coin-1"]])
    assert canonical(s.to_json()) == before


def test_empty_display_gives_5_points_instead():
    s = blank()
    s.deck.extend(s.display)
    s.display = []
    s.ship[RED] = 5
    gained = play(s, RED, "lion-2", "sail")  # 0 points on 7, extra card -> 5 points
    assert gained[RED] == 5 and s.phase != R.EXTRA_CARD


def _logged_points(events, p):
    return sum(ev.get("points", [0] * 4)[p] for ev in events)


def test_empty_display_points_are_logged():
    """The 5 points for an extra card that cannot be taken appear in the log, and the log
    does not announce an extra card that will never be played."""
    s = blank()
    s.deck.extend(s.display)
    s.display = []
    s.ship[RED] = 5
    k = take_card(s, "lion-2")
    s.cur, s.phase, s.card, s.card_extra, s.extras, s.order_idx, s.start = RED, R.USING, k, False, 0, 0, RED
    events = s.apply(RED, R.SAIL)
    texts = [render(ev["text"]) for ev in events]
    assert not any("may play" in t for t in texts), texts
    empty = [render(ev["text"]) for ev in events if ev["type"] == "extra_empty"]
    assert len(empty) == 1 and "{P0} +5" in empty[0] and "display is empty" in empty[0]
    assert _logged_points(events, RED) == s.points[RED] == 5


def test_empty_display_points_are_logged_part_way_through_a_chain():
    s = blank()
    put(s, BLUE, trade(0, SWAN))
    put(s, BLUE, trade(1, SWAN))
    s.deck.extend(s.display)
    s.display = [take_card(s, "swan-1")]
    s.ship[RED] = 5
    k = take_card(s, "lion-2")
    s.cur, s.phase, s.card, s.card_extra, s.extras, s.order_idx, s.start = RED, R.USING, k, False, 0, 0, RED
    events = s.apply(RED, R.SAIL)  # the star at 7: one extra card, the display holds one
    assert [render(ev["text"]) for ev in events if ev["type"] == "extra_earned"] == ["{P0} may play 1 extra card(s)."]
    events += s.apply(RED, R.EXTRA[R.CODE_KIND["swan-1"]])
    events += s.apply(RED, R.PLACE[trade(2, SWAN)])  # Blue has more swans: another extra, display empty
    assert s.display == [] and s.cur != RED
    assert s.points[RED] == 3 + 5 and s.points[BLUE] == 6
    assert [render(ev["text"]) for ev in events if ev["type"] == "extra_earned"] == ["{P0} may play 1 extra card(s)."]
    assert [render(ev["text"]) for ev in events if ev["type"] == "extra_empty"] == [
        "{P0} +5 instead of an extra card (the display is empty)."]
    assert _logged_points(events, RED) == 8 and _logged_points(events, BLUE) == 6


# --- text a user reads ---------------------------------------------------------------------------
MACHINE_PATH = re.compile(r"(^|[\s`(\"'])(/|~/|\.\./|[A-Za-z]:\\)[\w.-]+[/\\]")


def test_rules_page_and_data_file_name_no_machine_path():
    data_toml = Path(mdata.__file__).with_name("data.toml").read_text(encoding="utf-8")
    for name, text in (("RULES.md", GAME.rules_text()), ("data.toml", data_toml)):
        hits = [m.group(0) for m in MACHINE_PATH.finditer(text)]
        assert not hits, f"{name} names a path on a machine: {hits}"
    assert MACHINE_PATH.search("see /work/shared/reference/x.md") and MACHINE_PATH.search("(../a/b.csv)")


# --- game end ------------------------------------------------------------------------------------
def test_last_diamond_ends_game_after_the_pass_and_set_aside_diamonds_for_extra_cards():
    s = blank(n=3)
    put(s, RED, ws_space(0))
    put(s, RED, ws_space(7))
    s.personal[BLUE] = 1  # seat 1 has one personal diamond left
    s.display = sorted(s.display + [take_card(s, "ash-1")])
    # seat 0 already played this pass; seat 1 is next and fills the star triple (0, 7, 8)
    k = take_card(s, "lime-2")
    s.start, s.cur, s.order_idx, s.phase, s.card, s.card_extra = 0, BLUE, 1, R.USING, k, False
    s.apply(BLUE, R.PLACE[ws_space(8)])
    assert s.personal[BLUE] == 0 and s.ending and earned_extra(s)
    s.apply(BLUE, R.EXTRA[R.CODE_KIND["ash-1"]])
    # the extra card may use a set-aside diamond
    assert R.PLACE[ws_space(1)] in s.legal_actions(BLUE)
    s.apply(BLUE, R.PLACE[ws_space(1)])
    assert s.aside[BLUE] == 2 and s.owner[ws_space(1)] == BLUE
    # seat 2 has not played this pass: it plays, then the game ends (no new pass)
    assert s.to_move() == (GREEN,) and not s.is_over()
    s.apply(GREEN, s.legal_actions(GREEN)[0])
    s.apply(GREEN, R.SAIL)
    while s.phase == R.EXTRA_CARD:
        s.apply(GREEN, R.DECLINE)
    assert s.is_over() and s.to_move() == ()
    assert s.scores() == [s.points[p] + s.bonus_pts[p] for p in range(3)]


def test_set_aside_diamonds_only_for_extra_cards():
    s = blank()
    s.personal[RED] = 0
    k = take_card(s, "quartz-1")
    s.cur, s.phase, s.card, s.card_extra = RED, R.USING, k, False
    assert s.legal_actions(RED) == [R.SAIL]
    with pytest.raises(IllegalAction, match="set-aside"):
        s.apply(RED, R.PLACE[ws_space(7)])
    s.card_extra = True
    assert R.PLACE[ws_space(7)] in s.legal_actions(RED)
    s.aside[RED] = 0
    assert s.legal_actions(RED) == [R.SAIL]
    with pytest.raises(IllegalAction, match="no diamond left"):
        s.apply(RED, R.PLACE[ws_space(7)])


def test_bonus_not_claimed_without_personal_diamond():
    s = blank()
    for x in (7, 1, 3):
        put(s, RED, ws_space(x))
    s.aside[RED] += s.personal[RED] - 1
    s.personal[RED] = 1  # the last personal diamond goes on the board
    play(s, RED, "pigments-1", ws_space(0))
    assert s.personal[RED] == 0 and s.bonus_pts[RED] == 0 and s.bonus_owner[0] == -1
    assert s.ending


def test_tie_break_fewer_diamonds_left_wins():
    s = blank(n=2)
    s.points = [30, 30]
    s.personal[0] -= 2
    s.owner[0], s.owner[1] = 0, 0
    s.phase = R.OVER
    assert s.ranking() == [1, 2] and s.winners() == [0]
    s.personal[1] -= 2
    s.owner[2], s.owner[3] = 1, 1
    assert s.ranking() == [1, 1]


# --- information -------------------------------------------------------------------------------
def test_view_hides_hands_and_deck_and_shows_passed_hands():
    s = GAME.new(2, 11)
    v = s.view(1)
    assert v["hand"] == [R.KIND_CODE[k] for k in s.hands[1]]
    assert v["known_hands"] == [None, None] and v["deck"] == len(s.deck)
    text = json.dumps(s.view(None))
    assert "hand\": [" not in text
    for p in (0, 1):
        s.apply(p, s.legal_actions(p)[0])
    for _ in range(2):
        p, a = sail_policy(s)
        s.apply(p, a)
        while s.phase == R.EXTRA_CARD:
            s.apply(s.cur, R.DECLINE)
    # hands have passed: each seat knows the hand it gave away
    assert s.view(1)["known_hands"][0] == [R.KIND_CODE[k] for k in s.hands[0]]
    assert s.view(None)["known_hands"] == [None, None]


def test_determinize_keeps_what_the_seat_knows():
    s = GAME.new(4, 12)
    for p in (0, 1):
        s.apply(p, s.legal_actions(p)[0])
    d = s.determinize(2, Rng(99))
    assert d.hands[2] == s.hands[2] and d.display == s.display and d.owner == s.owner
    assert d.view(2) == s.view(2)
    assert d.component_counts() == s.component_counts()
    assert sorted(d.deck + sum(d.hands, []) + [x for x in d.picks if x >= 0]) == \
        sorted(s.deck + sum(s.hands, []) + [x for x in s.picks if x >= 0])
    assert d.deck != s.deck or d.hands != s.hands


def test_illegal_action_leaves_state_untouched():
    s = GAME.new(2, 3)
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction):
        s.apply(0, R.SAIL)
    with pytest.raises(IllegalAction, match="hand"):
        bad = next(a for a in R.PICK if a not in s.legal_actions(0))
        s.apply(0, bad)
    assert canonical(s.to_json()) == before


def test_json_round_trip_and_determinism():
    a = GAME.new(3, 21, draft="simultaneous")
    b = GAME.new(3, 21, draft="simultaneous")
    rng_a = Rng(3)
    while not a.is_over():
        p = a.to_move()[0]
        acts = a.legal_actions(p)
        act = acts[rng_a.below(len(acts))]
        a.step(p, act)
        b.apply(p, act)
    assert canonical(a.to_json()) == canonical(b.to_json())
    c = GAME.from_json(json.loads(json.dumps(a.to_json())))
    assert canonical(c.to_json()) == canonical(a.to_json())


# --- bot heuristic and terminal board ------------------------------------------------------------
def test_heuristic_values_the_held_card_and_bonus_progress():
    from gemtable.games.mille_fiori.heuristics import card_gain, heuristic

    s = blank()
    put(s, BLUE, trade(0, SWAN))
    put(s, BLUE, trade(1, SWAN))
    k = take_card(s, "swan-1")
    # a swan placement: 3 points and an extra card (Blue has more swans)
    assert card_gain(s, RED, k) == 3 + 4.0
    s.cur, s.phase, s.card = RED, R.USING, k
    assert heuristic(s, RED) > heuristic(s, GREEN)
    s.phase = R.OVER
    s.points[RED] = 17
    s.bonus_pts[RED] = 15
    assert heuristic(s, RED) == 32.0


def test_terminal_board_shows_all_areas():
    from rich.console import Console

    s = GAME.new(4, 9)
    rng = Rng(2)
    for _ in range(150):
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        s.step(p, acts[rng.below(len(acts))])
    console = Console(width=140, record=True)
    me = s.to_move()[0]
    console.print(GAME.render_text(s.view(me), me))
    text = console.export_text()
    for word in ("Workshops", "Houses", "Citizens: nobles", "Citizens: commoners", "Trade", "Harbor", "Sea track",
                 "Bonus-point", "Display", "Your hand"):
        assert word in text
    # every occupied space appears: count seat marks on the houses line
    houses_line = next(line for line in text.splitlines() if "owners:" in line)
    assert sum(ch.isdigit() for ch in houses_line) == s.houses_next


def test_events_are_logged_with_seat_placeholders():
    s = GAME.new(2, 13, draft="tactical")
    events = s.apply(0, s.legal_actions(0)[0])
    events += s.apply(0, s.legal_actions(0)[0])
    assert events and all("{P0}" in render(e["text"]) for e in events if e.get("player") == 0)
    json.dumps(events)


def test_search_determinization_takes_back_unrevealed_picks():
    """For search, a pick another seat made in secret is taken back (it picks again)."""
    s = GAME.new(2, 3)
    s.step(0, s.legal_actions(0)[0])
    assert s.to_move() == (1,)
    sd = s.search_determinization(1, Rng(4))
    assert sd.to_move() == (0, 1)
    assert sd.picks == [-1, -1] and len(sd.hands[0]) == 5
    assert sd.hands[1] == s.hands[1] and sd.component_counts() == s.component_counts()
    # once everybody has picked, cards are being played: nothing is taken back
    s.step(1, s.legal_actions(1)[0])
    assert s.search_determinization(1, Rng(4)).to_move() == s.to_move()
