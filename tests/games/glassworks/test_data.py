"""The component data file: loaded, validated, placeholders marked and replaceable."""

from __future__ import annotations

import re

import pytest

from gemtable.core import DataError
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks.data import DATA, DATA_PATH, load


def _broken(tmp_path, old: str, new: str):
    text = DATA_PATH.read_text(encoding="utf-8")
    assert old in text, f"test setup: {old!r} not found in data.toml"
    path = tmp_path / "data.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_known_component_counts():
    counts = dict(zip(DATA.colours, DATA.colour_counts))
    assert counts == {
        "white": 22, "purple": 22, "light blue": 17, "dark blue": 17, "light green": 12,
        "dark green": 12, "yellow": 9, "orange": 9, "black": 12,
    }
    assert sum(c for c, only5 in zip(DATA.colour_counts, DATA.five_players_only) if not only5) == 120
    assert sum(DATA.colour_counts) == 132
    assert DATA.five_players_only == (False,) * 8 + (True,)
    assert len(DATA.shapes) == 6 and {"triangle", "heart"} <= set(DATA.shapes)
    assert (DATA.columns, DATA.rows) == (7, 5)
    assert DATA.satchel_capacity == 5 and DATA.lake_size == 5 and DATA.lake_take == 4
    assert DATA.end_trigger == 17 and DATA.end_top_up == 3 and DATA.overflow_penalty == 3
    assert DATA.row_track[3] == 4  # the seed: a run of three cells scores 4


def test_placeholders_follow_the_reference_notes():
    # shapes per colour: even split, colour i gives its n % 6 extras to shapes (i + k) mod 6
    for i, (count, row) in enumerate(zip(DATA.colour_counts, DATA.pieces)):
        expected = [count // 6] * 6
        for k in range(count % 6):
            expected[(i + k) % 6] += 1
        assert list(row) == expected, DATA.colours[i]
    assert dict(zip(DATA.shapes, DATA.stones)) == {
        "triangle": 1, "heart": 2, "circle": 1, "square": 2, "star": 1, "moon": 2}
    for c in range(7):
        for h in range(5):
            assert DATA.values[c][h] == (h + 1) + (c + 1) - 1
    assert DATA.row_track == (0, 1, 2, 4, 6, 9, 12, 16)


def test_placeholders_are_marked_reconstructed():
    assert set(DATA.reconstructed) == {"shapes", "pieces", "river", "glassworks", "row_track"}
    assert GAME.data_status == "reconstructed"


def test_only_the_three_cell_row_track_value_is_known():
    # the seed gives "3 cells score 4" and nothing else: 1 and 2 cells are placeholders too
    assert DATA.row_track_known == (3,)


def test_rules_page_marks_every_row_track_placeholder():
    from pathlib import Path

    text = " ".join(Path(GAME.rules_path).read_text(encoding="utf-8").split())
    rows = text[text.index("**Rows.**"):text.index("**Columns.**")]  # the row scoring rule

    def listed(sentence):
        return {int(k): int(v) for k, v in re.findall(r"(\d) cells? (?:scores? )?(\d+)", sentence)}

    known = [s for s in rows.split(". ") if "is known" in s]
    placeholders = [s for s in rows.split(". ") if "placeholders" in s]
    assert len(known) == 1 and len(placeholders) == 1
    assert listed(known[0]) == {k: DATA.row_track[k] for k in DATA.row_track_known}
    unknown = [k for k in range(1, DATA.columns + 1) if k not in DATA.row_track_known]
    assert listed(placeholders[0]) == {k: DATA.row_track[k] for k in unknown}  # 1 and 2 cells included


def test_values_are_replaceable_by_editing_the_file_only(tmp_path):
    path = _broken(tmp_path, "points = [0, 1, 2, 4, 6, 9, 12, 16]", "points = [0, 1, 3, 4, 7, 9, 12, 20]")
    data = load(path)
    assert data.row_track == (0, 1, 3, 4, 7, 9, 12, 20)


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('"white"       = [4, 4, 4, 4, 3, 3]', '"white"       = [4, 4, 4, 4, 3, 2]',
         "'white' adds up to 21 pieces but the colour has 22"),
        ("moon = 2 }", "moon = 0 }", "the moon tile needs at least 1 stone"),
        ("star = 1, moon = 2 }", "star = 1 }", "exactly one river tile per shape"),
        ("[7, 8, 9, 10, 11],", "[7, 8, 9, 10],", "values must be 7 columns of 5 integers"),
        ("points = [0, 1, 2, 4, 6, 9, 12, 16]", "points = [0, 1, 2, 4, 3, 9, 12, 16]", "must not decrease"),
        ("points = [0, 1, 2, 4, 6, 9, 12, 16]", "points = [0, 1, 2, 4]", "must list 8 integers"),
        ("satchel_capacity = 5", "satchel_capacity = -5", "satchel_capacity must be a positive integer"),
        ("lake_take = 4", "lake_take = 2", "lake_take must be lake_size - 1"),
        ('name = "orange"\ncount = 9', 'name = "orange"\ncount = "nine"', "'orange': count must be"),
        ("lake_size = 5", "lake_size = [5", "not valid TOML"),
        ("known = [3]", "known = [3, 8]", "known must list distinct cell counts from 1 to 7"),
    ],
)
def test_broken_data_file_is_rejected_with_a_clear_message(tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    with pytest.raises(DataError, match=re.escape(message)):
        load(path)


def test_missing_data_file_is_rejected(tmp_path):
    with pytest.raises(DataError, match="cannot read component data"):
        load(tmp_path / "nope.toml")
