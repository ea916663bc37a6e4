"""The game-agnostic contract every game implements (see DESIGN.md §2).

A :class:`Game` is an immutable description (id, player counts, options, the
action space, component data); a :class:`State` is one mutable position.
Everything outside ``gemtable.games.<game>`` talks to games only through these
two classes.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from . import i18n
from .actions import Action, ActionSpace
from .errors import IllegalAction, OptionError
from .rng import Rng

Event = dict[str, Any]
"""What happened, as a JSON dict with at least ``type`` and ``text``.

``text`` is a sentence for the game log in which ``{P0}``, ``{P1}``… stand for
seat names (see :func:`format_text`).  An event that reveals a secret to some
seats only carries ``only: [seats]`` and ``public``: the redacted event every
other seat sees (see :func:`event_for`).
"""


@dataclass(frozen=True)
class Option:
    """A game variant switch, e.g. Sintra's ``palace_side``.

    ``name`` and ``choices`` are what programs send (CLI, API); ``label`` is the question
    in a player's words ("Pieces in overflow count toward the end") and ``choice_labels``
    one answer per choice, in the same order ("Yes, as in the rules summary") — what a
    lobby shows, so a game's package words its own options.  A game marks these texts
    with :func:`gemtable.core.i18n.mark` so they reach its catalogue, and
    :meth:`describe` shows them in a reader's language.
    """

    name: str
    default: Any
    choices: tuple[Any, ...]
    help: str = ""
    label: str = ""
    choice_labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"option {self.name!r}: one label per choice ({len(self.choices)}), "
                             f"got {len(self.choice_labels)}")

    def describe(self, lang: str = i18n.SOURCE, domains: Sequence[Path] = (i18n.CORE_DOMAIN,)) -> dict[str, Any]:
        """JSON for lobbies: the programs' names and values, and the players' wording in
        ``lang`` (looked up in ``domains``: the game's, see :attr:`Game.domains`)."""
        def say(text: str) -> str:
            return text if lang == i18n.SOURCE or not text else i18n.render(i18n.msg(text), lang, domains)

        labels = [say(c) for c in self.choice_labels] or [str(c) for c in self.choices]
        return {"name": self.name, "default": self.default, "choices": list(self.choices), "help": say(self.help),
                "label": say(self.label) or self.name.replace("_", " "), "choice_labels": labels}

    def parse(self, value: Any) -> Any:
        """Accept the value itself or its text form (from a CLI or a URL)."""
        for choice in self.choices:
            if value == choice or (isinstance(value, str) and value.lower() == str(choice).lower()):
                return choice
        raise OptionError(i18n.msg("option {option} must be one of {choices}; got {value}", option=repr(self.name),
                                   choices=", ".join(map(str, self.choices)), value=repr(value)))


@dataclass(frozen=True)
class Game:
    """Immutable description of one game; subclass or instantiate per game."""

    id: str
    title: str
    player_counts: tuple[int, ...]
    state_class: type["State"]
    actions: ActionSpace
    options: tuple[Option, ...] = ()
    data_status: str = "complete"  # or "reconstructed" when placeholders are in use
    owners: str = ""  # designer and publisher credit
    summary: str = ""
    data: Any = None  # the validated component data
    rules_path: str | None = None  # the game's RULES.md (developer notes, stays in the repository)
    play_path: str | None = None  # the game's PLAY.md: the players' how-to-play shown at the table
    heuristic: Callable[["State", int], float] | None = None
    # Optional evaluation features for learned evaluators (gemtable.bots.learned):
    # value_features(state, player) -> a fixed-length list of floats, one per name in
    # ``value_feature_names``, describing ``player``'s position against the others
    # (e.g. its own figure minus the best other seat's), the same length at every table
    # size.  Computed on whatever state it is given: a search passes its determinization.
    value_features: Callable[["State", int], list[float]] | None = None
    value_feature_names: tuple[str, ...] = ()
    # Optional fast path: every seat's value features at once (row ``p`` equal to
    # ``value_features(state, p)``), for games whose rows share most of their work.
    value_features_all: Callable[["State"], list[list[float]]] | None = None
    # Optional fast path for a learned evaluator's whole context: (every seat's
    # ``heuristic``, every seat's value features) from one pass, equal to computing them
    # separately, for games whose heuristic and features share their work.
    value_context: Callable[["State"], tuple[list[float], list[list[float]] | None]] | None = None
    # Player words for a move's effect: explain(features_before, features_after) -> a few
    # short phrases ("+3 points", "closer to a noble") from the seat's value features
    # (gemtable.core.explain builds one from a table of words).  Hints and reviews use it;
    # it takes the keyword ``lang`` for the reader's language, and ``lang=None`` for
    # messages (gemtable.core.i18n) that a stored review renders later for each reader.
    explain: Callable[..., list[Any]] | None = None
    # Optional playout policy for search bots: rollout_policy(state, player, rng) -> one
    # of ``state.legal_actions(player)``, a cheap plausible move (uniform random if absent).
    # It runs inside the search on determinized states only.
    rollout_policy: Callable[["State", int, Rng], Action] | None = None
    render_text: Callable[[dict, int | None], Any] | None = None
    # Optional fixed-length numeric observation for learning adapters:
    # observation(state, player) -> list[float] of length observation_size,
    # computed only from what ``player`` may see.
    observation: Callable[["State", int], list[float]] | None = None
    observation_size: int = 0
    # Its named layout (gemtable.core.observation.ObservationLayout): every index named,
    # bounded and marked public or private; ``layout.fill(state, player, out)`` writes the
    # same observation into a preallocated float32 array (the fast path).
    observation_layout: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    # -- options -----------------------------------------------------------
    def resolve_options(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        options = dict(options or {})
        out: dict[str, Any] = {}
        known = {o.name: o for o in self.options}
        for name in options:
            if name not in known:
                allowed = ", ".join(known) or i18n.msgp("no options", "none")
                raise OptionError(i18n.msg("{game} has no option {option} (options: {allowed})",
                                           game=self.title, option=repr(name), allowed=allowed))
        for opt in self.options:
            out[opt.name] = opt.parse(options[opt.name]) if opt.name in options else opt.default
        return out

    def check_players(self, num_players: int) -> None:
        if num_players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise OptionError(i18n.msg("{game} is played by {counts} players, not {players}",
                                       game=self.title, counts=counts, players=num_players))

    # -- states ------------------------------------------------------------
    def new(self, num_players: int, seed: int = 0, *, rng: Rng | None = None, **options: Any) -> "State":
        """A new game dealt from ``seed``, or from ``rng`` when given (e.g. a
        ``gemtable.core.chance.ChanceRng`` for explicit chance)."""
        self.check_players(num_players)
        opts = self.resolve_options(options)
        return self.state_class.initial(self, num_players, Rng(seed) if rng is None else rng, opts)

    def from_json(self, data: dict[str, Any]) -> "State":
        return self.state_class.from_json(self, data)

    def action_from_json(self, data: Any) -> Action:
        return self.actions.from_json(data)

    def option_sets(self) -> list[dict[str, Any]]:
        """Every combination of option values (for the conformance suite)."""
        sets: list[dict[str, Any]] = [{}]
        for opt in self.options:
            sets = [dict(s, **{opt.name: c}) for s in sets for c in opt.choices]
        return sets

    @property
    def domains(self) -> tuple[Path, ...]:
        """Where this game's texts are translated: the ``locale`` folder of its package
        (beside the module that defines its state class), then the kernel's."""
        return _domains_of(self.state_class.__module__)

    def rules_text(self, lang: str = i18n.SOURCE) -> str:
        """The rules summary (Markdown) in ``lang``: ``RULES.<lang>.md`` beside ``RULES.md``
        when the game has one, else the English."""
        return _read_in(self.rules_path, lang)

    def play_text(self, lang: str = i18n.SOURCE) -> str:
        """The players' how-to-play (Markdown) in ``lang`` (``PLAY.<lang>.md``, else the
        English), or "" when the game has none."""
        return _read_in(self.play_path, lang)

    def describe(self, lang: str = i18n.SOURCE) -> dict[str, Any]:
        """JSON description for lobbies and `gemtable games`; the players' words (title,
        summary, credit, options) in ``lang`` where the game's catalogue has them."""
        domains = self.domains

        def say(text: str) -> str:
            return text if lang == i18n.SOURCE or not text else i18n.render(i18n.msg(text), lang, domains)

        return {
            "id": self.id,
            "title": say(self.title),
            "players": list(self.player_counts),
            "options": [o.describe(lang, domains) for o in self.options],
            "data_status": self.data_status,
            "owners": say(self.owners),
            "summary": say(self.summary),
            "num_actions": len(self.actions),
        }


class State:
    """One position of a game.  Games subclass this and fill in the hooks.

    Required in subclasses: ``initial`` (classmethod), ``to_move``,
    ``legal_actions``, ``_apply``, ``is_over``, ``scores``, ``view``,
    ``determinize``, ``clone``, ``to_json``/``from_json``, ``component_counts``.
    Attributes every state has: ``game``, ``num_players``, ``rng`` (an
    :class:`Rng`), ``turn`` (whole player turns completed so far).
    """

    game: Game
    num_players: int
    rng: Rng
    turn: int
    # Explicit chance (gemtable.core.chance): every chance outcome of this game is an int in
    # range(chance_outcomes_bound) (OpenSpiel's max_chance_outcomes; checked by the
    # conformance suite).
    chance_outcomes_bound: int = 0

    # -- construction --------------------------------------------------------
    @classmethod
    def initial(cls, game: Game, num_players: int, rng: Rng, options: dict[str, Any]) -> "State":
        raise NotImplementedError  # pragma: no cover - abstract

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> "State":
        raise NotImplementedError  # pragma: no cover - abstract

    def to_json(self) -> dict[str, Any]:
        """The full state (server side only: includes hidden information and RNG)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def clone(self) -> "State":
        raise NotImplementedError  # pragma: no cover - abstract

    # -- turn flow -------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        """Seats that must decide now (several for simultaneous picks); () when over."""
        raise NotImplementedError  # pragma: no cover - abstract

    def legal_actions(self, player: int) -> list[Action]:
        """Every legal action for ``player`` now, without duplicates ([] if not to move)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _apply(self, player: int, action: Action, log: list[Event] | None) -> None:
        """Carry out a legal action.  Append events to ``log`` unless it is None."""
        raise NotImplementedError  # pragma: no cover - abstract

    def say(self, message: i18n.Message | str, lang: str = i18n.SOURCE) -> str:
        """A message of this game in ``lang`` (its own catalogue first, then the kernel's)."""
        return i18n.render(message, lang, self.game.domains)

    def why_illegal(self, player: int, action: Action, lang: str = i18n.SOURCE) -> str:
        """The rule an action breaks (only called when it is not legal), in ``lang``."""
        text = action.text if lang == i18n.SOURCE else self.say(i18n.msg(action.text), lang)
        return self.say(i18n.msg("{action} is not allowed now: {prompt}", action=repr(text),
                                 prompt=self.prompt(player, lang)), lang)

    def prompt(self, player: int, lang: str = i18n.SOURCE) -> str:
        """What ``player`` must decide now, in one sentence (help text, UI prompt), in ``lang``."""
        return self.say(i18n.msg("Choose an action."), lang)

    def action_text(self, player: int, action: Action, lang: str = i18n.SOURCE) -> str:
        """How to describe a legal action now (may name what is on the space it points at),
        in ``lang``."""
        return action.text if lang == i18n.SOURCE else self.say(i18n.msg(action.text), lang)

    def check(self, player: int, action: Action, lang: str = i18n.SOURCE) -> str | None:
        """None if ``player`` may take ``action`` now, else a reason naming the rule, in ``lang``."""
        if self.is_over():
            return self.say(i18n.msg("The game is over: no more actions can be taken."), lang)
        movers = self.to_move()
        if player not in movers:
            if not 0 <= player < self.num_players:
                return self.say(i18n.msg("There is no seat {seat} in a {players}-player game.",
                                         seat=player, players=self.num_players), lang)
            waiting = [i18n.msg("seat {number}", number=p + 1) for p in movers]
            return self.say(i18n.msg("It is not your turn: waiting for {seats}.", seats=waiting), lang)
        if not isinstance(action, Action) or action.game_id != self.game.id:
            return self.say(i18n.msg("That is not a {game} action.", game=self.game.title), lang)
        if action in self.legal_actions(player):
            return None
        return self.why_illegal(player, action, lang)

    def explain(self, player: int, action: Action, lang: str = i18n.SOURCE) -> str | None:
        """``check(player, action)`` answered from what ``player`` may see.

        The reason is worked out on a determinization of ``player``'s view (with a fixed
        seed), never on this state, so it can name nothing hidden from ``player`` (the top
        card of a deck, another seat's hand or secret pick), whatever a game's
        ``why_illegal`` says.  This is what a player's "why can I not do that?" is answered
        with; the legality itself never depends on what the seat cannot see.
        """
        if not isinstance(player, int) or not 0 <= player < self.num_players:
            return self.check(player, action, lang)
        return self.determinize(player, Rng(0)).check(player, action, lang)

    def apply(self, player: int, action: Action) -> list[Event]:
        """Validate and carry out; raises IllegalAction leaving the state untouched."""
        reason = self.check(player, action)
        if reason is not None:
            raise IllegalAction(reason)
        events: list[Event] = []
        self._apply(player, action, events)
        return events

    def step(self, player: int, action: Action) -> None:
        """Fast path for bots and simulations: no validation, no events."""
        self._apply(player, action, None)

    def is_checkpoint(self, player: int, action: Action) -> bool:
        """May ``player``'s legal ``action`` never be taken back?  Asked before applying it.

        True when applying it draws anything random (deck or bag draws, refills, shuffles,
        any use of ``self.rng``) or shows anything hidden to anybody (a card from a hand
        becoming public, a face-down card shown to its owner, a secret pick revealed...):
        taking such an action back would let a player see what comes and choose again.
        False promises that the action's effect, as every seat and spectator sees it,
        follows from what they could already see (checked by the conformance suite), so it
        can be undone without leaking anything (see ``gemtable.core.undo``).

        The kernel default is True (nothing can be undone); games override it with a cheap
        answer decided from the state.  Never called in hot loops: once per accepted action.
        """
        return True

    # -- outcome ----------------------------------------------------------------
    def is_over(self) -> bool:
        raise NotImplementedError  # pragma: no cover - abstract

    def scores(self) -> list[float]:
        """Current (or final) score of each seat."""
        raise NotImplementedError  # pragma: no cover - abstract

    def tiebreak(self, player: int) -> tuple:
        """Key compared after the score (larger is better) for the final ranking."""
        return ()

    def ranking(self) -> list[int]:
        """Final place of each seat (1 = first; equal places are shared)."""
        scores = self.scores()
        keys = [(scores[p],) + tuple(self.tiebreak(p)) for p in range(self.num_players)]
        return [1 + sum(1 for q in keys if q > k) for k in keys]

    def winners(self) -> list[int]:
        return [p for p, place in enumerate(self.ranking()) if place == 1]

    def returns(self) -> list[float]:
        """Reward per seat for learning and search: 1 shared among winners, else 0."""
        win = self.winners()
        share = 1.0 / len(win) if win else 0.0
        return [share if p in win else 0.0 for p in range(self.num_players)]

    def result(self) -> dict[str, Any]:
        """End-of-game summary (scores, places, how ties were broken).

        The tie-break sentence is given only when two seats ended on the same score,
        so an end screen never explains a tie that did not happen.
        """
        scores = self.scores()
        tied = len(set(scores)) < len(scores)
        return {
            "scores": scores,
            "ranking": self.ranking(),
            "winners": self.winners(),
            "tiebreak": self.tiebreak_explained() if tied else "",
        }

    def tiebreak_explained(self, lang: str = i18n.SOURCE) -> str:
        """How a tie on points was broken, in ``lang`` ("" when the game has no tiebreak)."""
        return ""

    # -- information ---------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        """JSON-safe observation of ``player`` (None: spectator); no hidden info."""
        raise NotImplementedError  # pragma: no cover - abstract

    def determinize(self, player: int | None, rng: Rng) -> "State":
        """A full state consistent with view(player), hidden parts re-sampled with rng."""
        raise NotImplementedError  # pragma: no cover - abstract

    def search_determinization(self, player: int, rng: Rng) -> "State":
        """A determinization for search: like ``determinize(player, rng)``, but secret
        simultaneous choices that other seats have already made and ``player`` cannot
        see are taken back, so those seats are to move again.

        A search then lets them choose (by their own statistics) instead of treating a
        random sample of their choice as settled.  Its view can differ from
        ``view(player)`` (more seats to move); it still depends only on that view and
        the rng.  Games without simultaneous secret choices need not override this.
        """
        return self.determinize(player, rng)

    def component_counts(self) -> dict[str, int]:
        """Totals of every physical component; constant over a whole game."""
        raise NotImplementedError  # pragma: no cover - abstract

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.game.id == other.game.id and canonical(self.to_json()) == canonical(other.to_json())

    __hash__ = None  # type: ignore[assignment]


@functools.lru_cache(maxsize=None)
def _domains_of(module_name: str) -> tuple[Path, ...]:
    """(the ``locale`` folder beside ``module_name``, the kernel's), worked out once: a
    server renders log lines on every move."""
    module = sys.modules.get(module_name)
    here = Path(module.__file__).resolve().parent / "locale" if module and module.__file__ else None
    return (here, i18n.CORE_DOMAIN) if here is not None else (i18n.CORE_DOMAIN,)


def _read_in(path: str | Path | None, lang: str) -> str:
    if path is None:
        return ""
    path = Path(path)
    translated = path.with_name(f"{path.stem}.{lang}{path.suffix}")
    if lang != i18n.SOURCE and translated.is_file():
        path = translated
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def canonical(data: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces): equal states give equal bytes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def format_text(text: "i18n.Message | str", names: Iterable[str], lang: str = i18n.SOURCE,
                domains: Sequence[Path] = (i18n.CORE_DOMAIN,)) -> str:
    """An event text for reading: the message in ``lang`` (see :mod:`gemtable.core.i18n`)
    with seat names in its {P0}, {P1}… placeholders.

    One pass over the template: a name is data, so a name that itself reads
    ``{P1}`` is shown as written and never substituted again.
    """
    text = i18n.render(text, lang, domains)
    names = list(names)

    def seat_name(match: re.Match[str]) -> str:
        i = int(match.group(1))
        return names[i] if i < len(names) else match.group(0)

    return _PLACEHOLDER.sub(seat_name, text)


_PLACEHOLDER = re.compile(r"\{P(\d+)\}")


def event_for(event: Event, viewer: int | None) -> Event:
    """The version of ``event`` that ``viewer`` (None = spectator) may see."""
    only = event.get("only")
    if only is None:
        return event
    if viewer is not None and viewer in only:
        return {k: v for k, v in event.items() if k != "public"}
    return event["public"]


def run_random_game(state: State, rng: Rng, max_steps: int = 1_000_000) -> State:
    """Play uniformly random legal actions to the end (used by tests and bench)."""
    steps = 0
    while not state.is_over():
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
        steps += 1
        if steps > max_steps:
            raise RuntimeError("game did not end")
    return state


__all__ = [
    "Event",
    "Game",
    "IllegalAction",
    "Option",
    "State",
    "canonical",
    "event_for",
    "format_text",
    "run_random_game",
]
