"""One test per rule of River Valley Glassworks, on hand-made states."""

from __future__ import annotations

from collections import Counter

import pytest

from gemtable.core import IllegalAction, Rng, canonical
from gemtable.core.game import format_text
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks.rules import (
    COLOURS, GATHER, MAIN, NCOL, ORDER, OVER, OVERFLOW, PASS_ACT, SHAPES,
)

from .helpers import act, col, make, names, piece, tile

RIVER = list(SHAPES)  # triangle, heart, circle, square, star, moon (then the lake)


# -- setup -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup(n):
    s = GAME.new(n, seed=7)
    assert sorted(s.river) == list(range(6))
    for t in range(6):
        assert len(s.tiles[t]) == GAME.data.stones[t]  # each tile gets as many pieces as its stones
    assert len(s.lake) == 5
    assert all(len(sat) == 3 for sat in s.satchels)
    total = 132 if n == 5 else 120
    assert sum(s.component_counts()[k] for k in s.component_counts() if k.startswith("glass:")) == total
    assert len(s.bag) == total - 9 - 5 - 3 * n
    assert s.to_move() == (0,) and s.inventory == [0] * n


def test_black_glass_only_with_five_players():
    black = col("black")
    for n in (2, 3, 4):
        s = GAME.new(n, 3)
        pieces = s.bag + list(s.lake) + [x for t in s.tiles for x in t] + [x for sat in s.satchels for x in sat]
        assert all(x // 6 != black for x in pieces)
        assert "glass:black" not in s.component_counts()
    s = GAME.new(5, 3)
    assert s.component_counts()["glass:black"] == 12


def test_river_order_is_random():
    assert len({GAME.new(2, seed).river for seed in range(20)}) > 1


# -- place in the river ------------------------------------------------------------------------
def test_place_one_piece_on_the_tile_of_its_shape():
    s = make(satchels=[[("white", "circle"), ("purple", "heart")], []],
             tiles={"heart": [("yellow", "moon")], "square": [("orange", "star")]})
    legal = s.legal_actions(0)
    assert act("place", colour="white", shape="circle") in legal
    assert act("place", colour="purple", shape="heart") in legal
    s.apply(0, act("place", colour="white", shape="circle"))
    assert s.tiles[tile("circle")] == (piece("white", "circle"),)  # the placed piece stays on the tile
    assert s.satchels[0] == (piece("purple", "heart"),)
    assert s.phase == GATHER
    # the adjacent tiles (heart upstream, square downstream) are the choices
    assert names(s.legal_actions(0)) == ["gather the heart tile", "gather the square tile"]


def test_cannot_place_a_piece_not_in_the_satchel():
    s = make(satchels=[[("white", "circle")], []])
    before = canonical(s.to_json())
    with pytest.raises(IllegalAction, match="only place glass from your satchel"):
        s.apply(0, act("place", colour="purple", shape="circle"))
    assert canonical(s.to_json()) == before


def test_two_pieces_of_one_shape_count_as_one_piece_of_any_other_shape():
    s = make(satchels=[[("white", "triangle"), ("purple", "triangle")], []],
             tiles={"circle": [("yellow", "moon")]})
    legal = s.legal_actions(0)
    pairs = [a for a in legal if a.type == "place_pair"]
    assert {a["tile"] for a in pairs} == set(SHAPES) - {"triangle"}  # any *other* shape (seed 004)
    assert {a["colours"] for a in pairs} == {("white", "purple")}
    s.apply(0, act("place_pair", colours=("white", "purple"), shape="triangle", tile="heart"))
    assert sorted(s.tiles[tile("heart")]) == sorted([piece("white", "triangle"), piece("purple", "triangle")])
    assert s.satchels[0] == ()
    assert names(s.legal_actions(0)) == ["gather the triangle tile", "gather the circle tile"]


def test_a_pair_cannot_go_on_the_tile_of_its_own_shape():
    s = make(satchels=[[("white", "triangle"), ("white", "triangle")], []])
    before = canonical(s.to_json())
    own = act("place_pair", colours=("white", "white"), shape="triangle", tile="triangle")
    assert own not in s.legal_actions(0)
    with pytest.raises(IllegalAction, match="cannot go on the triangle tile: place a single triangle"):
        s.apply(0, own)
    assert canonical(s.to_json()) == before
    # a single triangle does go there
    assert act("place", colour="white", shape="triangle") in s.legal_actions(0)


def test_option_lets_a_pair_go_on_the_tile_of_its_own_shape():
    s = make(satchels=[[("white", "triangle"), ("purple", "triangle")], []], pair_on_own_tile=True)
    pairs = [a for a in s.legal_actions(0) if a.type == "place_pair"]
    assert {a["tile"] for a in pairs} == set(SHAPES)
    s.apply(0, act("place_pair", colours=("white", "purple"), shape="triangle", tile="triangle"))
    assert sorted(s.tiles[tile("triangle")]) == sorted([piece("white", "triangle"), piece("purple", "triangle")])
    again = GAME.from_json(s.to_json())
    assert again.pair_own is True and s.view(0)["pair_on_own_tile"] is True
    # the two rules keep separate move lists for the same satchel
    plain = make(satchels=[[("white", "triangle"), ("purple", "triangle")], []])
    assert len([a for a in plain.legal_actions(0) if a.type == "place_pair"]) == 5


def test_random_play_never_places_a_pair_on_its_own_tile():
    placed = 0
    for seed in range(30):
        s = GAME.new(3, seed)
        rng = Rng(seed)
        while not s.is_over():
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            a = acts[rng.below(len(acts))]
            if a.type == "place_pair":
                placed += 1
                assert a["tile"] != a["shape"]
            s.step(p, a)
    assert placed > 0  # pairs are used in random play


def test_placement_choices_are_complete_and_without_duplicates():
    s = make(satchels=[[("white", "triangle"), ("white", "triangle"), ("purple", "triangle"),
                        ("yellow", "heart")], []], lake=LAKE)
    legal = s.legal_actions(0)
    assert len({a.id for a in legal}) == len(legal)
    singles = sorted(a.text for a in legal if a.type == "place")
    assert singles == ["place a purple triangle on the triangle tile", "place a white triangle on the triangle tile",
                       "place a yellow heart on the heart tile"]
    pairs = {(a["colours"], a["tile"]) for a in legal if a.type == "place_pair"}
    assert pairs == {(c, t) for c in (("white", "white"), ("white", "purple")) for t in SHAPES if t != "triangle"}
    assert len([a for a in legal if a.type == "lake"]) == 4
    assert len(legal) == 3 + 10 + 4


def test_pair_needs_two_pieces_of_the_same_shape():
    s = make(satchels=[[("white", "triangle"), ("purple", "heart")], []])
    assert not [a for a in s.legal_actions(0) if a.type == "place_pair"]
    with pytest.raises(IllegalAction, match="two pieces of one shape"):
        s.apply(0, act("place_pair", colours=("white", "purple"), shape="triangle", tile="moon"))


def test_gather_only_an_adjacent_tile_never_the_lake():
    s = make(satchels=[[("white", "circle")], []])
    s.apply(0, act("place", colour="white", shape="circle"))
    with pytest.raises(IllegalAction, match="next to the circle tile"):
        s.apply(0, act("gather", tile="moon"))
    with pytest.raises(IllegalAction, match="next to the circle tile"):
        s.apply(0, act("gather", tile="circle"))


def test_end_tiles_have_a_single_neighbour_gathered_automatically():
    # placed on the last tile (next to the lake): only the upstream tile can be gathered
    s = make(satchels=[[("white", "moon")], []], tiles={"star": [("purple", "heart")]},
             bag=[("yellow", "circle")] * 5)
    s.apply(0, act("place", colour="white", shape="moon"))
    assert s.phase == MAIN and s.current == 1
    assert s.tiles[tile("moon")] == (piece("white", "moon"),)  # not the lake, not its own tile
    assert s.colcol[0] == col("purple") and s.colh[0] == 1
    # placed on the first tile: only the downstream tile
    s = make(satchels=[[("white", "triangle")], []], tiles={"heart": [("orange", "star")]},
             bag=[("yellow", "circle")] * 5)
    s.apply(0, act("place", colour="white", shape="triangle"))
    assert s.colcol[0] == col("orange")


def test_river_flow_emptied_tile_moves_to_start_and_is_refilled_by_next_tile_stones():
    bag = [("yellow", "circle")] * 6
    # gather the square tile: it moves to the start; the tile now next to it is the triangle
    # tile (1 stone), so it receives 1 piece
    s = make(satchels=[[("white", "circle")], []], tiles={"square": [("purple", "heart")] * 3}, bag=bag)
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    assert [SHAPES[t] for t in s.river] == ["square", "triangle", "heart", "circle", "star", "moon"]
    assert s.tiles[tile("square")] == (piece("yellow", "circle"),)
    assert len(s.bag) == 5
    # with the heart tile (2 stones) at the start, the moved tile receives 2 pieces
    s = make(river=["heart", "triangle", "circle", "square", "star", "moon"],
             satchels=[[("white", "circle")], []], bag=bag)
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    assert s.river[:2] == (tile("square"), tile("heart"))
    assert s.tiles[tile("square")] == (piece("yellow", "circle"),) * 2


def test_an_empty_adjacent_tile_may_be_gathered():
    s = make(satchels=[[("white", "circle")], []], bag=[("yellow", "circle")] * 3)
    s.apply(0, act("place", colour="white", shape="circle"))
    assert act("gather", tile="heart") in s.legal_actions(0)
    s.apply(0, act("gather", tile="heart"))
    assert s.inventory[0] == 0 and s.current == 1
    assert s.river[0] == tile("heart")


def test_bag_running_out_fills_as_far_as_possible():
    s = make(satchels=[[("white", "circle")], []], tiles={"square": [("purple", "heart")]},
             river=["heart", "triangle", "circle", "square", "star", "moon"], bag=[("yellow", "circle")])
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    assert s.tiles[tile("square")] == (piece("yellow", "circle"),) and s.bag == []


# -- the glassworks ------------------------------------------------------------------------------
def _gather_pieces(pieces, columns=None, options=None, inventory=None):
    """Seat 0 places a white circle and gathers the square tile holding ``pieces``."""
    s = make(satchels=[[("white", "circle")], []], tiles={"square": pieces}, columns=columns,
             bag=[("yellow", "circle")] * 5, inventory=inventory, **(options or {}))
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    return s


def test_known_colour_goes_to_its_column():
    s = _gather_pieces([("purple", "heart"), ("purple", "moon")], columns=[[("white", 1), ("purple", 2)]])
    assert s.colh[:3] == [1, 4, 0]
    assert s.inventory[0] == 2


def test_full_column_sends_the_piece_to_overflow():
    s = _gather_pieces([("purple", "heart"), ("purple", "moon")], columns=[[("purple", 4)]])
    assert s.colh[0] == 5
    assert s.overflow[0] == (col("purple"),)
    assert s.inventory[0] == 2  # glassworks and overflow both count (default option)


def test_overflow_does_not_count_with_the_later_rulebook_option():
    s = _gather_pieces([("purple", "heart"), ("purple", "moon")], columns=[[("purple", 4)]],
                       options={"overflow_counts_toward_end": False})
    assert s.overflow[0] == (col("purple"),)
    assert s.inventory[0] == 1


def test_new_colour_opens_the_leftmost_unused_column():
    s = _gather_pieces([("orange", "heart"), ("orange", "moon")], columns=[[("white", 2), ("purple", 1)]])
    assert s.colcol[2] == col("orange") and s.colh[2] == 2
    assert s.phase == MAIN and s.current == 1


def test_several_new_colours_player_chooses_the_order():
    s = _gather_pieces([("orange", "heart"), ("yellow", "moon"), ("white", "star"), ("purple", "star")],
                       columns=[[("white", 1)]])
    assert s.colh[0] == 2  # the known colour went to its column straight away
    assert s.phase == ORDER and s.current == 0
    assert names(s.legal_actions(0)) == [
        "open the next column with purple", "open the next column with yellow",
        "open the next column with orange"]
    with pytest.raises(IllegalAction, match="can open the next column"):
        s.apply(0, act("column", colour="dark blue"))
    s.apply(0, act("column", colour="yellow"))
    assert s.colcol[1] == col("yellow") and s.phase == ORDER
    s.apply(0, act("column", colour="orange"))
    # the last new colour takes the next column without a decision
    assert [s.colcol[c] for c in range(4)] == [col("white"), col("yellow"), col("orange"), col("purple")]
    assert s.phase == MAIN and s.current == 1
    assert s.inventory[0] == 4


def test_river_flows_after_the_gathered_glass_is_placed():
    s = _gather_pieces([("orange", "heart"), ("yellow", "moon")])
    assert s.phase == ORDER
    # the emptied tile has not moved nor been refilled yet
    assert [SHAPES[t] for t in s.river] == RIVER and s.tiles[tile("square")] == ()
    assert s.view(0)["gathered_from"] == "square"
    s.apply(0, act("column", colour="orange"))
    assert s.river[0] == tile("square") and len(s.tiles[tile("square")]) == 1


def test_new_colour_with_every_column_started_goes_to_overflow():
    full = [(c, 1) for c in COLOURS[:7]]
    s = _gather_pieces([("orange", "heart"), ("white", "moon")], columns=[full])
    assert s.overflow[0] == (col("orange"),)
    assert s.colh[0] == 2
    assert s.inventory[0] == 2


def test_more_new_colours_than_free_columns():
    cols = [(c, 1) for c in COLOURS[:6]]  # one unused column left
    s = _gather_pieces([("orange", "heart"), ("yellow", "moon")], columns=[cols])
    assert s.phase == ORDER  # which one gets the last column is the player's choice
    s.apply(0, act("column", colour="orange"))
    assert s.colcol[6] == col("orange")
    assert s.overflow[0] == (col("yellow"),)
    assert s.phase == MAIN


# -- draw from the lake ------------------------------------------------------------------------------
LAKE = [("white", "triangle"), ("white", "triangle"), ("purple", "heart"), ("yellow", "moon"),
        ("orange", "star")]


def test_lake_draw_choose_four_of_five_and_refill():
    s = make(lake=LAKE, satchels=[[("dark blue", "circle")], []], bag=[("light green", "square")] * 10)
    lake_acts = [a for a in s.legal_actions(0) if a.type == "lake"]
    assert len(lake_acts) == 4  # one per distinct piece that can be left behind
    s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))
    assert Counter(s.satchels[0]) == Counter(piece(*x) for x in [
        ("dark blue", "circle"), ("white", "triangle"), ("white", "triangle"), ("purple", "heart"),
        ("orange", "star")])
    assert Counter(s.lake) == Counter([piece("yellow", "moon")] + [piece("light green", "square")] * 4)
    assert s.current == 1 and s.inventory[0] == 0


