"""A fixed-length numeric observation of Splendor for learning adapters.

Built only from what the observing seat may see; seats are listed starting
with the observer (so a policy is seat-independent).  ``LAYOUT`` names every
index (``LAYOUT.describe()``).  A card is 13 numbers: present, hidden, points / 5,
bonus one-hot (5), cost / 7 (5); a card another seat reserved blind shows only
``present, hidden``.  The observer's own reserved cards are its private
information (a blind reservation is known to it alone).

Fast path: each card's row is precomputed, so the board and the reserved cards
are filled by one row gather each; counts are copied in bulk and scaled once.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gemtable.core.observation import ObservationLayout, Scratch, seat_rotations

from .rules import BONUS, COST, FACE_UP, NCARDS, NOBLE_NEED, POINTS, SplendorState

CARD = 13  # present, hidden, points, bonus one-hot (5), cost (5)
MAX_SEATS = 4
MAX_RESERVED = 3
NNOBLES = 5
_BANK = 7.0

LAYOUT = L = ObservationLayout()
BANK = L.add("bank", 6, high=1.0, help="tokens in the bank / 7 (five colours, gold)")
PHASE = L.add("phase", 5, help="one-hot: main, return, noble, pay, over")
LAST_ROUND = L.add("last_round", 1, help="1 once someone reached the points that end the game")
BOARD = L.add("board", 3 * FACE_UP * CARD, high=1.0,
              help="3 levels × 4 face-up cards × card (13): present, hidden, points / 5, bonus one-hot, cost / 7")
DECKS = L.add("deck_sizes", 3, help="cards left per level deck / 40")
NOBLES = L.add("nobles", NNOBLES * 6, help="per noble on offer: present, needs per colour / 4")
SEATS_AT = L.size
for _k in range(MAX_SEATS):
    L.add(f"seat{_k}.tokens", 6, high=1.0, help="tokens / 10 (k = 0: the observer)")
    L.add(f"seat{_k}.bonuses", 5, high=NCARDS / 7.0, help="card bonuses per colour / 7")
    L.add(f"seat{_k}.points", 1, high=2.0, help="prestige / 15, clipped to 2")
    L.add(f"seat{_k}.cards", 1, high=NCARDS / 20.0, help="cards bought / 20")
    L.add(f"seat{_k}.nobles", 1, high=NNOBLES / 3.0, help="nobles received / 3")
    L.add(f"seat{_k}.reserved", MAX_RESERVED * CARD, high=1.0, private=_k == 0,
          help="reserved cards (a card reserved blind by another seat: present, hidden only)")
SEAT = (L.size - SEATS_AT) // MAX_SEATS
SIZE = L.size
L.check()

# one row per card; row NCARDS = hidden card, row -1 (last) = no card
_ROWS = np.zeros((NCARDS + 2, CARD), np.float32)
for _cid in range(NCARDS):
    _ROWS[_cid, 0] = 1.0
    _ROWS[_cid, 2] = POINTS[_cid] / 5.0
    _ROWS[_cid, 3 + BONUS[_cid]] = 1.0
    _ROWS[_cid, 8:13] = np.asarray(COST[_cid], np.float32) / 7.0
_ROWS[NCARDS, 0:2] = 1.0
_HIDDEN = NCARDS
_NOBLE_ROWS = np.zeros((len(NOBLE_NEED) + 1, 6), np.float32)
for _nid, _need in enumerate(NOBLE_NEED):
    _NOBLE_ROWS[_nid, 0] = 1.0
    _NOBLE_ROWS[_nid, 1:] = np.asarray(_need, np.float32) / 4.0

_SCALE = np.ones(SIZE, np.float32)  # raw counts are written, then scaled once
_SCALE[BANK:BANK + 6] = 1 / _BANK
_SCALE[DECKS:DECKS + 3] = 1 / 40
for _k in range(MAX_SEATS):
    _b = SEATS_AT + _k * SEAT
    _SCALE[_b:_b + 14] = [1 / 10] * 6 + [1 / 7] * 5 + [1 / 15, 1 / 20, 1 / 3]
_BOARD_N = 3 * FACE_UP
_NONE = [-1] * MAX_RESERVED
_RES = MAX_RESERVED * CARD


# -- incremental fill -------------------------------------------------------------------------
# Kept in absolute seat order in a Scratch buffer, every source re-encoded only when it
# changed; reserved cards are kept as every other seat sees them (blind ones hidden) and the
# observer's own are written afterwards, straight into ``out``.


@cache
def _scratch(n: int) -> tuple:
    sc = Scratch(SIZE)
    counts = []  # tok (6 per seat), bon (5 per seat), then pts, ncards, nobles per seat
    counts += [SEATS_AT + q * SEAT + i for q in range(n) for i in range(6)]
    counts += [SEATS_AT + q * SEAT + 6 + i for q in range(n) for i in range(5)]
    counts += [SEATS_AT + q * SEAT + 11 + i for i in range(3) for q in range(n)]
    perms = seat_rotations(SIZE, n, blocks=((SEATS_AT, SEAT),))
    return (sc, np.array(counts, np.intp), perms)


def _fill(s: SplendorState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    sc, counts_at, perms = _scratch(n)
    buf, snap, hot = sc.buf, sc.snap, sc.hot
    sc.bytes_into("bank", s.bank, _BANK_AT)
    sc.onehot("phase", PHASE + s.phase)
    buf[LAST_ROUND] = 1.0 if s.last_round else 0.0
    if snap.get("board") != s.board:
        snap["board"] = s.board[:]
        np.take(_ROWS, s.board, axis=0, out=buf[BOARD:BOARD + _BOARD_N * CARD].reshape(_BOARD_N, CARD),
                mode="wrap")
    d = s.decks
    buf[DECKS:DECKS + 3] = (len(d[0]), len(d[1]), len(d[2]))
    avail = s.avail
    if hot.get("avail") != avail:
        hot["avail"] = avail
        buf[NOBLES:NOBLES + NNOBLES * 6] = 0.0
        k = min(len(avail), NNOBLES)
        if k:
            np.take(_NOBLE_ROWS, list(avail)[:k], axis=0, out=buf[NOBLES:NOBLES + 6 * k].reshape(k, 6))
    nob = s.nob
    sc.bytes_into("seats", s.tok + s.bon + [min(x, 30) for x in s.pts] + s.ncards
                  + [len(x) for x in nob], counts_at)
    res, blind = s.res, s.blind
    if snap.get("res") != res or snap.get("blind") != blind:
        snap["res"], snap["blind"] = res[:], blind[:]
        cards = []
        for q in range(n):
            b = blind[q]
            cards += [_HIDDEN if b >> cid & 1 else cid for cid in res[q]] if b else res[q]
            cards += _NONE[len(res[q]):]
        rows = _ROWS.take(cards, axis=0)
        for q in range(n):
            at = SEATS_AT + q * SEAT + 14
            buf[at:at + _RES] = rows[q * MAX_RESERVED:(q + 1) * MAX_RESERVED].ravel()
    # into the observer's seat order, scaled (a plain gather is the fastest numpy form)
    np.multiply(buf.take(perms[player]), _SCALE, out=out)
    if blind[player]:  # the observer sees its own blind reservations
        own = list(res[player]) + _NONE[len(res[player]):]
        out[_OWN_RES:_OWN_RES + _RES] = _ROWS.take(own, axis=0).ravel()


_BANK_AT = np.arange(BANK, BANK + 6)
_OWN_RES = SEATS_AT + 14

observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation
