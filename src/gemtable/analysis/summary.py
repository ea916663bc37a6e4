"""Summaries of a run (JSON-safe dicts) and their Rich tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import stats


def _timing(timing: dict[str, list[float]]) -> dict[str, float]:
    return {label: (t / m if m else 0.0) for label, (t, m) in timing.items()}


def simulate_summary(rows: Sequence[dict[str, Any]], timing: dict[str, list[float]] | None = None) -> dict[str, Any]:
    seats = stats.seat_stats(rows)
    return {
        "kind": "simulate",
        "games": len(rows),
        "table": seats,
        "length": stats.length_stats(rows),
        "seconds_per_move": _timing(timing or {}),
    }


def tournament_summary(rows: Sequence[dict[str, Any]], timing: dict[str, list[float]] | None = None) -> dict[str, Any]:
    table = stats.entrant_stats(rows)
    ratings = stats.ratings(rows)
    per_move = _timing(timing or {})
    for entry in table:
        entry["rating"] = ratings[entry["bot"]]
        entry["seconds_per_move"] = per_move.get(entry["bot"], 0.0)
    table.sort(key=lambda e: -e["rating"]["ordinal"])
    return {
        "kind": "tournament",
        "games": len(rows),
        "table": table,
        "head_to_head": stats.head_to_head(rows),
        "seats": stats.seat_stats(rows),
        "length": stats.length_stats(rows),
    }


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _ci(entry: dict[str, Any]) -> str:
    return f"{100 * entry['wilson_low']:.1f}–{100 * entry['wilson_high']:.1f}%"


def _dist(d: dict[str, float]) -> str:
    return f"{d['mean']:.1f} ± {d['sd']:.1f} [{d['min']:g}/{d['median']:g}/{d['max']:g}]"


def simulate_tables(summary: dict[str, Any], title: str = "") -> list[Any]:
    from rich.table import Table

    t = Table(title=title or f"{summary['games']} games")
    t.add_column("seat", justify="right")
    t.add_column("bot", overflow="fold")
    for col in ("wins", "win rate", "95% CI (Wilson)", "score mean ± sd [min/median/max]"):
        t.add_column(col, justify="right")
    for s in summary["table"]:
        t.add_row(str(s["seat"] + 1), s["bot"], f"{s['wins']:g}", _pct(s["rate"]), _ci(s), _dist(s["score"]))
    length = Table(title="game length")
    length.add_column("measure")
    length.add_column("mean ± sd [min / median / max]", justify="right")
    for name, d in summary["length"].items():
        if isinstance(d, dict):
            length.add_row(name, _dist(d))
    if summary["length"].get("unfinished"):
        length.add_row("unfinished (stopped at the step limit)", str(summary["length"]["unfinished"]))
    out = [t, length]
    if summary.get("seconds_per_move"):
        timing = Table(title="thinking time")
        timing.add_column("bot")
        timing.add_column("ms per decision", justify="right")
        for label, sec in summary["seconds_per_move"].items():
            timing.add_row(label, f"{1000 * sec:.2f}")
        out.append(timing)
    return out


def tournament_tables(summary: dict[str, Any], title: str = "") -> list[Any]:
    from rich.table import Table

    t = Table(title=title or f"tournament: {summary['games']} games")
    t.add_column("bot", overflow="fold")
    for col in ("games", "win rate (95% CI)", "score", "rank", "rating μ±σ (ordinal)", "ms/move"):
        t.add_column(col, justify="right")
    for e in summary["table"]:
        r = e["rating"]
        t.add_row(e["bot"], str(e["games"]),
                  f"{_pct(e['rate'])} ({100 * e['wilson_low']:.0f}–{100 * e['wilson_high']:.0f})",
                  f"{e['score']['mean']:.1f}", f"{e['mean_rank']:.2f}",
                  f"{r['mu']:.1f}±{r['sigma']:.1f} ({r['ordinal']:.1f})",
                  f"{1000 * e['seconds_per_move']:.1f}")
    h2h = summary["head_to_head"]
    labels = [e["bot"] for e in summary["table"]]
    m = Table(title="head to head: row places ahead of column (95% CI)")
    m.add_column("")
    for b in labels:
        m.add_column(b, justify="right")
    for a in labels:
        cells = []
        for b in labels:
            c = h2h.get(a, {}).get(b)
            cells.append("—" if c is None else f"{_pct(c['rate'])} ({100 * c['wilson_low']:.0f}–{100 * c['wilson_high']:.0f})")
        m.add_row(a, *cells)
    seats = Table(title="win rate by seat (first-player advantage)")
    for col in ("seat", "win rate", "95% CI (Wilson)", "mean score"):
        seats.add_column(col, justify="right")
    for s in summary["seats"]:
        seats.add_row(str(s["seat"] + 1), _pct(s["rate"]), _ci(s), f"{s['score']['mean']:.2f}")
    out = [t, m, seats]
    if summary["length"].get("unfinished"):
        from rich.text import Text

        out.append(Text(f"{summary['length']['unfinished']} games stopped unfinished at the step limit "
                        "(ranked as they stood)", style="yellow"))
    return out
