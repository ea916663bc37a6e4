"""Time control of a table: none, real-time (Fischer) or turn-based.

Times are integer milliseconds; "now" is epoch milliseconds from the table
manager's clock function (injectable: tests drive it by hand).

- ``none``: no clock, no timeouts.
- ``realtime``: each seat starts with ``base`` seconds; while its decision is
  pending its clock runs; when its turn passes (it is no longer to move after
  its own action) it gains ``increment`` seconds.  Several seats run at once
  during simultaneous picks.
- ``turn``: every time a seat's decision starts it has ``per_move`` seconds.

What is stored (``PlayState.to_json``): the remaining time of every seat and,
for every running clock, the epoch milliseconds at which it was last started.
After a restart a running clock is charged only up to the server's last
heartbeat (see ``resume``): the time the server was down is not charged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

MODES = ("none", "realtime", "turn")
LIMITS = {  # seconds: (smallest, largest) accepted
    "base": (1, 6 * 3600),
    "increment": (0, 3600),
    "per_move": (10, 30 * 86400),
}
DEFAULTS = {"base": 600, "increment": 5, "per_move": 86400}


class ClockError(ValueError):
    pass


def parse_clock(raw: Any) -> dict[str, Any]:
    """A table's time control from a create request; raises ClockError with a sentence."""
    if raw is None:
        return {"mode": "none"}
    if not isinstance(raw, dict):
        raise ClockError("'clock' must be an object such as {\"mode\": \"realtime\", \"base\": 600, \"increment\": 5}.")
    mode = raw.get("mode", "none")
    if mode not in MODES:
        raise ClockError("'clock.mode' must be 'none', 'realtime' or 'turn'.")
    wanted = {"realtime": ("base", "increment"), "turn": ("per_move",), "none": ()}[mode]
    unknown = sorted(str(k)[:20] for k in raw if k not in ("mode", "base", "increment", "per_move"))
    if unknown:
        raise ClockError(f"'clock' has unknown fields: {', '.join(unknown)}.")
    out: dict[str, Any] = {"mode": mode}
    for key in wanted:
        value = raw.get(key, DEFAULTS[key])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            raise ClockError(f"'clock.{key}' must be a whole number of seconds.")
        low, high = LIMITS[key]
        if not low <= value <= high:
            raise ClockError(f"'clock.{key}' must be between {low} and {high} seconds.")
        out[key] = int(value)
    return out


