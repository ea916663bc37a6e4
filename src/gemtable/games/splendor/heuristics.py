"""Splendor evaluation for bots: an estimate of a seat's final prestige points.

Counts points already earned, then the engine that earns future points:
bonuses (permanent discounts), progress towards the nobles still on the
table, tokens in hand (a little), and reserved cards weighted by how close
the seat is to affording them.
"""

from __future__ import annotations

from .rules import COST, NOBLE_NEED, NOBLE_POINTS, POINTS, SplendorState


def heuristic(state: SplendorState, player: int) -> float:
    o, b = player * 6, player * 5
    tok, bon = state.tok, state.bon
    bonuses = bon[b:b + 5]
    value = float(state.pts[player])
    value += 0.45 * sum(bonuses)
    value += 0.12 * sum(tok[o:o + 5]) + 0.2 * tok[o + 5]
    for nid in state.avail:
        need = NOBLE_NEED[nid]
        total = sum(need)
        have = sum(min(bonuses[i], need[i]) for i in range(5))
        value += NOBLE_POINTS[nid] * (have / total) ** 3 * 0.6
    power = [tok[o + i] + bonuses[i] for i in range(5)]
    gold = tok[o + 5]
    for cid in state.res[player]:
        short = sum(max(0, COST[cid][i] - power[i]) for i in range(5)) - gold
        value += POINTS[cid] * (0.5 if short <= 0 else 0.5 / (1 + short))
    return value
