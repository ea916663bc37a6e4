"""Diamonds Club: what players read — one numbering for market spaces, the price board a
building came from, the park as the view shows it, the warning that a player missing a
mandatory space scores 0, and points labelled as points in the terminal."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from gemtable.core import IllegalAction
from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club import rules as R
from gemtable.games.diamonds_club.data import MINE, PIT
from gemtable.core.i18n import render as say

A = GAME.actions
PASS = A.get("pass")
RED = 3


def new(n=2, seed=0):
    return GAME.new(n, seed)


def mover(s):
    return s.to_move()[0]


def set_gems(s, p, b=0, y=0, g=0, r=0, d=0):
    s.gems[p * 5:p * 5 + 5] = [b, y, g, r, d]


def to_build_phase(s, order):
    s.phase = R.BUILD
    s.order = tuple(order)
    s.oi = 0
    s.passed = 0
    s.pend = -1
    return s


def render(view, seat):
    console = Console(width=220, record=True, file=io.StringIO())
    console.print(GAME.render_text(view, seat))
    return console.export_text()


# -- one numbering for market spaces ------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_move_list_and_the_log_name_a_space_the_same_way(n):
    s = new(n, 3)
    p = mover(s)
    cols = 2 * n
    i = 3 * cols + 1  # row 4 of the second strip
    text = s.action_text(p, A.get("buy", space=i))
    assert " on strip 2, row 4: " in text and not re.search(r"space \d", text)
    log = say(s.apply(p, A.get("buy", space=i))[0]["text"])
    assert "(strip 2, row 4)" in log
    # the view's market row / column is where the board draws it
    assert s.view(p)["market"][3][1]["space"] == i


def test_illegal_buy_names_the_space_by_strip_and_row():
    s = new(2, 0)
    p = mover(s)
    s.apply(p, A.get("buy", space=5))  # strip 2, row 2 with 4 strips
    q = mover(s)
    with pytest.raises(IllegalAction, match="strip 2, row 2 is already occupied"):
        s.apply(q, A.get("buy", space=5))
    with pytest.raises(IllegalAction, match="does not exist with 2 players"):
        s.apply(q, A.get("buy", space=40))


# -- the log names the price board -----------------------------------------------------------------
def test_build_log_names_the_price_board():
    s = to_build_phase(new(2, 0), (0, 1))
    set_gems(s, 0, 0, 0, 0, 0, 4)  # four diamonds: a single way to pay the any-tile board
    log = s.apply(0, A.get("build", board="any_tile", tile="pavilion"))
    text = next(say(e["text"]) for e in log if e["type"] == "build")
    assert "builds a pavilion from the any tile price board on its mandatory space" in text
    assert log[0]["board"] == "any_tile"
    s.apply(1, PASS)
    set_gems(s, 0, 0, 0, 0, 3)
    log = s.apply(0, A.get("build", board="forest_3", tile="forest"))
    text = next(say(e["text"]) for e in log if e["type"] == "build")
    assert "builds a forest from the forest 3 price board on a light-green space" in text


# -- the park in the view --------------------------------------------------------------------------
def test_view_lists_the_park_spaces_and_what_covers_them():
    s = new(2, 0)
    s.bld[0:4] = [2, 1, 0, 0]  # two fountains (one on its mandatory space), an orangery
    s.mand[0] = 0b001
    s.forests[0] = 1
    s.ani[0:3] = [1, 0, 0]
    s.gen[0] = 4  # fountain, orangery, forest, pond on ordinary light-green spaces
    park = s.view(1)["players"][0]["park"]
    assert park["mandatory_spaces"] == ["fountain", "pavilion", "rose_garden"]
    assert park["mandatory_missing"] == ["pavilion", "rose_garden"]
    assert park["light_spaces"] == 14 and park["dark_spaces"] == 5
    assert park["ordinary_spaces"] == {"light": ["fountain", "orangery", "forest", "pond"], "dark": []}
    s.gen[0] = R.GENMAX
    s.mand[0] = R.MANDFULL
    s.bld[0:4] = [1, 1, 1, 1]
    s.forests[0] = 11  # the orangery and ten forests fill the ordinary light-green spaces
    s.dark[0] = 2
    park = s.view(0)["players"][0]["park"]
    assert park["mandatory_missing"] == []
    assert len(park["ordinary_spaces"]["light"]) == R.GENMAX
    assert park["ordinary_spaces"]["dark"] == ["forest", "pond"]


def test_park_tiles_in_the_view_match_the_spaces_in_a_played_game():
    from gemtable.core import Rng

    s, r = new(3, 4), Rng(2)
    while not s.is_over():
        p = mover(s)
        la = s.legal_actions(p)
        s.apply(p, la[r.below(len(la))])
        for q, pl in enumerate(s.view(None)["players"]):
            park = pl["park"]
            assert len(park["ordinary_spaces"]["light"]) == s.gen[q]
            assert len(park["ordinary_spaces"]["dark"]) == s.dark[q]
            assert len(park["mandatory_missing"]) == 3 - sum(park["mandatory_covered"])


# -- the warning: no mandatory spaces, no points -----------------------------------------------
def test_no_warning_early_in_the_game():
    s = new(2, 0)
    v = s.view(0)
    assert v["end_near"] is False
    assert [pl["warning"] for pl in v["players"]] == [None, None]
    assert [pl["not_scored"] for pl in v["players"]] == [False, False]


def test_warning_when_the_end_is_near_and_a_mandatory_space_is_open():
    s = new(2, 0)
    s.gen[1] = R.GENMAX
    s.mand[1] = 0b011  # seat 1: three light-green spaces... only the rose garden left
    s.mand[0] = 0b001  # seat 0 has only its fountain
    v = s.view(0)
    assert v["end_near"] is True and v["ending"] is False
    w0, w1 = v["players"][0]["warning"], v["players"][1]["warning"]
    assert w0 == ("scores 0 unless the pavilion and rose garden spaces are built before the end, "
                  "which is near")
    assert w1 == "scores 0 unless the rose garden space is built before the end, which is near"
    # the same warning for every viewer (public information)
    assert s.view(1)["players"][0]["warning"] == w0 and s.view(None)["players"][0]["warning"] == w0


def test_warning_in_the_last_round_and_none_once_covered():
    s = new(2, 0)
    s.ending = True
    s.mand[0] = R.MANDFULL
    s.mand[1] = 0b101
    v = s.view(0)
    assert v["players"][0]["warning"] is None
    assert v["players"][1]["warning"] == "scores 0 unless the pavilion space is built this round, the last one"


def test_a_player_shown_with_points_who_ends_without_the_mandatory_spaces_is_told_why():
    """The tester's case: 20 points on the board, 0 at the end, and the reason shown."""
    s = to_build_phase(new(2, 0), (0, 1))
    s.bld[0:4] = [1, 1, 1, 2]
    s.mand[0] = R.MANDFULL
    s.gen[0] = R.GENMAX - 1
    s.bld[4:8] = [5, 0, 0, 0]  # seat 1: five fountains, no pavilion or rose garden
    s.mand[1] = 0b001
    s.gen[1] = 4
    assert s.view(0)["players"][1]["warning"].startswith("scores 0 unless the pavilion and rose garden")
    set_gems(s, 0, 0, 0, 2, 1)  # exactly the orangery's price: no payment to choose
    s.apply(0, A.get("build", board="orangery", tile="orangery"))  # seat 0 covers its last light-green space
    assert s.ending
    s.apply(1, PASS)
    log = s.apply(0, PASS)
    assert s.is_over()
    v = s.view(0)
    pl = v["players"][1]
    assert pl["score"]["total"] == 20 and v["scores"][1] == 0.0
    assert pl["not_scored"] is True and v["players"][0]["not_scored"] is False
    assert pl["warning"] == "scores 0: the pavilion and rose garden spaces were never covered"
    over = log[-1]
    assert over["type"] == "game_over" and over["not_scored"] == [1]
    assert "{P1} scores 0: the pavilion and rose garden spaces were never covered (not scored)." in say(over["text"])


