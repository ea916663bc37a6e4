"""heuristic(state, player): an estimate of ``player``'s final score (for greedy bots).

Current victory points, plus rough values for what will become points: gems (a building is
about 3 gems for 4 VP), the gems complete equipment sets will give in phase 4, partial sets,
the development tracks (worth more the more rounds are likely left), minus a penalty for
open mandatory spaces (and the gems still missing for them) that grows as the first park
nears completion: a player who misses them at the end is not scored at all.

Building piles are finite and every forest is turned from one of the fullest piles, so a
small term weighs the piles the player still needs (an open mandatory space above all, then
the missing types of the next all-four-buildings group) by how few tiles they have left.
It decides which of several tied piles to turn over for a forest: one the player does not
need, preferably one an opponent does.
"""

from __future__ import annotations

from .data import DATA as D

GEM_VALUE = 1.1
DIAMOND_VALUE = 1.4
EQUIP_VALUE = 0.6
HAT_VALUE = 0.15
PILE_NEED_MANDATORY = 3.0  # a tile for an open mandatory space
PILE_NEED_GROUP = 1.0  # a type missing from the next all-four-buildings group
PILE_SCARCITY = 2.0  # value of need / (tiles left + 1)
NEED = {}
for _b in D.boards:
    if _b.kind == "building":
        NEED[_b.tile] = _b.gems


def heuristic(state, player: int) -> float:
    p = player
    bd = state.breakdown(p)
    score = float(bd["total"])
    if state.is_over():
        if state.excluded(p):
            return 0.0
        return score + 0.01 * sum(state.gems[p * 5:p * 5 + 5])
    g = list(state.gems[p * 5:p * 5 + 5])
    score += GEM_VALUE * sum(g[:4]) + DIAMOND_VALUE * g[4]
    pits = [c for c in range(4) for _ in range(state.pits[p * 4 + c])]
    mines = sorted((v for v in range(10) for _ in range(state.mines[p * 10 + v])), reverse=True)
    ships = sorted((v for v in range(10) for _ in range(state.ships[p * 10 + v])), reverse=True)
    sets = min(len(pits), len(mines), len(ships))
    tech = state.tr[p * 3 + 1]
    for i in range(sets):
        k = min(mines[i], ships[i]) + D.tech_gems[tech]
        score += GEM_VALUE * k + DIAMOND_VALUE * D.tech_diamonds[tech]
        g[pits[i]] += k
        g[4] += D.tech_diamonds[tech]
    score += EQUIP_VALUE * (len(pits) + len(mines) + len(ships) - 3 * sets)
    n = state.num_players
    progress = max(state.light_covered(q) for q in range(n)) / D.light_spaces
    rounds_left = 1.0 if state.ending else max(1.0, 5.0 * (1.0 - progress))
    score += 0.8 * state.tr[p * 3] * (1 + 0.5 * state.forests[p]) * (0.3 if state.ending else 1.0)
    score += 0.6 * (D.tech_gems[tech] + D.tech_diamonds[tech]) * rounds_left
    score += 0.5 * state.tr[p * 3 + 2] * rounds_left
    m = state.mand[p]
    missing = [D.mandatory[i] for i in range(len(D.mandatory)) if not m >> i & 1]
    if missing:
        need = [0, 0, 0, 0]
        for b in missing:
            for c in range(4):
                need[c] += NEED.get(b, (0, 0, 0, 0))[c]
        deficit = max(0, sum(max(0, need[c] - g[c]) for c in range(4)) - g[4])
        if state.ending:
            score -= 0.7 * score + 4.0 * len(missing)
        else:
            score -= len(missing) * (1.5 + 12.0 * progress * progress)
        score -= deficit * (0.3 + 3.0 * progress)
    score += HAT_VALUE * state.pos[p]
    score -= PILE_SCARCITY * _pile_need(state, p, missing)
    return score


def _pile_need(state, p: int, missing) -> float:
    """Need for each building pile, weighted by how close the pile is to running out."""
    tiles = state.tiles
    bld = state.bld[p * 4:p * 4 + 4]
    low = min(bld)
    group = len(state.all4) < len(D.all_four_vp)
    total = 0.0
    for b in range(4):
        need = PILE_NEED_MANDATORY * missing.count(b)
        if group and bld[b] == low:
            need += PILE_NEED_GROUP
        if need:
            total += need / (tiles[b] + 1)
    return total
