"""Every command group of the command line in German: its output holds no English word of
the kernel's catalogue (words the German uses too excepted), and the hint and review
reasons come in German."""

from __future__ import annotations

import os
import re

import pytest
from babel.messages.pofile import read_po
from typer.testing import CliRunner

from gemtable.cli.main import app
from gemtable.core import Match, Rng, i18n

runner = CliRunner()


def _english_words() -> set[str]:
    """Words of the kernel catalogue's English that its German never uses (finding one in
    German output means an untranslated text): "games", "wrote"; not "Bot"."""
    with (i18n.CORE_DOMAIN / "de.po").open("rb") as f:
        po = read_po(f, locale="de")
    english, german = set(), set()
    for m in po:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        for text in ids:
            english |= set(re.findall(r"[A-Za-z]{4,}", re.sub(r"\{\w+\}|\[/?\w*( \w+)*\]|--[\w-]+", " ", text)))
        for text in strings:
            # (option names are neither: the output's are left out before looking)
            german |= {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]{4,}", re.sub(r"\{\w+\}|--[\w-]+", " ", text))}
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
    # option names stay as they are; Click's and Typer's own words of a help page or a usage
    # error ("[default: …]" with a value or a flag's name, a metavar such as <path>, "Invalid
    # value:") have no translation here
    shown = re.sub(r"--?[\w-]+|<[\w\[\]]+>|(?:default|Vorgabe): [^\]]*|\bLIST\b|Invalid value:", " ", out)
    left = sorted({w for w in re.findall(r"[A-Za-zÄÖÜäöüß]{4,}", shown) if w in ENGLISH and w not in allowed})
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
    assert {"wrote", "drops"} <= ENGLISH


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
    from gemtable.bots import game_levels

    # the record's machine line and the levels' bot specs are data, shown as they are
    specs = {w for spec in game_levels("splendor").values() for w in re.findall(r"[A-Za-z]{4,}", spec)}
    out, code = german(["ladder", "splendor", "--show"], allowed=frozenset({"cores", "players"} | specs))
    assert code == 0 and ("Bot-Stufen gegeneinander gewertet" in out or "noch keine Wertung" in out)


def test_review_and_hints_in_german(tmp_path):
    path, match = _finished(tmp_path)
    out, code = german(["review", str(path), "--samples", "2"])
    assert code == 0, out
    assert f"{len(match.actions)} Züge" in out and "Größte Einbrüche" in out
    assert "Bewertung: gelerntes Bewertungsmodell, ein Halbzug tief, 2 Stichproben" in " ".join(out.split())
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
    assert "Diese Hilfe zeigen und beenden." in out  # Click's own help option too
    for command in ("serve", "loadtest", "pageload", "train", "distill"):
        out, code = german([command, "--help"])
        assert code == 0 and "Diese Hilfe zeigen und beenden." in " ".join(re.sub(r"[│]", " ", out).split())
    out, code = german(["simulate", "--help"])
    assert code == 0 and "Anzahl der Partien" in out
    # English stays English in the same process
    english = runner.invoke(app, ["simulate", "--help"], terminal_width=200).output
    assert "Number of games." in english and "Anzahl der Partien" not in english
    assert "Show this message and exit." in english


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


def test_review_errors_in_german(tmp_path):
    match = Match("splendor", 2, 3, {})
    state = match.start()
    match.play(state, 0, state.legal_actions(0)[0])
    path = match.save(tmp_path / "running.json")
    out, code = german(["review", str(path)])
    assert code == 2 and "Fehler:" in out and "Die Partie ist nicht vorbei" in out
    from gemtable.analysis.review import ReviewError, board_json, review

    with pytest.raises(ValueError) as english:  # (a ValueError still, for the callers)
        review(match)
    assert str(english.value) == "the game is not over: only a finished game can be reviewed"
    with pytest.raises(ReviewError) as error:
        board_json(match.to_json(), 5, [])
    assert error.value.text("de") == "Die Partie hat die Züge 0 bis 1; einen Zug 5 gibt es nicht"


def test_serve_in_german(tmp_path, monkeypatch):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # the line it prints, not the server
    db = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    out, code = german(["serve", "--db", db, "--port", "8123"])
    assert code == 0 and f"gemtable-Tisch unter http://127.0.0.1:8123  (Datenbank: {db})" in out
    out, code = german(["serve", "--db", db, "--workers", "2"])
    assert code == 2 and "Mehrere Worker brauchen PostgreSQL" in out
    out, code = german(["serve", "--bot-seconds", "-1"])
    assert code == 2 and "--bot-seconds muss eine positive Zahl sein" in out


