"""Actions: small interned values with a JSON form, a text and a stable id.

Every game builds one :class:`ActionSpace` at import time holding every action
the game can ever offer.  ``legal_actions`` returns references to those
objects, so the hot path allocates nothing, actions compare by identity, and
``action.id`` is a stable integer encoding for learning adapters.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .errors import IllegalAction
from .i18n import msg


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        raise TypeError("action arguments must be scalars or sequences")
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


class Action:
    """One decision a player can make.  Create through :meth:`ActionSpace.add`."""

    __slots__ = ("id", "type", "args", "text", "key", "game_id")

    def __init__(self, id: int, type: str, args: dict[str, Any], text: str, game_id: str = "") -> None:
        self.id = id
        self.game_id = game_id
        self.type = type
        self.args = {k: _freeze(v) for k, v in args.items()}
        self.text = text
        self.key = (type, tuple(sorted(self.args.items())))

    def __getitem__(self, name: str) -> Any:
        return self.args[name]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for k, v in self.args.items():
            out[k] = _thaw(v)
        return out

    def __repr__(self) -> str:
        return f"<Action {self.id} {self.text}>"

    def __reduce__(self):  # pickles as a lookup, keeping identity semantics
        return (_lookup_action, (self.game_id, self.id))


_SPACES: dict[str, "ActionSpace"] = {}
# Loads every game package (each builds its ActionSpace when imported): the registry sets it
# when the kernel is imported (core/registry.py), so this module needs no import of it.
_LOAD_GAMES: Callable[[], Any] | None = None


def load_games_with(load: Callable[[], Any]) -> None:
    """Name the function that imports every game package (for un-pickling actions)."""
    global _LOAD_GAMES
    _LOAD_GAMES = load


def _lookup_action(game_id: str, action_id: int) -> "Action":
    if game_id not in _SPACES and _LOAD_GAMES is not None:
        _LOAD_GAMES()
    return _SPACES[game_id].actions[action_id]


class ActionSpace:
    """The fixed, ordered set of every action of one game."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.actions: list[Action] = []
        self._by_key: dict[tuple, Action] = {}
        _SPACES[game_id] = self

    def add(self, type: str, text: str, **args: Any) -> Action:
        action = Action(len(self.actions), type, args, text, self.game_id)
        if action.key in self._by_key:
            raise ValueError(f"duplicate action {action.key}")
        self.actions.append(action)
        self._by_key[action.key] = action
        return action

    def get(self, type: str, **args: Any) -> Action:
        key = (type, tuple(sorted((k, _freeze(v)) for k, v in args.items())))
        return self._by_key[key]

    def from_json(self, data: Any) -> Action:
        """The action a JSON object names; IllegalAction if it names none."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise IllegalAction(msg("An action must be a JSON object with a string 'type'."))
        args = {k: v for k, v in data.items() if k != "type"}
        try:
            key = (data["type"], tuple(sorted((k, _freeze(v)) for k, v in args.items())))
            return self._by_key[key]
        except (KeyError, TypeError):
            raise IllegalAction(msg("{game} has no action {action}; see the legal actions offered.",
                                    game=self.game_id, action=repr(data))) from None

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, index: int) -> Action:
        return self.actions[index]

    def __iter__(self) -> Iterable[Action]:
        return iter(self.actions)
