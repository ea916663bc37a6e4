"""The game-agnostic kernel: the API every game implements and every tool uses."""

from .actions import Action, ActionSpace
from .errors import DataError, GemtableError, IllegalAction, MatchFileError, OptionError, UnknownGame
from .game import Event, Game, Option, State, canonical, event_for, format_text, run_random_game
from .match import Match
from .registry import all_games, get_game  # noqa: F401  (also sets up un-pickling of actions)
from .rng import Rng
from .undo import undo_span

__all__ = [
    "Action",
    "ActionSpace",
    "DataError",
    "Event",
    "Game",
    "GemtableError",
    "IllegalAction",
    "Match",
    "MatchFileError",
    "Option",
    "OptionError",
    "Rng",
    "State",
    "UnknownGame",
    "canonical",
    "event_for",
    "format_text",
    "run_random_game",
    "undo_span",
]
