"""Errors raised by the kernel.

Every gemtable error carries its text as a message (:mod:`gemtable.core.i18n`): ``str(error)``
and ``reason`` are the English sentence, ``message`` the message itself, and
``error.text(lang, domains)`` the sentence in a reader's language.  A plain string is
accepted too (text nobody translates, such as an operating system's error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .i18n import CORE_DOMAIN, SOURCE, render


class GemtableError(Exception):
    """Base class of gemtable errors."""

    def __init__(self, reason: "str | dict" = "", *args: object) -> None:
        text = render(reason)
        super().__init__(text, *args)
        self.reason = text
        self.message = reason

    def text(self, lang: str = SOURCE, domains: Sequence[Path] = (CORE_DOMAIN,)) -> str:
        """The error in ``lang`` (English for what was raised as a plain string)."""
        return render(self.message, lang, domains)


class IllegalAction(GemtableError):
    """An action a player may not take now; the message names the rule.

    ``reason`` is the English sentence; ``message`` the same as a message
    (:mod:`gemtable.core.i18n`) that renders in any language.
    """


class DataError(GemtableError):
    """A component data file is missing, malformed or inconsistent."""


class MatchFileError(GemtableError):
    """A saved match (replay file) cannot be read or does not replay."""


class OptionError(GemtableError, ValueError):
    """A game option or player count is not allowed."""


class UnknownGame(GemtableError, KeyError):
    """No game is registered under the id asked for (a ``KeyError``, so callers that
    looked a game up by id still catch it)."""