def test_lake_leave_must_name_a_lake_piece():
    s = make(lake=LAKE, satchels=[[], []])
    with pytest.raises(IllegalAction, match="no dark green star to leave"):
        s.apply(0, act("lake", leave_colour="dark green", leave_shape="star"))


def test_lake_with_four_or_fewer_pieces_take_them_all():
    s = make(lake=LAKE[:3], satchels=[[], []])
    assert [a.type for a in s.legal_actions(0)] == ["lake_all"]
    s.apply(0, act("lake_all"))
    assert len(s.satchels[0]) == 3 and s.lake == ()


def test_full_satchel_player_chooses_what_overflows():
    sat = [("dark blue", "circle"), ("dark blue", "circle"), ("light green", "moon")]
    s = make(lake=LAKE, satchels=[sat, []], bag=[("light green", "square")] * 10)
    s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))
    assert s.phase == OVERFLOW and len(s.satchels[0]) == 7
    assert s.lake == (piece("yellow", "moon"),)  # the lake is refilled after the overflow choice
    with pytest.raises(IllegalAction, match="satchel holds no black moon"):
        s.apply(0, act("overflow", colour="black", shape="moon"))
    s.apply(0, act("overflow", colour="light green", shape="moon"))
    assert s.phase == OVERFLOW
    s.apply(0, act("overflow", colour="white", shape="triangle"))
    assert s.phase == MAIN and s.current == 1
    assert len(s.satchels[0]) == 5
    assert sorted(s.overflow[0]) == sorted([col("light green"), col("white")])
    assert s.inventory[0] == 2  # overflow counts toward the end (default)
    assert len(s.lake) == 5


