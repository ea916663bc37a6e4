"""Errors raised by the kernel."""

from .i18n import render


class GemtableError(Exception):
    """Base class of gemtable errors."""


class IllegalAction(GemtableError):
    """An action a player may not take now; the message names the rule.

    ``reason`` is the English sentence; ``message`` the same as a message
    (:mod:`gemtable.core.i18n`) that renders in any language.
    """

    def __init__(self, reason: "str | dict") -> None:
        text = render(reason)
        super().__init__(text)
        self.reason = text
        self.message = reason


class DataError(GemtableError):
    """A component data file is missing, malformed or inconsistent."""


class MatchFileError(GemtableError):
    """A saved match (replay file) cannot be read or does not replay."""


class OptionError(GemtableError, ValueError):
    """A game option or player count is not allowed."""
