"""Texts in the reader's language: messages with parameters, read from gettext catalogues.

A **message** is what the engines, the server and the CLI produce instead of a finished
sentence, as JSON so it can be stored and rendered later in any language::

    {"m": "{P0} takes {n} gem", "pl": "{P0} takes {n} gems", "p": {"n": 2}}

``m`` is the English text (the gettext ``msgid``), ``p`` its parameters, ``pl`` the
English plural (``msgid_plural``) chosen by the parameter ``n``, ``c`` an optional context
(``msgctxt``) for the same English words meaning two things. A parameter may itself be a
message (a gem's name, say), rendered in the same language. :func:`msg`, :func:`msgn` and
:func:`msgp` build messages in a form Babel's extractor finds (:data:`EXTRACT_KEYWORDS`).
A plain string is accepted wherever a message is: it is text that was rendered before
(games stored by older versions) and is shown as it is.

English is the source language: an English rendering is the ``msgid`` with its fields
filled in, so it never depends on a catalogue. Every other language is a set of gettext
``.po`` files, one per **domain**: a directory named ``locale`` holding ``<lang>.po``
(``de.po``, ``fr.po``...). The kernel, the CLI and the server share the domain
``gemtable/locale``; each game package has its own ``locale`` beside its code, and the web
client has ``gemtable/web/locale``. Adding a language is adding those files (see
docs/TRANSLATING.md); nothing here lists the languages.

Fields are written ``{name}``. A field whose name is not a parameter is left as written,
so the seat fields ``{P0}``, ``{P1}``... of game log lines survive rendering and are
filled with seat names afterwards (:func:`gemtable.core.game.format_text`).
"""

from __future__ import annotations

import functools
import gettext
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

SOURCE = "en"
"""The language the messages are written in."""

CORE_DOMAIN = Path(__file__).resolve().parent.parent / "locale"
"""The kernel's, CLI's and server's catalogues."""

Message = dict[str, Any]
_FIELD = re.compile(r"\{(\w+)\}")
_LANG = re.compile(r"^[a-z]{2,3}(?:_[A-Z][a-z]{3})?(?:_[A-Z]{2})?$")


def msg(text: str, **params: Any) -> Message:
    """A message: English ``text`` with ``{fields}`` from ``params``."""
    return {"m": text, "p": params} if params else {"m": text}


def msgn(singular: str, plural: str, n: int, **params: Any) -> Message:
    """A message with a plural: ``n`` picks the form (English: ``n == 1`` is singular; other
    languages follow their catalogue's plural rule).  ``n`` is also the field ``{n}``."""
    return {"m": singular, "pl": plural, "p": {"n": n, **params}}


def msgp(context: str, text: str, **params: Any) -> Message:
    """A message whose English words mean something else elsewhere: ``context`` tells
    translators which (gettext ``msgctxt``)."""
    out = msg(text, **params)
    out["c"] = context
    return out


def mark(text: str) -> str:
    """``text`` itself, marked for the extractor: for English words kept as plain strings
    (an option's label, a game's title) and translated where they are shown, with
    ``render(msg(text), lang, domains)``."""
    return text


def markn(singular: str, plural: str) -> tuple[str, str]:
    """An English text with its plural, kept until the count is known and marked for the
    extractor: ``render(msgn(*pair, n=n), lang, domains)`` where it is shown."""
    return (singular, plural)


EXTRACT_KEYWORDS = {"msg": None, "msgn": (1, 2), "msgp": ((1, "c"), 2), "mark": None, "markn": (1, 2)}
"""How Babel's extractor finds messages in Python code (``pybabel extract -k``)."""


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("m"), str)


class Catalogue:
    """One language of one domain: msgid (with context) -> translation(s)."""

    def __init__(self, lang: str, entries: dict[tuple[str | None, str], str | tuple[str, ...]],
                 plural: Any) -> None:
        self.lang = lang
        self.entries = entries
        self.plural = plural  # n -> index into a plural entry

    def get(self, message: Message) -> str | None:
        found = self.entries.get((message.get("c"), message["m"]))
        if found is None:
            return None
        if isinstance(found, tuple):
            n = _count(message)
            index = self.plural(n) if n is not None else 0
            text = found[index] if index < len(found) else ""
            return text or None
        return found or None


def _count(message: Message) -> int | None:
    n = (message.get("p") or {}).get("n")
    return int(n) if isinstance(n, (int, float)) else None


@functools.lru_cache(maxsize=None)
def catalogue(domain: Path, lang: str) -> Catalogue | None:
    """The catalogue ``domain/<lang>.po``, read once; None if the domain lacks the language."""
    path = Path(domain) / f"{lang}.po"
    if lang == SOURCE or not path.is_file():
        return None
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        po = read_po(f, locale=lang.replace("-", "_"))
    entries: dict[tuple[str | None, str], str | tuple[str, ...]] = {}
    for m in po:
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, (list, tuple)):
            entries[(m.context, m.id[0])] = tuple(m.string)
        else:
            entries[(m.context, m.id)] = m.string
    return Catalogue(lang, entries, gettext.c2py(po.plural_expr))


def languages(domain: Path = CORE_DOMAIN) -> list[str]:
    """The languages a domain offers: English first, then each ``<lang>.po`` in it."""
    found = sorted(p.stem for p in Path(domain).glob("*.po") if _LANG.match(p.stem))
    return [SOURCE] + [lang for lang in found if lang != SOURCE]


