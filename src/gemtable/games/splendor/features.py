"""A fixed-length numeric observation of Splendor for learning adapters.

Built only from what the observing seat may see; seats are listed starting
with the observer (so a policy is seat-independent).  ``LAYOUT`` names every
index (``LAYOUT.describe()``).  A card is 13 numbers: present, hidden, points / 5,
bonus one-hot (5), cost / 7 (5); a card another seat reserved blind shows only
``present, hidden``.  The observer's own reserved cards are its private
information (a blind reservation is known to it alone).

Fast path: one buffer per observer, kept in its seat order and already scaled;
only the entries whose source changed are rewritten, then the buffer is copied
into ``out`` (see the comment above ``_fill``).
"""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import ne

import numpy as np

from gemtable.core.observation import ObservationLayout

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
# One buffer per (players, observer), kept in that observer's seat order and already scaled
# (every entry is float32(raw) * float32(scale), the same floats as scaling the vector at
# once).  Every source list is compared (in C) with what that buffer was built from and only
# its changed entries are rewritten, found with ``compress(range, map(ne, new, old))`` (also in
# C) and written through a memoryview (no NumPy call per entry).  Card rows come from a
# precomputed table; the board is encoded once per board and the noble and reserved-card
# blocks are memoised, so an observer catching up copies them in.  The buffer goes to ``out``
# in one memcpy.
_F32 = np.float32


def _scaled(scale: float, top: int) -> list[float]:
    """count -> float32(count) * float32(scale), as Python floats (exact float32 values)."""
    return (np.arange(top + 1, dtype=np.float32) * _F32(scale)).tolist()


_BANK_F = _scaled(1 / _BANK, 255)
_DECK_F = _scaled(1 / 40, 255)
_TOK_F = _scaled(1 / 10, 255)
_BON_F = _scaled(1 / 7, 255)
_R6 = range(6)
_LAST_BOARD: list = [None, None]
_PTS_F = _scaled(1 / 15, 30)
_CARDS_F = _scaled(1 / 20, NCARDS)
_NOBLES_F = _scaled(1 / 3, NNOBLES)
_BLOCKS: dict = {}


def _block(key: tuple, make, *args) -> memoryview:
    """``make(*args)`` as a memoryview, memoised by ``key``."""
    got = _BLOCKS.get(key)
    if got is None:
        if len(_BLOCKS) > 200_000:
            _BLOCKS.clear()
        got = _BLOCKS[key] = memoryview(make(*args))
    return got


def _board(board: tuple) -> np.ndarray:
    return _ROWS.take(board, axis=0, mode="wrap").ravel()


def _nobles(avail: tuple) -> np.ndarray:
    block = np.zeros(NNOBLES * 6, np.float32)
    k = min(len(avail), NNOBLES)
    if k:
        block[:6 * k] = _NOBLE_ROWS.take(list(avail)[:k], axis=0).ravel()
    return block


def _reserved(res: tuple, blind: int) -> np.ndarray:
    cards = [_HIDDEN if blind >> cid & 1 else cid for cid in res] + _NONE[len(res):]
    return _ROWS.take(cards, axis=0).ravel()


class _View:
    """One observer's buffer and what it was built from."""

    __slots__ = (
        "avail",
        "bank",
        "base",
        "blind",
        "board",
        "bon",
        "bon_at",
        "buf",
        "decks",
        "last",
        "m",
        "ncards",
        "nob",
        "phase",
        "pts",
        "res",
        "rot",
        "tok",
        "tok_at",
    )

    def __init__(self, n: int, p: int) -> None:
        self.buf = np.zeros(SIZE, np.float32)
        self.m = memoryview(self.buf)
        rot = self.rot = [(q - p) % n for q in range(n)]  # absolute seat -> relative seat
        self.base = [SEATS_AT + r * SEAT for r in rot]  # absolute seat -> its block
        self.tok_at = [b + i for b in self.base for i in range(6)]
        self.bon_at = [b + 6 + i for b in self.base for i in range(5)]
        self.board = self.decks = self.avail = None
        self.pts = [-1] * n
        self.ncards = [-1] * n
        self.nob = [None] * n
        self.res = [None] * n
        self.blind = [-1] * n
        self.bank = [-1] * 6  # no count is negative: every entry is written the first time
        self.tok = [-1] * (6 * n)
        self.bon = [-1] * (5 * n)
        self.phase = -1
        self.last = False


