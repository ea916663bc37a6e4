"""River Valley Glassworks in German: the catalogue is complete, English is what it was, and a
whole game reads in German for every player count (events, prompts, action texts, refusals,
the tie-break, the terminal view), with no English left and no field unfilled."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from rich.console import Console

from gemtable.core import Rng, i18n
from gemtable.core.game import event_for, format_text
from gemtable.games.glassworks import GAME
from gemtable.games.glassworks import labels as L
from gemtable.games.glassworks import rules as R
from gemtable.games.glassworks.text import render_text

PACKAGE = Path(R.__file__).resolve().parent
RENDERER = PACKAGE.parents[1] / "web" / "games" / "glassworks.js"
DOMAINS = GAME.domains
NAMES = ["Anna", "Ben", "Cem", "Dora", "Emil"]


def _used():
    found = i18n.extract(sorted(p for p in PACKAGE.glob("*.py") if "i18n" in p.read_text(encoding="utf-8")))
    for key, where in i18n.extract([RENDERER], {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)},
                                   method="javascript").items():
        found.setdefault(key, []).extend(where)
    return found


def test_the_german_catalogue_translates_every_message():
    used = _used()
    assert len(used) > 150  # the package and the renderer are both read
    assert any("glassworks.js" in w for where in used.values() for w in where)
    assert i18n.audit(DOMAINS[0], used, "de") == []


def test_english_action_messages_are_the_action_texts():
    for action in R.ACTIONS:
        assert i18n.render(R.action_message(action)) == action.text
        assert i18n.render(R.action_message(action), "de", DOMAINS) != action.text


def _english_words() -> set[str]:
    """Words of the catalogue's English that its German never uses: finding one in German
    output means an untranslated text ("gathers", "satchel", "white", "triangle")."""
    with (DOMAINS[0] / "de.po").open("rb") as f:
        po = read_po(f, locale="de")
    english, german = set(), set()
    for m in po:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        for text in ids:
            english |= set(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text)))
        for text in strings:
            german |= {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]{3,}", re.sub(r"\{\w+\}", " ", text))}
    # names of the game and its makers stay as they are
    return {w for w in english if w.lower() not in german} - {"River", "Valley", "Glassworks"}


ENGLISH = _english_words()


def _check(text: str, where: str) -> None:
    assert not re.search(r"\{(?!P\d+\})\w+\}", text), f"unfilled field in {where}: {text!r}"
    left = [w for w in re.findall(r"[A-Za-z]{3,}", text.replace("\u00ad", "")) if w in ENGLISH]
    assert not left, f"English {left} in {where}: {text!r}"


def _terminal(state, seat) -> str:
    view = state.view(seat)
    view["prompt"] = state.prompt(seat, "de") if seat is not None else i18n.render(
        state.prompt_message(None), "de", DOMAINS)
    buf = io.StringIO()
    Console(file=buf, width=160, color_system=None, force_terminal=False).print(render_text(view, seat, "de"))
    return buf.getvalue()


def test_the_catalogue_has_english_words_to_look_for():
    assert {"gathers", "satchel", "white", "triangle", "lake", "overflow"} <= ENGLISH


@pytest.mark.parametrize("options", GAME.option_sets(), ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("players", GAME.player_counts)
def test_a_whole_game_reads_in_german(players, options):
    state = GAME.new(players, seed=players, **options)
    rng = Rng(7 + players)
    names = NAMES[:players]
    seen: set[str] = set()
    step = 0
    while not state.is_over():
        p = state.to_move()[0]
        legal = state.legal_actions(p)
        for q in range(players):
            _check(state.prompt(q, "de"), "prompt")
        for a in legal:
            _check(state.action_text(p, a, "de"), "action text")
        if step % 4 == 0:
            legal_ids = {a.id for a in legal}
            for a in [a for a in GAME.actions if a.id not in legal_ids][step % 13::17]:
                reason = state.check(p, a, "de")
                assert reason and reason != state.check(p, a)
                _check(reason, f"refusal of {a.text!r}")
            _check(_terminal(state, p), "terminal view")
        for event in state.apply(p, legal[rng.below(len(legal))]):
            seen.add(event["type"])
            for seat in [None, *range(players)]:
                text = format_text(event_for(event, seat)["text"], names, "de", DOMAINS)
                _check(text, f"event {event['type']}")
                assert text != format_text(event_for(event, seat)["text"], names)
                assert text.endswith(".")
        step += 1
    assert {"place", "gather", "river", "column", "game_over"} <= seen
    _check(state.tiebreak_explained("de"), "tie-break")
    _check(_terminal(state, None), "final terminal view")
    _check(_terminal(state, 0), "final terminal view of a seat")


def test_german_reads_as_german():
    """German declines the article with the shape: each shape has its own words."""
    de = lambda m: i18n.render(m, "de", DOMAINS).replace("\u00ad", "")  # noqa: E731
    code = L.CODE_BY_NAME
    assert de(L.a_piece(code["white circle"])) == "einen Kreis in Weiß"
    assert de(L.a_piece(code["orange triangle"])) == "ein Dreieck in Orange"
    assert i18n.render(L.a_piece(code["orange triangle"])) == "an orange triangle"
    assert de(L.the_piece(code["light green moon"])) == "den Mond in Hellgrün"
    assert de(L.pair(0, 7, 4)) == "einen Stern in Weiß und einen in Orange"
    assert i18n.render(L.pair(0, 7, 4)) == "a white and an orange star"
    state = GAME.new(2, seed=3)
    assert state.prompt(0, "de") == "Lege Glas in den Fluss oder nimm aus dem See."
    events = state.apply(0, state.legal_actions(0)[0])
    assert format_text(events[0]["text"], ["Anna", "Ben"], "de", DOMAINS).startswith("Anna legt ")
    words = GAME.explain([0.0] * len(GAME.value_feature_names), [0.1] * len(GAME.value_feature_names), lang="de")
    assert words == ["+5 Punkte", "5 Punkte an den Überlauf verloren"]
    described = GAME.describe("de")
    assert described["summary"].startswith("Lege Glas in den Fluss")
    assert described["options"][0]["choice_labels"] == ["Ja: auch Stücke im Überlauf zählen",
                                                        "Nein: nur Stücke in der Glashütte zählen"]
    assert GAME.describe()["options"][0]["label"] == "Pieces put in overflow count toward the end of the game"


def test_soft_hyphens_only_mark_breaks():
    """A soft hyphen in the catalogue marks where the web may break a long word; the
    terminal view never shows one."""
    assert "\u00ad" in i18n.render(L.COLOUR_BY_NAME["dark green"], "de", DOMAINS)
    state = GAME.new(5, seed=1)
    assert "\u00ad" not in _terminal(state, 0)
