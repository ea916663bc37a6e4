"""The registry of games: register a game, look one up, list them.

The registry lives in the kernel so that the kernel needs nothing above it: an
un-pickled :class:`~gemtable.core.actions.Action` and a replayed
:class:`~gemtable.core.match.Match` find their game here.  Bots, analysis,
adapters, the server and the CLI find games here too and never import a game
package by name.

Games are found three ways, in this order:

* **Packages under the ``gemtable.games`` namespace.**  On first use the
  registry walks that namespace with :mod:`pkgutil` and imports every
  sub-package exporting ``GAME`` (a :class:`~gemtable.core.game.Game`) through
  :func:`importlib.import_module`.  The namespace is named by a string, not an
  import statement, so the kernel keeps no import pointing at the games layer
  (the layer contracts in ``pyproject.toml`` hold), and adding a game is adding
  a package: nothing else is edited.  Walking the namespace, rather than
  relying on entry points alone, finds the games of a source tree on
  ``PYTHONPATH`` whose installed metadata is stale or points at another
  checkout.
* **The ``gemtable.games`` entry point group**, for games installed as
  third-party distributions; an entry point names a ``Game`` object.
* **:func:`register`**, for a game built in code (a test, a notebook).

When two games share an id, the one found first wins.

A package that fails to import is left out and reported by
:func:`load_errors`, so one broken game cannot take the others down; the test
suite asserts there are none.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from importlib.metadata import entry_points

from .actions import load_games_with
from .errors import UnknownGame
from .game import Game
from .i18n import msg

log = logging.getLogger(__name__)

GAMES_NAMESPACE = "gemtable.games"
"""The package whose sub-packages are the built-in games."""

ENTRY_POINT_GROUP = "gemtable.games"
"""The entry point group of games from other distributions."""

_GAMES: dict[str, Game] | None = None
_REGISTERED: dict[str, Game] = {}
_ERRORS: dict[str, str] = {}


def _load(module_name: str) -> Game | None:
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - reported, never silent
        _ERRORS[module_name] = f"{type(exc).__name__}: {exc}"
        log.error("game package %s failed to load: %s", module_name, exc)
        return None
    game = getattr(module, "GAME", None)
    return game if isinstance(game, Game) else None


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    namespace = importlib.import_module(GAMES_NAMESPACE)
    for info in sorted(pkgutil.iter_modules(namespace.__path__), key=lambda i: i.name):
        if info.ispkg:
            game = _load(f"{GAMES_NAMESPACE}.{info.name}")
            if game is not None:
                found[game.id] = game
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            game = ep.load()
        except Exception as exc:  # noqa: BLE001
            _ERRORS[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        if isinstance(game, Game):
            found.setdefault(game.id, game)
    for game_id, game in _REGISTERED.items():
        found.setdefault(game_id, game)
    return found


def register(game: Game) -> Game:
    """Add ``game`` to the registry and return it.

    Registering the same object twice is harmless; a different game under an
    id already taken is a ``ValueError``.
    """
    if not isinstance(game, Game):
        raise TypeError(f"{game!r} is not a gemtable Game")
    known = _GAMES.get(game.id) if _GAMES is not None else _REGISTERED.get(game.id)
    if known is not None and known is not game:
        raise ValueError(f"another game is already registered as {game.id!r}")
    _REGISTERED[game.id] = game
    if _GAMES is not None:
        _GAMES[game.id] = game
    return game


def all_games() -> dict[str, Game]:
    """Every game, by id (the built-in ones in package-name order)."""
    global _GAMES
    if _GAMES is None:
        _GAMES = _discover()
    return _GAMES


def load_errors() -> dict[str, str]:
    """Game packages that failed to import, with the error."""
    all_games()
    return dict(_ERRORS)


def get_game(game_id: str) -> Game:
    """The game with id ``game_id``; ``KeyError`` naming the known ids if none."""
    games = all_games()
    if game_id not in games:
        known = ", ".join(sorted(games)) or "none"
        raise UnknownGame(msg("unknown game {game} (registered: {known})", game=repr(game_id), known=known))
    return games[game_id]


def game_ids() -> list[str]:
    """The ids of every game."""
    return list(all_games())


load_games_with(all_games)  # un-pickling an action of a game not imported yet imports every game
