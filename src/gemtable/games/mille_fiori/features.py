"""A fixed-length numeric observation of Mille Fiori for learning adapters.

Built only from what the observing seat may see: its own hand and secret pick,
the hands it has already seen (hand and pick merged, since it cannot tell which
card was picked from a hand it saw), the board, the display, the discard and
counts of everything else.  Seats are listed starting with the observer and
padded to four.  Cards are counted by kind (``rules.KIND_CODE`` order, NK kinds).
``LAYOUT`` names every index (``LAYOUT.describe()``); the observer's pick, its
hand and the hands it has seen are its private information.

Fast path: counts and one-hots are gathered as destination indices and written
by one ``bincount`` scaled by a precomputed per-index factor; board ownership is
computed with NumPy from the owner list.
"""

from __future__ import annotations

from array import array
from functools import cache

import numpy as np

from gemtable.core.observation import ObservationLayout, Scratch, seat_rotations

from .rules import (
    FULL_COVER,
    HOUSES,
    NK,
    NS,
    OVER,
    PICKING,
    SEA_END,
    D,
    MilleFioriState,
)

MAX_SEATS = 4
NPHASES = 5
# bits of the per-area cover masks (houses: distinct house values)
AREA_BITS = tuple(
    len(D.house_distinct) if a == HOUSES else FULL_COVER[a].bit_length() for a in range(5)
)
COVER_BITS = sum(AREA_BITS)

_MAX_ROUNDS = max(
    (len(D.deck) - D.display[n]) // (n * D.hand_size) for n in D.display
)
_MAX_PLAYS = max(D.played_per_round.values())
_MAX_EXTRAS = 3.0
_POINTS = 200.0
_BONUS_POINTS = float(sum(max(b) for b in D.bonus))
_DECK = len(D.deck)
_HAND = float(D.hand_size)

LAYOUT = L = ObservationLayout()
PHASE = L.add("phase", NPHASES, help="one-hot (rules phase order)")
TACTICAL = L.add("tactical", 1, help="1 in the tactical draft")
ENDING = L.add("ending", 1)
ROUND = L.add("round", 1, high=1.5, help="round / the most rounds a game can have")
PLAYS = L.add("plays_done", 1, help="cards played this round / the most per round")
DECK = L.add("deck_size", 1, help="deck / all cards")
EXTRAS = L.add("extras_pending", 1, high=2.0, help="extra cards still due / 3")
CARD_EXTRA = L.add("card_in_play_is_extra", 1)
CARD = L.add("card_in_play", NK, help="one-hot by kind")
DISPLAY = L.add("display", NK, high=_DECK / 10.0, help="display counts by kind / 10")
DISCARD = L.add("discard", NK, high=_DECK / 10.0, help="discard counts by kind / 10")
PICK = L.add("own_pick", NK, private=True, help="the observer's secret pick, one-hot")
GLOBAL = L.size
BOARD_AT = L.add("board", NS * MAX_SEATS, help="per space: owner one-hot by seat relative to the observer")
BONUS_AT = L.add("bonus_spaces", 5 * 4 * MAX_SEATS,
                 help="per area and bonus slot: owner one-hot by relative seat")
SEATS_AT = L.size
for _k in range(MAX_SEATS):
    L.add(f"seat{_k}.flags", 5, help="present, to move, current player, start player, has picked "
                                     "(k = 0: the observer)")
    L.add(f"seat{_k}.points", 1, high=2.0, help="points / 200, clipped to 2")
    L.add(f"seat{_k}.bonus_points", 1, help="bonus points / all bonus points")
    L.add(f"seat{_k}.personal_diamonds", 1, help="/ the supply")
    L.add(f"seat{_k}.set_aside_diamonds", 1, help="/ the supply")
    L.add(f"seat{_k}.ship", 1, help="sea track position / its end")
    L.add(f"seat{_k}.hand_size", 1, high=2.0, help="cards in hand (without the pick) / hand size")
    L.add(f"seat{_k}.hand_known", 1, help="1 when the observer has seen this hand")
    L.add(f"seat{_k}.cover", COVER_BITS, help="covered symbols per area (bits)")
    L.add(f"seat{_k}.bonus_claimed", 5, help="per area")
