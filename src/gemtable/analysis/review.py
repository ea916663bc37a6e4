"""Game review and hints: each seat's chance of winning, judged from its own knowledge.

A seat's chance at a position is the learned evaluator's estimate of its share of the
win (``bots.learned``, the game's shipped weights; the heuristic margin through a
logistic when a game ships none) averaged over several determinizations drawn from
that seat's view.  The random numbers are seeded from the view itself, so the result
depends on what the seat could see and on nothing else: two positions that differ only
in other seats' hidden cards, bags or deck orders give the same chances, hints and
swings (``tests/analysis/test_review.py`` checks it for every game).

* :func:`review` goes through a finished match: every seat's chance after every move,
  then for each seat its biggest drops with the move the evaluator prefers there and
  how much that move was worth;
  A review is stored language-neutral (``lang=None``: the moves as action JSON, the
  reasons and the judge's name as messages) and put into a reader's words when it is
  read (:func:`render_review`);
* :func:`hints` ranks the moves a seat may make now and says what each does in player
  words (``Game.explain`` on the seat's value features before and after).

The search is one ply deep (each legal move on each determinization, then the
evaluator), which keeps a review of a whole game within a few seconds of one core.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gemtable.bots import learned
from gemtable.bots.base import evaluate
from gemtable.core import (
    Action,
    Game,
    GemtableError,
    IllegalAction,
    Match,
    MatchFileError,
    Rng,
    State,
    canonical,
    get_game,
    i18n,
)
from gemtable.core.i18n import msg, msgn
from gemtable.core.workers import follow_parent

SAMPLES = 8  # determinizations per judgement (the review's default)
HINT_SAMPLES = 12  # a hint judges one position: it can afford more
SWINGS = 3  # drops listed per seat
SHARPNESS = 10.0  # the heuristic fallback's logistic slope (mcts's default)


class ReviewError(GemtableError, ValueError):
    """What cannot be reviewed or analysed (a running game, a move the game does not have, a
    line that does not fit): a ``ValueError`` whose text is a message, so each reader gets it
    in their language (``error.text(lang)``)."""


def _seed(state: State, seat: int, salt: str) -> int:
    """A seed from what ``seat`` sees: the same view gives the same samples."""
    text = f"{salt}|{seat}|{canonical(state.view(seat))}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass
class Choice:
    """One move judged: the seat's expected chance after it, and what it changes."""

    action: Action
    text: str
    chance: float
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "text": self.text,
                "chance": round(self.chance, 4), "reasons": self.reasons}


