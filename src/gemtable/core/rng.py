"""Seeded random numbers owned by a game state.

A small splitmix64 generator: its whole state is one integer, so cloning a
game state copies one int and the JSON form is one number.  The sequence is
defined here (not by the Python version's ``random`` module), so a seed gives
the same game byte for byte on every machine and Python release.

Engines route every random event through a small vocabulary so that the same
code can also run in explicit-chance mode (:class:`gemtable.core.chance.ChanceRng`),
where each event becomes a chance point with its outcomes and probabilities:

* ``shuffle_face_down(pile)`` then ``draw(pile)``: a face-down pile, drawn from the top;
* ``draw_blind(bag)``: one item taken at random from an unordered bag (a list);
* ``draw_counted(counts, total)``: one piece from a bag kept as counts per colour;
* ``below(n)``, ``shuffle(items)``, ``choice(seq)``: public randomness (starting player,
  random sides, orders laid out face up).

With this ordinary generator each call does exactly what the engines did before the
vocabulary existed (same arithmetic, same numbers consumed).
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Rng:
    __slots__ = ("s",)

    def __init__(self, seed: int = 0) -> None:
        self.s = int(seed) & _MASK

    def next64(self) -> int:
        s = (self.s + _GAMMA) & _MASK
        self.s = s
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) (modulo bias below 2**-50 for game-sized n)."""
        s = (self.s + _GAMMA) & _MASK
        self.s = s
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return (z ^ (z >> 31)) % n

    def random(self) -> float:
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, items: list) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    # -- the chance vocabulary (see the module docstring) ----------------------------
    def shuffle_face_down(self, pile: list) -> None:
        """Shuffle a face-down pile before it is drawn from with :meth:`draw`."""
        self.shuffle(pile)

    def draw(self, pile: list):
        """Take the top item of a face-down pile (the pile must not be empty)."""
        return pile.pop()

    def draw_blind(self, bag: list):
        """Take one item uniformly at random from an unordered bag (must not be empty);
        the last item fills the hole."""
        i = self.below(len(bag))
        x = bag[i]
        bag[i] = bag[-1]
        bag.pop()
        return x

    def draw_counted(self, counts: list[int], total: int) -> int:
        """Take one piece from a bag kept as counts (``total`` = their sum > 0): returns the
        index drawn, each with probability ``counts[i] / total``, and lowers its count."""
        r = self.below(total)
        c = 0
        while r >= counts[c]:
            r -= counts[c]
            c += 1
        counts[c] -= 1
        return c

    def spawn(self) -> "Rng":
        """An independent generator seeded from this one."""
        return Rng(self.next64())

    def clone(self) -> "Rng":
        return Rng(self.s)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.s == self.s

    def __repr__(self) -> str:  # never printed into a player's view
        return "Rng(<hidden>)"
