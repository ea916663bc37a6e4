"""A fixed-length numeric observation of Sintra for learning adapters.

Everything on the Sintra table is public (see RULES.md, decision 8), so the
observation is the whole table seen from the observer: seats are listed starting
with the observer and padded to four.  ``LAYOUT`` names every index (see
``LAYOUT.describe()``).  Fast path: the observation is kept in absolute seat order,
already scaled, and only the entries whose source changed are rewritten; a few
memcpys put the seats in the observer's order (see the comment above ``_fill``).
"""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import ne

import numpy as np

from gemtable.core.observation import ObservationLayout, rotate_seats

from .data import DATA, NUM_STRIPS, NUM_WINDOWS
from .rules import (
    CHOOSE,
    KEEP,
    MAX_FACTORIES,
    NC,
    OVER,
    PLACE,
    ROUNDS,
    TRACK,
    SintraState,
)

MAX_SEATS = 4
_PPC = DATA.panes_per_colour
_SCORE = 100.0  # score scale; scaled scores are clipped to the field's bounds

LAYOUT = L = ObservationLayout()
PHASE = L.add("phase", 4, help="one-hot: choose, place, keep, over")
SIDE_B = L.add("palace_side_b", 1, help="1 when the palace side is B")
ROUND = L.add("round", 1, help="round / 6")
ROUND_COLOUR = L.add("round_colour", NC, help="colour of the current round, one-hot")
LEFT = L.add("round_colours_left", NC, high=ROUNDS, help="rounds left with each indicator colour")
PENDING_COLOUR = L.add("pending_colour", NC, help="colour being placed, one-hot (place phase)")
PENDING_COUNT = L.add("pending_count", 1, high=_PPC / 10.0, help="panes being placed / 10")
KEEP_POS = L.add("keep_position", NUM_STRIPS, help="strip whose pane is being kept, one-hot (keep phase)")
FACTORIES = L.add("factories", MAX_FACTORIES * NC, high=_PPC / 4.0,
                  help="panes per factory and colour / 4 (unused factories 0)")
CENTRE = L.add("centre", NC, high=_PPC / 10.0, help="panes in the centre per colour / 10")
MARKER = L.add("start_marker_in_centre", 1)
BAG = L.add("bag", NC, high=_PPC / 20.0, help="panes in the bag per colour / 20")
TOWER = L.add("tower", NC, high=_PPC / 20.0, help="panes in the tower per colour / 20")
_HEAD = L.size
_SEAT_FIELDS = (
    ("present", 1, 0.0, 1.0, ""),
    ("to_move", 1, 0.0, 1.0, ""),
    ("holds_start_marker", 1, 0.0, 1.0, ""),
    ("score", 1, -3.0, 3.0, "score / 100, clipped to [-3, 3]"),
    ("lost", 1, 0.0, 4.0, "points lost to broken glass so far / 50, clipped to 4"),
    ("broken_glass_space", len(TRACK), 0.0, 1.0, "one-hot"),
    ("glazier", NUM_STRIPS, 0.0, 1.0, "glazier position, one-hot"),
    ("strips", NUM_STRIPS * (1 + 6 + NC), 0.0, 6.0,
     "per strip position: present, empty spaces per colour + joker (6), panes on it per colour (5)"),
    ("windows", NUM_WINDOWS * 2 * NC, 0.0, 1.0, "per window: upper colour one-hot, lower colour one-hot"),
)
SEATS_AT = L.size
for _k in range(MAX_SEATS):
    for _name, _size, _lo, _hi, _help in _SEAT_FIELDS:
        L.add(f"seat{_k}.{_name}", _size, _lo, _hi, help=(_help + (" (k = 0: the observer)" if _name == "present" else "")).strip())
_SEAT = (L.size - SEATS_AT) // MAX_SEATS
SIZE = L.size
L.check()


def _at(k: int, name: str) -> int:
    return L.field(f"seat{k}.{name}").start


