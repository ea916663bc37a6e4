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
    COST_NZ,
    END_POINTS,
    NOBLE_NEED,
    NOBLE_NZ,
    NOBLE_POINTS,
    OVER,
    POINTS,
    SplendorState,
)

NOBLE_SUM = tuple(sum(need) for need in NOBLE_NEED)

BONUS_WEIGHT = 0.9
TOKEN_WEIGHT = 0.1
GOLD_WEIGHT = 0.15


def heuristic(state: SplendorState, player: int) -> float:
    return _seat(state, player, False)[0]


def _short(cid: int, power: list[int], gold: int) -> int:
    """Gems still missing to buy card ``cid`` with ``power`` (tokens plus bonuses) and ``gold``."""
    short = 0
    for i, a in COST_NZ[cid]:
        if a > power[i]:
            short += a - power[i]
    return short - gold


def _seat(state: SplendorState, q: int, stats: bool) -> tuple[float, tuple[float, ...] | None]:
    """``q``'s :func:`heuristic` and, when ``stats``, its :func:`_seat_stats` summary, from
    one pass over the seat's bonuses, tokens, the nobles and the cards."""
    o, b = q * 6, q * 5
    tok, bon = state.tok, state.bon
    bonuses = bon[b:b + 5]
    value = float(state.pts[q])
    value += BONUS_WEIGHT * sum(bonuses)
    value += TOKEN_WEIGHT * sum(tok[o:o + 5]) + GOLD_WEIGHT * tok[o + 5]
    nobles = 0.0
    for nid in state.avail:
        have = 0
        for i, a in NOBLE_NZ[nid]:
            have += a if bonuses[i] > a else bonuses[i]  # noqa: FURB136 (min() is slower here)
        share = (have / NOBLE_SUM[nid]) ** 2
        value += NOBLE_POINTS[nid] * 0.5 * share
        nobles += NOBLE_POINTS[nid] * share
    power = [tok[o + i] + bonuses[i] for i in range(5)]
    gold = tok[o + 5]
    buy_now = 0
    reach: list[float] = []
    if stats:
        for cid in state.board:
            if cid >= 0:
                short = -gold  # _short, inline: this loop is the search's hottest
                for i, a in COST_NZ[cid]:
                    if a > power[i]:
                        short += a - power[i]
                pts = POINTS[cid]
                if short <= 0 and pts > buy_now:
                    buy_now = pts
                reach.append((pts + 0.5) / (1 + (short if short > 0 else 0)))  # noqa: FURB136 (as above)
    for cid in state.res[q]:
        short = _short(cid, power, gold)
        pts = POINTS[cid]
        value += 0.4 * pts / (1 + max(0, short))
        if short <= 0 and pts > buy_now:
            buy_now = pts
        reach.append((pts + 0.5) / (1 + max(0, short)))
    if not stats:
        return value, None
    reach.sort(reverse=True)
    return value, (state.pts[q] / END_POINTS, sum(bonuses) / END_POINTS, sum(tok[o:o + 5]) / 10.0, gold / 5.0,
                   buy_now / 5.0, sum(reach[:3]) / 10.0, nobles / 3.0, len(state.res[q]) / 3.0)


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
    return _seat(state, q, True)[1]


def value_features(state: SplendorState, player: int) -> list[float]:
    """``player``'s summary and its lead over the best other seat on each figure, then its
    place in the turn order, whether it is to move, the last round and the game's progress."""
    return _features(state, [_seat_stats(state, q) for q in range(state.num_players)], player)


def value_features_all(state: SplendorState) -> list[list[float]]:
    """Every seat's :func:`value_features`, each seat's summary computed once."""
    return value_context(state)[1]


def value_context(state: SplendorState) -> tuple[list[float], list[list[float]]]:
    """Every seat's :func:`heuristic` and :func:`value_features`, each seat's cards and
    nobles looked at once (``Game.value_context``)."""
    seats = [_seat(state, q, True) for q in range(state.num_players)]
    stats = [st for _, st in seats]
    return [h for h, _ in seats], [_features(state, stats, p) for p in range(state.num_players)]


def _features(state: SplendorState, stats: list[tuple[float, ...]], player: int) -> list[float]:
    n = state.num_players
    mine = stats[player]
    best = stats[1 - player] if n == 2 else [max(col) for col in zip(*(stats[q] for q in range(n) if q != player))]
    out: list[float] = []
    for v, b in zip(mine, best):
        out.append(v)
        out.append(v - b)
    out.append(player / (n - 1))
    out.append(1.0 if state.phase != OVER and state.cur == player else 0.0)
    out.append(1.0 if state.last_round else 0.0)
    out.append(max(state.pts) / END_POINTS)
    return out
