"""A fixed-length numeric observation of Sintra for learning adapters.

Everything on the Sintra table is public (see RULES.md, decision 8), so the
observation is the whole table seen from the observer: seats are listed starting
with the observer and padded to four.  ``LAYOUT`` names every index (see
``LAYOUT.describe()``); the filler writes raw counts into a preallocated float32
array in a few bulk NumPy operations and scales them once.
"""

from __future__ import annotations

from array import array
from functools import cache

import numpy as np

from gemtable.core.observation import ObservationLayout, Scratch, seat_rotations

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


@cache
def _scratch(n: int, nf: int) -> tuple:
    """The incremental buffer (absolute seat order) and index plans for ``n`` seats."""
    sc = Scratch(SIZE)
    present = [_at(q, "present") for q in range(n)]
    sc.buf[present] = 1.0  # constant for the player count
    strips = [_at(q, "strips") for q in range(n)]
    need = np.array([strips[q] + i * _STRIP + 1 + j
                     for q in range(n) for i in range(NUM_STRIPS) for j in range(6)], np.intp)
    on = np.array([strips[q] + i * _STRIP + 7 + j
                   for q in range(n) for i in range(NUM_STRIPS) for j in range(NC)], np.intp)
    code = np.array([strips[q] + i * _STRIP for q in range(n) for i in range(NUM_STRIPS)], np.intp)
    win = np.array([_at(q, "windows") + f * NC for q in range(n) for f in range(_NWIN)], np.intp)
    win_all = np.concatenate([np.arange(_at(q, "windows"), _at(q, "windows") + _NWIN * NC) for q in range(n)])
    perms = seat_rotations(SIZE, n, blocks=((SEATS_AT, _SEAT),))  # relative index -> absolute index
    return (sc, present, need, on, code, win, win_all, perms,
           np.arange(FACTORIES, FACTORIES + nf * NC),
           [_at(q, f) for q in range(n) for f in ("score", "lost")],
           [_at(q, "broken_glass_space") for q in range(n)],
           [_at(q, "glazier") for q in range(n)])


def _fill(s: SintraState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    nf = s.nf
    sc, present, need, on, code, win, win_all, perms, fac, score_at, track_at, glz_at = _scratch(n, nf)
    buf, snap, hot = sc.buf, sc.snap, sc.hot
    # bulk counts, re-encoded only when changed
    sc.bytes_into("fac", s.fac[:nf * NC], fac)
    sc.bytes_into("centre", s.centre, _CENTRE)
    sc.bytes_into("bag", s.bag, _BAG)
    sc.bytes_into("tower", s.tower, _TOWER)
    sc.bytes_into("need", s.need, need)
    sc.bytes_into("on", s.on, on)
    if snap.get("code") != s.code:
        snap["code"] = s.code[:]
        buf[code] = np.frombuffer(array("b", s.code), np.int8) >= 0
    if snap.get("win") != s.win:
        snap["win"] = s.win[:]
        buf[win_all] = 0.0
        w = np.frombuffer(array("b", s.win), np.int8)
        hit = (w >= 0).nonzero()[0]
        buf[win[hit] + w[hit]] = 1.0
    if snap.get("score") != s.score or snap.get("lost") != s.lost:
        snap["score"], snap["lost"] = s.score[:], s.lost[:]
        vals = []
        for q in range(n):
            vals.append(max(-3.0, min(3.0, s.score[q] / _SCORE)))
            vals.append(min(4.0, s.lost[q] / 50.0))
        buf[score_at] = vals
    # small one-hots, only changed bits rewritten
    phase = s.phase
    onehot = sc.onehot
    onehot("phase", PHASE + _PHASES[phase])
    onehot("side", SIDE_B if s.side else -1)
    rnd = s.rnd
    if hot.get("rnd") != rnd or snap.get("rcol") != s.rcol:
        hot["rnd"] = rnd
        snap["rcol"] = s.rcol[:]
        buf[ROUND] = min(rnd, ROUNDS) / ROUNDS
        rest = s.rcol[rnd:]
        buf[LEFT:LEFT + NC] = [rest.count(c) for c in range(NC)]
        onehot("rcol", ROUND_COLOUR + s.rcol[rnd] if rnd < ROUNDS else -1)
    onehot("pcol", PENDING_COLOUR + s.pcol if phase == PLACE else -1)
    buf[PENDING_COUNT] = s.pn if phase == PLACE else 0  # scaled by _SCALE
    onehot("keep", KEEP_POS + s.ppos if phase == KEEP else -1)
    mic = s.mic
    onehot("mic", MARKER if mic else -1)
    onehot("cur", present[s.cur] + 1 if phase != OVER else -1)
    onehot("holder", present[s.holder] + 2 if not mic and 0 <= s.holder < n else -1)
    trk, glz = s.trk, s.glz
    for q in range(n):
        onehot(q, track_at[q] + trk[q])
        onehot(q + 8, glz_at[q] + glz[q])
    # into the observer's seat order, scaled
    # into the observer's seat order, scaled (a plain gather is the fastest numpy form)
    np.multiply(buf.take(perms[player]), _SCALE, out=out)


_CENTRE = np.arange(CENTRE, CENTRE + NC)
_BAG = np.arange(BAG, BAG + NC)
_TOWER = np.arange(TOWER, TOWER + NC)


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation
