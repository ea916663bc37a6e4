"""Named layouts of the fixed-length numeric observations used by learning adapters.

A game that offers a numeric observation declares it as an
:class:`ObservationLayout`: consecutive named fields, each with an index range,
the bounds of its values and whether it carries the observer's *private*
information (what only that seat knows: its own hidden cards, secret pick, the
hands it has seen) or public information (what a spectator could know).  Every
index belongs to exactly one field, so adapters can name any entry, bound
their spaces and honour public-only / private-only requests.

The fast path is ``layout.fill(state, player, out)``: the game's filler writes
the observation into a preallocated float32 array (no Python per-element
loops).  Fillers are incremental: they keep the last observation they built and
rewrite only what changed in the state (every source is compared on every call,
so any sequence of states is observed correctly); ``layout.reset_caches()``
makes the next call start from scratch.  ``Game.observation(state, player)``
keeps returning a list of floats.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Field:
    """One named block of the observation: indices ``start`` … ``stop - 1``."""

    name: str
    start: int
    stop: int
    low: float = 0.0
    high: float = 1.0
    private: bool = False
    help: str = ""

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)


class ObservationLayout:
    """Builder and description of a game's observation vector.

    ``add`` appends a field and returns its start index, so the features
    module computes every offset it writes through a name::

        L = ObservationLayout()
        PHASE = L.add("phase", 5, help="one-hot")
    """

    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.size = 0
        self._fill: Callable[[Any, int, np.ndarray], None] | None = None
        self._reset: Callable[[], None] | None = None
        self._low: np.ndarray | None = None

    # -- building ----------------------------------------------------------------
    def add(self, name: str, size: int, low: float = 0.0, high: float = 1.0,
            private: bool = False, help: str = "") -> int:
        if size <= 0:
            raise ValueError(f"field {name!r} must have a positive size")
        if any(f.name == name for f in self.fields):
            raise ValueError(f"field {name!r} is declared twice")
        start = self.size
        self.fields.append(Field(name, start, start + size, float(low), float(high), private, help))
        self.size += size
        self._low = None
        return start

    def filler(self, fn: Callable[[Any, int, np.ndarray], None]) -> Callable[[Any, int, np.ndarray], None]:
        """Register ``fn(state, player, out)``, which writes every index of ``out``."""
        self._fill = fn
        return fn

    def resetter(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Register ``fn()``, which forgets every cache the filler keeps between calls."""
        self._reset = fn
        return fn

    def reset_caches(self) -> None:
        """Forget what the filler kept from earlier calls: the next ``fill`` computes the
        observation from scratch (the reference the incremental path is tested against)."""
        _OUT[0] = _OUT[1] = None
        if self._reset is not None:
            self._reset()

    # -- use -----------------------------------------------------------------------
    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, np.float32)

    def fill(self, state: Any, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``player`` written into ``out`` (a new array if None)."""
        if out is None:
            out = np.empty(self.size, np.float32)
        assert self._fill is not None, "layout has no filler"
        self._fill(state, player, out)
        return out

    def observation(self, state: Any, player: int) -> list[float]:
        """The observation as a list of floats (``Game.observation``)."""
        return self.fill(state, player).tolist()

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def get(self, obs: Any, name: str) -> Any:
        """The entries of field ``name`` in an observation."""
        return obs[self.field(name).slice]

    def _arrays(self) -> None:
        low = np.empty(self.size, np.float32)
        high = np.empty(self.size, np.float32)
        private = np.zeros(self.size, bool)
        for f in self.fields:
            low[f.slice] = f.low
            high[f.slice] = f.high
            private[f.slice] = f.private
        self._low, self._high, self._private = low, high, private

    @property
    def low(self) -> np.ndarray:
        if self._low is None:
            self._arrays()
        return self._low  # type: ignore[return-value]

    @property
    def high(self) -> np.ndarray:
        if self._low is None:
            self._arrays()
        return self._high

    @property
    def private_mask(self) -> np.ndarray:
        """True at every index that may carry the observer's private information."""
        if self._low is None:
            self._arrays()
        return self._private

    @property
    def private_size(self) -> int:
        return int(self.private_mask.sum())

    def check(self) -> None:
        """Every index is named by exactly one field, in order, with low <= high."""
        at = 0
        for f in self.fields:
            if f.start != at or f.stop <= f.start or f.low > f.high:
                raise ValueError(f"observation field {f.name!r} is not contiguous or has bad bounds")
            at = f.stop
        if at != self.size:
            raise ValueError("observation fields do not cover the vector")

    def describe(self) -> str:
        """A Markdown table of the fields (used for docs/research.md)."""
        lines = ["| indices | field | size | range | info | meaning |", "|---|---|---|---|---|---|"]
        for f in self.fields:
            idx = f"{f.start}" if f.size == 1 else f"{f.start}–{f.stop - 1}"
            lines.append(f"| {idx} | `{f.name}` | {f.size} | [{f.low:g}, {f.high:g}] | "
                         f"{'private' if f.private else 'public'} | {f.help} |")
        return "\n".join(lines)


__all__ = ["Field", "ObservationLayout"]


class Scratch:
    """Incremental filling: an observation kept in absolute seat order between calls.

    Sources (the state's flat int lists) are copied in bulk only when their content
    changed since the last call (list comparison runs in C), so a step that touches
    one strip re-encodes that list only.  One-hot entries are tracked by slot and
    only their changed bits are rewritten.  The result is gathered into the
    observer's seat order with one precomputed permutation.  Every source is
    compared on every call, so the cache is valid for any sequence of states.
    ``view`` is a memoryview of ``buf``: single entries written through it skip
    NumPy's per-call overhead (same float32 rounding).
    """

    __slots__ = ("buf", "hot", "snap", "view")

    def __init__(self, size: int) -> None:
        self.buf = np.zeros(size, np.float32)
        self.view = memoryview(self.buf)  # single entries and slices written without NumPy's overhead
        self.snap: dict[Any, list] = {}
        self.hot: dict[Any, int] = {}

    def bytes_into(self, key: Any, values: list, dest: np.ndarray) -> None:
        """``buf[dest] = values`` for small non-negative ints (0..255), if they changed."""
        if self.snap.get(key) != values:
            self.snap[key] = values[:]
            self.buf[dest] = np.frombuffer(bytes(values), np.uint8)

    def values_into(self, key: Any, values: list, dest: Any) -> None:
        """``buf[dest] = values`` for any numbers, if they changed."""
        if self.snap.get(key) != values:
            self.snap[key] = values[:]
            self.buf[dest] = values

    def onehot(self, key: Any, index: int) -> None:
        """Set ``buf[index] = 1`` and clear the index this key set last time (-1: none)."""
        old = self.hot.get(key, -1)
        if old != index:
            buf = self.buf
            if old >= 0:
                buf[old] = 0.0
            if index >= 0:
                buf[index] = 1.0
            self.hot[key] = index


__all__ += ["Scratch"]


def seat_rotations(size: int, n: int, blocks: tuple = (), strided: tuple = ()) -> list[np.ndarray]:
    """Per observer ``p``, the gather index that lists every seat's data observer first.

    An observation kept in absolute seat order becomes observer-relative with one
    ``buf[perm]``: relative seat ``k`` of observer ``p`` is absolute seat ``(p + k) % n``.
    ``blocks`` are ``(start, width)``: seat ``q`` owns ``start + q*width`` …
    ``start + (q+1)*width - 1``.  ``strided`` are index arrays of per-seat groups laid
    out ``group + q`` (seat ``q``'s entry of every group sits ``q`` after the group's
    first index).  Indices outside them map to themselves.
    """
    perms = []
    for p in range(n):
        perm = np.arange(size, dtype=np.intp)
        for k in range(n):
            q = (p + k) % n
            for start, width in blocks:
                perm[start + k * width:start + (k + 1) * width] = np.arange(start + q * width,
                                                                          start + (q + 1) * width)
            for group in strided:
                perm[group + k] = group + q
        perms.append(perm)
    return perms


__all__ += ["seat_rotations"]


_OUT: list = [None, None]  # the last ``out`` array and a float32 memoryview of it (or None)


def rotate_seats(buf: np.ndarray, out: np.ndarray, p: int, n: int, start: int, width: int) -> None:
    """``out`` = ``buf`` with its seat blocks listed observer first, in a few memcpys.

    ``buf`` (1-D float32, C-contiguous) keeps seat ``q``'s block at ``start + q*width``; in
    ``out``, relative seat ``k`` of observer ``p`` (absolute seat ``(p + k) % n``) sits there
    instead.  Everything else (including the zero blocks of absent seats) is copied as it is.
    The same result as ``buf.take(seat_rotations(...)[p])`` for a layout without strided
    groups, without a gather: memoryview slice copies are plain memcpys.  An ``out`` that is
    not a contiguous float32 vector is written through NumPy instead.
    """
    if p == 0:
        out[:] = buf
        return
    mid = start + p * width
    end = start + n * width
    cut = start + end - mid
    if _OUT[0] is not out:
        ok = out.dtype == np.float32 and out.ndim == 1 and out.flags.c_contiguous
        _OUT[0], _OUT[1] = out, memoryview(out) if ok else None
    o = _OUT[1]
    if o is None:
        out[:start] = buf[:start]
        out[start:cut] = buf[mid:end]
        out[cut:end] = buf[start:mid]
        out[end:] = buf[end:]
        return
    b = memoryview(buf)
    o[:start] = b[:start]
    o[start:cut] = b[mid:end]
    o[cut:end] = b[start:mid]
    o[end:] = b[end:]


__all__ += ["rotate_seats"]
