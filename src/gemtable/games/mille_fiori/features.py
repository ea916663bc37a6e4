"""A fixed-length numeric observation of Mille Fiori for learning adapters.

Built only from what the observing seat may see: its own hand and secret pick,
the hands it has already seen (hand and pick merged, since it cannot tell which
card was picked from a hand it saw), the board, the display, the discard and
counts of everything else.  Seats are listed starting with the observer and
padded to four.  Cards are counted by kind (``rules.KIND_CODE`` order, NK kinds).
``LAYOUT`` names every index (``LAYOUT.describe()``); the observer's pick, its
hand and the hands it has seen are its private information.

Fast path: one buffer per observer, kept in its seat order and already scaled;
only the entries whose source changed are rewritten, then the buffer is copied
into ``out`` (see the comment above ``_fill``).
"""

from __future__ import annotations

from array import array
from functools import cache

import numpy as np

from gemtable.core.observation import ObservationLayout

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

_HIGH = LAYOUT.high
_COVER = 12  # the cover bits within a seat's block

# bit offsets of each cover value per area (within the cover field)
_AREA_AT = tuple(sum(AREA_BITS[:a]) for a in range(5))
_COVER_OFFS: list[dict[int, tuple[int, ...]]] = [{} for _ in range(5)]


def _cover_offsets(a: int, c: int) -> tuple[int, ...]:
    got = _COVER_OFFS[a].get(c)
    if got is None:
        got = _COVER_OFFS[a][c] = tuple(_AREA_AT[a] + b for b in range(AREA_BITS[a]) if c >> b & 1)
    return got


# -- incremental fill -------------------------------------------------------------------------
# One buffer per (players, observer), kept in that observer's seat order and already scaled
# (entries are written as float32(raw) * float32(scale), clipped to the declared bounds, so the
# values are the same floats as scaling the whole vector at once).  Every source is compared
# with what that buffer was built from and re-encoded only when it changed; the buffer is then
# copied into ``out`` in one memcpy.  The observer's own knowledge (its pick, the hands it holds
# or has seen) lives in its own buffer like everything else.
assert (TACTICAL, ENDING, ROUND, PLAYS, DECK, EXTRAS, CARD_EXTRA) == tuple(range(TACTICAL, CARD_EXTRA + 1))
_SEAT_VALUES = (("points", 5, 1 / _POINTS, 2.0), ("bonus_pts", 6, 1 / _BONUS_POINTS, 1.0),
                ("personal", 7, 1 / D.personal_diamonds, 1.0), ("aside", 8, 1 / D.set_aside_diamonds, 1.0),
                ("ship", 9, 1 / SEA_END, 1.0))
_F32 = np.float32
# (scale, high) of the seat values as the doubles equal to their float32 values
_VALUE_SCALE = tuple((float(_F32(sc)), float(_F32(hi))) for _, _, sc, hi in _SEAT_VALUES)
_TENTHS = np.arange(_DECK + 1, dtype=np.float32) * _F32(0.1)  # count -> count * float32(0.1)
_PER_HAND = np.arange(4 * D.hand_size, dtype=np.float32) / _HAND  # card count -> scaled value
_PER_HAND_F = _PER_HAND.tolist()
_HIGHS = tuple(float(x) for x in _HIGH[ROUND:CARD_EXTRA + 1])  # round, plays, deck, extras, extra
_TENTHS_F = _TENTHS.tolist()


def _cover_bits(cover5: list, gb: int) -> tuple:
    """Offsets (within the seat's cover + bonus-claimed block) of the set bits."""
    bits = [off for a in range(5) for off in _cover_offsets(a, cover5[a])]
    bits += [COVER_BITS + a for a in range(5) if gb >> a & 1]
    return tuple(bits)


_BITS_CACHE: dict = {}


class _View:
    """One observer's buffer and what it was built from."""

    __slots__ = (
        "base",
        "bonus",
        "buf",
        "card",
        "cover_all",
        "covers",
        "cur",
        "discard",
        "discard_counts",
        "display",
        "got_bonus",
        "hand_src",
        "m",
        "movers",
        "own",
        "owner",
        "owner_int",
        "phase",
        "picks",
        "rot",
        "scalars",
        "sizes",
        "start",
        "values",
    )

    def __init__(self, n: int, p: int) -> None:
        self.buf = np.zeros(SIZE, np.float32)
        self.m = memoryview(self.buf)
        self.rot = [(q - p) % n for q in range(n)]  # absolute seat -> relative seat
        self.base = [SEATS_AT + r * SEAT for r in self.rot]  # absolute seat -> its block
        for b in self.base:
            self.m[b] = 1.0  # present
        self.phase = self.card = self.cur = self.start = self.own = -1
        self.scalars = self.display = self.discard = self.movers = self.picks = None
        self.cover_all = self.got_bonus = None
        self.values: list = [None] * len(_SEAT_VALUES)
        self.sizes = [-1] * n
        self.owner = [-1] * NS  # snapshots; owner_int: the same as integers (see _owners)
        self.bonus = [-1] * (5 * 4)
        self.discard = []
        self.owner_int = [_as_int(self.owner), _as_int(self.bonus)]
        self.discard_counts = [0] * NK
        self.covers = [None] * n
        self.hand_src = [_ZERO_HAND] * n  # the hand values each block was copied from


