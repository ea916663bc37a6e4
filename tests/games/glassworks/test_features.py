"""River Valley Glassworks' numeric observation (features.py): size, values, seat order."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks import features as F
from gemtable.games.glassworks.rules import NC, NCOL, NS, score_of

from .helpers import col, make, piece, tile

RIVER_AT = 10
BLOCK = NS + 1 + NC  # one river position
LAKE_AT = RIVER_AT + NS * BLOCK + 2 * NS + NC
BAG_AT = LAKE_AT + F.NP
COLUMNS_AT = 3 + F.NP  # within a seat block


def seat(obs, k):
    return obs[F.SEATS_AT + k * F.SEAT:F.SEATS_AT + (k + 1) * F.SEAT]


def test_wired_into_the_game():
    assert GAME.observation is F.observation
    assert GAME.observation_size == F.SIZE


@pytest.mark.parametrize("n", GAME.player_counts)
def test_length_is_fixed_at_every_player_count(n):
    s = GAME.new(n, 4)
    rng = Rng(n)
    while True:
        for p in range(n):
            obs = F.observation(s, p)
            assert len(obs) == F.SIZE
            assert all(isinstance(x, float) for x in obs)
        if s.is_over():
            break
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        s.step(p, acts[rng.below(len(acts))])


def test_values_on_a_hand_made_state():
    s = make(
        3,
        river=["moon", "star", "square", "circle", "heart", "triangle"],
        tiles={"star": [("white", "moon"), ("white", "heart"), ("orange", "star")]},
        lake=[("purple", "heart"), ("purple", "heart")],
        satchels=[[], [("yellow", "circle")], []],
        columns=[[], [("white", 3), ("purple", 1)], []],
        bag=[("white", "moon")] * 11,
        overflow=[[], ["white"], []],
        inventory=[0, 5, 0],
        current=1,
    )
    obs = F.observation(s, 1)
    assert len(obs) == F.SIZE
    assert obs[0] == 1.0  # main phase
    # river position 1 (downstream of the moon) is the star tile, holding 2 white, 1 orange
    pos1 = obs[RIVER_AT + BLOCK:RIVER_AT + 2 * BLOCK]
    assert pos1[tile("star")] == 1.0 and pos1[NS] == pytest.approx(1 / 2)
    assert pos1[NS + 1 + col("white")] == pytest.approx(2 / 4)
    assert pos1[NS + 1 + col("orange")] == pytest.approx(1 / 4)
    assert obs[LAKE_AT + piece("purple", "heart")] == pytest.approx(1.0)
    assert obs[BAG_AT + col("white")] == pytest.approx(11 / 22)
    me = seat(obs, 0)
    assert me[0] == 1.0 and me[1] == 1.0  # present, to move
    assert me[2 + piece("yellow", "circle")] == pytest.approx(0.5)
    first = me[COLUMNS_AT:COLUMNS_AT + NC + 1]
    assert first[col("white")] == 1.0 and first[NC] == pytest.approx(3 / 5)
    assert me[-3] == pytest.approx(0.1)  # one piece in overflow
    assert me[-1] == pytest.approx(score_of([3, 1] + [0] * (NCOL - 2), 1) / 100)
    assert seat(obs, 1)[1] == 0.0
    assert seat(obs, 3) == [0.0] * F.SEAT and seat(obs, 4) == [0.0] * F.SEAT


def test_seats_are_listed_from_the_observer():
    s = make(5, inventory=[1, 2, 3, 4, 5])
    for p in range(5):
        obs = F.observation(s, p)
        got = [round(seat(obs, k)[-2] * NCOL * 5) for k in range(5)]
        assert got == [s.inventory[(p + k) % 5] for k in range(5)]


def test_bag_order_is_not_observed():
    s = GAME.new(4, 9)
    obs = F.observation(s, 2)
    dets = [s.determinize(2, Rng(i)) for i in range(5)]
    assert any(d.bag != s.bag for d in dets)  # the hidden order does change
    for det in dets:
        assert F.observation(det, 2) == obs
