"""Playing many bot games, in parallel, reproducibly.

A game is fully described by a :class:`GameSpec` (game, seats' bot specs, seed,
options), so any worker anywhere plays it identically: the results of a run do not
depend on the number of processes or on the backend (local process pool or Ray).
Rows come back in spec order whatever order the workers finish in.

A long run (a ladder at one second per move takes hours) may keep a *journal*: every game
is appended to a JSON-lines file as it ends, and the same run started again with the same
journal plays only the games the file does not hold yet, so a killed run loses at most the
games that were being played.
"""

from __future__ import annotations

import importlib
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemtable.bots import make_bot
from gemtable.bots.base import tell_bots, wants_observations
from gemtable.core import Game, Rng, i18n
from gemtable.core.i18n import msg, msgn
from gemtable.core.workers import follow_parent

_MASK = (1 << 64) - 1
BACKENDS = ("local", "ray")


def derive_seed(base: int, *keys: int) -> int:
    """A 63-bit seed derived deterministically from ``base`` and integer keys."""
    value = int(base) & _MASK
    for key in keys:
        value = Rng(value ^ ((int(key) * 0x9E3779B97F4A7C15) & _MASK)).next64()
    return value >> 1


def resolve_game(ref: str) -> Game:
    """A registered game id, or ``package.module:ATTRIBUTE`` naming a Game object."""
    if ":" in ref:
        module, _, attr = ref.partition(":")
        game = getattr(importlib.import_module(module), attr)
        if not isinstance(game, Game):
            raise ValueError(f"{ref} is not a gemtable Game")
        return game
    from gemtable.core.registry import get_game

    return get_game(ref)


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game exactly."""

    index: int
    game: str
    bots: tuple[str, ...]  # bot spec per seat
    seed: int
    options: tuple[tuple[str, Any], ...] = ()
    labels: tuple[str, ...] = ()  # entrant label per seat (tournaments); defaults to the spec
    extra: tuple[tuple[str, Any], ...] = ()  # copied into the row (pairing, rotation…)
    max_steps: int | None = None  # default: game.extra['max_steps'] or 20 000 decisions


@dataclass
class RunResult:
    rows: list[dict[str, Any]]
    seconds: float
    backend: str
    jobs: int
    timing: dict[str, list[float]] = field(default_factory=dict)  # label -> [seconds, moves]
    resumed: int = 0  # games a journal held before this run (``seconds`` is this run's time only)

    def took(self, lang: str = i18n.SOURCE) -> str:
        """``12 games in 3.1 s``, or with a journal ``12 games (5 from the journal; 7 played in 3.1 s)``,
        in ``lang``."""
        seconds = f"{self.seconds:.1f}"
        if self.resumed:
            return i18n.render(msg("{n} games ({resumed} from the journal; {played} played in {seconds} s)",
                                   n=len(self.rows), resumed=self.resumed, played=len(self.rows) - self.resumed,
                                   seconds=seconds), lang)
        # (the English says "games" for one too, as it always has; other languages may not)
        return i18n.render(msgn("{n} games in {seconds} s", "{n} games in {seconds} s", n=len(self.rows),
                                seconds=seconds), lang)

    def fields(self) -> dict[str, Any]:
        """What a summary records of the run: its wall time, and the games it found played."""
        return {"seconds": self.seconds, **({"resumed_games": self.resumed} if self.resumed else {})}


def play_game(spec: GameSpec) -> dict[str, Any]:
    """Play one game; a flat row (JSON/CSV friendly).  Keys starting with ``_`` are timing."""
    game = resolve_game(spec.game)
    n = len(spec.bots)
    state = game.new(n, spec.seed, **dict(spec.options))
    bots = [make_bot(b, seed=derive_seed(spec.seed, 1 + s), game=game) for s, b in enumerate(spec.bots)]
    # bots that keep something between moves are told every action (Bot.observe); the
    # others cost nothing extra and play exactly as before
    observed = wants_observations(bots)
    think = [0.0] * n
    moves = [0] * n
    decisions = 0
    limit = spec.max_steps or int(game.extra.get("max_steps", 20_000))
    finished = True
    while not state.is_over():
        if decisions >= limit:
            # a stalled game (bots that never make progress): stop and rank the
            # seats as they stand; the row says so and summaries count these
            finished = False
            break
        movers = state.to_move()
        p = movers[0]
        start = time.perf_counter()
        action = bots[p].choose(state, p)
        think[p] += time.perf_counter() - start
        moves[p] += 1
        reason = state.check(p, action)
        if reason is not None:
            raise RuntimeError(f"bot {spec.bots[p]!r} chose an illegal action: {reason}")
        if observed:  # the events say which seats may see the action
            tell_bots(bots, state, p, action, movers, state.apply(p, action))
        else:
            state.step(p, action)
        decisions += 1
    scores = state.scores()
    ranking = state.ranking()
    returns = state.returns()
    labels = spec.labels or spec.bots
    row: dict[str, Any] = {
        "index": spec.index,
        "game": game.id,
        "players": n,
        "seed": spec.seed,
        "options": json.dumps(dict(spec.options), sort_keys=True),
    }
    row.update(dict(spec.extra))
    for s in range(n):
        row[f"bot_{s}"] = labels[s]
    for s in range(n):
        row[f"score_{s}"] = scores[s]
    for s in range(n):
        row[f"rank_{s}"] = ranking[s]
    for s in range(n):
        row[f"win_{s}"] = round(returns[s], 6)
    row["winners"] = " ".join(str(s) for s in range(n) if ranking[s] == 1)
    row["turns"] = state.turn
    row["decisions"] = decisions
    row["finished"] = finished
    row["_think"] = think
    row["_moves"] = moves
    return row


def _play_batch(specs: Sequence[GameSpec]) -> list[dict[str, Any]]:
    return [play_game(s) for s in specs]


def _batches(specs: list[GameSpec], jobs: int, batch: int | None) -> list[list[GameSpec]]:
    if batch is None:
        batch = max(1, min(10, len(specs) // max(1, jobs * 20)))
    return [specs[i:i + batch] for i in range(0, len(specs), batch)]


def run_games(
    specs: Iterable[GameSpec],
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int | None = None,
    journal: str | Path | None = None,
) -> RunResult:
    """Play every spec; rows in spec order.

    ``backend="local"``: a process pool of ``jobs`` workers (default: every core;
    ``jobs=1`` plays in this process).  ``backend="ray"``: Ray tasks, on the cluster
    at ``address`` (or the instance already initialised, or a new local one).
    ``progress(k)`` is called as k more games finish (at the start, with the games a
    journal already holds).  ``journal``: a JSON-lines file each finished game is appended
    to; the games it holds (from an earlier, interrupted run of the same specs) are not
    played again (:func:`read_journal` says why a file does not fit).
    """
    specs = list(specs)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if journal is not None:
        rows = read_journal(journal, specs)
        held = {r["index"] for r in rows}
        specs = [s for s in specs if s.index not in held]
        if rows and progress:
            progress(len(rows))
    resumed = len(rows)
    # play in a fixed shuffled order so that slow and fast pairings mix and the
    # progress bar's ETA is meaningful; rows are put back in spec order below
    order = list(specs)
    Rng(len(order)).shuffle(order)
    batches = _batches(order, jobs, batch)

    def finished(out: list[dict[str, Any]]) -> None:
        if journal is not None:
            _append(Path(journal), out)
        rows.extend(out)
        if progress:
            progress(len(out))

    if backend == "ray":
        _run_ray(batches, address, finished)
    elif jobs == 1 or len(batches) <= 1:
        for b in batches:
            finished(_play_batch(b))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(batches)), initializer=follow_parent) as pool:
            pending = {pool.submit(_play_batch, b) for b in batches}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    finished(fut.result())
    rows.sort(key=lambda r: r["index"])
    return RunResult(rows, time.perf_counter() - start, backend, jobs, timing_of(rows), resumed)


def timing_of(rows: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Each bot's [thinking seconds, moves] summed over the rows' seats (the ``_think`` and
    ``_moves`` the runner records; a row or seat without them, as in a file read back, is
    skipped)."""
    timing: dict[str, list[float]] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        n, think, moves = row.get("players"), row.get("_think"), row.get("_moves")
        if type(n) is not int or not isinstance(think, list) or not isinstance(moves, list):
            continue
        for s, (sec, count) in enumerate(zip(think[:n], moves[:n])):
            if isinstance(sec, (int, float)) and isinstance(count, int):
                t = timing.setdefault(str(row.get(f"bot_{s}")), [0.0, 0])
                t[0] += sec
                t[1] += count
    return timing


