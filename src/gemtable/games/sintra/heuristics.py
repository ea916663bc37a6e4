"""Sintra heuristic: an estimate of a player's final score, for the greedy and MCTS bots.

It counts what is already certain (score, the penalty of the current broken-glass
space, the palace-side bonus as it stands) plus, for every strip in progress, a share
of what completing it will bring (the window's value, the filled windows to its right,
and about 3 points of side bonus), the share growing with the panes already on the
strip.  Towards the end of the game that outlook fades into the end-scoring value of
leftover panes (1 point per 3).  While the player still has a decision pending in the
same turn (strip to place on, pane to keep) it takes the best of those continuations.

The weights were chosen by self-play duels between variants (one-ply greedy looking
through its own turn, margin over the opponent, paired seats, 2 players, 200–300 games),
on an earlier placeholder strip set: there a one-ply greedy on this heuristic beat the
same greedy on "score + broken-glass space" in 94.5 % (side A) and 97.5 % (side B) of 200
games.  Extra terms tried and rejected (they lost those duels): a glazier-position
penalty, a bonus per reachable empty space or per colour that still fits, a bonus for
filled windows to the right of strips.  With the current placeholder strips the project's
``greedy`` bot beats ``random`` in 200/200 two-player games on each palace side (mean
score 39.4 against −89.2 on side A, 36.4 against −91.4 on side B:
``gemtable simulate sintra -n 200 -p 2 -b greedy,random --jobs 1 --seed 1
[-o palace_side=B]``).
"""

from __future__ import annotations

from .data import NUM_STRIPS, NUM_WINDOWS
from .rules import KEEP, PLACE, ROUNDS, TRACK, WINDOW_VALUES, SintraState

# share of a strip's completion value, by panes on it (0..5; 5 = waiting for the keep)
PROGRESS = (0.0, 0.1, 0.25, 0.45, 0.7, 0.7)
SIDE_SHARE = 3.0  # side bonus a glazed window field adds, roughly
HORIZON = 3.0  # rounds over which the completion outlook fades into leftover value


def heuristic(state: SintraState, player: int) -> float:
    if state.phase in (PLACE, KEEP) and state.cur == player:
        best = None
        for action in state.legal_actions(player):
            child = state.clone()
            child.step(player, action)
            v = heuristic(child, player)
            if best is None or v > best:
                best = v
        if best is not None:
            return best
    return _static(state, player)


def _static(s: SintraState, p: int) -> float:
    if s.final is not None:
        return float(s.score[p])
    value = float(s.score[p] + TRACK[s.trk[p]] + s.side_bonus(p))
    outlook = min(1.0, (ROUNDS - s.rnd) / HORIZON)
    win = s.win
    wbase = p * NUM_WINDOWS * 2
    code = s.code
    empty = s.empty
    for i in range(NUM_STRIPS):
        si = p * NUM_STRIPS + i
        if code[si] < 0:
            continue
        placed = 5 - empty[si]
        if not placed:
            continue
        pts = WINDOW_VALUES[i] + SIDE_SHARE
        for w in range(i + 1, NUM_WINDOWS):
            if win[wbase + 2 * w] >= 0:
                pts += WINDOW_VALUES[w]
        value += PROGRESS[placed] * pts * outlook + placed / 3.0 * (1.0 - outlook)
    return value
