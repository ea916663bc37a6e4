"""Errors raised by the kernel."""


class GemtableError(Exception):
    """Base class of gemtable errors."""


class IllegalAction(GemtableError):
    """An action a player may not take now; the message names the rule."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DataError(GemtableError):
    """A component data file is missing, malformed or inconsistent."""


class MatchFileError(GemtableError):
    """A saved match (replay file) cannot be read or does not replay."""


class OptionError(GemtableError, ValueError):
    """A game option or player count is not allowed."""