@cache
def _views(n: int) -> tuple:
    return tuple(_View(n, p) for p in range(n))


def _fill(s: SplendorState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    v = _views(n)[player]
    m = v.m
    bank = s.bank
    if v.bank != bank:
        old = v.bank
        for i in compress(_R6, map(ne, bank, old)):  # the changed entries only
            m[BANK + i] = _BANK_F[bank[i]]
        v.bank = bank[:]
    ph = s.phase
    if v.phase != ph:
        if v.phase >= 0:
            m[PHASE + v.phase] = 0.0
        m[PHASE + ph] = 1.0
        v.phase = ph
    if v.last != s.last_round:
        v.last = s.last_round
        m[LAST_ROUND] = 1.0 if s.last_round else 0.0
    board = s.board
    if v.board != board:
        v.board = board[:]
        last = _LAST_BOARD
        if last[0] != board:  # encoded once per board, copied into each observer's buffer
            last[0], last[1] = board[:], memoryview(_board(board))
        m[BOARD:BOARD + _BOARD_N * CARD] = last[1]
    d = s.decks
    decks = (len(d[0]), len(d[1]), len(d[2]))
    if v.decks != decks:
        v.decks = decks
        m[DECKS] = _DECK_F[decks[0]]
        m[DECKS + 1] = _DECK_F[decks[1]]
        m[DECKS + 2] = _DECK_F[decks[2]]
    avail = s.avail
    if v.avail != avail:
        v.avail = avail
        m[NOBLES:NOBLES + NNOBLES * 6] = _block(("nobles", avail), _nobles, avail)
    tok, bon, pts, ncards, nob = s.tok, s.bon, s.pts, s.ncards, s.nob
    if v.tok != tok:  # the changed counts only, scaled
        at = v.tok_at
        for i in compress(range(len(tok)), map(ne, tok, v.tok)):
            m[at[i]] = _TOK_F[tok[i]]
        v.tok = tok[:]
    if v.bon != bon:
        at = v.bon_at
        for i in compress(range(len(bon)), map(ne, bon, v.bon)):
            m[at[i]] = _BON_F[bon[i]]
        v.bon = bon[:]
    base = v.base
    if v.pts != pts:
        for q in compress(range(n), map(ne, pts, v.pts)):
            m[base[q] + 11] = _PTS_F[min(pts[q], 30)]
        v.pts = pts[:]
    if v.ncards != ncards:
        for q in compress(range(n), map(ne, ncards, v.ncards)):
            m[base[q] + 12] = _CARDS_F[ncards[q]]
        v.ncards = ncards[:]
    if v.nob != nob:
        for q in compress(range(n), map(ne, nob, v.nob)):
            m[base[q] + 13] = _NOBLES_F[len(nob[q])]
        v.nob = nob[:]
    res, blind = s.res, s.blind
    if v.res != res or v.blind != blind:
        old_res, old_blind = v.res, v.blind
        for q in range(n):
            r, b = res[q], blind[q]
            if r == old_res[q] and b == old_blind[q]:
                continue
            if q == player:
                b = 0  # the observer sees its own blind reservations
            at = base[q] + 14
            m[at:at + _RES] = _block((r, b), _reserved, r, b)
        v.res, v.blind = res[:], blind[:]
    out[:] = v.buf


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation


@LAYOUT.resetter
def _reset() -> None:
    _views.cache_clear()
    _BLOCKS.clear()
    _LAST_BOARD[:] = [None, None]