@cache
def _views(n: int) -> tuple:
    return tuple(_View(n, p) for p in range(n))


def _as_int(owners: list) -> int:
    return int.from_bytes(array("b", owners).tobytes(), "little")


def _owners(v: _View, new: list, old: list, at: int, key: int) -> None:
    """Rewrite the owner one-hots (by relative seat) of the spaces whose owner changed.

    The changed spaces are found without a Python loop over the board: each list is read as
    one integer (a byte per space) and the two are xor-ed; every non-zero byte is a change."""
    now = _as_int(new)
    diff = now ^ v.owner_int[key]
    v.owner_int[key] = now
    m, rot = v.m, v.rot
    while diff:
        i = ((diff & -diff).bit_length() - 1) >> 3
        diff &= ~(0xFF << (i << 3))
        o = old[i]
        if o >= 0:
            m[at + i * MAX_SEATS + rot[o]] = 0.0
        o = new[i]
        if o >= 0:
            m[at + i * MAX_SEATS + rot[o]] = 1.0


def _fill(s: MilleFioriState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    v = _views(n)[player]
    m = v.m
    ph = s.phase
    if v.phase != ph:
        if v.phase >= 0:
            m[PHASE + v.phase] = 0.0
        m[PHASE + ph] = 1.0
        v.phase = ph
    scalars = (s.tactical, s.ending, s.round, s.plays_done, len(s.deck), s.extras, s.card_extra)
    if v.scalars != scalars:
        v.scalars = scalars
        hr, hp, hd, he, _ = _HIGHS
        v.buf[TACTICAL:CARD_EXTRA + 1] = (
            1.0 if s.tactical else 0.0, 1.0 if s.ending else 0.0, min(s.round / _MAX_ROUNDS, hr),
            min(s.plays_done / _MAX_PLAYS, hp), min(len(s.deck) / _DECK, hd), min(s.extras / _MAX_EXTRAS, he),
            1.0 if s.card_extra else 0.0)
    card = s.card
    if v.card != card:
        if v.card >= 0:
            m[CARD + v.card] = 0.0
        if card >= 0:
            m[CARD + card] = 1.0
        v.card = card
    if v.display != s.display:
        v.display = s.display[:]
        v.buf[DISPLAY:DISPLAY + NK] = _TENTHS.take(np.bincount(s.display, minlength=NK)) if s.display else 0.0
    discard = s.discard
    if v.discard != discard:  # the discard only grows during a game: count the new cards
        old, counts = v.discard, v.discard_counts
        k = len(old)
        if len(discard) < k or discard[:k] != old:
            counts[:] = np.bincount(discard, minlength=NK).tolist() if discard else [0] * NK
            v.buf[DISCARD:DISCARD + NK] = _TENTHS.take(counts)
        else:
            for kind in discard[k:]:
                c = counts[kind] = counts[kind] + 1
                m[DISCARD + kind] = _TENTHS_F[c]
        v.discard = discard[:]
    if v.owner != s.owner:
        _owners(v, s.owner, v.owner, BOARD_AT, 0)
        v.owner = s.owner[:]
    if v.bonus != s.bonus_owner:
        _owners(v, s.bonus_owner, v.bonus, BONUS_AT, 1)
        v.bonus = s.bonus_owner[:]
    # seats: flags, values, cover bits, bonuses claimed (block of absolute seat q: v.base[q])
    base = v.base
    movers = s.to_move() if ph != OVER else ()
    if v.movers != movers:
        v.movers = movers
        for q in range(n):
            m[base[q] + 1] = 1.0 if q in movers else 0.0
    cur = s.cur if ph != PICKING and ph != OVER and s.cur >= 0 else -1
    if v.cur != cur:
        if v.cur >= 0:
            m[base[v.cur] + 2] = 0.0
        if cur >= 0:
            m[base[cur] + 2] = 1.0
        v.cur = cur
    start = s.start
    if v.start != start:
        if v.start >= 0:
            m[base[v.start] + 3] = 0.0
        m[base[start] + 3] = 1.0
        v.start = start
    picks = s.picks
    picked = v.picks != picks
    if picked:
        v.picks = picks[:]
        for q in range(n):
            m[base[q] + 4] = 1.0 if picks[q] >= 0 else 0.0
        own = picks[player]
        if v.own != own:
            if v.own >= 0:
                m[PICK + v.own] = 0.0
            if own >= 0:
                m[PICK + own] = 1.0
            v.own = own
    values = v.values
    for j, src in enumerate((s.points, s.bonus_pts, s.personal, s.aside, s.ship)):  # _SEAT_VALUES order
        old = values[j]
        if old != src:
            values[j] = src[:]
            sc, hi = _VALUE_SCALE[j]
            off = 5 + j
            for q in range(n):
                x = src[q]
                if old is None or old[q] != x:
                    y = x * sc
                    m[base[q] + off] = min(hi, y)
    cover, got_bonus = s.cover, s.got_bonus
    if v.cover_all != cover or v.got_bonus != got_bonus:
        v.cover_all, v.got_bonus = cover[:], got_bonus[:]
        _write_covers(v, cover, got_bonus, n)
    # the observer's own knowledge: its hand and the hands it has seen (hand + pick)
    _write_hands(v, s, player, n)
    out[:] = v.buf


def _write_covers(v: _View, cover: list, got_bonus: list, n: int) -> None:
    """Each seat's cover bits, re-encoded only when that seat's changed."""
    m, base, covers = v.m, v.base, v.covers
    for q in range(n):
        key = (tuple(cover[5 * q:5 * q + 5]), got_bonus[q])
        old = covers[q]
        if old is not None and old[0] == key:
            continue
        bits = _BITS_CACHE.get(key)
        if bits is None:
            if len(_BITS_CACHE) > 50_000:
                _BITS_CACHE.clear()
            bits = _BITS_CACHE[key] = _cover_bits(*key)
        c0 = base[q] + _COVER
        if old is not None:
            for b in old[1]:
                m[c0 + b] = 0.0
        for b in bits:
            m[c0 + b] = 1.0
        covers[q] = (key, bits)


@cache
def _hand_cache(n: int) -> list:
    """Per seat: [hand, pick, its counts as scaled values, the same with the pick merged]."""
    zero = memoryview(np.zeros(NK, np.float32))
    return [[None, -2, zero, zero] for _ in range(n)]


_ZERO_HAND = memoryview(np.zeros(NK, np.float32))


_HAND_VALUES: dict[tuple, memoryview] = {}


def _hand_values(cards: list) -> memoryview:
    """The hand block of these cards (memoised: hands are few small multisets)."""
    key = tuple(cards)
    got = _HAND_VALUES.get(key)
    if got is not None:
        return got
    if len(_HAND_VALUES) > 100_000:
        _HAND_VALUES.clear()
    counts: dict[int, int] = {}
    for kind in cards:
        counts[kind] = counts.get(kind, 0) + 1
    vals = np.zeros(NK, np.float32)
    m = memoryview(vals)
    for kind, c in counts.items():
        m[kind] = _PER_HAND_F[c]
    _HAND_VALUES[key] = m
    return m


def _write_hands(v: _View, s: MilleFioriState, player: int, n: int) -> None:
    """Each seat's hand block: its counts (shared by all observers, recomputed only when that
    hand or pick changed) copied in when the observer knows the hand."""
    m = v.m
    seen, picks, hands, rot, src, sizes = s.seen, s.picks, s.hands, v.rot, v.hand_src, v.sizes
    cache = _hand_cache(n)
    for q in range(n):
        c = cache[q]
        h, pk = hands[q], picks[q]
        if c[0] != h or c[1] != pk:
            c[0], c[1] = h[:], pk
            c[2] = _hand_values(h)
            c[3] = _hand_values(sorted(h + [pk])) if pk >= 0 else c[2]
        if sizes[q] != len(h):
            sizes[q] = len(h)
            m[v.base[q] + 10] = min(len(h) / _HAND, 2.0)
        if q == player:
            new = c[2]
        elif seen[q] >> player & 1:
            new = c[3]
        else:
            new = _ZERO_HAND
        if src[q] is not new:
            k = rot[q]
            at = HANDS_AT + k * NK
            m[at:at + NK] = new
            m[SEATS_AT + k * SEAT + 11] = 0.0 if new is _ZERO_HAND else 1.0
            src[q] = new


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation


@LAYOUT.resetter
def _reset() -> None:
    _views.cache_clear()
    _hand_cache.cache_clear()
    _HAND_VALUES.clear()
    _BITS_CACHE.clear()
    for offsets in _COVER_OFFS:
        offsets.clear()