def test_satchel_overflow_with_the_later_rulebook_option():
    sat = [("dark blue", "circle"), ("dark blue", "circle")]
    s = make(lake=LAKE, satchels=[sat, []], overflow_counts_toward_end=False)
    s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))
    s.apply(0, act("overflow", colour="orange", shape="star"))
    assert s.overflow[0] == (col("orange"),) and s.inventory[0] == 0


def test_one_kind_in_full_satchel_overflows_without_a_decision():
    s = make(lake=[("white", "triangle")] * 5, satchels=[[("white", "triangle")] * 3, []])
    s.apply(0, act("lake", leave_colour="white", leave_shape="triangle"))
    assert s.phase == MAIN and s.current == 1
    assert len(s.satchels[0]) == 5 and s.overflow[0] == (col("white"),) * 2


# -- end of the game ---------------------------------------------------------------------------------
def test_reaching_17_triggers_the_end_with_top_up_to_three():
    s = make(n=3, satchels=[[("white", "circle")], [("purple", "heart")] * 4, []],
             tiles={"square": [("purple", "heart")]}, columns=[[("purple", 3)]], inventory=[16, 0, 0],
             lake=LAKE, bag=[("yellow", "moon")] * 20)
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    assert s.inventory[0] == 17 and s.end_triggered
    # seat 1 keeps its 4 pieces; seats 0 and 2 draw blind from the bag up to 3
    assert [len(x) for x in s.satchels] == [3, 4, 3]
    # the lake is closed from now on
    assert not [a for a in s.legal_actions(1) if a.type.startswith("lake")]
    with pytest.raises(IllegalAction, match="not allowed once the end of the game has been triggered"):
        s.apply(1, act("lake", leave_colour="white", leave_shape="triangle"))