class Judge:
    """Chances of one game at one table size, from a seat's knowledge only."""

    def __init__(self, state: State, samples: int = SAMPLES) -> None:
        self.game = state.game
        self.samples = max(1, int(samples))
        self.model = learned.shipped(self.game, state.num_players)

    @property
    def name(self) -> str:
        """Who judges, in English (as stored with a review)."""
        return self.title()

    def title(self, lang: str = i18n.SOURCE) -> str:
        """Who judges, in ``lang``: "learned value, one ply, 8 samples"."""
        return i18n.render(self.title_message(), lang)

    def title_message(self) -> i18n.Message:
        """Who judges, as a message (rendered in each reader's language)."""
        # (the English says "samples" for one too, as it always has)
        if self.model is not None:
            return msgn("learned value, one ply, {n} samples", "learned value, one ply, {n} samples",
                        n=self.samples)
        return msgn("heuristic, one ply, {n} samples", "heuristic, one ply, {n} samples", n=self.samples)

    def _values(self, det: State) -> list[float]:
        if det.is_over():
            return det.returns()
        if self.model is not None:
            return self.model.values(det)
        n = det.num_players
        values = [evaluate(det, q) for q in range(n)]
        scale = max(1.0, max(abs(v) for v in values))
        out = []
        for p in range(n):
            x = SHARPNESS * (values[p] - max(values[q] for q in range(n) if q != p)) / scale
            out.append(1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x)))))
        total = sum(out)
        return [v / total for v in out]

    def _dets(self, state: State, seat: int, salt: str) -> list[State]:
        rng = Rng(_seed(state, seat, salt))
        return [state.determinize(seat, rng) for _ in range(self.samples)]

    def chance(self, state: State, seat: int) -> float:
        """``seat``'s chance of winning (its share of the win) from its view of ``state``."""
        if state.is_over():
            return float(state.returns()[seat])
        dets = self._dets(state, seat, "chance")
        return sum(self._values(d)[seat] for d in dets) / len(dets)

    def rank(self, state: State, seat: int, explain: int = 0, lang: str | None = i18n.SOURCE) -> list[Choice]:
        """Every legal move of ``seat``, best first, each with its expected chance (the
        same determinizations for every move, so the comparison is paired); the first
        ``explain`` of them with their reasons (:meth:`reasons`).  Texts in ``lang``
        (``None``: the moves' texts in English, the reasons as messages)."""
        dets = self._dets(state, seat, "rank")
        out = []
        for a in state.legal_actions(seat):
            total, used = 0.0, 0
            for d in dets:
                child = d.clone()
                try:
                    child.apply(seat, a)
                except IllegalAction:  # a determinization the move does not fit: skip it
                    continue
                total += self._values(child)[seat]
                used += 1
            if used:
                out.append(Choice(a, state.action_text(seat, a, lang or i18n.SOURCE), total / used, []))
        out.sort(key=lambda c: -c.chance)
        for c in out[:explain]:
            c.reasons = self.reasons(state, seat, c.action, lang=lang)
        return out

    def reasons(self, state: State, seat: int, action: Action, depth: int = 4,
                lang: str | None = i18n.SOURCE) -> list[Any]:
        """What ``action`` does for ``seat``, in player words (``Game.explain`` of the seat's
        value features before and after, averaged over the determinizations).  A turn made
        of several decisions (take, then place) is followed to its end: while ``seat``
        alone is still to move, the evaluator's best next decision is played (at most
        ``depth`` of them), so a first step is explained by what it leads to.  The reasons
        are in ``lang``; with ``lang=None`` they are messages (``Game.explain``'s)."""
        game = self.game
        if game.explain is None or game.value_features is None:
            return []
        before, after = [], []
        for d in self._dets(state, seat, "rank"):
            child = d.clone()
            try:
                child.apply(seat, action)
            except IllegalAction:
                continue
            for _ in range(depth):
                if child.is_over() or child.to_move() != (seat,):
                    break
                best, best_value = None, -1.0
                for follow in child.legal_actions(seat):
                    nxt = child.clone()
                    nxt.apply(seat, follow)
                    v = self._values(nxt)[seat]
                    if v > best_value:
                        best, best_value = nxt, v
                child = best
            before.append(game.value_features(d, seat))
            after.append(game.value_features(child, seat))
        if not before:
            return []
        if lang == i18n.SOURCE:
            return game.explain(_mean(before), _mean(after))
        return game.explain(_mean(before), _mean(after), lang=lang)


def _mean(rows: Sequence[Sequence[float]]) -> list[float]:
    n = len(rows)
    return [sum(col) / n for col in zip(*rows)]


def hints(state: State, seat: int, count: int = 3, samples: int = HINT_SAMPLES,
          lang: str = i18n.SOURCE) -> list[dict[str, Any]]:
    """The ``count`` best moves of ``seat`` now, each with its chance and its reasons (in
    ``lang``)."""
    if state.is_over() or seat not in state.to_move():
        return []
    return [c.to_json() for c in Judge(state, samples).rank(state, seat, explain=count, lang=lang)[:count]]


def review_states(states: Sequence[State], moves: Sequence[tuple[int, Action]], samples: int = SAMPLES,
                  swings: int = SWINGS, progress: Callable[[int, int], None] | None = None,
                  lang: str | None = i18n.SOURCE) -> dict[str, Any]:
    """The review of a game given its positions (``states[t]`` before move ``t``, the last
    one after the last move) and its moves (seat, action).

    Each seat's chances and swings use only that seat's views of the positions.  The moves'
    texts, the reasons and the judge's name are in ``lang``; with ``lang=None`` the review
    is language-neutral, as stored: each swing's moves as action JSON (``played_action``,
    ``best_action`` instead of the texts ``played`` and ``best``), the reasons and ``bot``
    as messages (:func:`render_review` puts it into a reader's words).
    """
    if len(states) != len(moves) + 1:
        raise ReviewError(msg("a review needs one position more than moves"))
    judge = Judge(states[0], samples)
    n = states[0].num_players
    steps = len(states) + n * swings
    done = 0
    chances: list[list[float]] = [[] for _ in range(n)]
    for state in states:
        for p in range(n):
            chances[p].append(round(judge.chance(state, p), 4))
        done += 1
        if progress:
            progress(done, steps)
    drops: list[list[tuple[float, int]]] = [[] for _ in range(n)]
    for t, (seat, action) in enumerate(moves):
        if len(states[t].legal_actions(seat)) > 1:
            drops[seat].append((chances[seat][t + 1] - chances[seat][t], t))
    out_swings = []
    for p in range(n):
        for delta, t in sorted(drops[p])[:swings]:
            if delta >= 0:
                break
            state, (seat, action) = states[t], moves[t]
            ranked = judge.rank(state, seat, explain=1, lang=None)
            played = next((c for c in ranked if c.action == action), None)
            best = ranked[0]
            if played is not None and played is not best:
                played.reasons = judge.reasons(state, seat, action, lang=None)
            out_swings.append({
                "seat": seat, "move": t + 1, "played_action": action.to_json(),
                "before": chances[seat][t], "after": chances[seat][t + 1], "swing": round(delta, 4),
                "best_action": best.action.to_json(), "best_reasons": best.reasons,
                "best_chance": round(best.chance, 4),
                "played_chance": round(played.chance, 4) if played else None,
                "cost": round(best.chance - played.chance, 4) if played else None,
                "played_reasons": played.reasons if played else [],
            })
            done += 1
            if progress:
                progress(done, steps)
    out_swings.sort(key=lambda s: (s["seat"], s["swing"]))
    out = {"players": n, "bot": judge.title_message(), "samples": judge.samples,
           "moves": len(moves), "chances": chances, "swings": out_swings}
    if lang is None:
        return out
    return _render(out, states[0].game, {s["move"] - 1: states[s["move"] - 1] for s in out_swings}, lang)


