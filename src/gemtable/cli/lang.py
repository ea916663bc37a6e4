"""The language of this run of ``gemtable``, shared by every command module.

The global ``--lang`` option (else LANGUAGE / LC_ALL / LC_MESSAGES / LANG) picks it once per
run (:func:`gemtable.cli.main.choose_language`); :func:`say` renders a message
(:mod:`gemtable.core.i18n`) or an error in it.  The help texts of the commands and options
are translated when the command tree is built (:class:`TranslatedGroup`), before Click
parses anything, so ``gemtable --lang de play --help`` reads German too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from typer.core import TyperGroup

from gemtable.core import GemtableError, i18n

_current = [i18n.SOURCE]


def language() -> str:
    return _current[0]


def use(lang: str) -> None:
    _current[0] = lang


def say(message: "i18n.Message | str | GemtableError", domains: Sequence[Path] = (i18n.CORE_DOMAIN,)) -> str:
    """A message (or an error) in this run's language."""
    if isinstance(message, GemtableError):
        return message.text(language(), domains)
    return i18n.render(message, language(), domains)


def wanted(args: Sequence[str], env: Any = None) -> str:
    """The language a command line asks for before it is parsed: ``--lang X`` / ``--lang=X``
    among the global options, else the environment's; English when neither is offered (a
    wrong ``--lang`` is refused later, when the option is parsed)."""
    offered = i18n.languages(i18n.CORE_DOMAIN)
    for i, arg in enumerate(args):
        if arg == "--lang" and i + 1 < len(args):
            return i18n.negotiate([args[i + 1]], offered)
        if arg.startswith("--lang="):
            return i18n.negotiate([arg.split("=", 1)[1]], offered)
        if not arg.startswith("-"):
            break  # a command's name: the global options end here
    return i18n.negotiate(i18n.from_environment(os.environ if env is None else env), offered)


def translate_help(command: Any, lang: str) -> None:
    """Every help text under ``command`` (its own, its options' and arguments', its
    subcommands') in ``lang``, looked up by its English text; the English is kept to go
    back to another language in the same process (the tests run many)."""
    for obj, attr in _helps(command):
        english = obj.__dict__.setdefault(f"_gemtable_{attr}", getattr(obj, attr))
        if english:
            setattr(obj, attr, i18n.render(i18n.msg(english), lang) if lang != i18n.SOURCE else english)


def _helps(command: Any):
    for attr in ("help", "short_help"):
        yield command, attr
    for param in [*command.params, _help_option(command)]:
        if hasattr(param, "help"):
            yield param, "help"
    for sub in (getattr(command, "commands", None) or {}).values():  # a group's commands
        yield from _helps(sub)


def _help_option(command: Any) -> Any:
    """Click's own ``--help`` option of ``command`` ("Show this message and exit."), made now
    rather than when the command first parses, so its text is translated with the others.
    Click keeps the option once made; its names come from the context settings (none of our
    commands changes them), which a context of the command's own settings gives."""
    return command.get_help_option(click.Context(command, **(command.context_settings or {})))


# The words Typer's help pages and error boxes add around ours (its module-level texts,
# read each time a page is drawn), by their English.
_FRAMEWORK = {
    "ARGUMENTS_PANEL_TITLE": i18n.msg("Arguments"),
    "OPTIONS_PANEL_TITLE": i18n.msg("Options"),
    "COMMANDS_PANEL_TITLE": i18n.msg("Commands"),
    "ERRORS_PANEL_TITLE": i18n.msg("Error"),
    "ABORTED_TEXT": i18n.msg("Aborted."),
    "RICH_HELP": i18n.msg("Try [blue]'{command_path} {help_option}'[/] for help."),
    "DEFAULT_STRING": i18n.msg("[default: {}]"),
    "REQUIRED_LONG_STRING": i18n.msg("[required]"),
    "ENVVAR_STRING": i18n.msg("[env var: {}]"),
    "DEPRECATED_STRING": i18n.msg("(deprecated) "),
}
_USAGE = i18n.msg("Usage: ")


def translate_framework(lang: str) -> None:
    """Typer's own words (panel titles, "[default: …]", "Usage:") in ``lang``.  Only names
    Typer still has are set, so a Typer that renames them shows its English instead of
    failing."""
    from typer import rich_utils

    for name, message in _FRAMEWORK.items():
        if hasattr(rich_utils, name):
            # the {…} of these texts are Typer's own fields, left for Typer to fill
            setattr(rich_utils, name, i18n.render(i18n.msg(message["m"]), lang))
    try:
        from typer._click import formatting
    except ImportError:  # pragma: no cover - another Typer layout: its "Usage:" stays English
        return
    write = getattr(formatting.HelpFormatter, "_gemtable_write_usage", formatting.HelpFormatter.write_usage)
    usage = i18n.render(_USAGE, lang)

    def write_usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        write(self, prog, args, usage if prefix is None else prefix)

    formatting.HelpFormatter._gemtable_write_usage = write
    formatting.HelpFormatter.write_usage = write_usage


class TranslatedGroup(TyperGroup):
    """The root command: it reads the wanted language from the arguments and the
    environment and translates the help texts before Click parses (and maybe prints help)."""

    def make_context(self, info_name, args, parent=None, **extra):
        lang = wanted(args)
        use(lang)
        translate_help(self, lang)
        translate_framework(lang)
        return super().make_context(info_name, args, parent=parent, **extra)


class _WithoutSoftHyphens:
    """A text stream that drops soft hyphens on their way to the real one (looked up at each
    write, so a test's captured stdout is followed)."""

    def __init__(self, stream: Any = None) -> None:
        self._stream = stream

    def _target(self) -> Any:
        return self._stream if self._stream is not None else sys.stdout

    def write(self, text: str) -> int:
        return self._target().write(text.replace("\u00ad", ""))

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)


class TermConsole(Console):
    """A Rich console for texts from the catalogues: the soft hyphens (U+00AD) a translator
    puts where a long word may break on a narrow board are dropped from everything it writes
    (lines, tables, panels), since many terminals draw them as a visible "-" mid-word."""

    def __init__(self, *args: Any, file: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, file=_WithoutSoftHyphens(file), **kwargs)
