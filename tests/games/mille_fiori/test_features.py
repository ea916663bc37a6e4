"""Mille Fiori's numeric observation (features.py): size, values, seat order, secrecy."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.mille_fiori import features as F
from gemtable.games.mille_fiori import rules as R
from gemtable.games.registry import get_game

GAME = get_game("mille_fiori")
NK = R.NK
CARD_AT = 12  # card in play one-hot
DISPLAY_AT = CARD_AT + NK
PICK_AT = CARD_AT + 3 * NK


def seat(obs, k):
    """The k-th seat block (k = 0: the observer)."""
    return obs[F.SEATS_AT + k * F.SEAT:F.SEATS_AT + (k + 1) * F.SEAT]


def hand(obs, k):
    """The k-th seat's hand counts (k = 0: the observer), as far as the observer knows them."""
    return obs[F.HANDS_AT + k * NK:F.HANDS_AT + (k + 1) * NK]


def play(state, steps, seed=0):
    rng = Rng(seed)
    for _ in range(steps):
        if state.is_over():
            break
        p = state.to_move()[rng.below(len(state.to_move()))]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
    return state


def test_private_fields_are_the_pick_and_the_hands():
    assert [f.name for f in F.LAYOUT.fields if f.private] == ["own_pick", "hands"]


def test_wired_into_the_game():
    assert GAME.observation is F.observation
    assert GAME.observation_size == F.SIZE


@pytest.mark.parametrize("draft", ["simultaneous", "tactical"])
@pytest.mark.parametrize("n", GAME.player_counts)
def test_length_is_fixed_at_every_player_count(n, draft):
    s = GAME.new(n, 7, draft=draft)
    for steps in (0, 5, 40, 10_000):
        play(s, steps, seed=steps)
        for p in range(n):
            obs = F.observation(s, p)
            assert len(obs) == F.SIZE
            assert all(isinstance(x, float) for x in obs)
            assert all(-1e-9 <= x <= 1.5 for x in obs)


def test_values_on_a_hand_made_state():
    s = GAME.new(3, 1, draft="tactical")
    s.points = [10, 50, 0]
    s.ship = [0, 0, 20]
    s.owner[5] = 2
    s.bonus_owner[0] = 1
    s.got_bonus[1] = 1 << 0
    s.cover[5 * 1 + 0] = 0b0101
    s.display = [3, 3, 8]
    obs = F.observation(s, 1)
    assert len(obs) == F.SIZE
    assert obs[R.CHOOSING] == 1.0 and obs[5] == 1.0  # phase, tactical
    assert obs[DISPLAY_AT + 3] == pytest.approx(0.2) and obs[DISPLAY_AT + 8] == pytest.approx(0.1)
    # space 5 belongs to seat 2 = one seat after the observer (seat 1)
    assert obs[F.BOARD_AT + 5 * 4:F.BOARD_AT + 6 * 4] == [0.0, 1.0, 0.0, 0.0]
    assert obs[F.BONUS_AT:F.BONUS_AT + 4] == [1.0, 0.0, 0.0, 0.0]
    me = seat(obs, 0)
    assert me[0] == 1.0 and me[5] == pytest.approx(50 / 200)
    assert me[12:16] == [1.0, 0.0, 1.0, 0.0]  # workshop symbols covered
    cover_bits = F.COVER_BITS
    assert me[12 + cover_bits:12 + cover_bits + 5] == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert seat(obs, 1)[9] == 1.0  # seat 2's ship at the end of the sea
    assert seat(obs, 3) == [0.0] * F.SEAT and hand(obs, 3) == [0.0] * NK  # no fourth seat
    # own hand, by kind
    own = hand(obs, 0)
    for k in set(s.hands[1]):
        assert own[k] == pytest.approx(s.hands[1].count(k) / 5)
    assert sum(own) == pytest.approx(len(s.hands[1]) / 5)


def test_seats_are_listed_from_the_observer():
    s = GAME.new(4, 2)
    s.points = [1, 2, 3, 4]
    for p in range(4):
        obs = F.observation(s, p)
        assert [seat(obs, k)[5] * 200 for k in range(4)] == pytest.approx(
            [s.points[(p + k) % 4] for k in range(4)])


def test_hidden_hands_and_picks_leave_no_trace():
    s = GAME.new(3, 5)  # simultaneous draft
    p0_pick = s.hands[0][0]
    s.step(0, R.PICK[p0_pick])
    s.step(1, R.PICK[s.hands[1][0]])
    obs = F.observation(s, 0)
    assert obs[PICK_AT + p0_pick] == 1.0  # the observer's own secret pick
    assert sum(hand(obs, 1)) == 0.0  # another seat's unseen hand is not shown
    for i in range(5):
        det = s.determinize(0, Rng(i))
        assert F.observation(det, 0) == obs
    # other seats see only that seat 0 has picked
    obs1 = F.observation(s, 1)
    assert seat(obs1, 2)[4] == 1.0 and sum(obs1[PICK_AT:PICK_AT + NK]) == 1.0


def test_a_seen_hand_is_shown_with_its_pick_merged():
    s = GAME.new(2, 3)
    while s.plays_done == 0:  # play one full pass: hands then pass to the left
        p = s.to_move()[0]
        s.step(p, s.legal_actions(p)[0])
    assert s.seen[1] >> 0 & 1  # seat 0 has seen the hand seat 1 now holds
    s.step(1, R.PICK[s.hands[1][0]])
    obs = F.observation(s, 0)
    other = seat(obs, 1)
    assert other[11] == 1.0
    cards = s.hands[1] + [s.picks[1]]
    assert sum(hand(obs, 1)) == pytest.approx(len(cards) / 5)
    for kind in set(cards):
        assert hand(obs, 1)[kind] == pytest.approx(cards.count(kind) / 5)
    for i in range(5):
        assert F.observation(s.determinize(0, Rng(i)), 0) == obs
