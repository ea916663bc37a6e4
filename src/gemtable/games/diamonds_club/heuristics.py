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
from .rules import BEYOND, BUY, OVER, TRACK_MAX

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
    n = state.num_players
    return _heuristic(state, player, state.breakdown(player)["total"],
                      max(state.light_covered(q) for q in range(n)) / D.light_spaces)


def _heuristic(state, p: int, total: int, progress: float) -> float:
    """:func:`heuristic` given ``p``'s victory points now and the fullest park's progress."""
    score = float(total)
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


# -- value features (learned evaluator) -------------------------------------------------
# Summary numbers of one seat's position for the linear part of a learned evaluator
# (Game.value_features): the seat's own figure and its lead over the best other seat
# ("_diff": own minus the largest other seat's), roughly unit scale.
VALUE_FEATURE_NAMES = (
    "progress",  # the end trigger: the fullest park's covered light-green spaces / 14
    "last_round",  # 1 once some park is complete: this round is the last
    "points", "points_diff",  # victory points now / 60
    "gems", "gems_diff",  # gems (diamonds count 1.25) plus what complete equipment sets will give / 12
    "park", "park_diff",  # own covered light-green spaces / 14
    "coins", "coins_diff",  # coins to spend in the buy phase / 14, the money track top (0 after it)
    "start_track", "start_track_diff",  # start-track space in the buy phase / 10 (diamond, order)
    "forest_track", "tech_track", "money_track",  # development track steps taken / steps there are
    "mandatory_missing",  # open mandatory spaces / 3: not covering them means scoring nothing
    "mandatory_danger",  # open mandatory spaces / 3 × progress²: the threat grows as the end nears
    "mandatory_gems_short",  # gems still missing to build the open mandatory buildings / 9
    "loose_equipment",  # equipment tiles outside complete sets / 3 (part of the next set)
    "animals_towards_set",  # animal kinds held beyond the complete sets / 3 (next 10-point set)
)
POINTS_SCALE = 60.0
GEM_SCALE = 12.0
DIAMOND_GEMS = 1.25
COIN_SCALE = float(D.money_coins[-1])
TRACK_SCALE = tuple(float(x) for x in TRACK_MAX)
MANDATORY_NEED = tuple(NEED.get(b, (0, 0, 0, 0)) for b in D.mandatory)


def value_features(state, player: int) -> list[float]:
    """``player``'s position against the other seats (see VALUE_FEATURE_NAMES); pure."""
    return _seat_features(state, player, _shared(state))


def value_features_all(state) -> list[list[float]]:
    """Every seat's value features at once (row p = ``value_features(state, p)``)."""
    shared = _shared(state)
    return [_seat_features(state, p, shared) for p in range(state.num_players)]


def value_context(state) -> tuple[list[float], list[list[float]]]:
    """Every seat's :func:`heuristic` and value features, each seat's score breakdown and
    the parks' progress worked out once (``Game.value_context``)."""
    n = state.num_players
    totals = [state.breakdown(q)["total"] for q in range(n)]
    shared = _shared(state, totals)
    return ([_heuristic(state, q, totals[q], shared[0]) for q in range(n)],
            [_seat_features(state, p, shared) for p in range(n)])


def _shared(s, totals: list[int] | None = None) -> tuple:
    """Per seat: the figures compared between seats (points, gem power, park, coins, start
    track), the gems after trading the complete equipment sets and the loose equipment;
    and the progress of the fullest park.  ``totals``: each seat's victory points, when
    the caller has them."""
    n = s.num_players
    light = D.light_spaces
    buying = s.phase == BUY  # phase 2 of the round: coins and the start track still count
    gems, pits, mines, ships, tr = s.gems, s.pits, s.mines, s.ships, s.tr
    rows = []
    after = []  # gems once the complete sets are traded (colours, then diamonds)
    loose = []
    covered_max = 0
    for q in range(n):
        g = gems[q * 5:q * 5 + 5]
        power = g[0] + g[1] + g[2] + g[3] + DIAMOND_GEMS * g[4]
        pq = pits[q * 4:q * 4 + 4]
        npits = pq[0] + pq[1] + pq[2] + pq[3]
        mq = mines[q * 10:q * 10 + 10]
        sq = ships[q * 10:q * 10 + 10]
        nm = sum(mq)
        ns = sum(sq)
        sets = min(npits, nm, ns)
        if sets:
            tech = tr[q * 3 + 1]
            mv = sorted((v for v in range(10) for _ in range(mq[v])), reverse=True)
            sv = sorted((v for v in range(10) for _ in range(sq[v])), reverse=True)
            pit_cols = [c for c in range(4) for _ in range(pq[c])]
            extra = D.tech_gems[tech]
            dia = D.tech_diamonds[tech]
            g = list(g)
            for i in range(sets):
                k = min(mv[i], sv[i]) + extra
                power += k + DIAMOND_GEMS * dia
                g[pit_cols[i]] += k
                g[4] += dia
        after.append(g)
        loose.append(npits + nm + ns - 3 * sets)
        covered = s.gen[q] + s.mand[q].bit_count()
        covered_max = max(covered_max, covered)
        rows.append((
            (0.0 if s.excluded(q) else (s.breakdown(q)["total"] if totals is None else totals[q])) / POINTS_SCALE,
            power / GEM_SCALE,
            covered / light,
            s.coins[q] / COIN_SCALE if buying else 0.0,
            s.pos[q] / BEYOND if buying else 0.0,
        ))
    return covered_max / light, rows, after, loose


def _seat_features(s, p: int, shared: tuple) -> list[float]:
    progress, rows, after, loose = shared
    n = s.num_players
    mine = rows[p]
    others = [rows[q] for q in range(n) if q != p]
    out = [progress, 1.0 if (s.ending or s.phase == OVER) else 0.0]
    for x, rival in zip(mine, map(max, zip(*others))):
        out.append(x)
        out.append(x - rival)
    t = s.tr[p * 3:p * 3 + 3]
    out.extend((t[0] / TRACK_SCALE[0], t[1] / TRACK_SCALE[1], t[2] / TRACK_SCALE[2]))
    m = s.mand[p]
    missing = 0
    need = [0, 0, 0, 0]
    for i in range(len(MANDATORY_NEED)):
        if not m >> i & 1:
            missing += 1
            req = MANDATORY_NEED[i]
            for c in range(4):
                need[c] += req[c]
    short = 0
    if missing:
        g = after[p]
        short = max(0, sum(max(0, need[c] - g[c]) for c in range(4)) - g[4])
    out.append(missing / 3.0)
    out.append(missing / 3.0 * progress * progress)
    out.append(short / 9.0)
    out.append(loose[p] / 3.0)
    a = s.ani[p * 3:p * 3 + 3]
    base = min(a)
    out.append(((a[0] > base) + (a[1] > base) + (a[2] > base)) / 3.0)
    return out