def test_soak_report_in_german(monkeypatch):
    from gemtable.cli import lang, serve

    row = {"phase": "alone", "moves": 12, "failed": 0, "rest_p50_ms": 3.1, "rest_p99_ms": 9.0,
           "rest_max_ms": 9.5, "ws_p50_ms": 3.3, "ws_p99_ms": 9.2, "ws_max_ms": 9.9, "attacker_messages": 0,
           "attacker_closed": {}}
    flood = {**row, "phase": "flooding stalled spectator", "attacker_messages": 3000,
             "attacker_closed": {"1008": 1}}
    monkeypatch.setattr(lang, "_current", ["de"])
    lines = serve.format_soak([row, flood], True)
    text = "\n".join(lines)
    assert "allein: 12 Züge, 0 gescheitert | REST-Antwort" in text and "Angreifer: 3000 Nachrichten" in text
    assert lines[-1] == "Latenz unter Angriff unverändert"
    assert not {w for w in re.findall(r"[A-Za-z]{4,}", text) if w in ENGLISH}
    monkeypatch.setattr(lang, "_current", ["en"])
    assert serve.format_soak([row], False)[0] == (
        "                       alone: 12 moves, 0 failed | REST answer p50 3.1 ms p99 9.0 ms max 9.5 ms | "
        "other seat's WebSocket p50 3.3 ms p99 9.2 ms max 9.9 ms")


def test_loadtest_in_german():
    out, code = german(["loadtest", "--tables", "2", "--seconds", "3", "--warmup", "1", "--think", "0.3"])
    assert code == 0, out
    assert "2 Tische × 2 Plätze (splendor)" in out and "Limits pro Adresse aufgehoben" in out
    assert "Aufbau: 2 Tische" in out and "Aufwärmen: " in out and "Messung: " in out
    assert "Systemlast vorher" in out
    out, code = german(["loadtest", "--tables", "0"])
    assert code == 2 and "--tables muss zwischen 1 und 2000 liegen" in out
    from gemtable.measure.profile import format_profile

    profile = {"samples": 40, "files": [], "parts_pct": {"database commit": 55.0, "other": 45.0},
               "top_functions_pct": [("commit (db.py:10)", 30.0)]}
    assert format_profile(profile, "de")[:3] == [
        "Profil (40 Stichproben der Python-Arbeit, py-spy --gil; gefaltete Stacks: keine):",
        "   55.0 %  Datenbank-Commit", "   45.0 %  Sonstiges"]


def test_pageload_in_german():
    from gemtable.measure import pageload

    if not os.path.exists(pageload.CHROMIUM):
        pytest.skip(f"no chromium at {pageload.CHROMIUM}")
    out, code = german(["pageload", "--runs", "1"])
    assert code == 0, out
    assert "(Median von 1 Besuchen; chromium, 1280x800)" in out
    assert " Lobby kalt: gezeichnet nach" in out and " Tisch warm: gezeichnet nach" in out


def test_train_and_distill_in_german(tmp_path):
    weights = tmp_path / "value.npz"
    out, code = german(["train", "splendor", "--games", "4", "--seed", "1", "--out", str(weights)])
    assert code == 0, out
    out = " ".join(out.split())  # (Rich wraps long lines)
    assert "splendor: Partien laufen" in out and "Trainingszeilen" in out and "Training: Sieg-Log-Loss" in out
    flat = re.sub(r"\s+", "", out)  # (a long temporary path may wrap)
    assert "zurückgehalten (1 Partie)" in out and f"{weights}geschrieben".replace(" ", "") in flat
    out, code = german(["train", "splendor", "--games", "2", "--seed", "2", "--hidden", "8,8",
                        "--out", str(weights)])
    assert code == 0, out
    out = " ".join(out.split())
    assert "hat die verdeckten Schichten [32, 16]; sie bleiben" in out
    assert "wird fortgesetzt: bisher 4 Partien" in out
    out, code = german(["train", "splendor", "--method", "alpha"])
    assert code == 2 and "--method muss 'value' oder 'gumbel' sein" in out
    priors = tmp_path / "priors.npz"
    out, code = german(["distill", "sintra", "--games", "4", "--seed", "1", "--hidden", "16", "--epochs", "3",
                        "--out", str(priors)])
    assert code == 0, out
    out = " ".join(out.split())
    assert "sintra: Training mit" in out and "Stellungen" in out and "beste Aktion getroffen" in out


def test_diamonds_club_credit_in_german():
    from gemtable.core.registry import get_game

    game = get_game("diamonds_club")
    assert game.describe()["owners"] == game.owners  # the English as written
    german_words = game.describe("de")
    assert german_words["owners"] == "Rüdiger Dorn (Autor), Ravensburger (Verlag); inoffizielle Umsetzung"
    assert german_words["summary"].startswith("Setze Münzen auf einen Markt")
