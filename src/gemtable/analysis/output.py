"""Writing results: per-game rows as CSV or JSON, summaries as JSON or CSV."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .runner import public_rows


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def write_results(path: str | Path, rows: Sequence[dict[str, Any]], summary: dict[str, Any] | None = None) -> list[Path]:
    """Write the per-game rows to ``path`` (``.csv`` or ``.json``).

    JSON holds ``{"summary": ..., "games": [...]}``; with CSV the summary's per-bot
    table goes to ``<stem>.summary.csv`` beside it.  Returns the files written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ValueError(f"results file must end in .csv or .json, not {path.name!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = public_rows(rows)
    written = [path]
    if suffix == ".json":
        data = {"summary": _clean(summary or {}), "games": rows}
        path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        return written
    write_csv(path, rows)
    table = (summary or {}).get("table")
    if table:
        extra = path.with_name(path.stem + ".summary.csv")
        write_csv(extra, [flatten(r) for r in table])
        written.append(extra)
    return written


def flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts to flat ``score_mean``-style keys."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}_"))
        else:
            out[f"{prefix}{k}"] = v
    return out


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    fields: list[str] = []
    for r in rows:
        for k in r:
            if k not in fields:
                fields.append(k)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for r in rows:
            writer.writerow(r)
