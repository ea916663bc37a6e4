"""The registry of games, kept under its former name for code outside gemtable.

The registry is part of the kernel: :mod:`gemtable.core.registry`.  Code in
gemtable imports it from there (the layer contracts in ``pyproject.toml``
forbid the layers above the games from importing ``gemtable.games`` at all);
this module re-exports it so that ``from gemtable.games.registry import
all_games`` keeps working for tests, notebooks and third-party tools.
"""

from gemtable.core.registry import all_games, game_ids, get_game, load_errors, register

__all__ = ["all_games", "game_ids", "get_game", "load_errors", "register"]
