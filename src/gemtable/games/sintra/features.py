"""A fixed-length numeric observation of Sintra for learning adapters.

Everything on the Sintra table is public (see RULES.md, decision 8), so the
observation is the whole table seen from the observer: seats are listed starting
with the observer and padded to four.

Layout:
phase one-hot (4) | palace side B (1) | round / 6 (1) | round colour one-hot (5)
| panes left on the round indicator per colour (5) | pending colour one-hot (5),
pending count / 10 (1), pending keep position one-hot (8)
| factories: 9 × 5 counts / 4 (unused factories 0) | centre 5 counts / 10
| start marker in the centre (1) | bag 5 counts / 20 | tower 5 counts / 20
| per seat (4 ×, observer first): present, to move, holds the start marker,
score / 100, lost to broken glass / 50, broken-glass space one-hot (len(track)),
glazier one-hot (8), per strip position (8 ×): strip present, empty spaces per
colour + joker (6), panes on it per colour (5); per window (8 ×): upper colour
one-hot (5), lower colour one-hot (5).
"""

from __future__ import annotations

from .data import NUM_STRIPS, NUM_WINDOWS
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
_SEAT = 3 + 2 + len(TRACK) + NUM_STRIPS + NUM_STRIPS * (1 + 6 + NC) + NUM_WINDOWS * 2 * NC
_HEAD = 4 + 1 + 1 + NC + NC + NC + 1 + NUM_STRIPS + MAX_FACTORIES * NC + NC + 1 + NC + NC
SIZE = _HEAD + MAX_SEATS * _SEAT
_PHASES = (CHOOSE, PLACE, KEEP, OVER)


def observation(state: SintraState, player: int) -> list[float]:
    s = state
    out: list[float] = [1.0 if s.phase == ph else 0.0 for ph in _PHASES]
    out.append(float(s.side))
    out.append(min(s.rnd, ROUNDS) / ROUNDS)
    rc = s.rcol[s.rnd] if s.rnd < ROUNDS else -1
    out.extend(1.0 if c == rc else 0.0 for c in range(NC))
    left = [0.0] * NC
    for c in s.rcol[s.rnd:]:
        left[c] += 1.0
    out.extend(left)
    pc = s.pcol if s.phase == PLACE else -1
    out.extend(1.0 if c == pc else 0.0 for c in range(NC))
    out.append(s.pn / 10.0 if s.phase == PLACE else 0.0)
    kp = s.ppos if s.phase == KEEP else -1
    out.extend(1.0 if i == kp else 0.0 for i in range(NUM_STRIPS))
    fac = s.fac
    for f in range(MAX_FACTORIES):
        if f < s.nf:
            out.extend(fac[f * NC + c] / 4.0 for c in range(NC))
        else:
            out.extend([0.0] * NC)
    out.extend(x / 10.0 for x in s.centre)
    out.append(1.0 if s.mic else 0.0)
    out.extend(x / 20.0 for x in s.bag)
    out.extend(x / 20.0 for x in s.tower)
    n = s.num_players
    movers = s.to_move()
    for k in range(MAX_SEATS):
        if k >= n:
            out.extend([0.0] * _SEAT)
            continue
        p = (player + k) % n
        out.append(1.0)
        out.append(1.0 if p in movers else 0.0)
        out.append(1.0 if (not s.mic and s.holder == p) else 0.0)
        out.append(s.score[p] / 100.0)
        out.append(s.lost[p] / 50.0)
        out.extend(1.0 if t == s.trk[p] else 0.0 for t in range(len(TRACK)))
        out.extend(1.0 if i == s.glz[p] else 0.0 for i in range(NUM_STRIPS))
        for i in range(NUM_STRIPS):
            si = p * NUM_STRIPS + i
            out.append(1.0 if s.code[si] >= 0 else 0.0)
            out.extend(float(x) for x in s.need[si * 6:si * 6 + 6])
            out.extend(float(x) for x in s.on[si * NC:si * NC + NC])
        for f in range(NUM_WINDOWS * 2):
            c = s.win[p * NUM_WINDOWS * 2 + f]
            out.extend(1.0 if d == c else 0.0 for d in range(NC))
    return out
