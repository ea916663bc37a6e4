"""The reader's language: which languages the site offers, which one a request reads, and the
web client's catalogue of each.

A language is offered when the web shell has a catalogue for it (``web/locale/<lang>.po``;
English, the source language, always).  A request reads, in this order: the language the
browser chose with the picker (the ``gt_lang`` cookie, set for guests and accounts alike; an
account also keeps its choice in ``gt_players.lang`` and gets the cookie back at its next
``/api/me``), else the best of its ``Accept-Language``, else English.  A WebSocket reads the
same from its opening handshake, so a seat is sent its log, prompts and refusals in the language
of the page that opened it.

The web catalogue (``/api/i18n/<lang>``) merges the web shell's domain with every game's
domain (the renderers' words) and the kernel's (the server's messages the page renders itself:
system chat lines arrive as messages), built once per language and process: its ETag is a hash of
the body, and the shell names it with that hash (``?v=``) so the browser may keep it for a year.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from gemtable.core import i18n
from gemtable.core.registry import all_games

WEB_DOMAIN = Path(__file__).resolve().parent.parent / "web" / "locale"
COOKIE = "gt_lang"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie
_CODE = re.compile(r"^[a-z]{2,3}$")


def offered() -> list[str]:
    """The languages the site offers: English first, then each web catalogue's."""
    return i18n.languages(WEB_DOMAIN)


def valid_code(code: Any) -> bool:
    """Whether ``code`` is written like a language code we name catalogues by (``de``)."""
    return isinstance(code, str) and bool(_CODE.match(code))


@functools.lru_cache(maxsize=None)
def display_name(code: str) -> str:
    """A language's name in that language ("Deutsch"), from CLDR (Babel)."""
    from babel import Locale

    try:
        name = Locale.parse(code).get_display_name(code) or code
    except (ValueError, LookupError):
        return code
    return name[:1].upper() + name[1:]


def listing() -> list[dict[str, str]]:
    return [{"code": code, "name": display_name(code)} for code in offered()]


def choose(cookie: str | None, accept: str | None) -> str:
    """The language a request reads: its cookie's when offered, else its Accept-Language."""
    available = offered()
    if cookie in available:
        return cookie
    return i18n.negotiate(i18n.accept_language(accept), available)


def of(conn: Any) -> str:
    """The language of a Starlette ``Request`` or ``WebSocket`` (its cookie and headers)."""
    return choose(conn.cookies.get(COOKIE), conn.headers.get("accept-language"))


def set_cookie(conn: Any, response: Any, code: str) -> None:
    response.set_cookie(COOKIE, code, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax",
                        secure=conn.url.scheme in ("https", "wss"))


def domains_for_web() -> list[Path]:
    """The web shell's domain, then every installed game's own (its renderer's words), then the
    kernel's (server messages the page renders: a system chat line's ``msg``)."""
    out = [WEB_DOMAIN]
    for _, game in sorted(all_games().items()):
        for domain in game.domains:
            if Path(domain) != i18n.CORE_DOMAIN and Path(domain) not in out:
                out.append(Path(domain))
    out.append(Path(i18n.CORE_DOMAIN))
    return out


@dataclass(frozen=True)
class WebCatalogue:
    lang: str
    body: bytes
    etag: str  # the quoted ETag
    version: str  # the hash the shell names it by (``?v=``)


def _key(context: str | None, text: str) -> str:
    return f"{context}\u0004{text}" if context else text


def _messages(lang: str) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for domain in domains_for_web():
        cat = i18n.catalogue(domain, lang)
        if cat is None:
            continue
        for (context, text), translated in cat.entries.items():
            value: Any = list(translated) if isinstance(translated, tuple) else translated
            if not value or (isinstance(value, list) and not all(value)):
                continue
            merged.setdefault(_key(context, text), value)  # the shell's words first
    return merged


@functools.lru_cache(maxsize=16)
def web_catalogue(lang: str) -> WebCatalogue:
    """The web client's catalogue of an offered language (``{"lang", "messages"}``)."""
    messages = {} if lang == i18n.SOURCE else _messages(lang)
    body = json.dumps({"lang": lang, "messages": messages}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")
    version = hashlib.sha256(body).hexdigest()[:16]
    return WebCatalogue(lang, body, f'"{version}"', version)
