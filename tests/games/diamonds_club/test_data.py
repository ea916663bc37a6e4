"""Diamonds Club data file: loaded, validated, placeholders marked, broken files rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtable.core import DataError
from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club.data import DATA_PATH, load

TEXT = DATA_PATH.read_text(encoding="utf-8")


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    assert old in TEXT
    path = tmp_path / "data.toml"
    path.write_text(TEXT.replace(old, new, 1), encoding="utf-8")
    return path


def test_data_loads_with_placeholders_marked():
    data = load()
    assert len(data.strips[0]) == len(data.strips[1]) == 6
    assert all(len(face) == 6 for col in data.strips for strip in col for face in strip)
    assert "market" in data.reconstructed and "tracks.tech" in data.reconstructed
    # only the forest track's ends (2 and 6) are printed in the rulebook; the steps between are inferred
    assert "tracks.forest" in data.reconstructed
    assert "tracks.money" not in data.reconstructed
    # every shipped market space shows one good
    assert all(len(space) == 1 for col in data.strips for strip in col for face in strip for space in face)
    assert GAME.data_status == "reconstructed"
    assert [b.base_price for b in data.boards] == [3, 3, 3, 3, 4, 2, 3]
    assert data.money_coins == (10, 11, 12, 13, 14) and data.forest_vp == (2, 3, 4, 5, 6)


def test_replacing_values_only_in_the_file(tmp_path):
    path = _broken(tmp_path, "gems = { blue = 2, yellow = 1 }", "gems = { blue = 1, yellow = 1 }")
    data = load(path)
    assert data.boards[0].gems == (1, 1, 0, 0)


def test_a_market_space_may_show_several_goods(tmp_path):
    from gemtable.games.diamonds_club.data import MINE, PIT, SHIP

    path = _broken(tmp_path, '"pit:blue mine:2 ship:3 hat:1 mine:4 ship:2"',
                   '"pit:blue+mine:2 ship:3 hat:1 mine:4 ship:2 pit:red+mine:3+ship:3"')
    data = load(path)
    face = data.strips[0][0][0]
    assert face[0] == ((PIT, 0), (MINE, 2)) and face[1] == ((SHIP, 3),)
    assert face[5] == ((PIT, 3), (MINE, 3), (SHIP, 3))
    assert data.strip_text[0][0][0] == "pit:blue+mine:2 ship:3 hat:1 mine:4 ship:2 pit:red+mine:3+ship:3"
    # the same face written as a list of spaces
    path = _broken(tmp_path, '"pit:blue mine:2 ship:3 hat:1 mine:4 ship:2"',
                   '["pit:blue", ["mine:2", "ship:3"], "hat:1", "mine:4", "ship:2", "pit:red+ship:3"]')
    face = load(path).strips[0][0][0]
    assert face[1] == ((MINE, 2), (SHIP, 3)) and face[5] == ((PIT, 3), (SHIP, 3))


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("pit:blue mine:2 ship:3 hat:1 mine:4 ship:2", "pit:blue mine:2 ship:3 hat:1 mine:4", "has 5 spaces, expected 6"),
        ("pit:green mine:3 ship:2", "pit:purple mine:3 ship:2", "pit colour must be one of"),
        ("animal:pond track:forest hat:1", "animal:unicorn track:forest hat:1", "animal must be one of"),
        ("track:tech hat:1 track:money mine:3", "track:magic hat:1 track:money mine:3", "track must be one of"),
        ('kind = "any_tile"', 'kind = "castle"', "kind must be building, any_tile or forest"),
        ('mandatory = ["fountain", "pavilion", "rose_garden"]', 'mandatory = ["fountain", "castle"]', "is not a building"),
        ("coins = [10, 11, 12, 13, 14]", "coins = [9, 11, 12, 13, 14]", "must start at the starting coins"),
        ("extra_diamonds = [0, 0, 1, 1, 1]", "extra_diamonds = [0, 0, 1, 1]", "must have 5 entries"),
        ("gems = { red = 2, blue = 1 }", "gems = { red = 2, pink = 1 }", "unknown gem colour"),
        ("[tracks.forest]", "[tracks.wood]", "missing 'forest'"),
        ("spaces_per_strip = 6", "spaces_per_strip = 6\nspaces_per_strip = 7", "not valid TOML"),
        ("pit:blue mine:2 ship:3", "pit:blue+ mine:2 ship:3", "space 1 has an empty goods entry"),
        ("pit:blue mine:2 ship:3", "pit:blue mine:2+ship:0 ship:3", "value must be a number 1-9"),
        ('"pit:blue mine:2 ship:3 hat:1 mine:4 ship:2"', '["pit:blue", [], "ship:3", "hat:1", "mine:4", "ship:2"]',
         "space 2 has an empty goods entry"),
        ('"pit:blue mine:2 ship:3 hat:1 mine:4 ship:2"', "7", "must be a string or a list of spaces"),
    ],
)
def test_broken_data_is_rejected_with_a_clear_message(tmp_path, old, new, message):
    with pytest.raises(DataError, match=message) as info:
        load(_broken(tmp_path, old, new))
    assert "data.toml" in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        load(tmp_path / "nope.toml")
