"""Sintra in German: the catalogue covers every text, and a whole game reads in German."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from rich.console import Console

from gemtable.core import format_text, i18n
from gemtable.games.sintra import GAME

from ..german import english_fragments, used_messages

PACKAGE = Path(GAME.domains[0]).parent
NAMES = ["Anna", "Bernd", "Clara", "Dora"]


def test_the_catalogue_translates_every_text_with_the_same_fields():
    used = used_messages(GAME)
    assert len(used) > 80
    assert i18n.audit(PACKAGE / "locale", used, "de") == []


def test_rules_and_how_to_play_exist_in_german():
    assert GAME.rules_text("de") != GAME.rules_text("en")
    assert GAME.play_text("de") != GAME.play_text("en")
    assert "Glaser" in GAME.rules_text("de") and "Glaser" in GAME.play_text("de")


# The German edition's words for the game's pieces and scoring, and the words of our own
# they replaced: the catalogue and the rules pages speak as a German box does.
EDITION_TERMS = ("Glasstein", "Glassteine", "Glasturm", "Manufakturplättchen", "Tischmitte",
                 "Bruchglas", "Bruchglasleiste", "Glaser", "Streifen", "Jokerfeld", "Palastfenster",
                 "Fensterfeld", "Startspielermarker", "Beutel", "Rundenanzeige", "Farbbonus")
PAGE_TERMS = {
    "play": EDITION_TERMS + ("Schlusswertung", "A-Seite", "B-Seite", "Ornament", "Leerstelle", "fertiggestellt"),
}
PAGE_TERMS["rules"] = PAGE_TERMS["play"] + ("Punktemarker", "Punkteleiste", "Wertungsplan")
REPLACED = {
    "Scheibe (glass piece)": r"Scheibe",
    "Glasbruch (broken glass)": r"Glasbruch",
    "Turm (glass tower)": r"\bTurm",
    "zerbrechen (to break)": r"zerbr",
    "Manufaktur alone (factory display)": r"Manufaktur(?!plättchen)",
}
SHORT_FACTORY = "factory {number}"  # the board's factory labels, where the full word does not fit


def german_catalogue() -> dict[str, str]:
    """English id -> all German forms joined (soft hyphens dropped)."""
    with (PACKAGE / "locale" / "de.po").open("rb") as f:
        po = read_po(f, locale="de")
    out = {}
    for m in po:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, (list, tuple)) else m.id
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        out[key] = "\n".join(strings).replace("\u00ad", "")
    return out


def test_the_catalogue_uses_the_german_editions_terms():
    german = german_catalogue()
    everything = "\n".join(german.values())
    assert [t for t in EDITION_TERMS if t not in everything] == []
    stale = [f"{name}: {english!r} -> {text!r}" for english, text in german.items()
             for name, pattern in REPLACED.items()
             if re.search(pattern, text) and not (english == SHORT_FACTORY and name.startswith("Manufaktur"))]
    assert stale == []
    assert german[SHORT_FACTORY] == "Manufaktur {number}"
    # "Glasstein" is masculine: the colour words take its endings (no "-e Glasstein")
    assert german["{n} {colour} pane"] == "{n} {colour}en Glasstein\n{n} {colour}e Glassteine"
    assert not re.search(r"\b(die|eine|keine|jede|welche) [{}\w]* ?Glasstein\b", everything)


@pytest.mark.parametrize("page", ["rules", "play"])
def test_the_rules_pages_use_the_german_editions_terms(page):
    text = (GAME.rules_text if page == "rules" else GAME.play_text)("de").replace("\u00ad", "")
    assert [t for t in PAGE_TERMS[page] if t not in text] == []
    assert [name for name, pattern in REPLACED.items() if re.search(pattern, text)] == []


def test_german_pieces_are_declined_as_glasstein_is():
    state = GAME.new(2, 5)
    p = state.to_move()[0]
    texts = [state.action_text(p, a, "de") for a in state.legal_actions(p)]
    ones = [t for t in texts if t.startswith("1 ")]
    many = [t for t in texts if re.match(r"[2-9] ", t)]
    assert ones and many
    # accusative singular "1 gelben Glasstein", plural "2 gelbe Glassteine"
    assert all(re.match(r"1 (weiß|gelb|orangefarben|blau|rosafarben)en Glasstein von ", t) for t in ones), ones
    assert all(re.match(r"\d (weiß|gelb|orangefarben|blau|rosafarben)e Glassteine von ", t) for t in many), many


def german_problems(text: str, fragments: list[str]) -> list[str]:
    problems = [f"unfilled field {f!r} in {text!r}" for f in re.findall(r"\{\w+\}", text)
                if not re.fullmatch(r"\{P\d\}", f)]
    problems += [f"English {f!r} in {text!r}" for f in fragments if f in text]
    return problems


@pytest.mark.parametrize("players,seed,side", [(2, 1, "A"), (3, 2, "B"), (4, 3, "A")])
def test_a_whole_game_reads_in_german(players, seed, side):
    fragments = english_fragments(GAME)
    rng = random.Random(seed)
    state = GAME.new(players, seed, palace_side=side)
    every = list(GAME.actions)
    texts: list[str] = [state.tiebreak_explained("de")]
    steps = 0
    while not state.is_over():
        p = state.to_move()[0]
        legal = state.legal_actions(p)
        texts.append(state.prompt(p, "de"))
        texts.extend(state.action_text(p, a, "de") for a in legal)
        illegal = [a for a in rng.sample(every, 12) if a not in legal]
        texts.extend(state.check(p, a, "de") for a in illegal[:3])
        before = GAME.value_features(state, p)
        for event in state.apply(p, rng.choice(legal)):
            assert i18n.is_message(event["text"])
            texts.append(format_text(event["text"], NAMES[:players], "de", GAME.domains))
            texts.append(i18n.render(event["text"], "de", GAME.domains))
        texts.extend(GAME.explain(before, GAME.value_features(state, p), limit=7, lang="de"))
        if steps % 10 == 0:
            console = Console(width=160, record=True, file=open("/dev/null", "w"))
            console.print(GAME.render_text(state.view(p), p, lang="de"))
            texts.append(console.export_text())
        steps += 1
    texts.append(state.prompt(0, "de"))
    n = len(GAME.value_feature_names)
    texts.extend(GAME.explain([0.0] * n, [1.0] * n, limit=n, lang="de"))
    texts.extend(GAME.explain([1.0] * n, [0.0] * n, limit=n, lang="de"))
    problems = [x for text in texts for x in german_problems(text, fragments)]
    assert problems == []
    joined = "\n".join(texts)
    assert "Manufakturplättchen" in joined and "Streifen" in joined and "Tischmitte" in joined
    assert "Glasstein" in joined and "Bruchglas" in joined


def test_english_log_lines_are_unchanged():
    state = GAME.new(2, 5)
    p = state.to_move()[0]
    action = state.legal_actions(p)[0]
    events = state.apply(p, action)
    text = format_text(events[0]["text"], ["Amanda", "Bo"])
    assert text.startswith("Amanda takes ") and " pane" in text
    assert format_text(events[0]["text"], ["Amanda", "Bo"], "de", GAME.domains).startswith("Amanda nimmt ")
