"""Mille Fiori evaluation for bots: an estimate of a seat's final score.

Counts what is certain (points on the track and bonus-point spaces already
claimed), then what is likely to come:
- the card the seat holds (its secret pick, or the card it is playing): the
  best immediate gain it can make with it (placement or sail, counting a
  bonus claimed and extra cards earned), measured by trying each use on a
  scratch copy;
- extra cards waiting to be played;
- progress towards each bonus-point space still available (squared share of
  the symbols / distinct values needed, times the best free value).
"""

from __future__ import annotations

from .data import BONUS_AREAS, HARBOR, HOUSES
from .rules import (
    BONUS,
    FULL_COVER,
    HBONUS,
    KAREA,
    KWHEEL,
    SAIL,
    USING,
    MilleFioriState,
    _bits,
)

EXTRA_CARD_VALUE = 4.0
BONUS_WEIGHT = 0.5
NEEDED = tuple(HBONUS if a == HOUSES else _bits(FULL_COVER[a]) for a in range(BONUS_AREAS))


def card_gain(state: MilleFioriState, player: int, kind: int) -> float:
    """Best immediate gain of ``player`` playing card ``kind`` now."""
    best = 0.0
    for action in state.use_actions(player, kind):
        c = state.clone()
        c.card, c.cur, c.extras = kind, player, 0
        before = c.points[player] + c.bonus_pts[player]
        if action is SAIL:
            c._sail(player, KWHEEL[kind])
        else:
            space = action.args["space"]
            c._place(player, space)
            if KAREA[kind] == HARBOR:
                c._sail(player, KWHEEL[kind])
        gain = c.points[player] + c.bonus_pts[player] - before + EXTRA_CARD_VALUE * c.extras
        if gain > best:
            best = gain
    return best


def bonus_potential(state: MilleFioriState, player: int) -> float:
    value = 0.0
    got = state.got_bonus[player]
    for area in range(BONUS_AREAS):
        if got >> area & 1:
            continue
        free = [BONUS[area][i] for i in range(4) if state.bonus_owner[area * 4 + i] < 0]
        if not free:
            continue
        share = min(1.0, _bits(state.cover[5 * player + area]) / NEEDED[area])
        value += BONUS_WEIGHT * free[0] * share * share
    return value


def heuristic(state: MilleFioriState, player: int) -> float:
    value = float(state.points[player] + state.bonus_pts[player])
    if state.is_over():
        return value
    value += bonus_potential(state, player)
    held = state.picks[player]
    if held < 0 and state.phase == USING and state.cur == player:
        held = state.card
    if held >= 0:
        value += card_gain(state, player, held)
    if state.cur == player:
        value += EXTRA_CARD_VALUE * state.extras
    return value