SEAT = (L.size - SEATS_AT) // MAX_SEATS
# the hands, in one block (observer first): filled per observer after the public part
HANDS_AT = L.add("hands", MAX_SEATS * NK, high=2.0, private=True,
                 help="per seat, observer first: hand counts by kind / hand size (another seat: "
                      "hand + pick, only when the observer has seen that hand)")
SIZE = L.size
L.check()

_SCALE = np.ones(SIZE, np.float32)  # raw values are kept, then scaled and clipped once
_SCALE[DISPLAY:DISPLAY + 2 * NK] = 0.1
_HIGH = LAYOUT.high
_VALUES = 12  # seat entries 5..11 are real values written directly
_COVER = 12

# bit offsets of each cover value per area (within the cover field)
_AREA_AT = tuple(sum(AREA_BITS[:a]) for a in range(5))
_COVER_OFFS: list[dict[int, tuple[int, ...]]] = [{} for _ in range(5)]


def _cover_offsets(a: int, c: int) -> tuple[int, ...]:
    got = _COVER_OFFS[a].get(c)
    if got is None:
        got = _COVER_OFFS[a][c] = tuple(_AREA_AT[a] + b for b in range(AREA_BITS[a]) if c >> b & 1)
    return got


# -- incremental fill -------------------------------------------------------------------------
# Public parts are kept in absolute seat order (seat block q = seat q, owner one-hots by
# absolute seat) in a Scratch buffer and re-encoded only when their source changed; one
# precomputed permutation puts them in the observer's order.  The observer's own knowledge
# (its pick, the hands it holds or has seen) is written afterwards, straight into ``out``.
assert (TACTICAL, ENDING, ROUND, PLAYS, DECK, EXTRAS, CARD_EXTRA) == tuple(range(TACTICAL, CARD_EXTRA + 1))
_KNOWN_AT = tuple(SEATS_AT + k * SEAT + 11 for k in range(MAX_SEATS))
_SEAT_VALUES = (("points", 5, 1 / _POINTS, 2.0), ("bonus_pts", 6, 1 / _BONUS_POINTS, 1.0),
                ("personal", 7, 1 / D.personal_diamonds, 1.0), ("aside", 8, 1 / D.set_aside_diamonds, 1.0),
                ("ship", 9, 1 / SEA_END, 1.0))
for _k in range(MAX_SEATS):
    for _name, _off, _sc, _ in _SEAT_VALUES:
        _SCALE[SEATS_AT + _k * SEAT + _off] = _sc


@cache
def _scratch(n: int) -> tuple:
    sc = Scratch(SIZE)
    for q in range(n):
        sc.buf[SEATS_AT + q * SEAT] = 1.0  # present
    values_at = np.array([SEATS_AT + q * SEAT + off for _, off, _, _ in _SEAT_VALUES for q in range(n)],
                         np.intp)
    board = np.arange(NS, dtype=np.intp) * MAX_SEATS + BOARD_AT
    bonus = np.arange(5 * 4, dtype=np.intp) * MAX_SEATS + BONUS_AT
    perms = seat_rotations(SIZE, n, blocks=((SEATS_AT, SEAT),), strided=(board, bonus))
    return (sc, values_at, board, bonus, perms)


def _counts(dest: np.ndarray, at: int, kinds: list) -> None:
    """Counts by card kind into ``dest[at:at + NK]``."""
    dest[at:at + NK] = np.bincount(kinds, minlength=NK) if kinds else 0


_PER_HAND = np.arange(4 * D.hand_size, dtype=np.float32) / _HAND  # card count -> scaled value


