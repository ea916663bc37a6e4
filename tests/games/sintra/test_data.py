"""The data file: loaded, validated, placeholders marked and replaceable."""

from pathlib import Path

import pytest

from gemtable.core import DataError
from gemtable.games.sintra import GAME
from gemtable.games.sintra.data import DATA, DATA_PATH, JOKER, load

TEXT = DATA_PATH.read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "data.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_data_shape():
    assert len(DATA.patterns) == 16 and all(len(p) == 5 for p in DATA.patterns)
    assert sum(1 for p in DATA.patterns if JOKER in p) == 1
    assert DATA.patterns[DATA.joker_code].count(JOKER) == 2
    assert len(DATA.window_values) == 8
    assert DATA.track[0] == 0 and DATA.track[-1] == -18
    assert -8 in DATA.track  # the rulebook's example space
    assert DATA.factories == {2: 5, 3: 7, 4: 9}
    assert DATA.ornament_points == (0, 0, 3, 6, 10)
    assert len(DATA.colours) == 5 and DATA.panes_per_colour * 5 == 100


def test_placeholders_are_marked():
    assert set(DATA.reconstructed) == {"windows", "broken_glass", "ornaments", "strips", "colour_names"}
    assert GAME.data_status == "reconstructed"


def test_only_orange_and_yellow_are_rulebook_colour_names():
    """The rulebook names orange and yellow; the other three names are placeholders."""
    assert {"orange", "yellow"} <= set(DATA.colours)
    assert set(DATA.reconstructed_colours) == set(DATA.colours) - {"orange", "yellow"}
    assert len(DATA.reconstructed_colours) == 3


def test_colour_name_flag_must_be_a_boolean(tmp_path):
    text = TEXT.replace('{ name = "blue",   letter = "B", reconstructed = true }',
                        '{ name = "blue",   letter = "B", reconstructed = "yes" }')
    assert text != TEXT
    with pytest.raises(DataError, match="colour 4: reconstructed must be true or false"):
        load(_write(tmp_path, text))
    named = TEXT.replace(", reconstructed = true }", " }")
    assert "colour_names" not in load(_write(tmp_path, named)).reconstructed


def test_component_counts_match_the_rulebook():
    """8 double-sided strips of 5 spaces, 5 colours, one side with 2 grey joker spaces."""
    assert len(DATA.patterns) == 2 * 8
    assert all(len(pat) == 5 for pat in DATA.patterns)
    assert {c for pat in DATA.patterns for c in pat} == set(range(5)) | {JOKER}
    assert sum(pat.count(JOKER) for pat in DATA.patterns) == 2


def test_rules_page_lists_the_shipped_strips():
    """The rules page shows the reconstructed strip table as it is in the data file."""
    rules = GAME.rules_text()
    assert "Reconstructed values" in rules
    for s in range(8):
        row = " | ".join(" ".join(DATA.letters[c] if c < 5 else "J" for c in DATA.patterns[2 * s + k])
                         for k in range(2))
        assert f"| {s + 1}     | {row} |" in rules


@pytest.mark.parametrize("old,new,message", [
    ('"O O O W B", "Y Y W P B"', '"O O O W", "Y Y W P B"', "strip 1 side A must have 5 spaces"),
    ('"O O O W B", "Y Y W P B"', '"O O O W B", "J Y J P B"', "exactly one strip side"),
    ('"P J P J P"', '"P O P W P"', "exactly one strip side of the set must show joker spaces, found 0"),
    ('"P J P J P"', '"P J J J P"', "exactly 2 grey joker spaces"),
    ('"O O O W B", "Y Y W P B"', '"O O O W X", "Y Y W P B"', "unknown space 'X'"),
    ("track = [0, -1, -2, -4, -6, -8, -11, -14, -18]", "track = [0, -1, -2, -4, -6, -8, -11, -14, -17]",
     "must end at -18"),
    ("track = [0, -1, -2, -4, -6, -8, -11, -14, -18]", "track = [0, -1, -2, -1, -6, -8, -11, -14, -18]",
     "must go down"),
    ("values = [1, 1, 2, 2, 3, 3, 4, 4]", "values = [1, 1, 2, 2, 3, 3, 4]", "8 non-negative integers"),
    ('  ["B O Y W P", "P J P J P"],\n', "", "must hold 8 strips"),
    ("windows = [[1, 2], [3, 4], [5, 6], [7, 8]]", "windows = [[1, 2], [3, 4], [5, 6], [7, 9]]",
     "ornament 4 must name 2 different windows"),
    ("rounds = 6", "rounds = 5", "rounds must be 6"),
])
def test_broken_data_rejected_with_clear_message(tmp_path, old, new, message):
    assert old in TEXT
    with pytest.raises(DataError) as info:
        load(_write(tmp_path, TEXT.replace(old, new, 1)))
    assert message in str(info.value)
    assert "data.toml" in str(info.value)


def test_not_toml_rejected(tmp_path):
    with pytest.raises(DataError, match="not valid TOML"):
        load(_write(tmp_path, TEXT + "\n[[[ broken"))


def test_placeholders_replaceable_by_editing_the_file(tmp_path):
    text = TEXT.replace("values = [1, 1, 2, 2, 3, 3, 4, 4]", "values = [1, 2, 2, 3, 3, 4, 4, 5]")
    text = text.replace("track = [0, -1, -2, -4, -6, -8, -11, -14, -18]", "track = [0, -2, -4, -8, -12, -18]")
    text = text.replace('"O P W Y B", "W P Y O B"', '"O O O P Y", "B W W W Y"')
    data = load(_write(tmp_path, text))
    assert data.window_values == (1, 2, 2, 3, 3, 4, 4, 5)
    assert data.track == (0, -2, -4, -8, -12, -18)
    assert data.patterns[12] == (2, 2, 2, 4, 1)