def _render(review: dict[str, Any], game: Game, states: dict[int, State], lang: str) -> dict[str, Any]:
    """``review`` with its messages and moves in ``lang``: a swing's ``played_action`` and
    ``best_action`` become the texts ``played`` and ``best`` (in the same place), written
    from ``states[move - 1]``, the position the move was made in.  A review stored before
    reviews were language-neutral has texts already: they stay as they are."""
    out = dict(review)
    out["bot"] = i18n.render(review.get("bot", ""), lang, game.domains)
    swings = []
    for swing in review.get("swings", []):
        state = states.get(swing.get("move", 0) - 1)
        rendered: dict[str, Any] = {}
        for key, value in swing.items():
            if key in ("played_action", "best_action"):
                rendered[key.removesuffix("_action")] = _action_text(game, state, swing["seat"], value, lang)
            elif key.endswith("reasons") and isinstance(value, list):
                rendered[key] = [i18n.render(r, lang, game.domains) for r in value]
            else:
                rendered[key] = value
        swings.append(rendered)
    out["swings"] = swings
    return out


def _action_text(game: Game, state: State | None, seat: int, data: Any, lang: str) -> str:
    """The text of a stored action in ``lang`` (its JSON where the position is missing or
    the move does not fit it: a match that no longer replays)."""
    if state is not None:
        try:
            return state.action_text(seat, game.action_from_json(data), lang)
        except GemtableError:
            pass
    return canonical(data)


def render_review(review: dict[str, Any], match: Match | dict[str, Any], lang: str = i18n.SOURCE) -> dict[str, Any]:
    """A stored review (:func:`review_json`) in ``lang``: the match is replayed to the
    positions of the swings to write their moves; a review stored with texts (by an older
    version) is shown as it is.  English gives what ``review(match)`` gives."""
    if isinstance(match, dict):
        match = Match.from_json(match)
    game = get_game(match.game_id)
    need = {s["move"] - 1 for s in review.get("swings", [])
            if ("played_action" in s or "best_action" in s) and isinstance(s.get("move"), int)}
    states: dict[int, State] = {}
    if need:
        last = max(need)
        try:
            for i, (state, _) in enumerate(match.states(game)):
                if i in need:
                    states[i] = state.clone()
                if i >= last:
                    break
        except GemtableError:  # the match stops replaying: the moves after it keep their JSON
            pass
    return _render(review, game, states, lang)


def review(match: Match, samples: int = SAMPLES, swings: int = SWINGS,
           progress: Callable[[int, int], None] | None = None,
           lang: str | None = i18n.SOURCE) -> dict[str, Any]:
    """The review of a finished match (``MatchFileError`` if it does not replay; a
    :class:`ReviewError`, a ``ValueError``, if it is not over: a running game is never
    reviewed), its texts in ``lang`` (``None``: language-neutral, see :func:`review_states`)."""
    game = match.start().game
    states: list[State] = []
    moves: list[tuple[int, Action]] = []
    for i, (state, _) in enumerate(match.states(game)):
        states.append(state.clone())
        if i < len(match.actions):
            p, data = match.actions[i]
            try:
                moves.append((p, game.action_from_json(data)))
            except IllegalAction as exc:
                raise MatchFileError(msg("action {number} ({action} by seat {seat}) does not replay: {error}",
                                         number=i + 1, action=repr(data), seat=p + 1, error=exc.message)) from None
    if not states[-1].is_over():
        raise ReviewError(msg("the game is not over: only a finished game can be reviewed"))
    out = review_states(states, moves, samples, swings, progress, lang)
    out["game"] = match.game_id
    return out


