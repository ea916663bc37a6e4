"""A live table: the match, its state, its seats and its connections, as one worker holds it.

The table core's record of a table.  What features keep per table (the lobby's host, clocks,
chat) lives in their own records (``LiveTable.record``), and what they add to the summary and
to a seat's message comes from their hooks (hooks.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from gemtable.core import Game, Match, State, event_for, format_text, i18n

from .hooks import TableHooks

if TYPE_CHECKING:  # pragma: no cover
    from .hub import Subscriber

log = logging.getLogger("gemtable.server")

R = TypeVar("R")

MAX_MESSAGE_TEXT = 300  # characters of an error message (never echo unbounded input)
SEAT_LOST_MSG = i18n.msg("This seat is no longer yours: you left it, the host removed you, or it was given to "
                         "another player. You can still watch the table.")
SEAT_LOST = SEAT_LOST_MSG["m"]


def same_token(held: str, given: str) -> bool:
    """Whether ``given`` is the seat token ``held``, in constant time.  (``compare_digest``
    refuses non-ASCII str, and a client may send any text: both are compared as UTF-8.)"""
    return secrets.compare_digest(held.encode("utf-8"), given.encode("utf-8", "surrogatepass"))


class Rejected(Exception):
    """A request the server refuses; ``code`` is machine-readable, message for people.

    ``message`` may be a message (gemtable.core.i18n): ``message`` is then its English text
    and ``text(lang)`` renders it in a reader's language, from ``domains`` (a game's
    refusals come with the game's catalogues)."""

    def __init__(self, code: str, message: str | i18n.Message, status: int = 400, retry_after: int | None = None,
                 domains: Any = (i18n.CORE_DOMAIN,), rendered: dict[str, str] | None = None) -> None:
        self.localized = message if i18n.is_message(message) else None
        self.rendered = rendered or {}  # texts already in a language (a game's check(p, a, lang))
        self.domains = tuple(domains)
        message = _cut(i18n.render(message) if self.localized is not None else message)
        super().__init__(message)
        self.retry_after = retry_after
        self.code = code
        self.message = message
        self.status = status

    def text(self, lang: str) -> str:
        """The message in ``lang`` (English: ``message`` itself)."""
        if lang in self.rendered:
            return _cut(self.rendered[lang] or self.message)
        if self.localized is None or lang == i18n.SOURCE:
            return self.message
        return _cut(i18n.render(self.localized, lang, self.domains))


def _cut(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE_TEXT else message[: MAX_MESSAGE_TEXT - 1] + "…"


@dataclass
class Seat:
    seat: int
    kind: str  # "human" | "bot"
    bot: str | None
    name: str
    token: str
    joined: bool = False
    player: str | None = None  # the player id holding the seat (never sent to clients)
    open: bool = False  # joinable from the lobby while the table waits (lobby.py)

    def public(self, connected: bool) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "connected": connected or self.kind == "bot",
            "joined": self.joined or self.kind == "bot",
        }