# -- the terminal -----------------------------------------------------------------------------------
def test_terminal_labels_points_strips_rows_and_shows_the_warning():
    s = new(2, 0)
    s.ending = True
    s.mand[1] = 0b001
    out = render(s.view(0), 0)
    assert "strip 1 (dark)" in out and "strip 4 (light)" in out and "row 6" in out
    assert "points: buildings 0, forests 0, animals 0, bonus 0, tracks 0" in out
    assert "mandatory spaces: fountain EMPTY, pavilion EMPTY, rose garden EMPTY" in out
    assert "P2 scores 0 unless the pavilion and rose garden spaces are built this round" in out
    assert "light-green 1/14, dark-green 0/5" in out


def test_terminal_shows_a_not_scored_player_as_zero():
    s = new(2, 0)
    s.bld[0:4] = [3, 0, 0, 0]
    s.mand[0] = 0b001
    s.phase = R.OVER
    out = render(s.view(None), None)
    assert "0 points (not scored; 12 on the board)" in out


def test_new_view_fields_are_plain_json():
    s = new(3, 1)
    json.dumps(s.view(None))
    set_goods = list(s.market_goods)
    set_goods[0] = ((PIT, RED), (MINE, 4))
    s.market_goods = tuple(set_goods)
    assert "strip 1, row 1: red pit + mining rights 4" in s.action_text(mover(s), A.get("buy", space=0))
