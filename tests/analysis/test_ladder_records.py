"""The strength runs kept in ``docs/ladders``: every journal there is a valid run that
`gemtable pool` reads, and the figures its table quotes are what pooling the files gives."""

import re
from pathlib import Path

import pytest

from gemtable.analysis import tournament_summary
from gemtable.analysis.pool import pool

LADDERS = Path(__file__).resolve().parents[2] / "docs" / "ladders"
# | `file.jsonl` [`more.jsonl` …] | games | `bot spec` | 84.2 % (73–91) | …
ROW = re.compile(r"^\|\s*((?:`[^`]+\.jsonl`\s*)+)\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|\s*([\d.]+ % \(\d+–\d+\))\s*\|")


def _quoted() -> list[tuple[list[str], int, str, str]]:
    rows = []
    for line in (LADDERS / "README.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            files = re.findall(r"`([^`]+)`", m.group(1))
            rows.append((files, int(m.group(2)), m.group(3), m.group(4)))
    return rows


def _figure(entry: dict) -> str:
    return f"{100 * entry['rate']:.1f} % ({round(100 * entry['wilson_low'])}–{round(100 * entry['wilson_high'])})"


def test_every_kept_journal_is_quoted():
    journals = {p.name for p in LADDERS.glob("*.jsonl")}
    quoted = {f for files, *_ in _quoted() for f in files}
    assert journals, "no runs kept"
    assert quoted == journals


@pytest.mark.parametrize("files,games,bot,figure", _quoted(), ids=lambda v: v if isinstance(v, str) else None)
def test_quoted_figure_is_what_the_journals_pool_to(files, games, bot, figure):
    rows, timing, _ = pool([LADDERS / f for f in files])
    entry = {e["bot"]: e for e in tournament_summary(rows, timing)["table"]}[bot]
    assert (entry["games"], _figure(entry)) == (games, figure)