def test_finish_the_round_then_one_more_round():
    # triggered during seat 1's turn (turn 1 of round 1, 3 players): seat 2 finishes round 1,
    # then seats 0, 1, 2 play round 2, then the game ends.
    s = make(n=3, satchels=[[("white", "circle")] * 3] * 3, tiles={"square": [("purple", "heart")]},
             columns=[[], [("purple", 3)], []], inventory=[0, 16, 0], current=1,
             bag=[("yellow", "moon")] * 30)
    s.apply(1, act("place", colour="white", shape="circle"))
    s.apply(1, act("gather", tile="square"))
    order = []
    while not s.is_over():
        p = s.to_move()[0]
        order.append(p)
        s.step(p, s.legal_actions(p)[0])
        while s.to_move() == (p,):
            s.step(p, s.legal_actions(p)[0])
    assert order == [2, 0, 1, 2]
    assert s.phase == OVER and s.to_move() == ()


def test_trigger_at_the_last_seat_plays_one_more_full_round():
    s = make(n=2, satchels=[[("white", "circle")] * 3] * 2, tiles={"square": [("purple", "heart")]},
             columns=[[], [("purple", 3)]], inventory=[0, 16], current=1, bag=[("yellow", "moon")] * 30)
    s.apply(1, act("place", colour="white", shape="circle"))
    s.apply(1, act("gather", tile="square"))
    assert s.current == 0 and not s.is_over()
    s.step(0, s.legal_actions(0)[0])
    while s.current == 0 and not s.is_over():
        s.step(0, s.legal_actions(0)[0])
    assert not s.is_over() and s.current == 1
    s.step(1, s.legal_actions(1)[0])
    while s.current == 1 and not s.is_over():
        s.step(1, s.legal_actions(1)[0])
    assert s.is_over()


