"""The bot interface, the bot registry and spec parsing (``mcts:iterations=400``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gemtable.core import Action, Game, Rng, State


class Bot:
    """Chooses an action for ``player``; may look only at what that seat knows."""

    name = "bot"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        self.rng = Rng(seed)
        self.params = params

    def choose(self, state: State, player: int) -> Action:
        raise NotImplementedError  # pragma: no cover - abstract

    def observe(self, state: State, player: int, action: Action | None) -> None:
        """Seat ``player`` just took ``action``; ``state`` is the position after it (read only).

        Game drivers (the tournament runner, ``gemtable play``, the server) call this on
        the bots at the table for every action any seat takes, after applying it, through
        :func:`tell_bots`.  ``action`` is None when this bot's seat may not know which
        action it was (another seat's secret pick).  The default does nothing; a bot that
        overrides it must not read hidden information from ``state`` either.
        """

    def weights_fingerprint(self, game: Any, num_players: int) -> str | None:
        """A short fingerprint of the learned weights this bot plays ``game`` with at tables
        of ``num_players``, or None when it reads none.  The level ladder records it, so
        new weights make a shipped rating stale as a changed spec does."""
        return None

    @property
    def observes(self) -> bool:
        """Does :meth:`observe` do anything?  Drivers skip the bookkeeping when no bot does."""
        return type(self).observe is not Bot.observe

    def __repr__(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}:{extra}" if extra else self.name


class RandomBot(Bot):
    """Uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        check_params(self.name, params, ())
        super().__init__(seed, **params)

    def choose(self, state: State, player: int) -> Action:
        acts = state.legal_actions(player)
        return acts[self.rng.below(len(acts))]


def seen_action(actor: int, action: Action, seat: int, movers: tuple[int, ...],
                events: list[dict[str, Any]]) -> Action | None:
    """What ``seat`` knows of ``actor``'s ``action``: the action, or None if it was secret.

    ``movers`` is ``to_move()`` before the action and ``events`` what applying it logged.
    Another seat's action is secret when it was taken while several seats were to move
    (a simultaneous pick) or when an event it logged is shown in full only to seats other
    than ``seat`` (``only``: e.g. Mille Fiori's pick, also the last one of a round).  The
    second rule is cautious: it also hides an action whose event keeps only a drawn card
    secret (a blind reservation in Splendor), which costs a reusing bot its tree, nothing
    more.
    """
    if seat == actor:
        return action
    if len(movers) > 1:
        return None
    for event in events:
        only = event.get("only")
        if only is not None and seat not in only:
            return None
    return action


def tell_bots(bots: Mapping[int, Bot] | Sequence[Bot], state: State, actor: int, action: Action,
              movers: tuple[int, ...], events: list[dict[str, Any]]) -> None:
    """Call :meth:`Bot.observe` on the bots at a table (seat -> bot) after ``actor``'s action.

    A bot object that plays several seats is told once, and sees the action only if every
    seat it plays may see it.  Bots whose ``observes`` is false are skipped (their
    ``observe`` does nothing).
    """
    seats: dict[int, tuple[Bot, list[int]]] = {}
    items = bots.items() if isinstance(bots, Mapping) else enumerate(bots)
    for seat, bot in items:
        if bot is not None and bot.observes:
            seats.setdefault(id(bot), (bot, []))[1].append(seat)
    for bot, played in seats.values():
        seen: Action | None = action
        for seat in played:
            if seen_action(actor, action, seat, movers, events) is None:
                seen = None
                break
        bot.observe(state, actor, seen)


def wants_observations(bots: Mapping[int, Bot] | Sequence[Bot]) -> bool:
    """Does any of these bots do anything with :meth:`Bot.observe`?"""
    values = bots.values() if isinstance(bots, Mapping) else bots
    return any(bot is not None and bot.observes for bot in values)


def check_params(bot: str, params: dict[str, Any], allowed: tuple[str, ...]) -> None:
    """Refuse unknown bot parameters with a sentence naming the allowed ones."""
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        names = ", ".join(allowed) or "none"
        raise ValueError(f"bot {bot!r} has no parameter {unknown[0]!r} (parameters: {names})")


def evaluate(state: State, player: int) -> float:
    """The game's heuristic (estimated final score of ``player``), else the current score."""
    heuristic = state.game.heuristic
    if heuristic is None:
        return float(state.scores()[player])
    return float(heuristic(state, player))


def margin(state: State, player: int) -> float:
    """``player``'s evaluation minus the best opponent's (final margin once the game is over).

    A finished game is judged by its real result: a win counts far more than any margin.
    """
    n = state.num_players
    if state.is_over():
        scores = state.scores()
        best_other = max(scores[q] for q in range(n) if q != player) if n > 1 else 0.0
        return 1e6 * (state.returns()[player] - 1.0 / n) + (scores[player] - best_other)
    if n == 1:
        return evaluate(state, player)
    values = [evaluate(state, q) for q in range(n)]
    return values[player] - max(values[q] for q in range(n) if q != player)


BOT_KINDS: dict[str, Callable[..., Bot]] = {"random": RandomBot}
# Named strength levels for people, mapped to bot specs (measured in the ladder), easiest
# first.  This is the default table: a game whose levels need other specs to stay in
# order declares them itself (``game.extra["levels"]``, see :func:`game_levels`).
LEVELS: dict[str, str] = {
    "easy": "greedy:epsilon=0.3",
    "medium": "mcts:iterations=200",
    "hard": "mcts:iterations=1000",
    # the learned search with the game's shipped weights (bots/README.md, "Learned
    # evaluation"): at hard's iteration budget it thinks about twice as long per move
    "expert": "puct:iterations=1000",
}


def register_bot(name: str, factory: Callable[..., Bot]) -> None:
    BOT_KINDS[name] = factory


def _value(text: str) -> Any:
    for conv in (int, float):
        try:
            value = conv(text)
        except ValueError:
            continue
        if not math.isfinite(value):
            raise ValueError(f"bot parameter value {text!r} must be a finite number")
        return value
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:iterations=400,c=1.2"`` → ("mcts", {"iterations": 400, "c": 1.2})."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, eq, val = part.partition("=")
        if not eq:
            raise ValueError(f"bot parameter {part!r} must look like name=value")
        params[key.strip()] = _value(val.strip())
    return name.strip(), params


def split_specs(text: str) -> list[str]:
    """Split a comma list of bot specs whose parameters also use commas.

    ``"random,mcts:iterations=400,c=1.2,greedy"`` → ["random", "mcts:iterations=400,c=1.2",
    "greedy"]: a part holding ``=`` but no ``:`` continues the previous spec's parameters.
    """
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def _game_of(game: Game | str | None) -> Game | None:
    if game is None or isinstance(game, Game):
        return game
    from gemtable.core.registry import get_game

    return get_game(game)


def game_levels(game: Game | str | None = None) -> dict[str, str]:
    """The named levels (easiest first) and their specs for ``game`` (a game or its id).

    :data:`LEVELS`, with the specs the game declares in ``extra["levels"]`` ({level: spec})
    in place of the defaults: each game orders its levels by what it measured (its
    ``levels.json`` ladder).  A game may re-spec the named levels, not add or drop one, so
    every game offers the same names; ``None``: the default table.
    """
    found = _game_of(game)
    own = dict(found.extra.get("levels") or {}) if found is not None else {}
    unknown = sorted(set(own) - set(LEVELS))
    if unknown:
        raise ValueError(f"{found.id} declares a spec for level {unknown[0]!r}, which is not a level "
                         f"(levels: {', '.join(LEVELS)})")
    return {name: own.get(name, spec) for name, spec in LEVELS.items()}


def level_spec(level: str, game: Game | str | None = None) -> str:
    """The bot spec that plays ``level`` in ``game`` (the default table's without one)."""
    levels = game_levels(game)
    if level not in levels:
        raise ValueError(f"unknown level {level!r} (levels: {', '.join(levels)})")
    return levels[level]


def make_bot(spec: str, seed: int = 0, game: Game | str | None = None) -> Bot:
    """A bot from a spec (``random``, ``greedy``, ``mcts:iterations=400``) or a level (``hard``).

    A level is played by ``game``'s spec for it (:func:`game_levels`); parameters after the
    level's name (``hard:iterations=500``) replace that spec's.
    """
    load_all()
    name, params = parse_spec(spec)
    if name in LEVELS and name not in BOT_KINDS:
        base, base_params = parse_spec(level_spec(name, game))
        name, params = base, {**base_params, **params}
    if name not in BOT_KINDS:
        known = ", ".join(sorted(set(BOT_KINDS) | set(LEVELS)))
        raise ValueError(f"unknown bot {name!r} (known: {known})")
    return BOT_KINDS[name](seed=seed, **params)


def load_all() -> None:
    """Import the bot modules so they register themselves (``BOT_KINDS`` is then complete)."""
    import importlib
    import pkgutil

    import gemtable.bots as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name not in ("base",):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
