"""Mille Fiori bot heuristic: the in-place gain of a card use equals what the rules
score when the use is actually applied (points, bonus space, extra cards)."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.mille_fiori import heuristics as H
from gemtable.games.mille_fiori import rules as R
from gemtable.games.registry import get_game

GAME = get_game("mille_fiori")


def applied_gain(state: R.MilleFioriState, player: int, kind: int, action) -> float:
    """Reference: apply the use to a copy with the rules' own scoring and measure it."""
    c = state.clone()
    c.card, c.cur, c.extras = kind, player, 0
    before = c.points[player] + c.bonus_pts[player]
    if action is R.SAIL:
        c._sail(player, R.KWHEEL[kind])
    else:
        c._place(player, action.args["space"])
        if R.KAREA[kind] == R.HARBOR:
            c._sail(player, R.KWHEEL[kind])
    return c.points[player] + c.bonus_pts[player] - before + H.EXTRA_CARD_VALUE * c.extras


@pytest.mark.parametrize("players", [2, 3, 4])
def test_in_place_gain_matches_applying_the_use(players):
    rng = Rng(40 + players)
    checked = 0
    kinds_by_area = {}
    for game in range(2):
        s = GAME.new(players, seed=100 * players + game)
        while not s.is_over():
            if s.turn % 4 == 0:
                for p in range(players):
                    # every card kind, so every area and every board situation is probed
                    for kind in range(R.NK):
                        # use_spaces (the heuristic's) lists exactly the placements use_actions offers
                        places = [a.args["space"] for a in s.use_actions(p, kind) if a is not R.SAIL]
                        assert s.use_spaces(p, kind) == places
                        best = 0.0
                        for action in s.use_actions(p, kind):
                            want = applied_gain(s, p, kind, action)
                            best = max(best, want)
                            if action is R.SAIL:
                                got = H.sail_gain(s, p, R.KWHEEL[kind])
                            else:
                                got = H.place_gain(s, p, kind, action.args["space"])
                                if R.KAREA[kind] == R.HARBOR:
                                    got += H.sail_gain(s, p, R.KWHEEL[kind])
                            assert got == want, (p, R.KIND_CODE[kind], action.text)
                            checked += 1
                            kinds_by_area[R.KAREA[kind]] = kinds_by_area.get(R.KAREA[kind], 0) + 1
                        assert H.card_gain(s, p, kind) == best
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            s.step(p, acts[rng.below(len(acts))])
    assert checked > 1000
    assert len(kinds_by_area) == 6


def test_rollout_policy_uses_a_card_where_it_gains_most():
    from .test_rules import BLUE, RED, SWAN, blank, put, take_card, trade

    s = blank(2)
    put(s, BLUE, trade(0, SWAN))
    put(s, BLUE, trade(1, SWAN))
    k = take_card(s, "swan-1")
    s.cur, s.phase, s.card, s.card_extra, s.extras = RED, R.USING, k, False, 0
    rng = Rng(3)
    # a swan: 3 points and an extra card (Blue has more swans) beat sailing 1 space (1 point)
    for _ in range(5):
        action = H.rollout_policy(s, RED, rng)
        assert action.type == "place" and R.AREA[action.args["space"]] == R.TRADE
    # far along the sea track, the same card sails: stopping on 20 scores 20 and a star
    s.ship[RED] = 19
    assert H.rollout_policy(s, RED, rng) is R.SAIL
    # picking: the card with the best immediate gain
    s.ship[RED] = 0
    s.phase, s.card = R.PICKING, -1
    s.picks = [-1, -1]
    weak = take_card(s, "glassware-1")
    s.hands[RED] = sorted([k, weak])
    assert H.rollout_policy(s, RED, rng) is R.PICK[k]
    # an extra card is taken from the display the same way
    s.phase, s.extras, s.display = R.EXTRA_CARD, 1, sorted([weak, k])
    assert H.rollout_policy(s, RED, rng) is R.EXTRA[k]
