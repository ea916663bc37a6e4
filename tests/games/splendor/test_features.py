"""Splendor's numeric observation (features.py): layout, values, seat order, secrecy."""

from __future__ import annotations

import numpy as np
import pytest

from gemtable.core import Rng
from gemtable.games.splendor import GAME
from gemtable.games.splendor import features as F
from gemtable.games.splendor import rules as R

L = F.LAYOUT


def test_wired_into_the_game():
    assert GAME.observation_layout is L and GAME.observation_size == L.size == F.SIZE
    assert GAME.observation(GAME.new(2, 0), 0) == L.fill(GAME.new(2, 0), 0).tolist()


def test_only_the_observers_reserved_cards_are_private():
    private = [f.name for f in L.fields if f.private]
    assert private == ["seat0.reserved"]


def test_values_on_a_hand_made_state():
    s = GAME.new(3, 4)
    s.tok[1 * 6:2 * 6] = [1, 2, 0, 0, 3, 1]
    s.pts[1] = 6
    cid = s.board[0]
    blind = next(c for c in range(R.NCARDS) if c not in s.board)
    s.res[2] = (cid, blind)
    s.blind[2] = 1 << blind
    obs = L.fill(s, 1)
    me = obs[F.SEATS_AT:F.SEATS_AT + F.SEAT]
    assert me[:6] == pytest.approx([0.1, 0.2, 0, 0, 0.3, 0.1])
    assert me[11] == pytest.approx(6 / 15)
    # seat 2 (next after the observer) reserved a face-up card and a blind one
    res = L.get(obs, "seat1.reserved").reshape(3, F.CARD)
    assert res[0][0] == 1 and res[0][1] == 0 and res[0][2] == pytest.approx(R.POINTS[cid] / 5)
    assert res[0][3 + R.BONUS[cid]] == 1 and res[0][8:] == pytest.approx(np.array(R.COST[cid]) / 7)
    assert res[1].tolist() == [1.0, 1.0] + [0.0] * (F.CARD - 2)  # blind: present, hidden, nothing else
    assert not res[2].any()
    # seat 2 itself sees its blind card
    own = L.get(L.fill(s, 2), "seat0.reserved").reshape(3, F.CARD)
    assert own[1][1] == 0 and own[1][3 + R.BONUS[blind]] == 1
    assert L.get(obs, "seat3.tokens").tolist() == [0.0] * 6  # padding for the missing fourth seat
    board = L.get(obs, "board").reshape(12, F.CARD)
    assert board[0][0] == 1 and board[0][3 + R.BONUS[cid]] == 1


def test_a_blind_reservation_leaves_no_trace_for_others():
    s = GAME.new(2, 9)
    s.apply(0, R.BLIND[0])
    assert s.blind[0]
    obs = L.fill(s, 1).copy()
    for i in range(5):
        np.testing.assert_array_equal(L.fill(s.determinize(1, Rng(i)), 1), obs)
