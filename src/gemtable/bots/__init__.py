"""Bots: they see a seat's information only (search goes through determinize)."""

from . import greedy as _greedy  # noqa: F401  (register themselves)
from . import gumbel as _gumbel  # noqa: F401
from . import mcts as _mcts  # noqa: F401
from . import puct as _puct  # noqa: F401
from .base import (
    BOT_KINDS,
    LEVELS,
    Bot,
    game_levels,
    level_spec,
    make_bot,
    parse_spec,
    register_bot,
    split_specs,
)

__all__ = ["BOT_KINDS", "LEVELS", "Bot", "game_levels", "level_spec", "make_bot", "parse_spec", "register_bot", "split_specs"]