def _run_ray(batches, address, finished) -> None:
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the install
        raise RuntimeError('the Ray backend needs Ray: pip install "gemtable[ray]"') from None
    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init()
    remote = ray.remote(_play_batch)
    pending = [remote.remote(b) for b in batches]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            finished(ray.get(ref))


# -- journals ------------------------------------------------------------------------------
def _append(path: Path, rows: list[dict[str, Any]]) -> None:
    """Finished games appended to a journal, flushed to disk before the run goes on."""
    with path.open("a", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _same_game(row: dict[str, Any], spec: GameSpec) -> str | None:
    """Why a journal row is not the result of ``spec`` (None when it is)."""
    labels = list(spec.labels or spec.bots)
    seats = [row.get(f"bot_{s}") for s in range(len(labels))]
    if row.get("players") != len(labels) or seats != labels:
        return f"its seats were {seats}, this run's are {labels}"
    if row.get("seed") != spec.seed:
        return "it was dealt from another seed"
    if row.get("options") != json.dumps(dict(spec.options), sort_keys=True):
        return f"it was played with the options {row.get('options')}"
    if row.get("game") != resolve_game(spec.game).id:
        return f"it was a game of {row.get('game')}"
    if not is_game_row(row) or any(not isinstance(row.get(k), list) or len(row[k]) != len(labels)
                                   for k in ("_think", "_moves")):
        return "its row is incomplete (results or timing missing)"
    return None


def is_game_row(row: Any) -> bool:
    """A finished game's row as the runner writes it (the keys the summaries read)."""
    if not isinstance(row, dict):
        return False
    n = row.get("players")
    if type(n) is not int or not 1 <= n <= 16 or not isinstance(row.get("game"), str):
        return False
    number = (int, float)
    for s in range(n):
        if not isinstance(row.get(f"bot_{s}"), str) or type(row.get(f"rank_{s}")) is not int:
            return False
        if not all(isinstance(row.get(f"{k}_{s}"), number) and not isinstance(row.get(f"{k}_{s}"), bool)
                   for k in ("win", "score")):
            return False
    return all(isinstance(row.get(k), number) and not isinstance(row.get(k), bool) for k in ("turns", "decisions"))


def read_journal(path: str | Path, specs: Sequence[GameSpec]) -> list[dict[str, Any]]:
    """The finished games a journal holds for these specs (none if the file does not exist).

    A last line cut short (the run was killed while writing it) is dropped from the file.
    Raises ValueError, naming the game, when the file holds a game these specs do not
    describe (another command, seed, bot or option wrote it), so runs are never mixed.
    """
    path = Path(path)
    if not path.exists():
        return []
    raw = path.read_bytes()
    cut = raw.rfind(b"\n") + 1
    if cut < len(raw):  # an interrupted write: keep the complete lines only
        with path.open("r+b") as f:
            f.truncate(cut)
        raw = raw[:cut]
    by_index = {s.index: s for s in specs}
    rows: dict[int, dict[str, Any]] = {}
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise ValueError(f"{path}, line {number}: not a finished game (not JSON)") from None
        if not isinstance(row, dict) or not isinstance(row.get("index"), int):
            raise ValueError(f"{path}, line {number}: not a finished game (no game index)")
        spec = by_index.get(row["index"])
        if spec is None:
            raise ValueError(f"{path} holds game {row['index']}, which this run does not play "
                             f"(it has {len(specs)} games): use another journal file")
        why = _same_game(row, spec)
        if why is not None:
            raise ValueError(f"{path} holds another run's game {row['index']}: {why}; use another journal file")
        rows[row["index"]] = row
    return list(rows.values())


def public_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows without the timing keys (identical whatever the backend or job count)."""
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