def test_overflow_triggers_the_end_only_when_it_counts():
    for counts, triggered in ((True, True), (False, False)):
        s = make(lake=LAKE, satchels=[[("dark blue", "circle")] * 2, []], inventory=[16, 0],
                 overflow_counts_toward_end=counts)
        s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))
        s.apply(0, act("overflow", colour="orange", shape="star"))
        assert s.end_triggered is triggered


def test_a_player_with_no_legal_action_passes():
    # final rounds: empty satchel, bag empty, lake closed
    s = make(satchels=[[], [("white", "circle")]], lake=LAKE)
    s.end_turn = 4
    assert s.legal_actions(0) == [PASS_ACT]
    s.apply(0, PASS_ACT)
    assert s.current == 1
    # passing is refused while another action exists
    with pytest.raises(IllegalAction, match="pass only when you have no legal action"):
        s.apply(1, PASS_ACT)


def test_game_ends_when_nobody_can_act():
    s = make(satchels=[[], []])  # empty satchels, empty lake, empty bag
    s.apply(0, PASS_ACT)
    assert not s.is_over()
    s.apply(1, PASS_ACT)
    assert s.is_over()


# -- turn order and information -------------------------------------------------------------------------
def test_not_your_turn_is_refused():
    s = make(satchels=[[("white", "circle")], [("white", "circle")]])
    with pytest.raises(IllegalAction, match="not your turn"):
        s.apply(1, act("place", colour="white", shape="circle"))
    assert s.legal_actions(1) == []


