"""Diamonds Club in German: the catalogue is complete, English is what it was, and a whole
game reads in German (events, prompts, action texts, refusals, the terminal view)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from gemtable.core import Rng, i18n
from gemtable.core.game import event_for, format_text
from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club import rules as R
from gemtable.games.diamonds_club.text import render_text

PACKAGE = Path(R.__file__).resolve().parent
RENDERER = PACKAGE.parents[1] / "web" / "games" / "diamonds_club.js"
DOMAINS = GAME.domains


def _used():
    found = i18n.extract(sorted(p for p in PACKAGE.glob("*.py") if "i18n" in p.read_text(encoding="utf-8")))
    for key, where in i18n.extract([RENDERER], {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)},
                                   method="javascript").items():
        found.setdefault(key, []).extend(where)
    return found


def test_the_german_catalogue_translates_every_message():
    used = _used()
    assert len(used) > 150  # the package and the renderer are both read
    assert i18n.audit(DOMAINS[0], used, "de") == []


def test_english_action_messages_are_the_action_texts():
    for action in R.ACTIONS:
        assert i18n.render(R.action_message(action)) == action.text


def _catalogue():
    return i18n.catalogue(DOMAINS[0], "de")


def _untranslated(message, found):
    """Every message node inside ``message`` that the German catalogue does not translate
    (the seat-free joins built in code are not catalogue texts)."""
    if isinstance(message, list):
        for m in message:
            _untranslated(m, found)
        return
    if not i18n.is_message(message):
        return
    plain_join = re.fullmatch(r"(\{x\d+\}[^{}]*)*", message["m"]) is not None
    if not plain_join and i18n.render(message, "de", DOMAINS) == i18n.render(message):
        if _catalogue().get(message) is None:
            found.append(message["m"])
    for value in (message.get("p") or {}).values():
        _untranslated(value, found)


ENGLISH = [m.id for m in __import__("babel.messages.pofile", fromlist=["read_po"]).read_po(
    open(PACKAGE / "locale" / "de.po", "rb"), locale="de") if m.id and isinstance(m.id, str)]


def _check_german(text: str, where: str) -> None:
    left = [f for f in re.findall(r"\{(\w+)\}", text) if not re.fullmatch(r"P\d+", f)]
    assert not left, f"unfilled {left} in {where}: {text!r}"
    cat = _catalogue()
    for english in ENGLISH:
        german = cat.entries.get((None, english))
        # a whole English sentence of the catalogue shown where the German differs
        if german and german != english and "{" not in english and len(english) > 14 and english in text:
            raise AssertionError(f"English {english!r} in {where}: {text!r}")


def _rendered(renderable) -> str:
    buf = io.StringIO()
    Console(file=buf, width=140, color_system=None, force_terminal=False).print(renderable)
    return buf.getvalue()


@pytest.mark.parametrize("players", GAME.player_counts)
def test_a_whole_game_reads_in_german(players):
    state = GAME.new(players, seed=players)
    rng = Rng(7 + players)
    names = [f"Spieler{i + 1}" for i in range(players)]
    untranslated: list[str] = []
    steps = 0
    while not state.is_over():
        p = state.to_move()[0]
        legal = state.legal_actions(p)
        for q in range(players):
            _check_german(state.prompt(q, "de"), "prompt")
        untranslated_prompt: list[str] = []
        _untranslated(state.prompt_message(p), untranslated_prompt)
        untranslated += untranslated_prompt
        for a in legal:
            _check_german(state.action_text(p, a, "de"), "action text")
            _untranslated(state.action_message(p, a), untranslated)
        if steps % 5 == 0:
            illegal = [a for a in GAME.actions if a not in set(legal)]
            for a in illegal[steps % 11::37]:
                reason = state.check(p, a, "de")
                assert reason and reason != state.check(p, a)
                _check_german(reason, "refusal")
            view = state.view(p)
            view["prompt"] = state.prompt(p, "de")
            _check_german(_rendered(render_text(view, p, "de")), "terminal view")
        for event in state.apply(p, legal[rng.below(len(legal))]):
            for seat in [None, *range(players)]:
                seen = event_for(event, seat)
                text = format_text(seen["text"], names, "de", DOMAINS)
                _check_german(text, f"event {seen['type']}")
                assert format_text(seen["text"], names) != text
                _untranslated(seen["text"], untranslated)
        steps += 1
    assert not untranslated, sorted(set(untranslated))
    _check_german(state.tiebreak_explained("de"), "tiebreak")
    assert state.tiebreak_explained("de") != state.tiebreak_explained()
    view = state.view(0)
    view["prompt"] = state.prompt(0, "de")
    _check_german(_rendered(render_text(view, 0, "de")), "final terminal view")


def test_explain_words_in_german_and_english():
    names = GAME.value_feature_names
    before, after = [0.0] * len(names), [0.0] * len(names)
    after[names.index("points")] = 0.5
    after[names.index("coins")] = -0.5
    english = GAME.explain(before, after)
    german = GAME.explain(before, after, lang="de")
    assert english[0].startswith("+") and english[0].endswith(" points")
    assert german[0].startswith("+") and german[0].endswith(" Punkte")
    assert german[1].endswith(" Münzen ausgegeben") and english[1].endswith(" coins spent")
    one = [0.0] * len(names)
    one[names.index("mandatory_missing")] = 1.0
    assert GAME.explain([0.0] * len(names), one, lang="de") == ["ein Pflichtfeld bleibt leer"]