def render(message: Message | str, lang: str = SOURCE, domains: Sequence[Path] = (CORE_DOMAIN,)) -> str:
    """``message`` in ``lang``: the first of ``domains`` that translates it, else English.

    Rendering never fails on a message: a missing translation falls back to English, a
    missing parameter leaves its ``{field}`` as written.
    """
    if isinstance(message, str):
        return message
    if not is_message(message):
        return str(message)
    text: str | None = None
    if lang != SOURCE:
        for domain in domains:
            cat = catalogue(Path(domain), lang)
            if cat is not None:
                text = cat.get(message)
                if text is not None:
                    break
    if text is None:
        text = message["m"]
        if "pl" in message and _count(message) != 1:
            text = message["pl"]
    params = message.get("p")
    if not params:
        return text
    return fill(text, params, lang, domains)


def fill(text: str, params: Mapping[str, Any], lang: str = SOURCE,
         domains: Sequence[Path] = (CORE_DOMAIN,)) -> str:
    """Put ``params`` into ``text``'s ``{fields}``; unknown fields stay as written."""

    def field(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            return match.group(0)
        value = params[name]
        if is_message(value):
            return render(value, lang, domains)
        if isinstance(value, list):
            return ", ".join(render(v, lang, domains) if is_message(v) else str(v) for v in value)
        return str(value)

    return _FIELD.sub(field, text)


def fields(text: str) -> set[str]:
    """The ``{field}`` names a text uses (what must match between languages)."""
    return set(_FIELD.findall(text))


def normalize(tag: str | None) -> str | None:
    """``de-DE``, ``de_DE.UTF-8`` or ``DE`` -> ``de``; None for what is not a language tag."""
    if not tag:
        return None
    tag = tag.strip().split(".")[0].split("@")[0].replace("-", "_")
    base = tag.split("_")[0].lower()
    return base if re.fullmatch(r"[a-z]{2,3}", base) else None


def negotiate(wanted: Iterable[str | None], available: Sequence[str]) -> str:
    """The first of ``wanted`` (tags, best first) that ``available`` offers, else English."""
    for tag in wanted:
        lang = normalize(tag)
        if lang and lang in available:
            return lang
    return SOURCE


def accept_language(header: str | None) -> list[str]:
    """The tags of an HTTP ``Accept-Language`` header, best first (q=0 dropped)."""
    if not header:
        return []
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:32]):
        tag, _, rest = part.strip().partition(";")
        q = 1.0
        rest = rest.strip()
        if rest.startswith("q="):
            try:
                q = float(rest[2:])
            except ValueError:
                q = 0.0
        if tag and tag != "*" and q > 0:
            ranked.append((-q, i, tag))
    return [tag for _, _, tag in sorted(ranked)]


def from_environment(env: Mapping[str, str] | None = None) -> list[str]:
    """The languages the environment asks for, as gettext reads them (LANGUAGE first)."""
    env = os.environ if env is None else env
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            if value in ("C", "POSIX") or value.startswith("C."):
                return []
            return [v for v in value.split(":") if v]
    return []


Key = tuple[str | None, str, str | None]
"""(context, English text, English plural) of one message."""


def extract(sources: Iterable[Path], keywords: Mapping[str, Any] = EXTRACT_KEYWORDS,
            method: str = "python") -> dict[Key, list[str]]:
    """The messages that source files use (Babel's extractor), with where each is used."""
    from babel.messages.extract import extract_from_file

    found: dict[Key, list[str]] = {}
    for path in sources:
        for lineno, text, _comments, context in extract_from_file(method, str(path), keywords=dict(keywords)):
            if isinstance(text, tuple):
                key: Key = (context, text[0], text[1])
            else:
                key = (context, text, None)
            found.setdefault(key, []).append(f"{path}:{lineno}")
    return found


def audit(domain: Path, used: Mapping[Key, Any], lang: str) -> list[str]:
    """What is wrong with ``domain/<lang>.po`` for the messages ``used``: a message it lacks
    (or leaves empty), and a translation whose ``{fields}`` differ from the English (a
    plural form may leave out ``{n}``)."""
    path = Path(domain) / f"{lang}.po"
    if not path.is_file():
        return [f"{path}: missing"]
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        po = read_po(f, locale=lang)
    problems: list[str] = []
    for (context, text, plural) in used:
        entry = po.get(text if plural is None else (text, plural), context=context)
        where = f"{path.name}: {text!r}" + (f" (context {context!r})" if context else "")
        if entry is None or entry.fuzzy:
            problems.append(f"{where}: no translation")
            continue
        strings = entry.string if isinstance(entry.string, (list, tuple)) else (entry.string,)
        if not all(strings) or len(strings) < (po.num_plurals if plural is not None else 1):
            problems.append(f"{where}: empty translation")
            continue
        english = fields(text) | (fields(plural) if plural else set())
        # a plural form may leave the count out ("ein Stein"), never another field
        needed = english - {"n"} if plural is not None else english
        for s in strings:
            if not needed <= fields(s) <= english:
                problems.append(f"{where}: fields {sorted(fields(s))} differ from the English {sorted(english)}")
    return problems