def test_view_hides_the_bag_order_and_determinize_resamples_it():
    s = GAME.new(4, 11)
    view = s.view(2)
    assert view["bag_size"] == len(s.bag)
    assert "bag" not in view
    det = s.determinize(2, Rng(5))
    assert det.view(2) == view
    assert sorted(det.bag) == sorted(s.bag) and det.bag != s.bag
    assert det.rng.s != s.rng.s


def test_json_round_trip_mid_turn():
    s = make(satchels=[[("white", "circle")], []], tiles={"square": [("orange", "heart"), ("yellow", "moon")]})
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    assert s.phase == ORDER
    again = GAME.from_json(s.to_json())
    assert canonical(again.to_json()) == canonical(s.to_json())
    assert [a.id for a in again.legal_actions(0)] == [a.id for a in s.legal_actions(0)]


def test_events_describe_the_turn():
    s = make(satchels=[[("white", "circle")], []], tiles={"square": [("orange", "heart")]},
             bag=[("yellow", "moon")] * 3)
    s.apply(0, act("place", colour="white", shape="circle"))
    events = s.apply(0, act("gather", tile="square"))
    types = [e["type"] for e in events]
    assert types == ["gather", "column", "river"]  # the tile flows after the glass is placed
    assert "{P0} gathers the square tile: orange heart." == format_text(events[0]["text"], [])


def test_columns_per_player_are_independent():
    s = _gather_pieces([("orange", "heart")], columns=[[], [("orange", 2)]])
    assert s.colcol[0] == col("orange") and s.colh[0] == 1
    assert s.colh[NCOL] == 2


# -- text rendering, heuristic ------------------------------------------------------------------
def test_text_renderer_draws_river_lake_and_boards():
    import io

    from rich.console import Console

    s = make(n=3, satchels=[[("white", "circle")], [], []], tiles={"square": [("orange", "heart")]},
             lake=LAKE, columns=[[("white", 2)], [], []])
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(GAME.render_text(s.view(0), 0))
    text = out.getvalue()
    for word in ("River", "square", "orange heart", "lake", "yellow moon", "Seat 1 (you)", "Seat 3",
                 "white circle", "inventory 0/17"):
        assert word in text, word


@pytest.mark.parametrize("n", [2, 5])
def test_view_carries_the_rarity_chart_of_every_board(n):
    s = GAME.new(n, 4)
    in_play = [c for c in COLOURS if n == 5 or c != "black"]
    chart = [{"colour": c, "count": GAME.data.colour_counts[COLOURS.index(c)]} for c in in_play]
    for viewer in (*range(n), None):  # public: the same for every seat and for a spectator
        view = s.view(viewer)
        assert [seat["rarity"] for seat in view["players"]] == [chart] * n
    assert chart[0] == {"colour": "white", "count": 22} and chart[7] == {"colour": "orange", "count": 9}


def test_view_carries_each_row_run_for_the_row_track():
    s = make(columns=[[("white", 3), ("purple", 1), ("orange", 2)], [("yellow", 1)]])
    view = s.view(0)
    assert view["players"][0]["row_runs"] == [3, 1, 1, 0, 0]
    assert view["players"][1]["row_runs"] == [1, 0, 0, 0, 0]
    assert view["row_track_known"] == [3]


def test_text_renderer_prints_the_rarity_chart_and_the_row_track():
    import io
    import re

    from rich.console import Console

    s = make(n=2, columns=[[("white", 3), ("purple", 1), ("orange", 2)], []])
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(GAME.render_text(s.view(0), 0))
    text = out.getvalue()
    assert text.count("rarity") == 2  # on each board
    for colour, count in (("white", 22), ("light blue", 17), ("dark green", 12), ("orange", 9)):
        assert len(re.findall(rf"■ {colour}\s+{count}\b", text)) == 2, colour
    assert "black" not in text  # black glass is in play only with 5 players
    # the row track under the columns, placeholders starred; the rows' current points
    assert len(re.findall(r"1\*\s+2\*\s+4\s+6\*\s+9\*\s+12\*\s+16\*\s+track", text)) == 2
    assert "1→1*, 2→2*, 3→4, 4→6*" in text
    assert "+4" in text and "+1" in text  # seat 1: bottom row 3 cells (4), second row 1 cell (1)