@dataclass
class PlayState:
    """A table's clocks and in-play flags (what ``gt_table_play`` stores, plus memory-only fields)."""

    mode: str = "none"
    base: int = 0
    increment: int = 0
    per_move: int = 0
    remaining: list[int | None] = field(default_factory=list)
    running: dict[int, int] = field(default_factory=dict)  # seat -> epoch ms its clock was last started
    away: set[int] = field(default_factory=set)  # seats a bot plays for now
    replaced: set[int] = field(default_factory=set)  # seats a bot played at some point (result marks them)
    graced: set[int] = field(default_factory=set)  # seats that were given the grace time once
    # seats that took back a whole turn past a draw or reveal (they saw what comes): not rated
    took_back: set[int] = field(default_factory=set)
    mute: bool = False  # spectators may not chat
    # seat -> how many of its moves a stand-in bot made (the result says so; ratings.py's rule)
    stand_in_moves: dict[int, int] = field(default_factory=dict)
    resigned: list[int] = field(default_factory=list)  # seats that resigned, earliest first
    # the rematch proposed at a finished table, until every other player accepted it:
    # {"by": seat, "until": epoch ms, "yes": [seats], "no": seat | None}
    proposal: dict[str, Any] | None = None
    rematch: str | None = None
    # memory only
    turn_since: dict[int, int] = field(default_factory=dict)  # seat -> when its current decision started
    gone_since: dict[int, int] = field(default_factory=dict)  # seat -> when its last connection left
    epoch: int = 0  # bumped when a bot's pending move must not be played (undo, seat taken back)

    # -- building ------------------------------------------------------------------------
    @classmethod
    def new(cls, config: dict[str, Any], num_players: int) -> PlayState:
        mode = config.get("mode", "none")
        play = cls(mode=mode, base=int(config.get("base", 0)), increment=int(config.get("increment", 0)),
                   per_move=int(config.get("per_move", 0)))
        start = {"realtime": play.base * 1000, "turn": play.per_move * 1000}.get(mode)
        play.remaining = [start] * num_players
        return play

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.mode == "realtime":
            out.update(base=self.base, increment=self.increment)
        elif self.mode == "turn":
            out["per_move"] = self.per_move
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "clock": self.config(),
            "remaining": list(self.remaining),
            "running": {str(p): t for p, t in sorted(self.running.items())},
            "away": sorted(self.away), "replaced": sorted(self.replaced), "graced": sorted(self.graced),
            "took_back": sorted(self.took_back),
            "mute": self.mute,
            "stand_in_moves": {str(p): n for p, n in sorted(self.stand_in_moves.items())},
            "resigned": list(self.resigned),
            "proposal": self.proposal,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, num_players: int, rematch: str | None = None) -> PlayState:
        data = data or {}
        play = cls.new(data.get("clock") or {"mode": "none"}, num_players)
        remaining = data.get("remaining")
        if isinstance(remaining, list) and len(remaining) == num_players:
            play.remaining = [None if r is None else int(r) for r in remaining]
        play.running = {int(p): int(t) for p, t in (data.get("running") or {}).items()}
        play.away = {int(p) for p in data.get("away") or ()}
        play.replaced = {int(p) for p in data.get("replaced") or ()}
        play.graced = {int(p) for p in data.get("graced") or ()}
        play.took_back = {int(p) for p in data.get("took_back") or ()}
        play.mute = bool(data.get("mute", False))
        play.stand_in_moves = {int(p): int(n) for p, n in (data.get("stand_in_moves") or {}).items()}
        play.resigned = [int(p) for p in data.get("resigned") or ()]
        proposal = data.get("proposal")
        play.proposal = dict(proposal) if isinstance(proposal, dict) else None
        play.rematch = rematch
        return play

    def copy(self) -> PlayState:
        return PlayState(
            mode=self.mode, base=self.base, increment=self.increment, per_move=self.per_move,
            remaining=list(self.remaining), running=dict(self.running), away=set(self.away),
            replaced=set(self.replaced), graced=set(self.graced), took_back=set(self.took_back), mute=self.mute, rematch=self.rematch,
            stand_in_moves=dict(self.stand_in_moves), resigned=list(self.resigned),
            proposal=None if self.proposal is None else {k: (list(v) if isinstance(v, list) else v)
                                                         for k, v in self.proposal.items()},
            turn_since=dict(self.turn_since), gone_since=dict(self.gone_since), epoch=self.epoch,
        )

    # -- reading ---------------------------------------------------------------------------
    @property
    def timed(self) -> bool:
        return self.mode in ("realtime", "turn")

    def left(self, seat: int, now: int) -> int | None:
        rem = self.remaining[seat] if 0 <= seat < len(self.remaining) else None
        if rem is None:
            return None
        started = self.running.get(seat)
        if started is not None:
            rem -= max(0, now - started)
        return max(0, rem)

    def public(self, now: int) -> dict[str, Any]:
        """The payload's ``clock``: the time control, what is left now, whose clocks run."""
        return {
            "mode": self.mode,
            "base": self.base if self.mode == "realtime" else None,
            "increment": self.increment if self.mode == "realtime" else None,
            "per_move": self.per_move if self.mode == "turn" else None,
            "remaining": [self.left(p, now) for p in range(len(self.remaining))],
            "running": sorted(self.running),
            "server_now": now,
        }

    # -- running ---------------------------------------------------------------------------
    def settle(self, now: int) -> None:
        """Charge every running clock up to ``now`` (and restart it from ``now``)."""
        for p, started in list(self.running.items()):
            rem = self.remaining[p]
            if rem is not None:
                self.remaining[p] = max(0, rem - max(0, now - started))
            self.running[p] = max(started, now)

    def sync(self, movers: set[int], active: bool, now: int) -> bool:
        """Run exactly the clocks of the seats whose decision is pending (not away).  Changed?"""
        want = {p for p in movers if p not in self.away} if (active and self.timed) else set()
        changed = False
        for p in [p for p in self.running if p not in want]:
            self.settle_one(p, now)
            del self.running[p]
            self.turn_since.pop(p, None)
            changed = True
        for p in sorted(want - set(self.running)):
            if self.mode == "turn":
                self.remaining[p] = self.per_move * 1000
            self.running[p] = now
            self.turn_since[p] = now
            changed = True
        return changed

    def settle_one(self, p: int, now: int) -> None:
        started = self.running.get(p)
        if started is not None and self.remaining[p] is not None:
            self.remaining[p] = max(0, self.remaining[p] - max(0, now - started))
            self.running[p] = max(started, now)

    def after_action(self, actor: int, movers: set[int], active: bool, now: int,
                     before: set[int] | None = None) -> None:
        """An action by ``actor`` was accepted at ``now``; ``before``/``movers``: who was/is to move.

        The actor's decision is over when it is no longer to move, or when a new round began
        (seats to move now that were not before, as when the last simultaneous pick is made);
        a further step of the same turn (the same seats to move) continues the same decision.
        """
        if not self.timed:
            return
        self.settle(now)
        finished = actor not in movers or (before is not None and bool(movers - before))
        if finished and actor in self.running:
            if self.mode == "realtime":
                self.remaining[actor] = (self.remaining[actor] or 0) + self.increment * 1000
            del self.running[actor]  # its next decision starts afresh (turn-based: a new allowance)
            self.turn_since.pop(actor, None)
        self.sync(movers, active, now)

    def due(self, now: int, connected: set[int], away_after_ms: int | None) -> list[tuple[int, str]]:
        """Seats to hand to a bot now: out of time, or (real time) disconnected too long while to move."""
        out = []
        for p in sorted(self.running):
            if p in self.away:
                continue
            if (self.left(p, now) or 0) <= 0:
                out.append((p, "time"))
            elif self.mode == "realtime" and away_after_ms is not None and p not in connected:
                since = max(self.gone_since.get(p, 0), self.turn_since.get(p, self.running[p]))
                if now - since >= away_after_ms:
                    out.append((p, "disconnected"))
        return out

    def go_away(self, p: int, now: int) -> None:
        self.settle_one(p, now)
        self.running.pop(p, None)
        self.turn_since.pop(p, None)
        self.away.add(p)
        self.replaced.add(p)
        self.epoch += 1

    def take_back(self, p: int, grace_ms: int) -> bool:
        """The seat's player plays again.  False when a real-time clock has nothing left to give."""
        if self.mode == "realtime" and (self.remaining[p] or 0) < grace_ms:
            if p in self.graced:
                if (self.remaining[p] or 0) <= 0:
                    return False
            else:
                self.remaining[p] = grace_ms
                self.graced.add(p)
        self.away.discard(p)
        self.epoch += 1
        return True

    def resume(self, now: int, last_alive: int | None, process_start: int) -> bool:
        """After a restart: charge running clocks up to the last heartbeat only, restart them at ``now``."""
        changed = False
        for p, started in list(self.running.items()):
            if started >= process_start:
                continue  # started by this process: nothing was missed
            charged = max(0, (last_alive or started) - started)
            if self.remaining[p] is not None:
                self.remaining[p] = max(0, self.remaining[p] - charged)
            self.running[p] = now
            self.turn_since[p] = now
            changed = True
        return changed
