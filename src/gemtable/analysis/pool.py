"""Pooling the games of several tournament runs into one result.

A figure such as "90.4 % of 120 games over seeds 16, 17 and 18" comes from several runs of
``gemtable tournament`` between the same bots; :func:`pool` reads their ``--out`` JSON files
(or ``--journal`` files) and gives the rows and timing a single summary is made from, so
the pooled figure has a command that reproduces it (``gemtable pool``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .runner import is_game_row, timing_of
from .summary import _timing


def _bots(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(row.get(f"bot_{s}")) for s in range(int(row.get("players") or 0)))


def _rows_of(path: Path) -> tuple[list[dict[str, Any]], dict[str, float] | None]:
    """A run's game rows and, where the file says, each bot's seconds per move."""
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".jsonl":  # a journal: rows with their timing
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    raise ValueError(f"{path}, line {number}: not JSON") from None
        # in the order of the run's games (a journal holds them in the order they ended)
        rows.sort(key=lambda r: r.get("index") if isinstance(r, dict) and type(r.get("index")) is int else -1)
        per_bot = timing_of(rows)
        return rows, _timing(per_bot) if per_bot else None
    if path.suffix.lower() != ".json":
        raise ValueError(f"{path}: pool reads the .json results of `gemtable tournament --out` "
                         "or its --journal files (.jsonl)")
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"{path}: not JSON") from None
    summary = data.get("summary") if isinstance(data, dict) else None
    if not isinstance(summary, dict) or summary.get("kind") != "tournament" or not isinstance(data.get("games"), list):
        raise ValueError(f"{path}: not the results of a tournament (`gemtable tournament --out FILE.json`)")
    table = summary.get("table")
    per_move = {str(e.get("bot")): float(e["seconds_per_move"]) for e in (table if isinstance(table, list) else [])
                if isinstance(e, dict) and isinstance(e.get("seconds_per_move"), (int, float))}
    return data["games"], per_move


def pool(paths: Sequence[str | Path]) -> tuple[list[dict[str, Any]], dict[str, list[float]], list[dict[str, Any]]]:
    """(rows, timing, runs) of the games of every file, for :func:`tournament_summary`.

    The files must be runs of one game at one table size between the same bots; a game
    that two files share (the same deal with the same seats: a file given twice, or a run
    and its own journal) is refused, so no game counts twice.  Rows are numbered again in
    file order.  ``timing`` gives each bot the runs' seconds per move weighted by the games
    it played in each.  ``runs``: per file, its path, its games and its deals (distinct deal seeds).
    """
    if not paths:
        raise ValueError("name at least one results file")
    rows: list[dict[str, Any]] = []
    timing: dict[str, list[float]] = {}
    runs: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], str] = {}
    first: tuple[Any, ...] | None = None
    for raw in paths:
        path = Path(raw)
        file_rows, per_move = _rows_of(path)
        labels: set[str] = set()
        games: dict[str, int] = {}
        for number, row in enumerate(file_rows, 1):
            if not is_game_row(row):
                raise ValueError(f"{path}: game {number} is not a finished game's row")
            bots = _bots(row)
            key = (row.get("game"), row.get("seed"), row.get("options"), bots)
            if key in seen:
                raise ValueError(f"{path} repeats a game of {seen[key]} (deal seed {row.get('seed')}, "
                                 "same seats): pool each run once")
            seen[key] = str(path)
            labels.update(bots)
            for label in set(bots):
                games[label] = games.get(label, 0) + 1
        if not file_rows:
            raise ValueError(f"{path}: no games")
        kind = (file_rows[0]["game"], file_rows[0]["players"], tuple(sorted(labels)))
        if any((r["game"], r["players"]) != kind[:2] for r in file_rows):
            raise ValueError(f"{path}: mixes games or table sizes")
        if first is None:
            first = kind
        elif kind != first:
            raise ValueError(f"{path} is a run of {kind[0]} at {kind[1]} players between {', '.join(kind[2])}; "
                             f"the first file's is {first[0]} at {first[1]} players between {', '.join(first[2])}")
        for label, count in games.items():
            t = timing.setdefault(label, [0.0, 0])
            t[0] += (per_move or {}).get(label, 0.0) * count
            t[1] += count
        for row in file_rows:
            rows.append(dict(row, index=len(rows)))
        seeds = sorted({r.get("seed") for r in file_rows if isinstance(r.get("seed"), int)})
        runs.append({"file": str(path), "games": len(file_rows), "deals": len(seeds)})
    return rows, timing, runs