def test_greedy_heuristic_beats_random():
    from gemtable.games.glassworks.heuristics import heuristic

    wins = 0
    for g in range(10):
        s = GAME.new(2, g)
        me, rng = g % 2, Rng(500 + g)
        while not s.is_over():
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            if p == me:
                def value(a):
                    c = s.determinize(p, Rng(rng.next64()))
                    c.step(p, a)
                    return heuristic(c, p)
                a = max(acts, key=value)
            else:
                a = acts[rng.below(len(acts))]
            s.step(p, a)
        wins += s.winners() == [me]
    assert wins >= 9


def test_heuristic_values_gathering_the_better_tile():
    from gemtable.games.glassworks.heuristics import heuristic

    s = make(satchels=[[("white", "circle")], []], columns=[[("purple", 2), ("orange", 5)]],
             tiles={"heart": [("purple", "moon")] * 2, "square": [("orange", "star")] * 3})
    s.apply(0, act("place", colour="white", shape="circle"))
    good, bad = s.clone(), s.clone()
    good.step(0, act("gather", tile="heart"))
    bad.step(0, act("gather", tile="square"))  # the orange column is full: 3 pieces overflow
    assert heuristic(good, 0) > heuristic(bad, 0)


# -- options, prompts, messages ----------------------------------------------------------------
def test_option_values_and_default():
    assert GAME.new(2, 0).overflow_counts is True
    assert GAME.new(2, 0, overflow_counts_toward_end="false").overflow_counts is False
    assert GAME.new(2, 0).pair_own is False  # the rules summary: a pair is any *other* shape
    assert GAME.new(2, 0, pair_on_own_tile="true").pair_own is True
    from gemtable.core import OptionError

    with pytest.raises(OptionError):
        GAME.new(2, 0, overflow_counts_toward_end="maybe")
    with pytest.raises(OptionError):
        GAME.new(6, 0)
    with pytest.raises(OptionError):
        GAME.new(1, 0)  # the solo mode is not offered


def test_prompts_follow_the_decision_in_progress():
    s = _gather_pieces([("orange", "heart"), ("yellow", "moon")])
    assert "new colour" in s.prompt(0)
    assert s.prompt(1).startswith("Wait for seat 1")
    s = make(lake=LAKE, satchels=[[("dark blue", "circle")] * 2, []])
    assert "draw from the lake" in s.prompt(0)
    s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))
    assert "overflow" in s.prompt(0)
    s = make(satchels=[[("white", "circle")], []])
    s.apply(0, act("place", colour="white", shape="circle"))
    assert "gather" in s.prompt(0)


def test_wrong_decision_for_the_phase_is_refused_with_a_reason():
    s = make(satchels=[[("white", "circle")], []], lake=LAKE)
    with pytest.raises(IllegalAction, match="place glass in the river or draw from the lake"):
        s.apply(0, act("gather", tile="heart"))
    s.apply(0, act("place", colour="white", shape="circle"))
    with pytest.raises(IllegalAction, match="choose the adjacent tile"):
        s.apply(0, act("lake", leave_colour="yellow", leave_shape="moon"))


def test_views_are_the_same_for_every_seat_apart_from_the_personal_fields():
    s = GAME.new(3, 21)
    views = [s.view(p) for p in (0, 1, 2, None)]
    strip = [{k: v for k, v in view.items() if k not in ("viewer", "prompt")} for view in views]
    assert strip[0] == strip[1] == strip[2] == strip[3]
    assert views[0]["players"][1]["satchel"]  # satchels are open information


def test_top_up_takes_what_is_left_in_the_bag():
    s = make(n=2, satchels=[[("white", "circle")], []], tiles={"square": [("purple", "heart")]},
             columns=[[("purple", 3)]], inventory=[16, 0], bag=[("yellow", "moon")] * 2)
    s.apply(0, act("place", colour="white", shape="circle"))
    s.apply(0, act("gather", tile="square"))
    # the trigger comes when the glass is placed, before the river flows: seat 1 (empty
    # satchel) takes the last 2 pieces, seat 2 gets none, the moved tile is not refilled
    assert s.end_triggered and s.bag == []
    assert len(s.satchels[0]) == 2 and s.satchels[1] == () and s.tiles[tile("square")] == ()