@dataclass(eq=False)
class LiveTable:
    id: str
    game: Game
    num_players: int
    options: dict[str, Any]
    seed: int
    seats: list[Seat]
    match: Match
    state: State
    created_at: Any = None
    updated_at: Any = None
    # events of action i (unredacted, server side only)
    events: list[list[dict[str, Any]]] = field(default_factory=list)
    decision_since: list[int] = field(default_factory=list)
    legal_ids: list[tuple[int, ...]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    bot_task: asyncio.Task | None = None
    bots: dict[int, Any] = field(default_factory=dict)
    bots_told: int = 0  # actions told to the bots (Bot.observe); less than version after an undo
    seed_chosen: bool = False
    # not started yet: the table waits for players to join (no actions, no bots)
    waiting: bool = False
    # each accepted action's checkpoint flag (it drew or revealed something: ``State.is_checkpoint``)
    checkpoints: list[bool] = field(default_factory=list)
    # several workers (bus.py): the database revision this copy was built from; seats
    # connected at other workers
    rev: int = 0
    remote_seats: set[int] = field(default_factory=set)
    used: float = field(default_factory=time.monotonic)  # last asked for at this worker (``get``)
    # the legal actions of each seat in ``state`` at ``version`` (asked when the decision is
    # tracked, again for the seat's message): computed once per position
    _legal_of: tuple[Any, int] | None = None
    _legal: dict[int, list[Any]] = field(default_factory=dict)
    # the features' per-table records, by their class (``record``), and the features' hooks
    # that decorate the table's summary and messages (hooks.py)
    records: dict[type, Any] = field(default_factory=dict)
    hooks: TableHooks = field(default_factory=TableHooks)
    # a game its players ended before the rules did (a resignation): its result as stored
    # (the table row is "finished" although the state is not over)
    final: dict[str, Any] | None = None

    def record(self, kind: type[R]) -> R:
        """The feature record of class ``kind`` (made with no arguments the first time)."""
        rec = self.records.get(kind)
        if rec is None:
            rec = self.records[kind] = kind()
        return rec

    @property
    def version(self) -> int:
        return len(self.match.actions)

    @property
    def over(self) -> bool:
        return self.final is not None or self.state.is_over()

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat_for_token(self, token: str | None) -> Seat | None:
        if not token:
            return None
        for s in self.seats:
            if same_token(s.token, token):
                return s
        return None

    def holds(self, sub: Subscriber) -> bool:
        """Whether ``sub`` may still play its seat: a spectator always may watch; a seat's
        connection only while the seat keeps the token it was opened with.  Leaving, being
        removed by the host, or the seat passing to another player gives the seat a new token."""
        return sub.seat is None or self.token_holds(sub.seat, sub.token)

    def token_holds(self, seat: int, token: str | None) -> bool:
        if token is None or not 0 <= seat < len(self.seats):
            return False
        return same_token(self.seats[seat].token, token)

    def local_seats(self) -> set[int]:
        """Seats with a connection at this worker."""
        return {sub.seat for sub in self.subscribers if sub.seat is not None}

    def connected_seats(self) -> set[int]:
        return self.local_seats() | self.remote_seats

    # -- decisions -------------------------------------------------------------
    def legal(self, player: int) -> list[Any]:
        """``state.legal_actions(player)``, computed once per position (the state object and the
        version: a copy caught up from notices applies actions to its state in place)."""
        key = self._legal_of
        if key is None or key[0] is not self.state or key[1] != self.version:
            self._legal_of, self._legal = (self.state, self.version), {}
        acts = self._legal.get(player)
        if acts is None:
            acts = self._legal[player] = self.state.legal_actions(player)
        return acts

    def refresh_decisions(self, actor: int | None) -> None:
        """Track since which version each seat's current decision stands.

        An action message carries the version the client saw.  It is accepted
        when the seat's decision has not changed since then (so a simultaneous
        pick by another seat does not make it stale), else rejected as stale.
        """
        movers = set(self.state.to_move())
        for p in range(self.num_players):
            ids = tuple(a.id for a in self.legal(p)) if p in movers else ()
            if p == actor or ids != self.legal_ids[p]:
                self.decision_since[p] = self.version
            self.legal_ids[p] = ids

    # -- payloads ----------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Public description (lobby, spectators): never the seed or tokens."""
        connected = self.connected_seats()
        over = self.over
        out: dict[str, Any] = {
            "id": self.id,
            "game": self.game.id,
            "title": self.game.title,
            "players": self.num_players,
            "options": self.options,
            "seats": [s.public(s.seat in connected) for s in self.seats],
            "status": "finished" if over else ("waiting" if self.waiting else "running"),
            "open": any(s.kind == "human" and not s.joined for s in self.seats) and not over,
            "seed_fixed": self.seed_chosen,
            "seed_note": SEED_NOTE if self.seed_chosen else None,
            "version": self.version,
            "to_move": list(self.state.to_move()),
            "created_at": self.created_at.isoformat() + "Z" if self.created_at else None,
            "updated_at": self.updated_at.isoformat() + "Z" if self.updated_at else None,
        }
        if over:
            out["winners"] = list(self.final["winners"]) if self.final is not None else self.state.winners()
        self.hooks.summary(self, out)
        return out

    def log_entries(self, viewer: int | None, start: int, stop: int | None = None,
                    lang: str = i18n.SOURCE) -> list[dict[str, Any]]:
        """The log as ``viewer`` may see it, each text rendered in ``lang`` (an event stores its
        text as a message; one stored by an older version as a string shows as it is)."""
        names = self.names
        domains = self.game.domains
        out: list[dict[str, Any]] = []
        stop = len(self.events) if stop is None else stop
        for move in range(max(0, start), stop):
            seat = self.match.actions[move][0]
            for ev in self.events[move]:
                seen = event_for(ev, viewer)
                if seen is None:
                    continue
                entry = {k: v for k, v in seen.items() if k not in ("only", "public")}
                entry["text"] = format_text(seen.get("text", ""), names, lang, domains)
                entry["move"] = move
                entry.setdefault("seat", seat)
                out.append(entry)
        return out

    def payload(self, viewer: int | None, since: int = -1, summary: dict[str, Any] | None = None,
                lang: str = i18n.SOURCE) -> dict[str, Any]:
        """The message a seat (or a spectator) receives: its own view and legal actions, its
        words (log, prompt, actions) in ``lang``.

        ``summary``: this table's ``summary()`` when the caller already built it (a broadcast
        builds it once for every subscriber; the dict is shared, never modified).
        """
        state = self.state
        movers = list(state.to_move())
        legal: list[dict[str, Any]] = []
        prompt = None
        if viewer is not None and viewer in movers and not self.waiting:
            describe = getattr(state, "action_text", None)
            if lang == i18n.SOURCE:  # (English: the kernel's default argument, as every game takes it)
                legal = [
                    {"id": a.id, "type": a.type, "json": a.to_json(),
                     "text": describe(viewer, a) if describe else a.text}
                    for a in self.legal(viewer)
                ]
                prompt = state.prompt(viewer)
            else:
                legal = [
                    {"id": a.id, "type": a.type, "json": a.to_json(),
                     "text": describe(viewer, a, lang) if describe else a.text}
                    for a in self.legal(viewer)
                ]
                prompt = state.prompt(viewer, lang)
        reset = since < 0
        msg: dict[str, Any] = {
            "type": "state",
            "table": self.summary() if summary is None else summary,
            "seat": viewer,
            "version": self.version,
            "decision_version": self.decision_since[viewer] if viewer is not None else None,
            "view": state.view(viewer),
            "to_move": movers,
            "prompt": prompt,
            "waiting_prompt": (i18n.render(WAITING_NOTE, lang) if self.waiting else
                               None if prompt or not movers else waiting_for(self, movers, lang)),
            "legal": legal,
            "log_reset": reset,
            "log": self.log_entries(viewer, 0 if reset else since, lang=lang),
            "over": self.over,
            "result": self.result_in(lang) if self.over else None,
        }
        self.hooks.payload(self, msg, viewer, reset)
        return msg

    def result_in(self, lang: str) -> dict[str, Any]:
        """The result with its tie-break sentence in ``lang`` (``result()`` holds the English)."""
        res = self.result()
        if lang != i18n.SOURCE and res.get("tiebreak"):
            res["tiebreak"] = self.state.tiebreak_explained(lang)
        return res

    def result(self, state: State | None = None) -> dict[str, Any]:
        """The finished game's result (``State.result()``) with the features' additions."""
        if state is None and self.final is not None:
            return dict(self.final)
        res = result_of(self.state if state is None else state)
        self.hooks.result(self, res)
        return res


WAITING_NOTE = i18n.msg("The game starts when every seat is taken or when the host starts it.")
SEED_NOTE = ("The deal was fixed by the table's creator, who chose its seed: "
             "they can know every hidden card and the order of what is drawn.")


def waiting_for(table: LiveTable, movers: list[int], lang: str = i18n.SOURCE) -> str:
    names = [table.seats[p].name for p in movers]
    if len(names) == 1:
        return i18n.render(i18n.msg("Waiting for {name}.", name=names[0]), lang)
    return i18n.render(i18n.msg("Waiting for {names} and {last}.", names=" and ".join(names[:-1]) if lang == i18n.SOURCE
                                else ", ".join(names[:-1]), last=names[-1]), lang)


def result_of(state: State) -> dict[str, Any]:
    res = state.result()
    return {
        "scores": list(res.get("scores", [])),
        "ranking": list(res.get("ranking", [])),
        "winners": list(res.get("winners", [])),
        "tiebreak": res.get("tiebreak") or "",
        **{k: v for k, v in res.items() if k not in ("scores", "ranking", "winners", "tiebreak")},
    }


def creator_key(address: str | None) -> str | None:
    """What is stored of a creator's address: a short hash (lobby fairness), never the address."""
    if not address:
        return None
    return hashlib.sha256(("gemtable:" + address).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def is_checkpoint(state: Any, seat: int, action: Any) -> bool:
    """The kernel's answer (asked before applying); True when the game cannot answer."""
    try:
        return bool(state.is_checkpoint(seat, action))
    except Exception:
        log.exception("is_checkpoint failed for %s; treating the action as a checkpoint", action)
        return True
