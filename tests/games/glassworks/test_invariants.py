"""Rule invariants checked after every decision of random games (all counts, all options)."""

from __future__ import annotations

import pytest

from gemtable.core import Rng
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks.rules import CAPACITY, LAKE_SIZE, NCOL, NROW, OVER, OVERFLOW, TRIGGER


def _check(s, counts_overflow: bool) -> None:
    n = s.num_players
    for p in range(n):
        cols = s.colcol[p * NCOL:(p + 1) * NCOL]
        heights = s.colh[p * NCOL:(p + 1) * NCOL]
        used = [c for c in cols if c >= 0]
        assert cols[:len(used)] == used, "columns are started from the left without gaps"
        assert len(set(used)) == len(used), "one colour per column"
        assert all(0 <= h <= NROW for h in heights)
        assert all((h > 0) == (c >= 0) for h, c in zip(heights, cols)) or s.pending
        expected = sum(heights) + (len(s.overflow[p]) if counts_overflow else 0)
        assert s.inventory[p] == expected, "inventory counts glassworks (and overflow) pieces"
        if not (s.phase == OVERFLOW and p == s.current):
            assert len(s.satchels[p]) <= CAPACITY
    assert len(s.lake) <= LAKE_SIZE
    assert sorted(s.river) == list(range(6))
    if max(s.inventory) >= TRIGGER:
        assert s.end_turn >= 0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("counts_overflow", [True, False])
def test_random_games_keep_the_rules_invariants(n, counts_overflow):
    pair_own = not counts_overflow  # the second run also plays the other pair rule
    for seed in range(25):
        s = GAME.new(n, seed, overflow_counts_toward_end=counts_overflow, pair_on_own_tile=pair_own)
        rng = Rng(seed + 99)
        trigger_turn = None
        while not s.is_over():
            p = s.to_move()[0]
            acts = s.legal_actions(p)
            if s.end_turn >= 0:
                assert not [a for a in acts if a.type.startswith("lake")], "lake closed after the trigger"
            if not pair_own:
                assert all(a["tile"] != a["shape"] for a in acts if a.type == "place_pair"), \
                    "a pair counts as a piece of any other shape"
            turn = s.turn
            s.step(p, acts[rng.below(len(acts))])
            if trigger_turn is None and s.end_turn >= 0:
                trigger_turn = turn
                assert s.end_turn == (turn // n + 2) * n
                assert all(len(sat) >= 3 for sat in s.satchels) or not s.bag
            _check(s, counts_overflow)
        assert s.phase == OVER
        if trigger_turn is not None and s.passes < n:
            assert s.turn == (trigger_turn // n + 2) * n, "the round is finished, then one more"
