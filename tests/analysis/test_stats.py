"""Intervals, summaries, head-to-head and ratings."""

import math

import pytest

from gemtable.analysis import (
    clopper_pearson,
    derive_seed,
    describe,
    head_to_head,
    ratings,
    wilson,
)
from gemtable.analysis.stats import entrant_stats, seat_stats


def test_wilson_matches_textbook_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_clopper_pearson_matches_textbook_values():
    lo, hi = clopper_pearson(5, 10)
    assert lo == pytest.approx(0.1871, abs=1e-4) and hi == pytest.approx(0.8129, abs=1e-4)
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.3085, abs=1e-4)
    lo, hi = clopper_pearson(10, 10)
    assert lo == pytest.approx(0.6915, abs=1e-4) and hi == 1.0
    # exact is wider than Wilson here
    assert clopper_pearson(30, 200)[0] < wilson(30, 200)[0]


def test_describe():
    d = describe([1, 2, 3, 10])
    assert d["mean"] == 4 and d["median"] == 2.5 and d["min"] == 1 and d["max"] == 10
    assert d["sd"] == pytest.approx(math.sqrt(((3 ** 2) + 2 ** 2 + 1 + 36) / 3))
    assert math.isnan(describe([])["mean"])


def test_derived_seeds_are_stable_and_distinct():
    assert derive_seed(1, 2) == derive_seed(1, 2)
    seeds = {derive_seed(7, i) for i in range(1000)} | {derive_seed(8, i) for i in range(1000)}
    assert len(seeds) == 2000
    assert derive_seed(1, 0, 1) != derive_seed(1, 1, 0)
    assert all(0 <= s < 2 ** 63 for s in seeds)


def _row(i, bots, scores):
    order = sorted(scores, reverse=True)
    ranks = [1 + order.index(s) for s in scores]
    n = len(bots)
    winners = [s for s in range(n) if ranks[s] == 1]
    row = {"index": i, "players": n, "turns": 10, "decisions": 20, "finished": True}
    for s in range(n):
        row[f"bot_{s}"] = bots[s]
        row[f"score_{s}"] = scores[s]
        row[f"rank_{s}"] = ranks[s]
        row[f"win_{s}"] = 1 / len(winners) if s in winners else 0.0
    return row


def test_head_to_head_ratings_and_seats_on_a_known_tournament():
    rows = []
    for i in range(30):  # strong beats medium beats weak, always; seats alternate
        for a, b in (("strong", "medium"), ("medium", "weak"), ("strong", "weak")):
            pair = (a, b) if i % 2 == 0 else (b, a)
            rows.append(_row(len(rows), pair, [10, 5] if pair[0] == a else [5, 10]))
    h2h = head_to_head(rows)
    assert h2h["strong"]["medium"]["rate"] == 1.0 and h2h["medium"]["strong"]["rate"] == 0.0
    assert h2h["medium"]["weak"]["games"] == 30
    r = ratings(rows)
    assert r["strong"]["ordinal"] > r["medium"]["ordinal"] > r["weak"]["ordinal"]
    table = {e["bot"]: e for e in entrant_stats(rows)}
    assert table["strong"]["rate"] == 1.0 and table["strong"]["games"] == 60
    assert table["weak"]["wins"] == 0 and table["weak"]["wilson_high"] < 0.1
    seats = seat_stats(rows)
    assert [s["rate"] for s in seats] == [0.5, 0.5]


def test_shared_first_places_are_win_shares():
    rows = [_row(0, ("a", "b", "c"), [5, 5, 1])]
    table = {e["bot"]: e for e in entrant_stats(rows)}
    assert table["a"]["wins"] == 0.5 and table["b"]["wins"] == 0.5 and table["c"]["wins"] == 0
    h2h = head_to_head(rows)
    assert h2h["a"]["b"]["rate"] == 0.5 and h2h["a"]["c"]["rate"] == 1.0
