"""Every command group of the command line in German: its output holds no English word of
the kernel's catalogue (words the German uses too excepted), and the hint and review
reasons come in German."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from typer.testing import CliRunner

from gemtable.cli.main import app
from gemtable.core import Match, Rng, i18n

runner = CliRunner()


def _english_words() -> set[str]:
    """Words of the kernel catalogue's English that its German never uses (finding one in
    German output means an untranslated text): "games", "players", "wrote"; not "Bot"."""
    with (i18n.CORE_DOMAIN / "de.po").open("rb") as f:
        po = read_po(f, locale="de")
    english, german = set(), set()
    for m in po:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        for text in ids:
            english |= set(re.findall(r"[A-Za-z]{4,}", re.sub(r"\{\w+\}|\[/?\w*( \w+)*\]", " ", text)))
        for text in strings:
            german |= {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]{4,}", re.sub(r"\{\w+\}", " ", text))}
    # command names and option names are the same in every language
    import typer

    tree = typer.main.get_command(app)
    names = {w for name, sub in tree.commands.items() for w in [name, *getattr(sub, "commands", {})]}
    return {w for w in english if w.lower() not in german} - names - {"gemtable", "install", "positions"}


ENGLISH = _english_words()


def german(args: list[str], allowed: frozenset = frozenset(), **kw) -> tuple[str, int]:
    """``gemtable --lang de ARGS``: its output and exit code, after checking that no English
    word is left (``allowed``: words of the data shown, such as a recorded command)."""
    result = runner.invoke(app, ["--lang", "de", *args], terminal_width=200, **kw)
    out = result.output
    # option names stay as they are; Click's and Typer's own words of a help page ("Show this
    # message and exit.", "[default: …]", a metavar such as <path>) have no translation here
    shown = re.sub(r"--?[\w-]+|<[\w\[\]]+>|Show this message and exit\.|default:|\bLIST\b", " ", out)
    left = sorted({w for w in re.findall(r"[A-Za-z]{4,}", shown) if w in ENGLISH and w not in allowed})
    assert not left, f"English left in `gemtable {' '.join(args)}`: {left}\n{out}"
    return out, result.exit_code


def _finished(tmp_path, seed=3):
    match = Match("splendor", 2, seed, {}, meta={"names": ["Ann", "Bo"]})
    state = match.start()
    rng = Rng(seed)
    while not state.is_over():
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        match.play(state, p, acts[rng.below(len(acts))])
    return match.save(tmp_path / "splendor.json"), match


def test_there_are_english_words_to_look_for():
    assert {"players", "wrote", "drops"} <= ENGLISH


def test_bench_in_german():
    out, code = german(["bench", "splendor", "--players", "2", "--runs", "1", "--seconds", "0.05"])
    assert code == 0 and "Zufällige Selbstpartien" in out and "Partien/s" in out
    out, code = german(["bench", "splendor", "--players", "7", "--runs", "1", "--seconds", "0.05"])
    assert code == 2 and "Fehler:" in out and "wird nicht zu 7 gespielt" in out
    out, code = german(["bench", "splendor", "--players", "2", "--bot", "greedy", "--positions", "1"])
    assert code == 0 and "Pro Entscheidung" in out and "Iterationen" in out


def test_simulate_tournament_and_pool_in_german(tmp_path):
    out, code = german(["simulate", "splendor", "-n", "4", "--jobs", "1", "--bots", "random,greedy",
                        "--out", str(tmp_path / "sim.json")])
    assert code == 0, out
    assert "4 Partien, 2 Personen, Seed 0" in out and "Siegquote" in out and "Partielänge" in out
    assert "Partien in" in out and "geschrieben" in out
    out, code = german(["tournament", "splendor", "--bots", "random,greedy", "-n", "2", "--jobs", "1",
                        "--out", str(tmp_path / "t.json")])
    assert code == 0, out
    assert "Direktvergleich" in out and "Siegquote nach Platz" in out
    out, code = german(["pool", str(tmp_path / "t.json")])
    assert code == 0 and "zusammengelegt" in out
    out, code = german(["simulate", "splendor", "-o", "nonsense"])
    assert code == 2 and "muss die Form name=wert haben" in out


def test_ladder_in_german():
    out, code = german(["ladder", "splendor", "--show"], allowed=frozenset({"cores", "players"}))  # the record
    assert code == 0 and ("Bot-Stufen gegeneinander gewertet" in out or "noch keine Wertung" in out)


def test_review_and_hints_in_german(tmp_path):
    path, match = _finished(tmp_path)
    out, code = german(["review", str(path), "--samples", "2"],
                       allowed=frozenset({"learned", "samples"}))  # the judge's name, as the JSON has it
    assert code == 0, out
    assert f"{len(match.actions)} Züge" in out and "Größte Einbrüche" in out
    # the reasons the bot gives are Splendor's German explain words
    from gemtable.analysis.review import hints

    state = match.start()
    english = hints(state, 0, samples=2)
    deutsch = hints(state, 0, samples=2, lang="de")
    assert [h["chance"] for h in english] == [h["chance"] for h in deutsch]
    assert any(h["reasons"] for h in deutsch)
    assert [h["reasons"] for h in english] != [h["reasons"] for h in deutsch]
    assert all(re.search(r"nimm|reserviere|kaufe", h["text"]) for h in deutsch)
    save = tmp_path / "g.json"
    out, code = german(["play", "splendor", "--seed", "3", "--bots", "random", "--hints", "--save", str(save)],
                       input="hint\nquit\n")
    assert code == 0 and out.count("Tipp") >= 3


@pytest.mark.parametrize("args", [["admin", "grant", "nobody"], ["admin", "logout", "nobody"]])
def test_admin_in_german(tmp_path, args):
    out, code = german([*args, "--db", f"sqlite:///{tmp_path / 'none.sqlite3'}"])
    assert code == 1 and "Fehler: Unter" in out and "gibt es keine Datenbank" in out


def test_help_in_german():
    out, code = german(["--help"])
    assert code == 0 and "Im Terminal gegen Bots spielen" in out
    out, code = german(["simulate", "--help"])
    assert code == 0 and "Anzahl der Partien" in out
    # English stays English in the same process
    english = runner.invoke(app, ["simulate", "--help"], terminal_width=200).output
    assert "Number of games." in english and "Anzahl der Partien" not in english


def test_every_help_text_has_its_german():
    """The help texts are looked up by their English at run time (not extracted by pybabel:
    Typer takes them from docstrings and ``help=``), so this test is their audit."""
    import typer

    from gemtable.cli.lang import _helps

    catalogue = i18n.catalogue(i18n.CORE_DOMAIN, "de")
    tree = typer.main.get_command(app)
    missing = []
    for obj, attr in _helps(tree):
        english = obj.__dict__.get(f"_gemtable_{attr}", getattr(obj, attr))
        if english and catalogue.get(i18n.msg(english)) is None:
            missing.append(english)
    assert missing == []
