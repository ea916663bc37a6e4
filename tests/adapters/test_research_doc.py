"""docs/research.md: its layout tables are the code's, its examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gemtable.adapters.research import action_stats, layouts_markdown, main
from gemtable.games.registry import get_game

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def test_the_layout_section_matches_the_code():
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- layouts:start -->") + len("<!-- layouts:start -->")
    end = text.index("<!-- layouts:end -->")
    assert text[start:end].strip() == layouts_markdown().strip(), (
        "regenerate with: python -m gemtable.adapters.research layouts")


@pytest.mark.parametrize("index", range(4))
def test_the_examples_run(index, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 4
    exec(compile(blocks[index], f"research.md example {index + 1}", "exec"), {})  # noqa: S102 - our own doc
    assert capsys.readouterr().out.strip()


def test_action_statistics_count_every_decision():
    r = action_stats(get_game("sintra"), 2, games=2)
    assert r["actions"] == len(get_game("sintra").actions)
    assert 1.0 <= r["mean_legal"] <= r["actions"] and 0.0 <= r["forced_share"] <= 1.0
    assert r["decisions_per_game"] > 0


def test_layouts_command_prints_every_game(capsys):
    main(["layouts"])
    out = capsys.readouterr().out
    for gid in ("splendor", "sintra", "glassworks", "mille_fiori", "diamonds_club"):
        assert f"(`{gid}`)" in out
