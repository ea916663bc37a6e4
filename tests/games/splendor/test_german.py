"""A whole Splendor game read in German: every log line, prompt, action text, refusal and the
terminal view, with no English left from the catalogue and no field left unfilled."""

from __future__ import annotations

import re

from babel.messages.pofile import read_po
from rich.console import Console

from gemtable.core import Rng, event_for, format_text
from gemtable.core.registry import get_game

GAME = get_game("splendor")
PO = GAME.domains[0] / "de.po"
NAMES = ["Anna", "Ben", "Cem", "Dora"]


def _english_words() -> set[str]:
    """Words of the catalogue's English that its German never uses (so finding one in German
    output means an untranslated text): e.g. "takes", "noble", "white"; not "Gold"."""
    with PO.open("rb") as f:
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
    return {w for w in english if w.lower() not in german} - {"Splendor"}


ENGLISH = _english_words()


def _check(text: str, where: str) -> None:
    assert not re.search(r"\{(?!P\d+\})\w+\}", text), f"unfilled field in {where}: {text!r}"
    left = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w in ENGLISH]
    assert not left, f"English {left} in {where}: {text!r}"


def _view(state, seat) -> str:
    view = state.view(seat)
    view["names"] = NAMES[:state.num_players]
    console = Console(width=160, record=True, file=open("/dev/null", "w"))
    console.print(GAME.render_text(view, seat, lang="de"))
    return console.export_text()


def test_the_catalogue_has_english_words_to_look_for():
    assert {"takes", "noble", "white", "reserves", "Development"} <= ENGLISH
    assert "Gold" not in ENGLISH


def test_a_whole_game_in_german():
    seen: set[str] = set()
    for seed, players in ((3, 2), (11, 4)):
        state = GAME.new(players, seed)
        rng = Rng(seed)
        names = NAMES[:players]
        step = 0
        while not state.is_over():
            p = state.to_move()[0]
            _check(state.prompt(p, "de"), "prompt")
            _check(state.prompt((p + 1) % players, "de"), "prompt of another seat")
            legal = state.legal_actions(p)
            for a in legal:
                _check(state.action_text(p, a, "de"), "action text")
            if step % 5 == 0:
                for a in GAME.actions:
                    reason = state.check(p, a, "de")
                    if reason is not None:
                        _check(reason, f"refusal of {a.text!r}")
                        seen.add(reason.split(":")[0])
                _check(_view(state, p), "terminal view")
            action = legal[rng.below(len(legal))]
            for ev in state.apply(p, action):
                for seat in range(players):
                    line = format_text(event_for(ev, seat)["text"], names, "de", GAME.domains)
                    _check(line, f"log line {ev['type']}")
                    seen.add(ev["type"])
            step += 1
        _check(format_text(state.tiebreak_explained("de"), names), "tie-break")
        _check(_view(state, None), "final view")
    assert {"take", "reserve", "buy", "game_over", "Kaufen"} <= seen


def test_german_reads_as_german():
    state = GAME.new(2, 5)
    assert state.prompt(0, "de") == "Nimm Edelsteine, reserviere eine Karte oder kaufe eine Karte."
    two = next(a for a in state.legal_actions(0) if a.type == "take_two")
    assert state.action_text(0, two, "de").startswith("nimm 2 ")
    buy = next(a for a in GAME.actions if a.type == "buy" and a.args["card"] in state.board)
    assert state.check(0, buy, "de").startswith("Kaufen: Du brauchst ")
    events = state.apply(0, two)
    assert format_text(events[0]["text"], ["Anna", "Ben"], "de", GAME.domains).startswith("Anna nimmt 2 ")
    words = GAME.explain([0.0] * len(GAME.value_feature_names), [1.0] * len(GAME.value_feature_names), lang="de")
    assert words == ["+15 Punkte", "ein Adliger in Reichweite"]
    assert GAME.describe("de")["summary"].startswith("Edelsteine sammeln")


def _sections(text: str) -> list[str]:
    return re.findall(r"^#+ ", text, flags=re.M)


def test_rules_and_how_to_play_in_german():
    """RULES.de.md and PLAY.de.md are read for German, keep the English pages' shape (the
    same headings, the same numbered decisions) and use the German game's words."""
    for english, german in ((GAME.rules_text(), GAME.rules_text("de")), (GAME.play_text(), GAME.play_text("de"))):
        assert german != english
        assert _sections(german) == _sections(english)
        assert re.findall(r"^\d+\. ", german, flags=re.M) == re.findall(r"^\d+\. ", english, flags=re.M)
        for word in ("Edelsteine", "Entwicklungskarten", "Adlige", "Goldjeton", "Prestigepunkte", "reservier"):
            assert word in german, word
        # no English sentence left: none of the English pages' common words
        assert not re.findall(r"\b(the|and|you|your|card|cards|gems?|tokens?|noble|nobles)\b", german)
    assert "Stufe" in GAME.rules_text("de") and "Vorrat" in GAME.play_text("de")
