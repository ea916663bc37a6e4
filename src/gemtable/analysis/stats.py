"""Statistics for bot games: confidence intervals, summaries, head-to-head, ratings.

Win counts are *win shares*: a game won alone counts 1, a shared first place 1/k.
Intervals are 95 % by default: Wilson score (works with fractional counts) and the
exact Clopper–Pearson interval (counts rounded to whole games).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import median
from typing import Any

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``wins / n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    total = 0.0
    lg = math.lgamma(n + 1)
    for i in range(k + 1):
        total += math.exp(lg - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq)
    return min(1.0, total)


def _bisect(f, lo: float, hi: float) -> float:
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def clopper_pearson(wins: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Exact (conservative) binomial interval; fractional win counts are rounded."""
    if n <= 0:
        return (0.0, 1.0)
    k = round(wins)
    k = min(max(k, 0), n)
    # lower: the p at which P(X >= k) = alpha/2; upper: the p at which P(X <= k) = alpha/2
    lower = 0.0 if k == 0 else _bisect(lambda p: 1 - _binom_cdf(k - 1, n, p) >= alpha / 2, 0.0, 1.0)
    upper = 1.0 if k == n else _bisect(lambda p: _binom_cdf(k, n, p) <= alpha / 2, 0.0, 1.0)
    return (lower, upper)


def describe(values: Iterable[float]) -> dict[str, float]:
    """mean, sd (sample), min, median, max of a list of numbers."""
    xs = [float(v) for v in values]
    if not xs:
        return {"n": 0, "mean": math.nan, "sd": math.nan, "min": math.nan, "median": math.nan, "max": math.nan}
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return {"n": len(xs), "mean": mean, "sd": sd, "min": min(xs), "median": median(xs), "max": max(xs)}


def rate(wins: float, n: int) -> dict[str, float]:
    """A win rate with its 95 % Wilson and Clopper–Pearson intervals."""
    lo, hi = wilson(wins, n)
    clo, chi = clopper_pearson(wins, n)
    return {
        "games": n,
        "wins": wins,
        "rate": wins / n if n else math.nan,
        "wilson_low": lo,
        "wilson_high": hi,
        "exact_low": clo,
        "exact_high": chi,
    }


def seat_stats(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seat: bot, win rate with intervals, score distribution (first-player advantage)."""
    if not rows:
        return []
    n = rows[0]["players"]
    out = []
    for s in range(n):
        bots = sorted({r[f"bot_{s}"] for r in rows})
        wins = sum(r[f"win_{s}"] for r in rows)
        out.append({
            "seat": s,
            "bot": ", ".join(bots),
            **rate(wins, len(rows)),
            "score": describe(r[f"score_{s}"] for r in rows),
        })
    return out


def length_stats(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "turns": describe(r["turns"] for r in rows),
        "decisions": describe(r["decisions"] for r in rows),
        "unfinished": sum(1 for r in rows if not r.get("finished", True)),
    }


def _seats(row: dict[str, Any]) -> range:
    return range(row["players"])


def entrants(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Entrant labels in order of first appearance."""
    seen: dict[str, None] = {}
    for r in rows:
        for s in _seats(r):
            seen.setdefault(r[f"bot_{s}"], None)
    return list(seen)


def entrant_stats(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entrant over every seat it sat in: win rate with intervals, scores, ranks."""
    out = []
    for label in entrants(rows):
        wins, games, scores, ranks = 0.0, 0, [], []
        for r in rows:
            for s in _seats(r):
                if r[f"bot_{s}"] == label:
                    games += 1
                    wins += r[f"win_{s}"]
                    scores.append(r[f"score_{s}"])
                    ranks.append(r[f"rank_{s}"])
        out.append({"bot": label, **rate(wins, games), "score": describe(scores),
                    "mean_rank": sum(ranks) / len(ranks)})
    return out


def head_to_head(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """matrix[a][b]: share of the games holding both a and b in which a placed ahead of b.

    A tie between them counts one half; in a 2-player game this is a's win rate
    against b.  Intervals are Wilson 95 %.
    """
    labels = entrants(rows)
    tally = {a: {b: [0.0, 0] for b in labels} for a in labels}
    for r in rows:
        seats = list(_seats(r))
        for i in seats:
            for j in seats:
                a, b = r[f"bot_{i}"], r[f"bot_{j}"]
                if i == j or a == b:
                    continue
                ri, rj = r[f"rank_{i}"], r[f"rank_{j}"]
                tally[a][b][0] += 1.0 if ri < rj else 0.5 if ri == rj else 0.0
                tally[a][b][1] += 1
    out: dict[str, dict[str, dict[str, float]]] = {}
    for a in labels:
        out[a] = {}
        for b in labels:
            w, n = tally[a][b]
            if n:
                lo, hi = wilson(w, n)
                out[a][b] = {"rate": w / n, "games": n, "wilson_low": lo, "wilson_high": hi}
    return out


def ratings(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett–Luce) ratings from the games in row order.

    Each seat is a one-player team; when one entrant holds several seats of a game
    (a lineup with repeats) its rating moves by the mean of those seats' updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {label: model.rating(name=label) for label in entrants(rows)}
    for r in rows:
        seats = list(_seats(r))
        teams = [[model.rating(mu=current[r[f"bot_{s}"]].mu, sigma=current[r[f"bot_{s}"]].sigma)]
                 for s in seats]
        ranks = [r[f"rank_{s}"] for s in seats]
        new = model.rate(teams, ranks=ranks)
        moved: dict[str, list[tuple[float, float]]] = {}
        for s, team in zip(seats, new):
            moved.setdefault(r[f"bot_{s}"], []).append((team[0].mu, team[0].sigma))
        for label, values in moved.items():
            mu = sum(v[0] for v in values) / len(values)
            sigma = sum(v[1] for v in values) / len(values)
            current[label] = model.rating(mu=mu, sigma=sigma, name=label)
    return {
        label: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma}
        for label, r in current.items()
    }
