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
from .rules import (
    KEEP,
    NC,
    ORN_POINTS,
    ORNAMENTS,
    PLACE,
    PPF,
    ROUNDS,
    TRACK,
    WINDOW_VALUES,
    SintraState,
)

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


# -- value features (learned evaluator) -------------------------------------------------
# Summary numbers of one seat's position for the linear part of a learned evaluator
# (Game.value_features): the seat's own figure and its lead over the best other seat
# ("_diff": own minus the largest other seat's), roughly unit scale.
VALUE_FEATURE_NAMES = (
    "progress",  # share of the game elapsed: rounds done plus the share of this round's panes taken
    "score", "score_diff",  # points now / 50
    "broken", "broken_diff",  # the broken-glass space's penalty now (≤ 0) / 18
    "side_bonus", "side_bonus_diff",  # palace-side bonus as it stands / 40
    "fields", "fields_diff",  # glazed window fields / 16
    "outlook", "outlook_diff",  # the heuristic's completion outlook of strips in progress / 20
    "strip_panes", "strip_panes_diff",  # panes lying on strips / 40
    "fit",  # panes on the table that fit a strip the glazier can reach / panes dealt this round
    "reach",  # share of the empty strip spaces at or right of the glazier
    "start_marker",  # 1 when the seat starts the next round (holds the marker)
    "break_cost",  # points the next broken pane costs / 4
)
SCORE_SCALE = 50.0
SIDE_SCALE = 40.0
OUTLOOK_SCALE = 20.0
_VALUES_RTL = WINDOW_VALUES[::-1]
_ORN_FIELDS = tuple(tuple(2 * w + k for w in orn for k in (0, 1)) for orn in ORNAMENTS)


def value_features(s: SintraState, p: int) -> list[float]:
    """``p``'s position against the other seats (see VALUE_FEATURE_NAMES); pure."""
    return _seat_features(s, p, _shared(s))


def value_features_all(s: SintraState) -> list[list[float]]:
    """Every seat's value features at once (row p = ``value_features(s, p)``)."""
    shared = _shared(s)
    return [_seat_features(s, p, shared) for p in range(s.num_players)]


def _shared(s: SintraState) -> tuple:
    """What every seat's row reads: progress, the panes on the table per colour and each
    seat's figures (score, broken, side, fields, outlook, panes)."""
    n = s.num_players
    dealt = s.nf * PPF
    ended = s.final is not None
    if ended:
        progress = 1.0
        outlook_w = 0.0
    else:
        progress = (s.rnd + max(0.0, 1.0 - s.left / dealt)) / ROUNDS
        outlook_w = min(1.0, (ROUNDS - s.rnd) / HORIZON)
    supply = s.centre[:]
    fac = s.fac
    for b in range(0, s.nf * NC, NC):
        if fac[b] or fac[b + 1] or fac[b + 2] or fac[b + 3] or fac[b + 4]:
            supply[0] += fac[b]
            supply[1] += fac[b + 1]
            supply[2] += fac[b + 2]
            supply[3] += fac[b + 3]
            supply[4] += fac[b + 4]
    code, empty, win = s.code, s.empty, s.win
    side_a = s.side == 0
    rows = []  # per seat: score, broken, side, fields, outlook, panes
    nw = 2 * NUM_WINDOWS
    for q in range(n):
        wins = win[q * nw:(q + 1) * nw]
        fields = nw - wins.count(-1)
        base = q * NUM_STRIPS
        outlook = 0.0
        panes = 0
        right = 0  # values of the glazed windows right of strip i
        # strips from the right: (empty spaces, side code, window's upper field, value)
        for e, c, up, value in zip(reversed(empty[base:base + NUM_STRIPS]),
                                   reversed(code[base:base + NUM_STRIPS]),
                                   wins[nw - 2::-2], _VALUES_RTL):
            if e < 5 and c >= 0:
                panes += 5 - e
                outlook += PROGRESS[5 - e] * (value + SIDE_SHARE + right)
            if up >= 0:
                right += value
        if ended:  # the broken glass and the side bonus are in the final score
            broken = side = 0
        else:
            broken = TRACK[s.trk[q]]
            if side_a:
                side = 0
                for orn in _ORN_FIELDS:
                    filled = 0
                    for f in orn:
                        if wins[f] >= 0:
                            filled += 1
                    side += ORN_POINTS[filled]
            else:
                side = s.side_bonus(q)
        rows.append((s.score[q] / SCORE_SCALE, broken / 18.0, side / SIDE_SCALE, fields / 16.0,
                     outlook * outlook_w / OUTLOOK_SCALE, panes / 40.0))
    return progress, supply, rows


def _seat_features(s: SintraState, p: int, shared: tuple) -> list[float]:
    progress, supply, rows = shared
    n = s.num_players
    ended = s.final is not None
    # the panes on the table that fit p's strips at or right of the glazier, and the share
    # of p's empty spaces that lie there
    need = s.need
    empty = s.empty
    cols = [c for c in range(NC) if supply[c]]
    reach = [0] * 6
    empty_all = 0
    empty_reach = 0
    g = s.glz[p]
    base = p * NUM_STRIPS
    for i in range(NUM_STRIPS):
        e = empty[base + i]
        if e:
            empty_all += e
            if i >= g:
                empty_reach += e
                k = (base + i) * 6
                for c in cols:
                    reach[c] += need[k + c]
                reach[5] += need[k + 5]
    jok = reach[5]
    fit = 0
    for c in cols:
        x = reach[c] + jok
        fit += min(x, supply[c])
    reach_p = empty_reach / empty_all if empty_all else 0.0
    mine = rows[p]
    others = [rows[q] for q in range(n) if q != p]
    out = [progress]
    for x, rival in zip(mine, map(max, zip(*others))):
        out.append(x)
        out.append(x - rival)
    holds = 1.0 if (s.holder == p and not ended) else 0.0
    t = s.trk[p]
    cost = 0.0 if ended else (TRACK[t] - TRACK[t + 1]) / 4.0
    out.extend((fit / (s.nf * PPF), reach_p, holds, cost))
    return out
