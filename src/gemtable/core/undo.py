"""Taking moves back: how many trailing actions a seat may undo.

The server keeps, per accepted action in order, ``(seat, checkpoint)`` where
``checkpoint`` is what ``State.is_checkpoint(seat, action)`` answered before the action
was applied (True: it drew something random or showed something hidden, so taking it
back would leak).  Undoing removes actions from the end and rebuilds the state by replay.
"""

from __future__ import annotations

from collections.abc import Sequence


def undo_span(history: Sequence[tuple[int, bool]], seat: int, whole_turns: bool = False) -> int:
    """How many of the last actions of ``history`` ``seat`` may take back (0: none).

    Normal tables: the trailing run of ``seat``'s own actions that are not checkpoints;
    it stops at the first action of another seat or at a checkpoint (a checkpoint itself
    is never taken back).

    ``whole_turns=True`` (every human seat is the same person, or bots only besides one
    human): back to and including ``seat``'s previous own decision, through the bots'
    moves and checkpoints after it; 0 if ``seat`` has not acted yet.
    """
    n = len(history)
    if whole_turns:
        for i in range(n - 1, -1, -1):
            if history[i][0] == seat:
                return n - i
        return 0
    count = 0
    for i in range(n - 1, -1, -1):
        who, checkpoint = history[i]
        if who != seat or checkpoint:
            break
        count += 1
    return count


__all__ = ["undo_span"]
