"""Splendor evaluation for bots: an estimate of a seat's final prestige points.

Points already earned count in full.  The engine that earns future points is
valued below them but above the tokens it costs, so that buying a card is
always better than holding the tokens it cost: each bonus (a permanent
discount) is worth more than the 3–4 tokens a level-1 card costs.  Progress
towards the nobles still on the table and reserved cards weighted by how
close the seat is to affording them add the rest.
"""

from __future__ import annotations

from .rules import (
    COST,
    COST_NZ,
    END_POINTS,
    NOBLE_NEED,
    NOBLE_POINTS,
    OVER,
    POINTS,
    SplendorState,
)

BONUS_WEIGHT = 0.9
TOKEN_WEIGHT = 0.1
GOLD_WEIGHT = 0.15


def heuristic(state: SplendorState, player: int) -> float:
    o, b = player * 6, player * 5
    tok, bon = state.tok, state.bon
    bonuses = bon[b:b + 5]
    value = float(state.pts[player])
    value += BONUS_WEIGHT * sum(bonuses)
    value += TOKEN_WEIGHT * sum(tok[o:o + 5]) + GOLD_WEIGHT * tok[o + 5]
    for nid in state.avail:
        need = NOBLE_NEED[nid]
        have = sum(min(bonuses[i], need[i]) for i in range(5))
        value += NOBLE_POINTS[nid] * 0.5 * (have / sum(need)) ** 2
    power = [tok[o + i] + bonuses[i] for i in range(5)]
    gold = tok[o + 5]
    for cid in state.res[player]:
        short = sum(max(0, COST[cid][i] - power[i]) for i in range(5)) - gold
        value += 0.4 * POINTS[cid] / (1 + max(0, short))
    return value


# -- value features (the learned evaluator's linear part; see Game.value_features) ----------
VALUE_FEATURE_NAMES = (
    "points", "points_lead",
    "cards", "cards_lead",
    "tokens", "tokens_lead",
    "gold", "gold_lead",
    "buy_now", "buy_now_lead",
    "reach", "reach_lead",
    "nobles", "nobles_lead",
    "reserved", "reserved_lead",
    "seat_order", "to_move", "last_round", "progress",
)


def _seat_stats(state: SplendorState, q: int) -> tuple[float, ...]:
    """One seat's summary: points, cards, tokens, gold, the most points it can buy now,
    the points within reach (each target card's points divided by one plus the gems it
    still lacks, best three), expected noble points and reserved cards."""
    o, b = q * 6, q * 5
    tok, bon = state.tok, state.bon
    bonuses = bon[b:b + 5]
    power = [tok[o + i] + bonuses[i] for i in range(5)]
    gold = tok[o + 5]
    buy_now = 0
    reach: list[float] = []
    for cid in (*state.board, *state.res[q]):
        if cid < 0:
            continue
        short = 0
        for i, a in COST_NZ[cid]:
            if a > power[i]:
                short += a - power[i]
        short -= gold
        pts = POINTS[cid]
        if short <= 0:
            if pts > buy_now:
                buy_now = pts
        reach.append((pts + 0.5) / (1 + max(0, short)))
    reach.sort(reverse=True)
    nobles = 0.0
    for nid in state.avail:
        need = NOBLE_NEED[nid]
        have = sum(min(bonuses[i], need[i]) for i in range(5))
        nobles += NOBLE_POINTS[nid] * (have / sum(need)) ** 2
    return (state.pts[q] / END_POINTS, sum(bonuses) / END_POINTS, sum(tok[o:o + 5]) / 10.0, gold / 5.0,
            buy_now / 5.0, sum(reach[:3]) / 10.0, nobles / 3.0, len(state.res[q]) / 3.0)


def value_features(state: SplendorState, player: int) -> list[float]:
    """``player``'s summary and its lead over the best other seat on each figure, then its
    place in the turn order, whether it is to move, the last round and the game's progress."""
    return _features(state, [_seat_stats(state, q) for q in range(state.num_players)], player)


def value_features_all(state: SplendorState) -> list[list[float]]:
    """Every seat's :func:`value_features`, each seat's summary computed once."""
    stats = [_seat_stats(state, q) for q in range(state.num_players)]
    return [_features(state, stats, p) for p in range(state.num_players)]


def _features(state: SplendorState, stats: list[tuple[float, ...]], player: int) -> list[float]:
    n = state.num_players
    mine = stats[player]
    out: list[float] = []
    for k, v in enumerate(mine):
        out.append(v)
        out.append(v - max(stats[q][k] for q in range(n) if q != player))
    out.append(player / (n - 1))
    out.append(1.0 if state.phase != OVER and state.cur == player else 0.0)
    out.append(1.0 if state.last_round else 0.0)
    out.append(max(state.pts) / END_POINTS)
    return out
