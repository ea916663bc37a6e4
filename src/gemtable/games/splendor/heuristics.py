"""Splendor evaluation for bots: an estimate of a seat's final prestige points.

Points already earned count in full.  The engine that earns future points is
valued below them but above the tokens it costs, so that buying a card is
always better than holding the tokens it cost: each bonus (a permanent
discount) is worth more than the 3–4 tokens a level-1 card costs.  Progress
towards the nobles still on the table and reserved cards weighted by how
close the seat is to affording them add the rest.
"""

from __future__ import annotations

from .rules import COST, NOBLE_NEED, NOBLE_POINTS, POINTS, SplendorState

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
