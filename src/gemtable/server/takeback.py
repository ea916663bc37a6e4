"""Taking moves back: which moves a seat may take back, and when.

A seat takes back its own last move while it is still to move and the move drew or revealed
nothing (the kernel's ``State.is_checkpoint``); at a table where one person plays every human
seat (or the only one), whole turns, through the bots' moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gemtable.core.undo import undo_span

from .clockwork import rec
from .table import LiveTable


def whole_turns(table: LiveTable) -> bool:
    """One person plays every human seat (or there is one human seat): undo whole turns."""
    humans = [s for s in table.seats if s.kind == "human"]
    if len(humans) <= 1:
        return True
    players = {s.player for s in humans}
    return len(players) == 1 and None not in players


NOT_YOURS = "The last move is not yours: you can take back only your own moves, before anyone else moves."
CHECKPOINT = ("Your last move drew or revealed something (a card, a tile, a refill or a hidden piece), "
              "so it cannot be taken back.")


class _History(Sequence):
    """``(seat, checkpoint)`` of every accepted action, read from the table's lists without
    copying them (``undo_span`` looks only at the last few; this is asked for every message)."""

    __slots__ = ("actions", "checkpoints")

    def __init__(self, actions: list[tuple[int, Any]], checkpoints: list[bool]) -> None:
        self.actions = actions
        self.checkpoints = checkpoints

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, i: int) -> tuple[int, bool]:  # type: ignore[override]
        return self.actions[i][0], self.checkpoints[i]


def undo_check(table: LiveTable, seat: int | None) -> tuple[int, tuple[str, str, int] | None]:
    """(actions to remove, None) or (0, (code, reason, status)) for ``seat`` asking to undo."""
    if seat is None:
        return 0, ("spectator", "Spectators cannot take back moves.", 403)
    if table.over:
        return 0, ("over", "The game is over: no move can be taken back.", 409)
    if table.waiting:
        return 0, ("waiting", "The game has not started: there is no move to take back.", 409)
    play = rec(table).play
    if play is not None and seat in play.away:
        return 0, ("away", "A bot plays your seat now: take your seat back first.", 409)
    if len(table.checkpoints) != len(table.match.actions):
        return 0, ("checkpoint", "No move can be taken back here.", 409)
    history = _History(table.match.actions, table.checkpoints)
    whole = whole_turns(table)
    n = undo_span(history, seat, whole_turns=whole)
    if n > 0:
        if not whole and seat not in table.state.to_move():
            return 0, ("turn_over", "Your turn is over: moves can be taken back only within your turn.", 409)
        return (n if whole else 1), None
    if not history:
        return 0, ("nothing", "No move has been made yet: there is nothing to take back.", 409)
    if history[-1][0] != seat:
        return 0, ("not_yours", NOT_YOURS, 409)
    return 0, ("checkpoint", CHECKPOINT, 409)
