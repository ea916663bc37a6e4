"""Diamonds Club's numeric observation (features.py) and action texts (State.action_text)."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club import features as F
from gemtable.games.diamonds_club import rules as R
from gemtable.games.diamonds_club.data import ANIMAL, MINE, PIT

A = GAME.actions
BLUE, YELLOW, GREEN, RED, DIA = range(5)
FOUNTAIN = 0


def seat(obs, k):
    return obs[F.SEATS_AT + k * F.SEAT:F.SEATS_AT + (k + 1) * F.SEAT]


def space(obs, i):
    return obs[F.MARKET_AT + i * F.SPACE:F.MARKET_AT + (i + 1) * F.SPACE]


def set_goods(s, i, kind, val, *more):
    """Hand-made market space ``i`` showing (kind, val) and any further (kind, val) goods."""
    g = list(s.market_goods)
    g[i] = ((kind, val),) + tuple(more)
    s.market_goods = tuple(g)


def test_wired_into_the_game():
    assert GAME.observation is F.observation
    assert GAME.observation_size == F.SIZE


@pytest.mark.parametrize("n", GAME.player_counts)
def test_length_is_fixed_at_every_player_count(n):
    s = GAME.new(n, 11)
    rng = Rng(n)
    steps = 0
    while True:
        if steps % 7 == 0 or s.is_over():
            for p in range(n):
                obs = F.observation(s, p)
                assert len(obs) == F.SIZE
                assert all(isinstance(x, float) for x in obs)
                assert all(0.0 <= x <= 1.5 for x in obs)
        if s.is_over():
            break
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        s.step(p, acts[rng.below(len(acts))])
        steps += 1


def test_values_on_a_hand_made_state():
    s = GAME.new(2, 0)  # 4 strips: market spaces 0..23
    set_goods(s, 12, MINE, 4)
    set_goods(s, 13, PIT, RED)
    set_goods(s, 14, ANIMAL, 1)
    s.cm[11] = 2
    s.sur[12] = 2
    s.coins = [7, 14]
    s.gems[1 * 5:2 * 5] = [0, 2, 0, 0, 1]
    s.bld[1 * 4 + FOUNTAIN] = 3
    s.triple[FOUNTAIN] = 1
    s.bp[0] = 1 << 1
    obs = F.observation(s, 1)
    assert len(obs) == F.SIZE
    assert obs[R.BUY] == 1.0
    mine = space(obs, 12)
    assert mine[0] == 1.0 and mine[1 + MINE] == 1.0 and mine[7] == pytest.approx(4 / 9)
    assert mine[12] == 0.0 and mine[14] == pytest.approx(3 / 10)  # vacant, costs 1 + 2
    assert space(obs, 13)[8 + RED] == 1.0
    assert space(obs, 14)[1 + ANIMAL] == 1.0 and space(obs, 14)[9] == 1.0
    taken = space(obs, 11)
    assert taken[12] == 1.0 and taken[13] == pytest.approx(0.2) and taken[14] == 0.0
    assert space(obs, 24) == [0.0] * F.SPACE  # beyond a 2-player market
    shared = obs[F.SHARED_AT:]
    assert shared[0:4] == [1.0, 0.0, 0.0, 0.0]  # the observer's piece on the first board
    triple = F.NBOARDS * 4 + R.NB + R.NA
    assert shared[triple:triple + 4] == [1.0, 0.0, 0.0, 0.0]
    me = seat(obs, 0)
    assert me[0] == 1.0 and me[5] == pytest.approx(1.0)  # 14 coins
    assert me[6:11] == pytest.approx([0.0, 0.2, 0.0, 0.0, 0.1])
    assert me[38] == pytest.approx(0.3)
    assert me[-1] == pytest.approx(s.breakdown(1)["total"] / 100)
    assert seat(obs, 1)[5] == pytest.approx(7 / 14)
    assert seat(obs, 2) == [0.0] * F.SEAT and seat(obs, 3) == [0.0] * F.SEAT


def test_seats_are_listed_from_the_observer():
    s = GAME.new(4, 3)
    s.coins = [1, 2, 3, 4]
    for p in range(4):
        obs = F.observation(s, p)
        assert [round(seat(obs, k)[5] * 14) for k in range(4)] == [s.coins[(p + k) % 4] for k in range(4)]
        assert seat(obs, 0)[1] == (1.0 if p == s.to_move()[0] else 0.0)


def test_only_the_rng_differs_after_determinize():
    s = GAME.new(3, 8)
    obs = F.observation(s, 0)
    for i in range(3):
        assert F.observation(s.determinize(0, Rng(i)), 0) == obs


# -- action texts ---------------------------------------------------------------------------
def test_buy_text_names_the_goods_and_the_price():
    s = GAME.new(2, 0)
    set_goods(s, 12, MINE, 4)
    s.sur[12] = 2
    p = s.to_move()[0]
    buy12 = A.get("buy", space=12)
    assert buy12 in s.legal_actions(p)
    assert s.action_text(p, buy12) == "place 3 coins on strip 1, row 4: mining rights 4"  # 4 strips: space 12 = row 4
    set_goods(s, 3, PIT, RED)
    s.sur[3] = 0
    assert s.action_text(p, A.get("buy", space=3)) == "place 1 coin on strip 4, row 1: red pit"
    # a space that is not on offer keeps the fixed text
    assert s.action_text(p, A.get("buy", space=40)) == A.get("buy", space=40).text


def test_buy_texts_follow_the_market_as_it_fills():
    s = GAME.new(3, 5)
    p = s.to_move()[0]
    s.apply(p, A.get("buy", space=0))
    q = s.to_move()[0]
    for a in s.legal_actions(q):
        if a.type == "buy":
            i = a.args["space"]
            kind, val = s.goods[i]
            price = 1 + s.sur[i]
            assert s.action_text(q, a).startswith(f"place {price} coin")
            assert s.action_text(q, a).endswith(f"on {R.space_name(i, s.cols)}: {R.goods_label(kind, val)}")


def test_track_and_build_texts():
    s = GAME.new(2, 0)
    s.tr[0 * 3 + 1] = 2  # seat 0 on the third tech space
    tech = A.get("track", track="tech")
    assert s.action_text(0, tech) == "advance on the tech track (to space 4 of 5)"
    s.bp[0] = 1 << 1  # the other seat already used the fountain board
    text = s.action_text(0, A.get("build", board="fountain", tile="fountain"))
    assert text == "build a fountain from the fountain price board for 4 gems (2 blue + 1 yellow + 1 surcharge)"
    assert s.action_text(0, R.PASS) == "pass"
