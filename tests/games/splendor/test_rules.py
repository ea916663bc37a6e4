"""Splendor: one test per rule of the seed and per decision in reference/splendor.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gemtable.core import IllegalAction, Match, Rng, canonical, format_text
from gemtable.games.registry import get_game
from gemtable.games.splendor import rules as R

GAME = get_game("splendor")
W, U, G, RED, K, GOLD = range(6)


def card_with(level=None, bonus=None, points=None, cost=None) -> int:
    for c in R.CARDS:
        if ((level is None or c.level == level) and (bonus is None or c.bonus == bonus)
                and (points is None or c.points == points) and (cost is None or c.cost == cost)):
            return c.id
    raise LookupError


def fresh(n=2, seed=1) -> R.SplendorState:
    return GAME.new(n, seed)


def legal_types(s, p=None):
    p = s.cur if p is None else p
    return {a.type for a in s.legal_actions(p)}


def set_tokens(s, p, counts):
    """Give seat p exactly `counts` (6 values), moving tokens from/to the bank."""
    for c in range(6):
        diff = counts[c] - s.tok[p * 6 + c]
        s.bank[c] -= diff
        s.tok[p * 6 + c] = counts[c]
        assert s.bank[c] >= 0


def put_on_board(s, cid, slot=None):
    """Make card cid face up (swapping it with whatever was there)."""
    if cid in s.board:
        return s.board.index(cid)
    level = R.LEVEL[cid]
    slot = level * 4 if slot is None else slot
    old = s.board[slot]
    deck = s.decks[level]
    deck[deck.index(cid)] = old
    s.board[slot] = cid
    return slot


# --- setup --------------------------------------------------------------------------------
@pytest.mark.parametrize("n,gems,nobles", [(2, 4, 3), (3, 5, 4), (4, 7, 5)])
def test_setup_tokens_and_nobles_by_player_count(n, gems, nobles):
    s = fresh(n)
    assert s.bank == [gems] * 5 + [5]
    assert len(s.avail) == nobles
    assert all(c >= 0 for c in s.board) and [R.LEVEL[c] for c in s.board] == [0] * 4 + [1] * 4 + [2] * 4
    assert [len(d) for d in s.decks] == [36, 26, 16]


def test_data_file_checks_from_the_reference():
    d = R.DATA
    assert len(d.cards) == 90 and len(d.nobles) == 10
    for level, total in enumerate((165, 205, 215)):
        assert sum(sum(c.cost) for c in d.cards if c.level == level) == total


def test_broken_data_file_is_rejected_with_a_clear_message(tmp_path):
    from gemtable.core import DataError
    from gemtable.games.splendor.data import DATA_PATH, load

    text = DATA_PATH.read_text().replace('[1, "white", 0, 0, 0, 0, 2, 1]', '[1, "white", 0, 0, 0, 0, 2, 2]', 1)
    bad = tmp_path / "data.toml"
    bad.write_text(text)
    with pytest.raises(DataError, match="total printed cost"):
        load(bad)


# --- rule 1: three different colours; fewer only when fewer are available ------------------
def test_take_three_different_colours():
    s = fresh()
    takes = [a for a in s.legal_actions(0) if a.type == "take"]
    assert len(takes) == 10 and all(len(a["colours"]) == 3 for a in takes)
    s.apply(0, R.TAKE[(W, U, G)])
    assert s.tok[0:6] == [1, 1, 1, 0, 0, 0] and s.bank[:3] == [3, 3, 3]


def test_fewer_than_three_colours_only_when_fewer_are_available():
    s = fresh()
    for c in (G, RED, K):
        s.bank[c] = 0
        s.tok[6 + c] = 4  # keep the components conserved: seat 2 holds them
    takes = [a for a in s.legal_actions(0) if a.type == "take"]
    assert [a["colours"] for a in takes] == [("white", "blue")]
    with pytest.raises(IllegalAction, match="fewer only when fewer than 3"):
        s.apply(0, R.TAKE[(W,)])


def test_taking_fewer_when_three_are_available_is_refused():
    s = fresh()
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="take 3 tokens of different colours"):
        s.apply(0, R.TAKE[(W, U)])
    assert canonical(s.to_json()) == before


# --- rule 2: two of a colour needs at least 4 in the pile ---------------------------------
def test_take_two_needs_four_in_the_pile():
    s = fresh()  # 2 players: 4 of each colour
    assert R.TWO[W] in s.legal_actions(0)
    s.apply(0, R.TWO[W])
    assert s.bank[W] == 2 and s.tok[W] == 2
    # seat 2 now sees only 2 white: not allowed, with the reason
    assert R.TWO[W] not in s.legal_actions(1)
    with pytest.raises(IllegalAction, match="at least 4 white"):
        s.apply(1, R.TWO[W])


# --- rule 3: reserving ---------------------------------------------------------------------
def test_reserve_face_up_takes_gold_and_refills_the_slot():
    s = fresh()
    cid = s.board[5]
    top = s.decks[1][-1]
    s.apply(0, R.RESERVE[cid])
    assert s.res[0] == (cid,) and s.tok[GOLD] == 1 and s.bank[GOLD] == 4
    assert s.board[5] == top


def test_reserve_with_no_gold_left_is_legal_and_gives_nothing():
    s = fresh()
    set_tokens(s, 1, [0, 0, 0, 0, 0, 5])
    assert s.bank[GOLD] == 0
    cid = s.board[0]
    assert R.RESERVE[cid] in s.legal_actions(0)
    s.apply(0, R.RESERVE[cid])
    assert s.res[0] == (cid,) and s.tok[GOLD] == 0


def test_blind_reserve_is_hidden_from_the_others():
    s = fresh()
    top = s.decks[2][-1]
    events = s.apply(0, R.BLIND[2])
    assert s.res[0] == (top,)
    mine, theirs, spectator = s.view(0), s.view(1), s.view(None)
    assert mine["seats"][0]["reserved"][0]["id"] == top
    assert theirs["seats"][0]["reserved"] == [{"level": 3, "hidden": True}]
    assert spectator["seats"][0]["reserved"] == [{"level": 3, "hidden": True}]
    # the event tells seat 0 the card and the others only the level
    from gemtable.core import event_for

    ev = events[0]
    assert event_for(ev, 0)["card"]["id"] == top
    assert "card" not in event_for(ev, 1) and str(top) not in json.dumps(event_for(ev, 1))


def test_at_most_three_reserved():
    s = fresh()
    for _ in range(3):
        s.apply(0, R.BLIND[0])
        s.apply(1, R.TAKE[(W, U, G)])
    assert len(s.res[0]) == 3
    assert not legal_types(s) & {"reserve", "reserve_blind"}
    with pytest.raises(IllegalAction, match="at most 3 reserved"):
        s.apply(0, R.RESERVE[s.board[0]])


# --- rule 9: empty decks -------------------------------------------------------------------
def test_empty_deck_leaves_the_slot_empty_and_forbids_blind_reserve():
    s = fresh()
    s.decks[2].clear()
    s.out = s.out  # nobles untouched
    cid = s.board[8]
    s.apply(0, R.RESERVE[cid])
    assert s.board[8] == -1
    assert R.BLIND[2] not in s.legal_actions(1)
    with pytest.raises(IllegalAction, match="level-3 deck is empty"):
        s.apply(1, R.BLIND[2])
    assert s.view(1)["board"][2][0] is None


# --- rule 4: token limit, free choice of what to return --------------------------------------
def test_token_limit_return_any_tokens_including_just_taken_and_gold():
    s = fresh(4)
    set_tokens(s, 0, [2, 2, 2, 2, 0, 1])  # 9 tokens
    s.apply(0, R.TAKE[(W, U, K)])  # 12 tokens
    assert s.phase == R.RETURN and s.to_move() == (0,)
    returns = {a["token"] for a in s.legal_actions(0)}
    assert returns == {"white", "blue", "green", "red", "black", "gold"}
    with pytest.raises(IllegalAction, match="return tokens down to 10"):
        s.apply(0, R.TAKE[(W, U, G)])
    s.apply(0, R.RETURN_TOKEN[K])  # a just-taken token
    s.apply(0, R.RETURN_TOKEN[GOLD])  # gold may be returned too
    assert sum(s.tok[0:6]) == 10 and s.cur == 1 and s.phase == R.MAIN


# --- rule 5: buying --------------------------------------------------------------------------
def test_bonuses_discount_before_tokens():
    s = fresh()
    cid = card_with(level=0, cost=(0, 0, 0, 2, 1))  # white card: 2 red 1 black
    put_on_board(s, cid)
    s.bon[RED] = 2  # seat 0 has 2 red bonuses
    set_tokens(s, 0, [0, 0, 0, 0, 1, 0])
    s.apply(0, R.BUY[cid])
    assert s.tok[0:6] == [0] * 6 and s.bank[K] == 4
    assert s.bon[W] == 1 and s.ncards[0] == 1


def test_gold_covers_a_shortfall():
    s = fresh()
    cid = card_with(level=0, cost=(0, 3, 0, 0, 0))
    put_on_board(s, cid)
    set_tokens(s, 0, [0, 2, 0, 0, 0, 1])
    s.apply(0, R.BUY[cid])  # only one payment possible: 2 blue + 1 gold
    assert s.tok[0:6] == [0] * 6 and s.bank[GOLD] == 5 and s.ncards[0] == 1


def test_gold_may_be_spent_even_when_coloured_tokens_would_do():
    s = fresh()
    cid = card_with(level=0, cost=(0, 3, 0, 0, 0))
    put_on_board(s, cid)
    set_tokens(s, 0, [0, 3, 0, 0, 0, 2])
    s.apply(0, R.BUY[cid])
    assert s.phase == R.PAY
    options = {a["gold"] for a in s.legal_actions(0)}
    assert options == {(0, 0, 0, 0, 0), (0, 1, 0, 0, 0), (0, 2, 0, 0, 0)}
    s.apply(0, R.PAY_ACT[(0, 2, 0, 0, 0)])
    assert s.tok[0:6] == [0, 2, 0, 0, 0, 0] and s.ncards[0] == 1 and s.cur == 1


def test_cannot_buy_what_you_cannot_afford():
    s = fresh()
    cid = s.board[8]
    with pytest.raises(IllegalAction, match="short"):
        s.apply(0, R.BUY[cid])


def test_the_refusal_names_what_is_missing_by_colour():
    s = fresh()
    cid = card_with(level=0, cost=(0, 2, 0, 2, 0))  # 2 blue 2 red
    put_on_board(s, cid)
    s.bon[RED] = 1
    set_tokens(s, 0, [0, 0, 0, 0, 0, 0])
    assert s.check(0, R.BUY[cid]) == "Buying: you need 2 more blue and 1 more red (after your bonuses), so you are 3 tokens short."
    set_tokens(s, 0, [0, 0, 0, 0, 0, 1])
    assert s.check(0, R.BUY[cid]) == ("Buying: you need 2 more blue and 1 more red after your bonuses; your 1 gold "
                                      "token covers only 1 of them, so you are still 2 tokens short.")


def test_buy_a_reserved_card_only_your_own():
    s = fresh(4)
    cid = card_with(level=0, cost=(0, 0, 0, 0, 3))
    put_on_board(s, cid)
    s.apply(0, R.RESERVE[cid])
    set_tokens(s, 1, [0, 0, 0, 0, 3, 0])
    assert R.BUY[cid] not in s.legal_actions(1)
    with pytest.raises(IllegalAction, match="neither face up"):
        s.apply(1, R.BUY[cid])
    for seat in (1, 2, 3):
        s.apply(seat, R.TAKE[(W, U, G)])
    set_tokens(s, 0, [0, 0, 0, 0, 3, 1])
    s.apply(0, R.BUY[cid])
    if s.phase == R.PAY:
        s.apply(0, R.PAY_ACT[(0, 0, 0, 0, 0)])
    assert s.res[0] == () and cid in s.owned[0]


# --- rule 6: nobles --------------------------------------------------------------------------
def _qualify_for(s, p, nids):
    need = [max(R.NOBLE_NEED[n][c] for n in nids) for c in range(5)]
    for c in range(5):
        s.bon[p * 5 + c] = need[c]
    s.ncards[p] = sum(need)


def test_noble_visits_on_bonuses_at_end_of_turn():
    s = fresh()
    nid = s.avail[0]
    # only nid on the table, so exactly one noble qualifies
    s.out, s.avail = tuple(sorted(s.out + s.avail[1:])), (nid,)
    _qualify_for(s, 0, [nid])
    s.apply(0, R.TAKE[(W, U, G)])
    assert s.nob[0] == (nid,) and s.pts[0] == 3 and s.cur == 1


def test_tokens_do_not_count_for_nobles():
    s = fresh()
    nid = s.avail[0]
    s.out, s.avail = tuple(sorted(s.out + s.avail[1:])), (nid,)
    need = R.NOBLE_NEED[nid]
    set_tokens(s, 0, [min(3, x) for x in need] + [0])
    s.apply(0, R.TAKE[(W, U, G)] if s.bank[W] and s.bank[U] and s.bank[G] else s.legal_actions(0)[0])
    assert s.nob[0] == ()


def test_several_nobles_player_chooses_one_per_turn_then_the_other_later():
    s = fresh(4)
    a, b = s.avail[0], s.avail[1]
    s.out, s.avail = tuple(sorted(s.out + s.avail[2:])), (a, b)
    _qualify_for(s, 0, [a, b])
    s.apply(0, R.TAKE[(W, U, G)])
    assert s.phase == R.NOBLE and s.cur == 0
    assert {x["noble"] for x in s.legal_actions(0)} == {a, b}
    s.apply(0, R.NOBLE_PICK[b])
    assert s.nob[0] == (b,) and s.pts[0] == 3 and s.cur == 1  # only one per turn
    for p in (1, 2, 3):
        s.apply(p, s.legal_actions(p)[0] if s.legal_actions(p)[0].type != "return" else s.legal_actions(p)[0])
        while s.cur == p:
            s.apply(p, s.legal_actions(p)[0])
    s.apply(0, R.TAKE[(W, U, G)] if R.TAKE[(W, U, G)] in s.legal_actions(0) else s.legal_actions(0)[0])
    assert s.nob[0] == (b, a)  # the other noble visits at the end of a later turn


def _freeze_table(s, holder):
    """Nothing left to take, reserve or buy: seat `holder` takes the whole bank, the face-up
    spaces and the decks are empty."""
    set_tokens(s, holder, [s.tok[holder * 6 + c] + s.bank[c] for c in range(6)])
    s.board = [-1] * len(s.board)
    s.decks = [[], [], []]


def test_noble_still_visits_at_the_end_of_a_passed_turn_and_can_change_the_winner():
    s = fresh()
    a, b = s.avail[0], s.avail[1]
    _qualify_for(s, 0, [a, b])
    s.apply(0, R.TAKE[(W, U, G)])  # completes two nobles at once: one now, the other later
    s.apply(0, R.NOBLE_PICK[a])
    assert s.nob[0] == (a,) and s.pts[0] == 3
    _freeze_table(s, 1)
    s.pts[1] = 5
    assert s.legal_actions(1) == [R.PASS]
    s.apply(1, R.PASS)
    assert s.legal_actions(0) == [R.PASS]
    events = s.apply(0, R.PASS)  # a passed turn still ends with the noble check
    assert s.nob[0] == (a, b) and s.pts[0] == 6 and not s.is_over()
    assert [ev["type"] for ev in events] == ["pass", "noble"]
    s.apply(1, R.PASS)
    s.apply(0, R.PASS)  # now nothing can change any more: everyone passed in a row
    assert s.is_over() and s.scores() == [6, 5] and s.winners() == [0]


def test_several_nobles_on_a_passed_turn_offer_the_choice():
    s = fresh(4)
    a, b, c = s.avail[0], s.avail[1], s.avail[2]
    s.out, s.avail = tuple(sorted(s.out + s.avail[3:])), (a, b, c)
    _qualify_for(s, 0, [a, b, c])
    s.apply(0, R.TAKE[(W, U, G)])
    s.apply(0, R.NOBLE_PICK[a])
    _freeze_table(s, 1)
    for p in (1, 2, 3):
        s.apply(p, R.PASS)
    s.apply(0, R.PASS)
    assert s.phase == R.NOBLE and s.cur == 0
    assert set(s.legal_actions(0)) == {R.NOBLE_PICK[b], R.NOBLE_PICK[c]}
    s.apply(0, R.NOBLE_PICK[c])
    for p in (1, 2, 3):
        s.apply(p, R.PASS)
    assert not s.is_over()  # the noble visit was a change: the passes start counting again
    s.apply(0, R.PASS)
    assert s.nob[0] == (a, c, b) and s.pts[0] == 9 and not s.is_over()
    for p in (1, 2, 3):
        s.apply(p, R.PASS)
    s.apply(0, R.PASS)
    assert s.is_over()


def test_noble_choice_names_the_tile_as_the_board_shows_it():
    """The choice names the noble by its points and requirement, the same words the terminal
    board prints, never by an internal number."""
    from rich.console import Console

    s = fresh(4)
    a, b = s.avail[0], s.avail[1]
    s.out, s.avail = tuple(sorted(s.out + s.avail[2:])), (a, b)
    _qualify_for(s, 0, [a, b])
    s.apply(0, R.TAKE[(W, U, G)])
    console = Console(width=200, record=True)
    console.print(GAME.render_text(s.view(0), 0))
    board = console.export_text()
    for nid, act in ((a, R.NOBLE_PICK[a]), (b, R.NOBLE_PICK[b])):
        text = s.action_text(0, act)
        need = ", ".join(f"{R.NOBLE_NEED[nid][c]} {R.COLOURS[c]}" for c in range(5) if R.NOBLE_NEED[nid][c])
        assert text == f"receive the noble {R.NOBLE_POINTS[nid]}pt ({need})"
        assert text.removeprefix("receive the noble ") in board
        assert f"noble {nid + 1}" not in text
    assert len({x.text for x in R.NOBLE_PICK}) == len(R.NOBLE_PICK)  # no two tiles share a name
    events = s.apply(0, R.NOBLE_PICK[b])
    assert format_text(events[0]["text"], ["{P0}"]) == f"The noble {R.noble_text(b)} visits {{P0}} (+3)."


# --- rule 7: end of game ---------------------------------------------------------------------
def test_reaching_15_finishes_the_round():
    s = fresh(3)
    s.pts[1] = 15
    s.apply(0, R.TAKE[(W, U, G)])
    assert not s.last_round
    s.apply(1, R.TAKE[(W, U, G)])
    assert s.last_round and not s.is_over()
    s.apply(2, R.TAKE[(W, U, RED)])
    assert s.is_over() and s.to_move() == ()
    assert s.winners() == [1]


def test_start_player_reaching_15_lets_everyone_else_play():
    s = fresh(2)
    s.pts[0] = 15
    s.apply(0, R.TAKE[(W, U, G)])
    assert not s.is_over()
    s.apply(1, R.TAKE[(W, U, G)])
    assert s.is_over()


def test_tie_break_fewest_cards_then_shared():
    s = fresh(3)
    s.pts[:] = [16, 16, 12]
    s.ncards[:] = [9, 7, 5]
    assert s.ranking() == [2, 1, 3] and s.winners() == [1]
    s.ncards[:] = [7, 7, 5]
    assert s.ranking() == [1, 1, 3] and s.winners() == [0, 1]
    assert "shared" in s.tiebreak_explained()


# --- rule 8: a player with no legal action passes -------------------------------------------
def test_no_legal_action_means_pass():
    s = fresh()
    # seat 2 holds every token of the bank; seat 1 holds 3 reserved cards and no tokens
    set_tokens(s, 1, [s.bank[c] for c in range(6)])
    for _ in range(3):
        s.res[0] += (s.decks[0].pop(),)
    assert [a.type for a in s.legal_actions(0)] == ["pass"]
    s.apply(0, R.PASS)
    assert s.cur == 1
    with pytest.raises(IllegalAction, match="Passing is only allowed"):
        fresh().apply(0, R.PASS)


def test_everyone_passing_in_a_row_ends_the_game():
    """Our decision: when every seat has passed in a row the position is frozen, so the game ends."""
    s = fresh()
    set_tokens(s, 1, [s.bank[c] for c in range(6)])
    for _ in range(3):
        s.res[0] += (s.decks[0].pop(),)
    s.passes = 1  # seat 2 passed on the previous turn
    s.apply(0, R.PASS)
    assert s.is_over()


# --- the rules summary a player reads -------------------------------------------------------------
MACHINE_PATH = re.compile(r"(^|[\s`(\"'])(/|~/|\.\./|[A-Za-z]:\\)[\w.-]+[/\\]")


def test_face_up_card_is_replaced_at_once_before_the_token_limit_and_the_summary_says_so():
    s = fresh()
    set_tokens(s, 0, [2, 2, 2, 2, 2, 0])
    cid = s.board[0]
    s.apply(0, R.RESERVE[cid])  # 11 tokens with the gold: the token limit comes next
    assert s.phase == R.RETURN and s.board[0] not in (cid, -1)  # already replaced
    text = GAME.rules_text()
    refill = text.index("replaced at once")
    assert refill < text.index("**Token limit**") and refill < text.index("**Nobles**")


def test_rules_summary_and_data_file_name_no_machine_path():
    data_toml = (Path(R.__file__).with_name("data.toml")).read_text(encoding="utf-8")
    for name, text in (("RULES.md", GAME.rules_text()), ("data.toml", data_toml)):
        hits = [m.group(0) for m in MACHINE_PATH.finditer(text)]
        assert not hits, f"{name} names a path on a machine: {hits}"
    assert MACHINE_PATH.search("# Source: ../shared/x.csv") and MACHINE_PATH.search("see `/work/x/y.md`")


# --- flow, errors, views -----------------------------------------------------------------------
def test_not_your_turn_is_refused_with_the_reason():
    s = fresh()
    with pytest.raises(IllegalAction, match="not your turn"):
        s.apply(1, R.TAKE[(W, U, G)])


def test_unknown_action_json_is_refused():
    with pytest.raises(IllegalAction):
        GAME.action_from_json({"type": "take", "colours": ["white", "white", "white"]})
    with pytest.raises(IllegalAction):
        GAME.action_from_json(["not", "an", "object"])


def test_views_hide_deck_order_and_rng():
    s = fresh()
    v = s.view(0)
    text = json.dumps(v)
    assert v["decks"] == [36, 26, 16]
    assert str(s.rng.s) not in text and "rng" not in v


def test_determinize_reshuffles_decks_and_others_blind_cards_only():
    s = fresh()
    s.apply(0, R.BLIND[0])
    s.apply(1, R.BLIND[1])
    d = s.determinize(0, Rng(99))
    assert d.res[0] == s.res[0]  # my own blind card is known to me
    assert d.view(0) == s.view(0)
    assert sorted(d.decks[1] + list(d.res[1])) == sorted(s.decks[1] + list(s.res[1]))
    assert d.decks != s.decks


def test_replay_reproduces_the_game_byte_for_byte():
    s = fresh(3, seed=7)
    m = Match("splendor", 3, 7)
    rng = Rng(3)
    while not s.is_over():
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        m.play(s, p, acts[rng.below(len(acts))])
    assert canonical(m.replay().to_json()) == canonical(s.to_json())
