"""River Valley Glassworks playout policy (heuristics.rollout_policy): the gains it computes
without copying the state equal what the rules give when the move is actually applied, and
it prefers the clearly better move."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks import heuristics as H
from gemtable.games.glassworks import rules as R

from .helpers import act, make


def test_wired_into_the_game():
    assert GAME.rollout_policy is H.rollout_policy
    assert GAME.extra["rollout_length"] > 0


def finish_gather(state: R.GlassworksState, player: int) -> None:
    """Open the new colours' columns most pieces first (equal counts: colour order)."""
    while state.phase == R.ORDER and state.current == player:
        counts = {c: state.pending.count(c) for c in set(state.pending)}
        top = max(counts.values())
        state.step(player, R.COLUMN_ACT[min(c for c in counts if counts[c] == top)])


def check_gather(before: R.GlassworksState, after: R.GlassworksState, player: int, tile: int) -> None:
    colcol, heights, overflow = H.gather_after(before, player, tile)
    base = player * R.NCOL
    assert after.colcol[base:base + R.NCOL] == colcol
    assert after.heights(player) == heights
    assert len(after.overflow[player]) == overflow
    # the rules' own scoring of the gathered glassworks
    assert after.scores()[player] == R.score_of(heights, overflow)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_in_place_gathers_match_applying_them(players):
    """Every gather (chosen, or automatic after a placement on an end tile) predicted in place
    equals gathering on a copy with the rules: same columns, overflow and score."""
    rng = Rng(70 + players)
    checked = auto = overflowed = 0
    for game in range(12):
        s = GAME.new(players, seed=10 * players + game)
        while not s.is_over():
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            if s.phase == R.GATHER:
                for t in s.gather_options():
                    c = s.clone()
                    c.step(p, R.GATHER_ACT[t])
                    finish_gather(c, p)
                    check_gather(s, c, p, t)
                    overflowed += len(c.overflow[p]) > len(s.overflow[p])
                    checked += 1
            elif s.phase == R.MAIN:
                for a in acts:
                    kind, code, _, pair_tile = R.INFO_T[a.id]
                    if kind not in (R.K_PLACE, R.K_PAIR):
                        continue
                    c = s.clone()
                    c.step(p, a)
                    if c.phase == R.GATHER:
                        continue
                    # a tile at one end of the river: its only neighbour is gathered at once
                    tile = R.SHAPE_OF[code] if kind == R.K_PLACE else pair_tile
                    i = s.river.index(tile)
                    (only,) = [s.river[j] for j in (i - 1, i + 1) if 0 <= j < R.NS]
                    finish_gather(c, p)
                    check_gather(s, c, p, only)
                    auto += 1
            s.step(p, acts[rng.below(len(acts))])
    assert checked > 100 and auto > 100 and overflowed >= 3


def finish_turn(state: R.GlassworksState, player: int) -> None:
    """Complete the turn: new colours' columns as above, a full satchel's excess to overflow
    (any pieces: the glassworks and its score are the same whichever go)."""
    finish_gather(state, player)
    while state.phase == R.OVERFLOW and state.current == player:
        state.step(player, state.legal_actions(player)[0])


def after(state: R.GlassworksState, player: int, action) -> list[R.GlassworksState]:
    """The action applied to copies, the turn completed (a placement: with each gather)."""
    c = state.clone()
    c.step(player, action)
    if c.phase != R.GATHER:
        finish_turn(c, player)
        return [c]
    out = []
    for t in c.gather_options():
        g = c.clone()
        g.step(player, R.GATHER_ACT[t])
        finish_turn(g, player)
        out.append(g)
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_main_values_match_applying_the_move(players):
    """The value given to each start-of-turn action in place equals the heuristic (the final
    score once the game ends) after the action and its best gather are applied to a copy.
    Moves that trigger the end are left out: the policy does not foresee the trigger (the
    heuristic then values the satchel lower)."""
    rng = Rng(90 + players)
    checked = lakes = last = 0
    for game in range(4):
        s = GAME.new(players, seed=50 + 10 * players + game)
        while not s.is_over():
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            if s.phase == R.MAIN and acts != [R.PASS_ACT]:
                for a, value in H.main_values(s, p):
                    results = after(s, p, a)
                    if s.end_turn < 0 and any(c.end_turn >= 0 for c in results):
                        continue
                    assert value == max(H.heuristic(c, p) for c in results), a.text
                    checked += 1
                    lakes += a.type.startswith("lake")
                    last += 0 <= s.end_turn <= s.turn + 1
            s.step(p, acts[rng.below(len(acts))])
    assert checked > 500 and lakes > 50 and last > 5


