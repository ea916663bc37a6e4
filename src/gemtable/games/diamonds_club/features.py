"""A fixed-length numeric observation of Diamonds Club for learning adapters.

Every component lies face up (only the RNG, i.e. future market strips, is
hidden), so the observation reads the state directly.  Seats are listed
starting with the observer and padded to four.  Market slot i is market space i
(the index of the ``buy`` action), padded to the 8-strip market.

Layout:
phase one-hot (4) | round, ending, track choice pending, phase-4 stage (4) |
pending payment: board one-hot (NBOARDS) + tile one-hot (5)
| market, per space (6 rows × 8 strips): present, goods kind one-hot (6),
number (mining rights / ship / top hats), pit colour / animal / track one-hot (4),
occupied, coins on it, current price if vacant (15 each)
| price boards: per board, a piece of each seat (relative, 4) | building piles (4),
animal piles (3) | bonus cards: three-of-a-kind per building, all-four (2),
five-identical (2): owner one-hot by relative seat (4 each)
| per seat, observer first (4 ×): present, to move, passed, starting player,
place in the playing order, coins, gems (5: blue, yellow, green, red, diamond),
tracks (forest, tech, money), pits by colour (4), mining rights by value (10),
ships by value (10), buildings (4), forests, animals (3), mandatory spaces covered
(3), light-green covered, dark-green covered, start-track space, pieces beneath
on that space, price-board pieces used, current score.
"""

from __future__ import annotations

from .data import ANIMAL, HAT, MINE, PIT, SHIP, TRACK
from .rules import (
    BEYOND,
    BOARD_PIECES,
    BUILD,
    BUY,
    GEMS,
    GENMAX,
    MAX_COLS,
    NA,
    NB,
    NBOARDS,
    NC,
    NV,
    OVER,
    ROWS,
    TRACK_MAX,
    D,
    DiamondsClubState,
)

MAX_SEATS = 4
NPHASES = 4
SPACE = 15
NMAND = len(D.mandatory)
GLOBAL = NPHASES + 4 + NBOARDS + NB + 1
MARKET = ROWS * MAX_COLS * SPACE
SHARED = NBOARDS * MAX_SEATS + NB + NA + (NB + len(D.all_four_vp) + len(D.five_vp)) * MAX_SEATS
SEAT = 6 + 5 + 3 + NC + NV + NV + NB + 1 + NA + NMAND + 2 + 2 + 1 + 1
MARKET_AT = GLOBAL  # start of the market block
SHARED_AT = MARKET_AT + MARKET
SEATS_AT = SHARED_AT + SHARED  # start of the per-seat blocks
SIZE = SEATS_AT + SEAT * MAX_SEATS

_MAX_ROUNDS = 15.0
_MAX_COINS = float(max(D.money_coins))
_POINTS = 100.0


def _owner(out: list[float], owner: int, player: int, n: int) -> None:
    block = [0.0] * MAX_SEATS
    if owner >= 0:
        block[(owner - player) % n] = 1.0
    out += block


def observation(state: DiamondsClubState, player: int) -> list[float]:
    n = state.num_players
    ph = state.phase
    out: list[float] = [0.0] * NPHASES
    out[ph] = 1.0
    out += [
        min(1.0, state.round / _MAX_ROUNDS),
        1.0 if state.ending else 0.0,
        1.0 if ph == BUY and state.pend >= 0 else 0.0,
        float(state.stage) if ph == GEMS else 0.0,
    ]
    pay = [0.0] * (NBOARDS + NB + 1)
    if ph == BUILD and state.pend >= 0:
        pay[state.pend] = 1.0
        pay[NBOARDS + state.ptile] = 1.0
    out += pay

    # market: slot i = buy action i
    goods, cm, sur = state.goods, state.cm, state.sur
    nspaces = len(cm)
    for i in range(ROWS * MAX_COLS):
        block = [0.0] * SPACE
        if i < nspaces:
            kind, val = goods[i]
            block[0] = 1.0
            block[1 + kind] = 1.0
            if kind == MINE or kind == SHIP or kind == HAT:
                block[7] = val / 9.0
            elif kind == PIT or kind == ANIMAL or kind == TRACK:
                block[8 + val] = 1.0
            if cm[i]:
                block[12] = 1.0
                block[13] = cm[i] / 10.0
            else:
                block[14] = (1 + sur[i]) / 10.0
        out += block

    bp = state.bp
    for b in range(NBOARDS):
        x = bp[b]
        block = [0.0] * MAX_SEATS
        for k in range(n):
            if x >> ((player + k) % n) & 1:
                block[k] = 1.0
        out += block
    out += [t / D.tiles_per_building for t in state.tiles]
    out += [a / D.tiles_per_animal for a in state.apile]
    for b in range(NB):
        _owner(out, state.triple[b], player, n)
    for lst, slots in ((state.all4, len(D.all_four_vp)), (state.five, len(D.five_vp))):
        for i in range(slots):
            _owner(out, lst[i] if i < len(lst) else -1, player, n)

    mover = state.order[state.oi] if ph != OVER else -1
    order = state.order
    pos, seq = state.pos, state.seq
    for k in range(MAX_SEATS):
        if k >= n:
            out += [0.0] * SEAT
            continue
        p = (player + k) % n
        beneath = sum(1 for q in range(n) if q != p and pos[q] == pos[p] and seq[q] < seq[p])
        out += [
            1.0,
            1.0 if p == mover else 0.0,
            1.0 if state.passed >> p & 1 and (ph == BUY or ph == BUILD) else 0.0,
            1.0 if p == state.start else 0.0,
            order.index(p) / (n - 1),
            state.coins[p] / _MAX_COINS,
        ]
        out += [x / 10.0 for x in state.gems[p * 5:p * 5 + 5]]
        out += [state.tr[p * 3 + t] / TRACK_MAX[t] for t in range(3)]
        out += [x / 3.0 for x in state.pits[p * NC:(p + 1) * NC]]
        out += [x / 3.0 for x in state.mines[p * NV:(p + 1) * NV]]
        out += [x / 3.0 for x in state.ships[p * NV:(p + 1) * NV]]
        out += [x / 10.0 for x in state.bld[p * NB:(p + 1) * NB]]
        out.append(state.forests[p] / 10.0)
        out += [x / 5.0 for x in state.ani[p * NA:(p + 1) * NA]]
        m = state.mand[p]
        out += [float(m >> i & 1) for i in range(NMAND)]
        out += [
            state.gen[p] / GENMAX,
            state.dark[p] / D.dark_spaces,
            pos[p] / BEYOND,
            beneath / 3.0,
            state.used[p] / BOARD_PIECES,
            state.breakdown(p)["total"] / _POINTS,
        ]
    return out
