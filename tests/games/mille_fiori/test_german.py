"""Mille Fiori in German: the catalogue covers every text, and a whole game reads in German."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from gemtable.core import format_text, i18n
from gemtable.games.mille_fiori import GAME

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
    assert "Zusatzkarte" in GAME.rules_text("de") and "Zusatzkarte" in GAME.play_text("de")


def german_problems(text: str, fragments: list[str]) -> list[str]:
    problems = [f"unfilled field {f!r} in {text!r}" for f in re.findall(r"\{\w+\}", text)
                if not re.fullmatch(r"\{P\d\}", f)]
    problems += [f"English {f!r} in {text!r}" for f in fragments if f in text]
    return problems


@pytest.mark.parametrize("players,seed,draft", [(2, 1, "simultaneous"), (3, 2, "tactical"), (4, 3, "simultaneous")])
def test_a_whole_game_reads_in_german(players, seed, draft):
    fragments = english_fragments(GAME)
    rng = random.Random(seed)
    state = GAME.new(players, seed, draft=draft)
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
            if "public" in event:
                texts.append(format_text(event["public"]["text"], NAMES[:players], "de", GAME.domains))
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
    assert "Diamanten" in joined and "Steuerrad" in joined and "Auslage" in joined


def test_english_log_lines_are_unchanged():
    state = GAME.new(2, 5)
    p = 0
    action = state.legal_actions(p)[0]
    events = state.apply(p, action)
    text = format_text(events[0]["text"], ["Amanda", "Bo"])
    assert text.startswith("Amanda picks the ") and text.endswith(" card (wheel %s)." % text[-3])
    assert format_text(events[0]["text"], ["Amanda", "Bo"], "de", GAME.domains).startswith("Amanda wählt die ")