def test_policy_leaves_the_state_untouched_and_moves_legally():
    rng = Rng(5)
    for game in range(3):
        s = GAME.new(3, seed=game)
        while not s.is_over():
            p = s.to_move()[0]
            before = s.to_json()
            a = H.rollout_policy(s, p, Rng(rng.next64()))
            assert s.to_json() == before
            assert a in s.legal_actions(p)
            s.step(p, a)


def test_policy_places_where_the_gather_is_best():
    # the circle tile sits between the heart tile (two purple pieces, for the purple column)
    # and the square tile (three orange, but the orange column is full: they would overflow);
    # the star tile's neighbours are empty
    s = make(river=["triangle", "heart", "circle", "square", "star", "moon"],
             satchels=[[("white", "circle"), ("white", "star")], []],
             columns=[[("purple", 2), ("orange", 5)]],
             tiles={"heart": [("purple", "moon")] * 2, "square": [("orange", "star")] * 3})
    rng = Rng(1)
    for _ in range(20):
        assert H.rollout_policy(s, 0, rng) is act("place", colour="white", shape="circle")
    s.apply(0, act("place", colour="white", shape="circle"))
    assert s.phase == R.GATHER
    for _ in range(20):
        assert H.rollout_policy(s, 0, rng) is act("gather", tile="heart")


def test_policy_draws_from_the_lake_only_when_it_pays():
    lake = [("white", "moon"), ("purple", "moon"), ("yellow", "heart"), ("orange", "star"), ("white", "star")]
    # nothing worth gathering anywhere and a small satchel: draw
    s = make(river=["triangle", "heart", "circle", "square", "star", "moon"],
             satchels=[[("white", "circle")], []], lake=lake)
    rng = Rng(2)
    for _ in range(10):
        assert H.rollout_policy(s, 0, rng).type == "lake"
    # a full satchel would send drawn pieces to overflow: place instead
    s = make(river=["triangle", "heart", "circle", "square", "star", "moon"],
             satchels=[[("white", "circle")] * 5, []], lake=lake,
             tiles={"heart": [("white", "moon")]}, columns=[[("white", 1)]])
    for _ in range(10):
        assert H.rollout_policy(s, 0, rng) is act("place", colour="white", shape="circle")


def test_policy_opens_the_next_column_with_the_most_pieces():
    s = make(river=["triangle", "heart", "circle", "square", "star", "moon"],
             satchels=[[("white", "triangle")], []],
             tiles={"heart": [("yellow", "moon"), ("orange", "moon"), ("orange", "star")]})
    s.apply(0, act("place", colour="white", shape="triangle"))  # only neighbour: the heart tile
    assert s.phase == R.ORDER
    assert H.rollout_policy(s, 0, Rng(3)) is act("column", colour="orange")


def test_policy_overflows_a_piece_of_the_shape_held_most():
    s = make(satchels=[[("white", "circle"), ("purple", "circle"), ("white", "heart"), ("yellow", "star")], []],
             lake=[("orange", "circle"), ("orange", "moon"), ("white", "moon")])
    s.apply(0, act("lake_all"))
    assert s.phase == R.OVERFLOW  # 7 pieces: two must go
    rng = Rng(4)
    for _ in range(10):
        assert H.rollout_policy(s, 0, rng).args["shape"] == "circle"
