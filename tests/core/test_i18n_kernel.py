"""The kernel's own texts in the reader's language: errors, option wording, explain words."""

from pathlib import Path

import pytest

from gemtable.core import Game, IllegalAction, Match, MatchFileError, Option, OptionError, UnknownGame, i18n
from gemtable.core.explain import Words, describe
from gemtable.core.i18n import mark, markn
from gemtable.core.registry import get_game

PO = r'''
msgid ""
msgstr ""
"Language: de\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgid "Board side"
msgstr "Spielplanseite"

msgid "Which side of the board is used."
msgstr "Welche Seite des Spielplans benutzt wird."

msgid "Day"
msgstr "Tag"

msgid "+{n} point"
msgid_plural "+{n} points"
msgstr[0] "+{n} Punkt"
msgstr[1] "+{n} Punkte"

msgid "a noble within reach"
msgstr "ein Adliger in Reichweite"
'''


@pytest.fixture
def domain(tmp_path: Path) -> Path:
    (tmp_path / "de.po").write_text(PO, encoding="utf-8")
    i18n.catalogue.cache_clear()
    return tmp_path


def test_option_wording_in_the_reader_s_language(domain):
    opt = Option("side", "day", ("day", "night"), help=mark("Which side of the board is used."),
                 label=mark("Board side"), choice_labels=(mark("Day"), mark("Night")))
    english = opt.describe()
    assert english == {"name": "side", "default": "day", "choices": ["day", "night"],
                       "help": "Which side of the board is used.", "label": "Board side",
                       "choice_labels": ["Day", "Night"]}
    german = opt.describe("de", [domain])
    assert german["label"] == "Spielplanseite" and german["help"] == "Welche Seite des Spielplans benutzt wird."
    assert german["choice_labels"] == ["Tag", "Night"]  # untranslated words stay English
    assert german["choices"] == ["day", "night"]  # what programs send never changes


def test_game_description_in_german_keeps_english_identical():
    game = get_game("splendor")
    assert game.describe("en") == game.describe()
    assert game.describe("de")["id"] == "splendor"


def test_option_and_player_count_errors_render_in_german():
    game = get_game("splendor")
    with pytest.raises(OptionError) as exc:
        game.check_players(7)
    assert str(exc.value) == "Splendor is played by 2, 3, 4 players, not 7"
    assert exc.value.text("de") == "Splendor wird mit 2, 3, 4 Personen gespielt, nicht mit 7"
    with pytest.raises(OptionError) as exc:
        game.resolve_options({"speed": 1})
    assert str(exc.value) == "Splendor has no option 'speed' (options: none)"
    assert exc.value.text("de") == "Splendor hat keine Option 'speed' (Optionen: keine)"


def test_unknown_game_is_still_a_key_error_and_translates():
    with pytest.raises(KeyError) as exc:
        get_game("chess")
    assert isinstance(exc.value, UnknownGame)
    assert exc.value.reason.startswith("unknown game 'chess' (registered: ")
    assert exc.value.text("de").startswith("unbekanntes Spiel 'chess' (vorhanden: ")


def test_match_file_errors_and_illegal_json_actions_translate(tmp_path):
    with pytest.raises(MatchFileError) as exc:
        Match.from_json({"format": "nope"})
    assert exc.value.text("de") == "keine gemtable-Partiedatei (die Formatkennung fehlt)"
    with pytest.raises(IllegalAction) as exc:
        get_game("splendor").action_from_json({"type": "fly"})
    assert exc.value.reason == "splendor has no action {'type': 'fly'}; see the legal actions offered."
    assert exc.value.text("de").startswith("splendor kennt keine Aktion {'type': 'fly'}")


def test_kernel_refusals_render_in_german():
    state = get_game("splendor").new(2, seed=1)
    action = state.legal_actions(0)[0]
    assert state.check(1, action) == "It is not your turn: waiting for seat 1."
    assert state.check(1, action, "de") == "Du bist nicht am Zug: Es wird auf Platz 1 gewartet."
    assert state.check(5, action, "de") == "In einer Partie mit 2 Personen gibt es keinen Platz 5."


def test_explain_words_with_plurals(domain):
    words = [Words("points", 1.0, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
             Words("nobles", 1.0, mark("a noble within reach"), mark("a noble further away")),
             Words("gems", 1.0, "+{n} gem{s}", "−{n} gem{s}")]
    names = ["points", "nobles", "gems"]
    assert describe(names, [0, 0, 0], [1, 1, 2], words, limit=3) == ["+1 point", "a noble within reach", "+2 gems"]
    assert describe(names, [0, 0, 0], [3, -1, 1], words, limit=3) == ["+3 points", "a noble further away", "+1 gem"]
    german = describe(names, [0, 0, 0], [3, 1, 0], words, limit=3, lang="de", domains=[domain])
    assert german == ["+3 Punkte", "ein Adliger in Reichweite"]
    assert describe(names, [0, 0, 0], [1, 0, 0], words, lang="de", domains=[domain]) == ["+1 Punkt"]
