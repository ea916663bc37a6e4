"""Summaries of a run (JSON-safe dicts) and their Rich tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gemtable.core import i18n
from gemtable.core.i18n import mark, msg

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


LENGTH_WORDS = {"turns": mark("turns"), "decisions": mark("decisions")}
"""The measures of a game's length, as the tables name them."""


def simulate_tables(summary: dict[str, Any], title: str = "", lang: str = i18n.SOURCE) -> list[Any]:
    """The tables of a simulation (``title`` already in ``lang``), their words in ``lang``."""
    from rich.table import Table

    def say(message) -> str:
        return i18n.render(message, lang)

    t = Table(title=title or say(msg("{games} games", games=summary["games"])))
    t.add_column(say(msg("seat")), justify="right")
    t.add_column(say(msg("bot")), overflow="fold")
    for col in (msg("wins"), msg("win rate"), msg("95% CI (Wilson)"), msg("score mean ± sd [min/median/max]")):
        t.add_column(say(col), justify="right")
    for s in summary["table"]:
        t.add_row(str(s["seat"] + 1), s["bot"], f"{s['wins']:g}", _pct(s["rate"]), _ci(s), _dist(s["score"]))
    length = Table(title=say(msg("game length")))
    length.add_column(say(msg("measure")))
    length.add_column(say(msg("mean ± sd [min / median / max]")), justify="right")
    for name, d in summary["length"].items():
        if isinstance(d, dict):
            length.add_row(say(msg(LENGTH_WORDS[name])) if name in LENGTH_WORDS else name, _dist(d))
    if summary["length"].get("unfinished"):
        length.add_row(say(msg("unfinished (stopped at the step limit)")), str(summary["length"]["unfinished"]))
    out = [t, length]
    if summary.get("seconds_per_move"):
        timing = Table(title=say(msg("thinking time")))
        timing.add_column(say(msg("bot")))
        timing.add_column(say(msg("ms per decision")), justify="right")
        for label, sec in summary["seconds_per_move"].items():
            timing.add_row(label, f"{1000 * sec:.2f}")
        out.append(timing)
    return out


def tournament_tables(summary: dict[str, Any], title: str = "", lang: str = i18n.SOURCE) -> list[Any]:
    """The tables of a tournament (``title`` already in ``lang``), their words in ``lang``."""
    from rich.table import Table

    def say(message) -> str:
        return i18n.render(message, lang)

    t = Table(title=title or say(msg("tournament: {games} games", games=summary["games"])))
    t.add_column(say(msg("bot")), overflow="fold")
    for col in (msg("games"), msg("win rate (95% CI)"), msg("score"), msg("rank"), msg("rating μ±σ (ordinal)"),
                msg("ms/move")):
        t.add_column(say(col), justify="right")
    for e in summary["table"]:
        r = e["rating"]
        t.add_row(e["bot"], str(e["games"]),
                  f"{_pct(e['rate'])} ({100 * e['wilson_low']:.0f}–{100 * e['wilson_high']:.0f})",
                  f"{e['score']['mean']:.1f}", f"{e['mean_rank']:.2f}",
                  f"{r['mu']:.1f}±{r['sigma']:.1f} ({r['ordinal']:.1f})",
                  f"{1000 * e['seconds_per_move']:.1f}")
    h2h = summary["head_to_head"]
    labels = [e["bot"] for e in summary["table"]]
    m = Table(title=say(msg("head to head: row places ahead of column (95% CI)")))
    m.add_column("")
    for b in labels:
        m.add_column(b, justify="right")
    for a in labels:
        cells = []
        for b in labels:
            c = h2h.get(a, {}).get(b)
            cells.append("—" if c is None else f"{_pct(c['rate'])} ({100 * c['wilson_low']:.0f}–{100 * c['wilson_high']:.0f})")
        m.add_row(a, *cells)
    seats = Table(title=say(msg("win rate by seat (first-player advantage)")))
    for col in (msg("seat"), msg("win rate"), msg("95% CI (Wilson)"), msg("mean score")):
        seats.add_column(say(col), justify="right")
    for s in summary["seats"]:
        seats.add_row(str(s["seat"] + 1), _pct(s["rate"]), _ci(s), f"{s['score']['mean']:.2f}")
    out = [t, m, seats]
    if summary["length"].get("unfinished"):
        from rich.text import Text

        out.append(Text(say(msg("{n} games stopped unfinished at the step limit (ranked as they stood)",
                                n=summary["length"]["unfinished"])), style="yellow"))
    return out
