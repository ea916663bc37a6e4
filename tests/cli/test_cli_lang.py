"""The command line in the reader's language: --lang, the environment, and German texts."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gemtable.cli.main import app, choose_language

runner = CliRunner()


def test_the_language_comes_from_the_option_then_the_environment():
    assert choose_language(None, {"LANG": "de_DE.UTF-8"}) == "de"
    assert choose_language(None, {"LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"}) == "de"
    assert choose_language(None, {"LC_ALL": "C.UTF-8", "LANG": "de_DE.UTF-8"}) == "en"
    assert choose_language(None, {"LANG": "fr_FR.UTF-8"}) == "en"
    assert choose_language(None, {}) == "en"
    assert choose_language("de-DE", {"LANG": "en_US.UTF-8"}) == "de"


def test_an_unknown_language_is_a_clear_usage_error():
    result = runner.invoke(app, ["--lang", "xx", "games"])
    assert result.exit_code == 2
    assert "no texts in 'xx'; offered: en, de" in result.output


def test_games_in_german_with_lang_and_from_lang_variable(monkeypatch):
    result = runner.invoke(app, ["--lang", "de", "games"])
    assert result.exit_code == 0, result.output
    assert "gemtable-Spiele" in result.output and "Spielmaterial" in result.output
    monkeypatch.setenv("LANGUAGE", "")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    result = runner.invoke(app, ["games"])
    assert "gemtable-Spiele" in result.output
    english = runner.invoke(app, ["--lang", "en", "games"])
    assert "gemtable games" in english.output and "gemtable-Spiele" not in english.output
    as_json = json.loads(runner.invoke(app, ["--lang", "de", "games", "--json"]).output)
    assert {g["id"] for g in as_json} >= {"splendor"}


def test_errors_in_german():
    result = runner.invoke(app, ["--lang", "de", "play", "splendor", "--players", "7"])
    assert result.exit_code == 2
    assert "Fehler:" in result.output and "Splendor wird mit 2, 3, 4 Personen gespielt, nicht mit 7" in result.output
    result = runner.invoke(app, ["--lang", "de", "play", "nosuchgame"])
    assert result.exit_code == 2 and "unbekanntes Spiel 'nosuchgame'" in result.output
    result = runner.invoke(app, ["--lang", "de", "play", "splendor", "--seat", "3"])
    assert "--seat muss zwischen 1 und 2 liegen" in result.output


@pytest.mark.parametrize("lang", ["de"])
def test_play_and_replay_in_german(tmp_path, lang):
    save = tmp_path / "g.json"
    result = runner.invoke(app, ["--lang", lang, "play", "splendor", "--seed", "3", "--bots", "random",
                                 "--save", str(save)], input="help\nfoo\n" + "1\n" * 3000)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # the console wraps long lines
    assert "Du sitzt auf Platz 1" in out
    assert "Wähle eine der nummerierten Aktionen" in out
    assert "'foo' steht nicht zur Wahl" in out
    assert "Endstand" in out and "Aufzeichnung gespeichert in" in out
    again = runner.invoke(app, ["--lang", lang, "replay", str(save)])
    assert again.exit_code == 0, again.output
    assert "Personen, Startwert 3" in again.output and "Punkte:" in again.output


def test_the_terminal_drops_soft_hyphens_a_translator_put_in_long_words():
    import io

    from gemtable.cli.lang import TermConsole

    out = io.StringIO()
    TermConsole(file=out, width=80).print("baut einen Spring\u00adbrunnen")
    assert out.getvalue() == "baut einen Springbrunnen\n"


def test_soft_hyphens_are_dropped_from_tables_too():
    import io

    from rich.table import Table

    from gemtable.cli.lang import TermConsole

    out = io.StringIO()
    table = Table()
    table.add_column("Bau")
    table.add_row("Rosen\u00adgarten")
    TermConsole(file=out, width=40).print(table)
    assert "Rosengarten" in out.getvalue() and "\u00ad" not in out.getvalue()


def test_typers_own_words_follow_the_language_and_come_back():
    from typer.testing import CliRunner

    from gemtable.cli.main import app

    runner = CliRunner()
    german = runner.invoke(app, ["--lang", "de", "play", "--help"], terminal_width=100).output
    assert "Aufruf:" in german and "Argumente" in german and "Optionen" in german and "[Vorgabe: 2]" in german
    english = runner.invoke(app, ["--lang", "en", "play", "--help"], terminal_width=100).output
    assert "Usage:" in english and "Arguments" in english and "Options" in english and "[default: 2]" in english
