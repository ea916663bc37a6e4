"""The bot driver: bots move on the server, in seats that bots hold and in human seats a
stand-in plays for now (a feature says which, ``TableHooks.bot_plays``).

Only the worker driving a table (its lease, bus.py) moves its bots.  A bot is given the
mover's information only (``State.determinize``), thinks in a thread of a fair pool shared by
every table, and its move is submitted like anyone's, refused if the table changed meanwhile.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable

from gemtable.core import Rng

from .limits import clamp_bot, clamped_spec
from .table import LiveTable, Rejected

if TYPE_CHECKING:  # pragma: no cover
    from .tables import TableManager

log = logging.getLogger("gemtable.server")


class FairPool:
    """Runs bot thinking in worker threads, sharing them fairly between tables.

    Start-time fair queueing: each table (key) is charged the thread time its
    jobs used; a free worker takes the waiting table that has used the least
    (a table returning after a pause starts from the current virtual time,
    not from zero).  A table whose bot thinks for its full budget every move
    therefore waits behind the cheap moves of other tables, never the other
    way round: a cheap move waits at most for the one job already running.
    One job per table runs at a time, in the order the table submitted them.

    Threads, not processes: states and bots stay in this process (no pickling,
    bots keep their state between moves), and per-move budgets are capped
    (``Limits.bot_seconds``), so a job holds a worker for a bounded time.
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self.executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gemtable-bot")
        self.jobs: dict[str, collections.deque] = {}
        self.waiting: list[str] = []  # keys with a job ready to run, in arrival order
        self.running: set[str] = set()
        self.used: dict[str, float] = {}  # thread seconds charged to each key
        self.vtime = 0.0  # the charge of the last job started
        self.wakeup: asyncio.Event | None = None
        self.runners: list[asyncio.Task] = []

    def _start(self) -> None:
        if self.runners:
            return
        self.wakeup = asyncio.Event()
        loop = asyncio.get_running_loop()
        self.runners = [loop.create_task(self._run()) for _ in range(self.workers)]

    async def run(self, key: str, fn: Callable[[], Any]) -> Any:
        self._start()
        future = asyncio.get_running_loop().create_future()
        queue = self.jobs.setdefault(key, collections.deque())
        queue.append((fn, future))
        if key not in self.running and key not in self.waiting:
            self.used[key] = max(self.used.get(key, 0.0), self.vtime)
            self.waiting.append(key)
        self.wakeup.set()
        return await future

    def _next_key(self) -> str:
        best = min(range(len(self.waiting)), key=lambda i: (self.used[self.waiting[i]], i))
        return self.waiting.pop(best)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not self.waiting:
                self.wakeup.clear()
                await self.wakeup.wait()
            key = self._next_key()
            fn, future = self.jobs[key].popleft()
            self.running.add(key)  # one job of a table at a time
            self.vtime = max(self.vtime, self.used[key])
            started = time.perf_counter()
            try:
                if not future.cancelled():
                    try:
                        result = await loop.run_in_executor(self.executor, fn)
                    except Exception as exc:
                        if not future.done():
                            future.set_exception(exc)
                    else:
                        if not future.done():
                            future.set_result(result)
            finally:
                self.used[key] += time.perf_counter() - started
                self.running.discard(key)
                if self.jobs.get(key):
                    self.waiting.append(key)
                else:
                    self.jobs.pop(key, None)
                    if len(self.used) > 10_000:  # forget idle tables' charges
                        for k in [k for k in self.used if k not in self.jobs and k not in self.running]:
                            del self.used[k]

    async def close(self) -> None:
        for task in self.runners:
            task.cancel()
        for task in self.runners:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        self.executor.shutdown(wait=False, cancel_futures=True)