_SCALE = np.ones(SIZE, np.float32)
_SCALE[FACTORIES:FACTORIES + MAX_FACTORIES * NC] = 1 / 4
_SCALE[CENTRE:CENTRE + NC] = 1 / 10
_SCALE[BAG:BAG + 2 * NC] = 1 / 20
_SCALE[PENDING_COUNT] = 1 / 10

_PHASES = {CHOOSE: 0, PLACE: 1, KEEP: 2, OVER: 3}
_NSTRIP = NUM_STRIPS * 6
_NON = NUM_STRIPS * NC
_NWIN = NUM_WINDOWS * 2
_STRIP = 1 + 6 + NC


# -- incremental fill -------------------------------------------------------------------------
# One buffer per (players, observer), kept in that observer's seat order and already scaled
# (every entry is float32(raw) * float32(scale), the same floats as scaling the vector at
# once).  Every source list is compared with what that buffer was built from (in C) and only
# its changed entries are rewritten (found with ``compress(range, map(ne, new, old))``, also
# in C); the buffer then goes to ``out`` in one memcpy.
_F32 = np.float32


def _scaled(scale: float, top: int = 255) -> list[float]:
    """count -> float32(count) * float32(scale), as Python floats (exact float32 values)."""
    return (np.arange(top + 1, dtype=np.float32) * _F32(scale)).tolist()


_QUARTERS, _TENTHS, _TWENTIETHS = _scaled(1 / 4), _scaled(1 / 10), _scaled(1 / 20)
_COUNT = [float(x) for x in range(256)]


class _View:
    """One observer's buffer, its index plans and what it was built from."""

    __slots__ = (
        "buf",
        "code_at",
        "fac_at",
        "glz_at",
        "hot",
        "lost_at",
        "m",
        "need_at",
        "on_at",
        "present",
        "score_at",
        "snap",
        "track_at",
        "win_at",
    )

    def __init__(self, n: int, p: int, nf: int) -> None:
        self.buf = np.zeros(SIZE, np.float32)
        self.m = memoryview(self.buf)
        rot = [(q - p) % n for q in range(n)]  # absolute seat -> relative seat
        seat = [SEATS_AT + rot[q] * _SEAT - SEATS_AT for q in range(n)]  # shift of seat q's fields

        def at(q: int, name: str) -> int:
            return _at(0, name) + seat[q]

        self.present = [at(q, "present") for q in range(n)]
        for i in self.present:
            self.m[i] = 1.0  # constant for the player count
        self.fac_at = list(range(FACTORIES, FACTORIES + nf * NC))
        self.need_at = [at(q, "strips") + i * _STRIP + 1 + j
                        for q in range(n) for i in range(NUM_STRIPS) for j in range(6)]
        self.on_at = [at(q, "strips") + i * _STRIP + 7 + j
                      for q in range(n) for i in range(NUM_STRIPS) for j in range(NC)]
        self.code_at = [at(q, "strips") + i * _STRIP for q in range(n) for i in range(NUM_STRIPS)]
        self.win_at = [at(q, "windows") + f * NC for q in range(n) for f in range(_NWIN)]
        self.score_at = [at(q, "score") for q in range(n)]
        self.lost_at = [at(q, "lost") for q in range(n)]
        self.track_at = [at(q, "broken_glass_space") for q in range(n)]
        self.glz_at = [at(q, "glazier") for q in range(n)]
        self.snap: dict = {}
        self.hot: dict = {}


@cache
def _view(n: int, nf: int, p: int) -> _View:
    return _View(n, p, nf)


def _counts(v: _View, key: str, values: list, at: list, table: list) -> None:
    """``buf[at[i]] = table[values[i]]`` for every entry that changed since the last call."""
    old = v.snap.get(key)
    if old != values:
        m = v.m
        if old is None or len(old) != len(values):
            for i, x in enumerate(values):
                m[at[i]] = table[x]
        else:
            for i in compress(range(len(values)), map(ne, values, old)):
                m[at[i]] = table[values[i]]
        v.snap[key] = values[:]


def _onehot(v: _View, key: object, index: int) -> None:
    """Set ``buf[index] = 1`` and clear the index this key set last time (-1: none)."""
    hot = v.hot
    old = hot.get(key, -1)
    if old != index:
        if old >= 0:
            v.m[old] = 0.0
        if index >= 0:
            v.m[index] = 1.0
        hot[key] = index