def _fill(s: MilleFioriState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    sc, values_at, board, bonus, perms = _scratch(n)
    buf, snap, hot = sc.buf, sc.snap, sc.hot
    onehot = sc.onehot
    ph = s.phase
    onehot("phase", PHASE + ph)
    buf[TACTICAL:CARD_EXTRA + 1] = (  # consecutive fields: tactical … card in play is extra
        1.0 if s.tactical else 0.0, 1.0 if s.ending else 0.0, s.round / _MAX_ROUNDS,
        s.plays_done / _MAX_PLAYS, len(s.deck) / _DECK, s.extras / _MAX_EXTRAS,
        1.0 if s.card_extra else 0.0)
    onehot("card", CARD + s.card if s.card >= 0 else -1)
    if snap.get("display") != s.display:
        snap["display"] = s.display[:]
        _counts(buf, DISPLAY, s.display)
    if snap.get("discard") != s.discard:
        snap["discard"] = s.discard[:]
        _counts(buf, DISCARD, s.discard)
    for key, owner, base in (("owner", s.owner, board), ("bonus_owner", s.bonus_owner, bonus)):
        if snap.get(key) != owner:
            snap[key] = owner[:]
            buf[base[0]:base[-1] + MAX_SEATS] = 0.0
            o = np.frombuffer(array("b", owner), np.int8)
            hit = (o >= 0).nonzero()[0]
            buf[base[hit] + o[hit]] = 1.0
    # seats (absolute): flags, values, cover bits, bonuses claimed
    movers = s.to_move() if ph != OVER else ()
    if hot.get("movers") != movers:
        hot["movers"] = movers
        for q in range(n):
            buf[SEATS_AT + q * SEAT + 1] = 1.0 if q in movers else 0.0
    onehot("cur", SEATS_AT + s.cur * SEAT + 2 if ph != PICKING and ph != OVER and s.cur >= 0 else -1)
    onehot("start", SEATS_AT + s.start * SEAT + 3)
    if snap.get("picked") != s.picks:
        snap["picked"] = s.picks[:]
        for q in range(n):
            buf[SEATS_AT + q * SEAT + 4] = 1.0 if s.picks[q] >= 0 else 0.0
    values = s.points + s.bonus_pts + s.personal + s.aside + s.ship  # _SEAT_VALUES order
    if snap.get("values") != values:
        snap["values"] = values
        buf[values_at] = values  # scaled by _SCALE, clipped to the bounds at the end
    hands = s.hands
    sizes = [len(h) for h in hands]
    if snap.get("sizes") != sizes:
        snap["sizes"] = sizes
        for q in range(n):
            buf[SEATS_AT + q * SEAT + 10] = sizes[q] / _HAND
    last = snap.get("covers")
    if last is None:
        last = snap["covers"] = [None] * n
    cover, got_bonus = s.cover, s.got_bonus
    for q in range(n):  # each seat's cover bits, re-encoded only when that seat's changed
        key = (cover[5 * q:5 * q + 5], got_bonus[q])
        if last[q] == key:
            continue
        last[q] = key
        c0 = SEATS_AT + q * SEAT + _COVER
        bits = [c0 + off for a in range(5) for off in _cover_offsets(a, cover[5 * q + a])]
        gb = got_bonus[q]
        bits += [c0 + COVER_BITS + a for a in range(5) if gb >> a & 1]
        buf[c0:c0 + COVER_BITS + 5] = 0.0
        if bits:
            buf[bits] = 1.0
    # into the observer's seat order, scaled, clipped to the declared bounds
    np.multiply(buf.take(perms[player]), _SCALE, out=out)
    np.minimum(out, _HIGH, out=out)
    # the observer's own knowledge: its pick, its hand, the hands it has seen
    own = s.picks[player]
    if own >= 0:
        out[PICK + own] = 1.0
    seen, picks = s.seen, s.picks
    cards = []
    for k in range(n):
        q = (player + k) % n
        if q == player or seen[q] >> player & 1:
            out[_KNOWN_AT[k]] = 1.0
            base = k * NK
            cards += [base + kind for kind in hands[q]]
            if q != player and picks[q] >= 0:  # a hand it saw: hand and pick merged
                cards.append(base + picks[q])
    if cards:
        np.take(_PER_HAND, np.bincount(cards, minlength=n * NK), out=out[HANDS_AT:HANDS_AT + n * NK],
                mode="clip")


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation
