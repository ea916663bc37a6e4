"""Explicit chance: every random event of an engine as a chance point.

An engine draws only through its state's :class:`~gemtable.core.rng.Rng` vocabulary
(``below``, ``shuffle``, ``shuffle_face_down``, ``draw``, ``draw_blind``,
``draw_counted``).  :class:`ChanceRng` answers those calls from a *script* of outcomes;
when the script runs out it raises :class:`ChancePoint`, which names the outcomes of the
next random event and their probabilities.  Nothing is decided by a hidden generator, so
a search that clones a state cannot see the future draws:

* a face-down pile is not shuffled (``shuffle_face_down`` does nothing); ``draw`` and
  ``draw_blind`` choose the item: outcomes are the distinct items left, each with
  probability multiplicity / size;
* ``draw_counted`` chooses an index: probability count / total;
* ``below(n)`` is uniform over ``0..n-1``;
* ``shuffle(items)`` (a public order) is decomposed into single draws: from the last
  position to the second, which of the items not yet placed goes there.

Outcomes are the drawn values themselves (small non-negative ints in every game).

A ChancePoint is an exception, so it interrupts the action (or the setup) in the middle,
leaving that state half-changed: :class:`Chance` therefore runs the action on a fresh
clone each time with the script so far (k chance points in one action cost k+1 runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .rng import Rng


class ChancePoint(Exception):
    """The next random event: ``outcomes`` (sorted) and their ``probabilities``."""

    def __init__(self, kind: str, outcomes: tuple, probabilities: tuple[float, ...]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.outcomes = outcomes
        self.probabilities = probabilities

    def __repr__(self) -> str:
        return f"ChancePoint({self.kind!r}, {len(self.outcomes)} outcomes)"


def _by_multiplicity(kind: str, items: Sequence) -> ChancePoint:
    counts: dict[Any, int] = {}
    for x in items:
        counts[x] = counts.get(x, 0) + 1
    n = len(items)
    outcomes = tuple(sorted(counts))
    return ChancePoint(kind, outcomes, tuple(counts[x] / n for x in outcomes))


class ChanceRng(Rng):
    """An :class:`Rng` whose every random call is a chance point (see the module docstring).

    ``script`` holds the outcomes chosen so far, consumed in order; a call past its end
    raises :class:`ChancePoint`.  An outcome that is not possible at its point raises
    ValueError.  Generators for searches (``next64``, ``random``, ``spawn``) are refused:
    in this mode no randomness may come from anywhere but the script."""

    __slots__ = ("script", "pos")

    def __init__(self, script: Sequence = ()) -> None:
        self.s = 0
        self.script = list(script)
        self.pos = 0

    def _take(self, point: Callable[[], ChancePoint], possible: Callable[[Any], bool]):
        if self.pos >= len(self.script):
            raise point()
        v = self.script[self.pos]
        if not possible(v):
            p = point()
            raise ValueError(f"{v!r} is not a possible outcome of this {p.kind} "
                             f"(possible: {list(p.outcomes)})")
        self.pos += 1
        return v

    # -- the vocabulary -------------------------------------------------------------
    def below(self, n: int) -> int:
        return self._take(lambda: ChancePoint("below", tuple(range(n)), (1.0 / n,) * n),
                          lambda v: isinstance(v, int) and 0 <= v < n)

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            rest = items[:i + 1]
            v = self._take(lambda rest=rest: _by_multiplicity("shuffle", rest), rest.__contains__)
            j = rest.index(v)
            items[i], items[j] = items[j], items[i]

    def shuffle_face_down(self, pile: list) -> None:
        pass  # the order is chosen draw by draw

    def draw(self, pile: list):
        v = self._take(lambda: _by_multiplicity("draw", pile), lambda v: v in pile)
        i = pile.index(v)
        pile[i] = pile[-1]
        pile.pop()
        return v

    draw_blind = draw

    def draw_counted(self, counts: list[int], total: int) -> int:
        def point() -> ChancePoint:
            tot = sum(counts)
            outcomes = tuple(c for c in range(len(counts)) if counts[c] > 0)
            return ChancePoint("draw", outcomes, tuple(counts[c] / tot for c in outcomes))

        c = self._take(point, lambda v: isinstance(v, int) and 0 <= v < len(counts) and counts[v] > 0)
        counts[c] -= 1
        return c

    # -- refused: no hidden generator in explicit-chance mode --------------------------
    def next64(self) -> int:
        raise TypeError("explicit-chance mode: draw through below/shuffle/draw/draw_blind/draw_counted")

    def random(self) -> float:
        return self.next64()

    def spawn(self) -> "Rng":
        return self.next64()

    def clone(self) -> "ChanceRng":
        return ChanceRng(self.script[self.pos:])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChanceRng) and other.script[other.pos:] == self.script[self.pos:]

    def __repr__(self) -> str:
        return f"ChanceRng({len(self.script) - self.pos} outcomes left)"


class Chance:
    """One setup or one action being resolved with explicit chance.

    ``run(rng)`` does the whole thing on fresh objects (a new game, or a clone of the
    position then the action) with ``rng`` as the state's generator and returns the new
    state.  After construction and after each :meth:`choose`, either ``point`` is the
    pending :class:`ChancePoint` or ``result`` is the finished state."""

    __slots__ = ("run", "script", "point", "result")

    def __init__(self, run: Callable[[ChanceRng], Any], script: Sequence = ()) -> None:
        self.run = run
        self.script = list(script)
        self.point: ChancePoint | None = None
        self.result: Any = None
        self._resolve()

    def _resolve(self) -> None:
        try:
            self.result = self.run(ChanceRng(self.script))
            self.point = None
        except ChancePoint as point:
            self.result = None
            self.point = point

    def choose(self, outcome) -> None:
        if self.point is None:
            raise ValueError("no chance point is pending")
        if outcome not in self.point.outcomes:
            raise ValueError(f"{outcome!r} is not a possible outcome of this {self.point.kind} "
                             f"(possible: {list(self.point.outcomes)})")
        self.script.append(outcome)
        self._resolve()

    @classmethod
    def setup(cls, game, num_players: int, options: dict[str, Any] | None = None,
              script: Sequence = ()) -> "Chance":
        """A new game dealt in explicit-chance mode."""
        options = dict(options or {})
        return cls(lambda rng: game.new(num_players, rng=rng, **options), script)

    @classmethod
    def action(cls, state, player: int, action, script: Sequence = (), validate: bool = True) -> "Chance":
        """``player``'s ``action`` from ``state`` (left untouched) in explicit-chance mode."""
        def run(rng: ChanceRng):
            s = state.clone()
            s.rng = rng
            if validate:
                s.apply(player, action)
            else:
                s.step(player, action)
            return s

        return cls(run, script)


def sample(point: ChancePoint, rng: Rng):
    """One outcome of ``point`` drawn with its probabilities (for playouts and tests)."""
    r = rng.random()
    acc = 0.0
    for v, p in zip(point.outcomes, point.probabilities):
        acc += p
        if r < acc:
            return v
    return point.outcomes[-1]


__all__ = ["Chance", "ChancePoint", "ChanceRng", "sample"]