def _fill(s: SintraState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    v = _view(n, s.nf, 0)  # kept in absolute seat order, rotated into ``out`` at the end
    m, snap, hot = v.m, v.snap, v.hot
    # counts: the changed entries only
    _counts(v, "fac", s.fac, v.fac_at, _QUARTERS)
    _counts(v, "centre", s.centre, _CENTRE, _TENTHS)
    _counts(v, "bag", s.bag, _BAG, _TWENTIETHS)
    _counts(v, "tower", s.tower, _TOWER, _TWENTIETHS)
    _counts(v, "need", s.need, v.need_at, _COUNT)
    _counts(v, "on", s.on, v.on_at, _COUNT)
    code = s.code
    old = snap.get("code")
    if old != code:
        at = v.code_at
        idx = range(len(code)) if old is None or len(old) != len(code) else \
            compress(range(len(code)), map(ne, code, old))
        for i in idx:
            m[at[i]] = 1.0 if code[i] >= 0 else 0.0
        snap["code"] = code[:]
    win = s.win
    old = snap.get("win")
    if old != win:
        at = v.win_at
        fresh = old is None or len(old) != len(win)
        for i in range(len(win)) if fresh else compress(range(len(win)), map(ne, win, old)):
            if not fresh and old[i] >= 0:
                m[at[i] + old[i]] = 0.0
            if win[i] >= 0:
                m[at[i] + win[i]] = 1.0
        snap["win"] = win[:]
    score, lost = s.score, s.lost
    if snap.get("score") != score:
        for q, x in enumerate(score):
            m[v.score_at[q]] = max(-3.0, min(3.0, x / _SCORE))
        snap["score"] = score[:]
    if snap.get("lost") != lost:
        for q, x in enumerate(lost):
            m[v.lost_at[q]] = min(4.0, x / 50.0)
        snap["lost"] = lost[:]
    # small one-hots, only changed bits rewritten
    phase = s.phase
    _onehot(v, "phase", PHASE + _PHASES[phase])
    _onehot(v, "side", SIDE_B if s.side else -1)
    rnd = s.rnd
    if hot.get("rnd") != rnd or snap.get("rcol") != s.rcol:
        hot["rnd"] = rnd
        snap["rcol"] = s.rcol[:]
        m[ROUND] = min(rnd, ROUNDS) / ROUNDS
        rest = s.rcol[rnd:]
        for c in range(NC):
            m[LEFT + c] = rest.count(c)
        _onehot(v, "rcol", ROUND_COLOUR + s.rcol[rnd] if rnd < ROUNDS else -1)
    _onehot(v, "pcol", PENDING_COLOUR + s.pcol if phase == PLACE else -1)
    m[PENDING_COUNT] = _TENTHS[s.pn] if phase == PLACE else 0.0
    _onehot(v, "keep", KEEP_POS + s.ppos if phase == KEEP else -1)
    mic = s.mic
    _onehot(v, "mic", MARKER if mic else -1)
    present = v.present
    _onehot(v, "cur", present[s.cur] + 1 if phase != OVER else -1)
    _onehot(v, "holder", present[s.holder] + 2 if not mic and 0 <= s.holder < n else -1)
    trk, glz = s.trk, s.glz
    if snap.get("trk") != trk:
        for q in range(n):
            _onehot(v, q, v.track_at[q] + trk[q])
        snap["trk"] = trk[:]
    if snap.get("glz") != glz:
        for q in range(n):
            _onehot(v, q + 8, v.glz_at[q] + glz[q])
        snap["glz"] = glz[:]
    rotate_seats(v.buf, out, player, n, SEATS_AT, _SEAT)


_CENTRE = list(range(CENTRE, CENTRE + NC))
_BAG = list(range(BAG, BAG + NC))
_TOWER = list(range(TOWER, TOWER + NC))


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation


@LAYOUT.resetter
def _reset() -> None:
    _view.cache_clear()
