"""A fixed-length numeric observation of Mille Fiori for learning adapters.

Built only from what the observing seat may see: its own hand and secret pick,
the hands it has already seen (hand and pick merged, since it cannot tell which
card was picked from a hand it saw), the board, the display, the discard and
counts of everything else.  Seats are listed starting with the observer and
padded to four.  Cards are counted by kind (``rules.KIND_CODE`` order, NK kinds).

Layout:
phase one-hot (5) | tactical, ending, round, plays done, deck size, extra cards
pending, card in play is extra (7) | card in play one-hot (NK) | display counts
(NK) | discard counts (NK) | own pick one-hot (NK)
| board: per space, owner one-hot by relative seat (NS × 4)
| bonus-point spaces: per area and slot, owner one-hot by relative seat (5 × 4 × 4)
| per seat, observer first (4 ×): present, to move, current player, start player,
has picked, points, bonus points, personal diamonds, set-aside diamonds, ship,
hand size (without the pick), hand known, covered symbols (COVER_BITS), bonus claimed (5),
hand counts (NK; for another seat: hand + pick, only when known).
"""

from __future__ import annotations

from .rules import (
    D,
    FULL_COVER,
    HOUSES,
    NK,
    NS,
    OVER,
    PICKING,
    SEA_END,
    MilleFioriState,
)

MAX_SEATS = 4
NPHASES = 5
# bits of the per-area cover masks (houses: distinct house values)
AREA_BITS = tuple(
    len(D.house_distinct) if a == HOUSES else FULL_COVER[a].bit_length() for a in range(5)
)
COVER_BITS = sum(AREA_BITS)
SEAT = 12 + COVER_BITS + 5 + NK
GLOBAL = NPHASES + 7 + 4 * NK
BOARD_AT = GLOBAL  # start of the board block
BONUS_AT = BOARD_AT + NS * MAX_SEATS
SEATS_AT = BONUS_AT + 5 * 4 * MAX_SEATS  # start of the per-seat blocks
SIZE = SEATS_AT + MAX_SEATS * SEAT

_MAX_ROUNDS = max(
    (len(D.deck) - D.display[n]) // (n * D.hand_size) for n in D.display
)
_MAX_PLAYS = max(D.played_per_round.values())
_MAX_EXTRAS = 3.0
_POINTS = 200.0
_BONUS_POINTS = float(sum(max(b) for b in D.bonus))


def _counts(out: list[float], cards, scale: float = 1.0 / D.hand_size) -> None:
    vec = [0.0] * NK
    for k in cards:
        vec[k] += scale
    out += vec


def observation(state: MilleFioriState, player: int) -> list[float]:
    n = state.num_players
    ph = state.phase
    out: list[float] = [0.0] * NPHASES
    out[ph] = 1.0
    out += [
        1.0 if state.tactical else 0.0,
        1.0 if state.ending else 0.0,
        state.round / _MAX_ROUNDS,
        state.plays_done / _MAX_PLAYS,
        len(state.deck) / len(D.deck),
        state.extras / _MAX_EXTRAS,
        1.0 if state.card_extra else 0.0,
    ]
    card = [0.0] * NK
    if state.card >= 0:
        card[state.card] = 1.0
    out += card
    _counts(out, state.display, 1.0 / 10)
    _counts(out, state.discard, 1.0 / 10)
    pick = [0.0] * NK
    if state.picks[player] >= 0:
        pick[state.picks[player]] = 1.0
    out += pick

    # board spaces: owner by seat relative to the observer
    board = [0.0] * (NS * MAX_SEATS)
    for s, o in enumerate(state.owner):
        if o >= 0:
            board[s * MAX_SEATS + (o - player) % n] = 1.0
    out += board
    bonus = [0.0] * (5 * 4 * MAX_SEATS)
    for i, o in enumerate(state.bonus_owner):
        if o >= 0:
            bonus[i * MAX_SEATS + (o - player) % n] = 1.0
    out += bonus

    movers = state.to_move() if ph != OVER else ()
    for k in range(MAX_SEATS):
        if k >= n:
            out += [0.0] * SEAT
            continue
        p = (player + k) % n
        known = p == player or bool(state.seen[p] >> player & 1)
        picked = state.picks[p] >= 0
        hand = state.hands[p]
        out += [
            1.0,
            1.0 if p in movers else 0.0,
            1.0 if ph != PICKING and ph != OVER and p == state.cur else 0.0,
            1.0 if p == state.start else 0.0,
            1.0 if picked else 0.0,
            state.points[p] / _POINTS,
            state.bonus_pts[p] / _BONUS_POINTS,
            state.personal[p] / D.personal_diamonds,
            state.aside[p] / D.set_aside_diamonds,
            state.ship[p] / SEA_END,
            len(hand) / D.hand_size,
            1.0 if known else 0.0,
        ]
        cover = state.cover
        for a in range(5):
            c = cover[5 * p + a]
            out += [float(c >> b & 1) for b in range(AREA_BITS[a])]
        got = state.got_bonus[p]
        out += [float(got >> a & 1) for a in range(5)]
        if p == player:
            _counts(out, hand)
        elif known:
            _counts(out, hand + [state.picks[p]] if picked else hand)
        else:
            out += [0.0] * NK
    return out