class BotDriver:
    """Moves the bots of the tables one worker drives."""

    def __init__(self, manager: TableManager, workers: int = 1) -> None:
        self.m = manager
        self.pool = FairPool(workers)

    def plays(self, table: LiveTable, seat: int) -> bool:
        """A bot plays this seat now: a bot's seat, or a human seat a stand-in plays (hooks)."""
        return table.seats[seat].kind == "bot" or self.m.hooks.bot_plays(table, seat)

    def may_move(self, table: LiveTable, seat: int, epoch: int) -> bool:
        """A bot's move chosen at ``epoch`` may still be played at ``seat``."""
        return epoch == self.m.hooks.bot_epoch(table) and self.plays(table, seat)

    def bots_to_move(self, table: LiveTable) -> list[int]:
        if table.waiting or table.final is not None:
            return []
        return [p for p in table.state.to_move() if self.plays(table, p)]

    def wake(self, table: LiveTable) -> None:
        # only the worker holding the table's lease moves its bots (bus.py)
        if self.m.closing or not self.m.bus.owns(table.id) or not self.bots_to_move(table):
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: resume_all wakes them at start-up
        table.bot_task = loop.create_task(self._run(table))

    async def _run(self, table: LiveTable) -> None:
        """Play the bots' moves until a person is to move; never give up on a database error."""
        failures = 0
        while not self.m.closing:
            if not self.bots_to_move(table) or self.m.tables.get(table.id) is not table \
                    or not self.m.bus.owns(table.id):
                return
            await asyncio.sleep(self.m.bot_delay if not failures else min(30.0, 0.5 * 2 ** (failures - 1)))
            try:
                done = await self._move(table)
            except Rejected as exc:  # the database is away: wait and try again
                failures += 1
                log.warning("bot move at table %s not stored (%s); retry %d", table.id, exc.code, failures)
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                log.exception("bot at table %s failed; retry %d", table.id, failures)
                continue
            failures = 0
            if done:
                return

    async def _move(self, table: LiveTable) -> bool:
        """One bot move.  True when there is nothing more to do; raises Rejected("storage")."""
        async with table.lock:
            movers = self.bots_to_move(table)
            if not movers:
                return True
            p = movers[0]
            version = table.version
            seed = (table.seed * 1_000_003 + version * 101 + p) & ((1 << 62) - 1)
            try:
                snapshot = table.state.determinize(p, Rng(seed))
            except Exception:  # a game without a working determinize: give a clone
                snapshot = table.state.clone()
            bot = self._bot(table, p, seed)
            epoch = self.m.hooks.bot_epoch(table)
        try:
            action = await self.pool.run(table.id, lambda: bot.choose(snapshot, p))
            data = action.to_json()
        except Exception:
            log.exception("bot of seat %s at table %s failed; playing a random move", p, table.id)
            acts = table.state.legal_actions(p)
            if not acts:
                return True
            data = acts[Rng(seed).below(len(acts))].to_json()
        try:
            await self.m.submit(table, p, data, version, bot_epoch=epoch)
        except Rejected as exc:
            if exc.code == "illegal":  # the bot chose something illegal: play a random legal move
                log.warning("bot at table %s seat %s chose an illegal move: %s", table.id, p, exc.message)
                acts = table.state.legal_actions(p)
                if acts:
                    await self.m.submit(table, p, acts[Rng(seed).below(len(acts))].to_json(), table.version,
                                      bot_epoch=epoch)
            elif exc.code == "storage":
                raise
            elif exc.code != "stale":
                return True
        return False

    @staticmethod
    def tell(table: LiveTable, index: int, seat: int, action: Any, movers: tuple[int, ...],
                   events: list[dict[str, Any]]) -> None:
        """Tell the table's bots (``Bot.observe``) about the ``index``-th action, just applied.

        Bots live across moves here, so a bot that keeps a search tree (``mcts:reuse=1``)
        follows the game.  Actions not told (an undo, a rebuilt copy) are first told as an
        unknown action, so such a bot drops its tree instead of following a stale one.
        """
        if table.bots:  # (imported here, and only for tables with bots: a server without bots never loads them)
            from gemtable.bots.base import tell_bots, wants_observations

            if wants_observations(table.bots):
                try:
                    if table.bots_told != index:
                        for bot in table.bots.values():
                            if bot.observes:
                                bot.observe(table.state, seat, None)
                    tell_bots(table.bots, table.state, seat, action, movers, events)
                except Exception:  # a bot's bookkeeping must never lose an accepted action
                    log.exception("bot observe failed at table %s", table.id)
        table.bots_told = index + 1

    def _bot(self, table: LiveTable, p: int, seed: int):
        from gemtable.bots import make_bot

        bot = table.bots.get(p)
        if bot is None:
            spec = table.seats[p].bot or (self.m.hooks.stand_in(table, p) if table.seats[p].kind != "bot" else None) or "easy"
            try:
                # a spec stored before the server's limits (or by hand) is brought within them
                bot = make_bot(clamped_spec(spec, self.m.limits), seed, game=table.game)
            except Exception:
                log.warning("unknown bot %r at table %s; using random", spec, table.id)
                bot = make_bot("random", seed)
            bot = clamp_bot(bot, self.m.limits)
            if getattr(bot, "stop", None) is False and "stop" not in bot.params:
                # a search ends once its move is settled: the move the whole budget would
                # choose, sooner and for less CPU (bots README, "Stopping once decided")
                bot.stop = True
            table.bots[p] = bot
        return table.bots[p]

    async def close(self) -> None:
        await self.pool.close()