# -- a review in a worker process (the server's background queue) ------------------------------
def quiet_worker(niceness: int = 19, idle: bool = True) -> None:
    """Set an analysis process up to yield the CPU to the server (a ``ProcessPoolExecutor``
    initializer): with ``idle``, Linux's idle scheduling class where there is one (it runs
    only on CPU time nothing else wants), else the priority ``niceness``; one BLAS thread.
    The process ends when the server that started it is gone."""
    import os

    follow_parent()

    try:
        if not idle:
            raise OSError
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or not asked for
        try:
            os.nice(niceness)
        except (AttributeError, OSError):  # pragma: no cover - not on this platform
            pass
    learned.limit_blas_threads(1)


def review_json(match: dict[str, Any], samples: int = SAMPLES) -> dict[str, Any]:
    """:func:`review` of a match file's JSON, language-neutral (as the server stores it;
    :func:`render_review` gives it in a reader's language), with the CPU seconds it took
    (``seconds``)."""
    import time

    started = time.process_time()
    out = review(Match.from_json(match), samples=samples, lang=None)
    out["seconds"] = round(time.process_time() - started, 3)
    return out


def hints_json(game_id: str, state: dict[str, Any], seat: int, count: int = 3,
               lang: str = i18n.SOURCE) -> list[dict[str, Any]]:
    """:func:`hints` of a state's JSON (a determinization from ``seat``'s view is enough:
    the hints depend on nothing else); the moves' texts and reasons in ``lang``."""
    from gemtable.core import get_game

    return hints(get_game(game_id).from_json(state), seat, count, lang=lang)


def board_json(match: dict[str, Any], upto: int, line: Sequence[tuple[int, dict[str, Any]]],
               samples: int = HINT_SAMPLES, lang: str = i18n.SOURCE) -> dict[str, Any]:
    """The analysis board: the position after the first ``upto`` moves of a finished match,
    then the moves of ``line`` (seat, action JSON) tried instead; the seat to move's view
    and legal moves, every seat's chance from its own view, and the bot's three best moves.

    A :class:`ReviewError` (a ``ValueError``) names what does not fit (a move number, a seat
    not to move, the rule an illegal move breaks).  The prompt, the moves' texts and the
    reasons are in ``lang``."""
    from gemtable.core import get_game

    m = Match.from_json(match)
    game = get_game(m.game_id)
    if not 0 <= upto <= len(m.actions):
        raise ReviewError(msg("the game has moves 0 to {last}; there is no move {move}", last=len(m.actions),
                              move=upto))
    state = m.replay(upto, game)
    for k, (seat, data) in enumerate(line, 1):
        if state.is_over():
            raise ReviewError(msg("step {step} of the line: the game is over", step=k))
        if seat not in state.to_move():
            raise ReviewError(msg("step {step} of the line: seat {seat} is not to move", step=k, seat=seat + 1))
        try:
            action = game.action_from_json(data)
        except GemtableError as exc:
            raise ReviewError(msg("step {step} of the line: {error}", step=k, error=exc.message)) from None
        why = state.check(seat, action, lang)
        if why:
            raise ReviewError(msg("step {step} of the line: {error}", step=k, error=why))
        state.apply(seat, action)
    movers = state.to_move()
    mover = movers[0] if movers else None
    judge = Judge(state, samples)
    legal = state.legal_actions(mover) if mover is not None else []
    return {
        "move": upto, "line": len(line), "seat": mover, "to_move": list(movers), "over": state.is_over(),
        "view": state.view(mover), "prompt": state.prompt(mover, lang) if mover is not None else None,
        "legal": [{"id": a.id, "type": a.type, "json": a.to_json(), "text": state.action_text(mover, a, lang)}
                  for a in legal],
        "chances": [round(judge.chance(state, p), 4) for p in range(state.num_players)],
        "best": [c.to_json() for c in judge.rank(state, mover, explain=3, lang=lang)[:3]] if mover is not None else [],
        "result": state.result() if state.is_over() else None,
        "bot": judge.title(lang),
    }
