"""A fixed-length numeric observation of Splendor for learning adapters.

Built only from what the observing seat may see; seats are listed starting
with the observer (so a policy is seat-independent).  Layout:
bank (6) | phase one-hot (5) | last round (1) | 3 levels × 4 slots × card (12)
| deck sizes (3) | 5 nobles × (present + 5 needs) | per seat, observer first:
tokens (6), bonuses (5), points, purchased cards, nobles, 3 reserved × card (12)
where a card is present, hidden, points, bonus one-hot (5), cost (5)… less hidden for board cards.
"""

from __future__ import annotations

from .rules import BONUS, COST, FACE_UP, NOBLE_NEED, POINTS, SplendorState

CARD = 13  # present, hidden, points, bonus one-hot (5), cost (5)
MAX_SEATS = 4
SIZE = 6 + 5 + 1 + 3 * FACE_UP * CARD + 3 + 5 * 6 + MAX_SEATS * (6 + 5 + 3 + 3 * CARD)


def _card(out: list[float], cid: int, hidden: bool = False) -> None:
    if cid < 0:
        out.extend([0.0] * CARD)
        return
    if hidden:
        out.extend([1.0, 1.0] + [0.0] * (CARD - 2))
        return
    onehot = [0.0] * 5
    onehot[BONUS[cid]] = 1.0
    out.extend([1.0, 0.0, POINTS[cid] / 5.0, *onehot, *(c / 7.0 for c in COST[cid])])


def observation(state: SplendorState, player: int) -> list[float]:
    out: list[float] = [x / 7.0 for x in state.bank]
    phase = [0.0] * 5
    phase[state.phase] = 1.0
    out += phase
    out.append(1.0 if state.last_round else 0.0)
    for cid in state.board:
        _card(out, cid)
    out += [len(d) / 40.0 for d in state.decks]
    avail = list(state.avail)
    for i in range(5):
        if i < len(avail):
            out += [1.0, *(x / 4.0 for x in NOBLE_NEED[avail[i]])]
        else:
            out += [0.0] * 6
    n = state.num_players
    for k in range(MAX_SEATS):
        if k >= n:
            out += [0.0] * (6 + 5 + 3 + 3 * CARD)
            continue
        p = (player + k) % n
        out += [x / 10.0 for x in state.tok[p * 6:p * 6 + 6]]
        out += [x / 7.0 for x in state.bon[p * 5:p * 5 + 5]]
        out += [state.pts[p] / 15.0, state.ncards[p] / 20.0, len(state.nob[p]) / 3.0]
        res = state.res[p]
        for i in range(3):
            if i < len(res):
                cid = res[i]
                _card(out, cid, hidden=(p != player and bool(state.blind[p] >> cid & 1)))
            else:
                _card(out, -1)
    return out

