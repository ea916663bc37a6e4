"""Bots: they see a seat's information only (search goes through determinize)."""

from .base import BOT_KINDS, LEVELS, Bot, make_bot, parse_spec, register_bot, split_specs
from . import greedy as _greedy, mcts as _mcts  # noqa: E402,F401  (register themselves)

__all__ = ["Bot", "BOT_KINDS", "LEVELS", "make_bot", "parse_spec", "register_bot", "split_specs"]
