"""Seeded random numbers owned by a game state.

A small splitmix64 generator: its whole state is one integer, so cloning a
game state copies one int and the JSON form is one number.  The sequence is
defined here (not by the Python version's ``random`` module), so a seed gives
the same game byte for byte on every machine and Python release.
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

    def spawn(self) -> "Rng":
        """An independent generator seeded from this one."""
        return Rng(self.next64())

    def clone(self) -> "Rng":
        return Rng(self.s)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.s == self.s

    def __repr__(self) -> str:  # never printed into a player's view
        return "Rng(<hidden>)"
