"""Every text a player reads has a translation in every language gemtable offers.

The messages are found in the code by Babel's extractor, the way a translator's
``pybabel extract`` finds them (docs/TRANSLATING.md), one **domain** at a time:

- the kernel's (``src/gemtable/locale``): the kernel, the command line, the bots' training, the analysis, the server
  and the measuring tools;
- each game's (``games/<game>/locale``): its package and its web renderer
  ``web/games/<game>.js``;
- the web client's (``web/locale``): the shell's modules ``web/*.js``.

A language is offered when any domain has a ``<lang>.po`` for it; then every domain must
have one, translating every message it uses with the same ``{fields}``
(:func:`gemtable.core.i18n.audit`).  A game (or the web client) whose catalogue has not
been written yet is named in ``PENDING``: while its file is missing the test is an expected
failure, and as soon as the file exists it is audited like every other.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from gemtable.core import i18n
from gemtable.core.registry import all_games

SRC = Path(i18n.__file__).resolve().parents[1]  # src/gemtable
WEB = SRC / "web"
JS_KEYWORDS = {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)}
"""How the web client's messages are marked (web/i18n.js)."""

PENDING: dict[str, str] = {}
"""Domains whose translation is under way, with what is missing (see the module's text)."""


def _python(*folders: Path) -> list[Path]:
    """The modules of ``folders`` that build messages: those importing the language layer
    (``msg`` is also a common variable name, which the extractor would take for a call)."""
    return sorted(p for folder in folders for p in folder.rglob("*.py") if "i18n" in p.read_text(encoding="utf-8"))


def domains() -> dict[str, tuple[Path, list[Path], list[Path]]]:
    """name -> (locale folder, Python sources, JavaScript sources)."""
    out = {
        "kernel": (i18n.CORE_DOMAIN, _python(SRC / "core", SRC / "cli", SRC / "server", SRC / "analysis",
                                             SRC / "measure", SRC / "bots"), []),
        "web": (WEB / "locale", [], sorted(WEB.glob("*.js"))),
    }
    for game in all_games().values():
        package = Path(sys.modules[game.state_class.__module__].__file__).resolve().parent
        renderer = WEB / "games" / f"{game.id}.js"
        out[game.id] = (game.domains[0], _python(package), [renderer] if renderer.is_file() else [])
    return out


DOMAINS = domains()


def offered() -> list[str]:
    """Every language some domain has a catalogue for (English, the source, needs none)."""
    return sorted({lang for folder, _, _ in DOMAINS.values() for lang in i18n.languages(folder)} - {i18n.SOURCE})


def used(name: str) -> dict[i18n.Key, list[str]]:
    _, python, js = DOMAINS[name]
    found = i18n.extract(python)
    for key, where in i18n.extract(js, JS_KEYWORDS, method="javascript").items():
        found.setdefault(key, []).extend(where)
    return found


def _cases():
    for lang in offered():
        for name in DOMAINS:
            folder = DOMAINS[name][0]
            marks = []
            if name in PENDING and not (folder / f"{lang}.po").is_file():
                marks.append(pytest.mark.xfail(strict=True, reason=f"{PENDING[name]} ({lang})"))
            yield pytest.param(name, lang, id=f"{name}-{lang}", marks=marks)


@pytest.mark.parametrize(("name", "lang"), list(_cases()))
def test_every_message_is_translated(name, lang):
    folder = DOMAINS[name][0]
    messages = used(name)
    problems = i18n.audit(folder, messages, lang)
    detail = "\n".join(f"{p}   (used at {messages[k][0]})" if (k := _key(p, messages)) else p for p in problems)
    assert not problems, f"{len(problems)} problems in {folder}/{lang}.po:\n{detail}"


def _key(problem: str, messages) -> i18n.Key | None:
    for key in messages:
        if repr(key[1]) in problem:
            return key
    return None


def test_german_is_offered_and_the_domains_are_found():
    assert "de" in offered()
    assert {"kernel", "web", "splendor"} <= set(DOMAINS)
    # the extractor sees the kernel's and the command line's messages
    assert any("/core/game.py:" in w for where in used("kernel").values() for w in where)
    assert any("/cli/main.py:" in w for where in used("kernel").values() for w in where)


def _po_files() -> list[Path]:
    return sorted({p for folder, _, _ in DOMAINS.values() if folder.is_dir() for p in folder.glob("*.po")})


@pytest.mark.parametrize("path", _po_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_catalogue_header_is_babel_s_for_its_language(path):
    """The client numbers plural forms as Babel does (CLDR order): a catalogue's
    Plural-Forms must be exactly Babel's for its language, and it must say which language
    it is and that it is UTF-8."""
    lang = path.stem
    text = path.read_text(encoding="utf-8")
    header = dict(re.findall(r'^"([A-Za-z-]+): *(.*?)\\n"$', text, flags=re.M))
    assert header.get("Language") == lang
    assert header.get("Content-Type") == "text/plain; charset=UTF-8"
    assert header.get("Plural-Forms") == Catalog(locale=lang).plural_forms
    with path.open("rb") as f:
        po = read_po(f, locale=lang)
    assert po.num_plurals == Catalog(locale=lang).num_plurals
