"""A match: game id, player count, options, seed and the action log.

Replaying a match reproduces every state exactly.  This is what a replay
file holds, what the server stores and what tests use to pin a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .actions import Action
from .errors import GemtableError, IllegalAction, MatchFileError, UnknownGame
from .i18n import msg, msgn
from .game import Event, Game, State
from .registry import get_game

FORMAT = "gemtable-match"
VERSION = 1


@dataclass
class Match:
    game_id: str
    num_players: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # seat names, bots, dates…

    # -- building -----------------------------------------------------------
    def start(self, game: Game | None = None) -> State:
        game = game or _game(self.game_id)
        return game.new(self.num_players, self.seed, **self.options)

    def record(self, player: int, action: Action) -> None:
        self.actions.append((player, action.to_json()))

    def play(self, state: State, player: int, action: Action) -> list[Event]:
        """Apply an action to ``state`` (the match's current state) and log it."""
        events = state.apply(player, action)
        self.record(player, action)
        return events

    # -- replay -------------------------------------------------------------
    def states(self, game: Game | None = None) -> Iterator[tuple[State, list[Event]]]:
        """Yield (state, events) after the start and after every logged action.

        The yielded state object is the live one (mutated as replay goes on):
        clone it to keep a snapshot.
        """
        game = game or _game(self.game_id)
        state = self.start(game)
        yield state, []
        for index, (player, data) in enumerate(self.actions):
            try:
                action = game.action_from_json(data)
                events = state.apply(player, action)
            except IllegalAction as exc:
                raise MatchFileError(msg("action {number} ({action} by seat {seat}) does not replay: {error}",
                                         number=index + 1, action=repr(data), seat=player + 1,
                                         error=exc.message)) from None
            yield state, events

    def replay(self, upto: int | None = None, game: Game | None = None) -> State:
        """The state after the first ``upto`` actions (all when None)."""
        n = len(self.actions) if upto is None else upto
        for i, (state, _) in enumerate(self.states(game)):
            if i == n:
                return state
        raise MatchFileError(msgn("the match has only {n} action", "the match has only {n} actions",
                                   n=len(self.actions)))

    # -- files --------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game_id,
            "players": self.num_players,
            "seed": self.seed,
            "options": self.options,
            "actions": [[p, a] for p, a in self.actions],
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: Any) -> "Match":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise MatchFileError(msg("not a gemtable match file (missing format marker)"))
        if data.get("version") != VERSION:
            raise MatchFileError(msg("unsupported match file version {version}", version=repr(data.get("version"))))
        try:
            game_id = str(data["game"])
            players = int(data["players"])
            seed = int(data["seed"])
            options = dict(data.get("options") or {})
            actions = []
            for item in data.get("actions", []):
                p, a = item
                if not isinstance(a, dict):
                    raise TypeError("action is not an object")
                actions.append((int(p), a))
            meta = dict(data.get("meta") or {})
        except (KeyError, TypeError, ValueError) as exc:
            raise MatchFileError(msg("malformed match file: {error}", error=str(exc))) from None
        match = cls(game_id, players, seed, options, actions, meta)
        game = _game(game_id)
        try:
            game.check_players(players)
            game.resolve_options(options)
        except GemtableError as exc:
            raise MatchFileError(exc.message) from None
        return match

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Match":
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise MatchFileError(msg("cannot read {path}: {error}", path=str(path), error=str(exc.strerror))) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MatchFileError(msg("{path} is not valid JSON ({error} at line {line})", path=str(path),
                                     error=exc.msg, line=exc.lineno)) from None
        return cls.from_json(data)


def _game(game_id: str) -> Game:
    try:
        return get_game(game_id)
    except UnknownGame as exc:
        raise MatchFileError(exc.message) from None
