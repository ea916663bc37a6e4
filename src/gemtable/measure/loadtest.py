"""`gemtable loadtest`: many tables of scripted players over WebSocket, for a fixed time.

The driver is one asyncio event loop (uvloop when installed) holding one
WebSocket per seat.  Tables are set up through the same HTTP API the web
client uses: each seat is a guest player (``POST /api/me``, the ``gt_player``
cookie), seat 0 creates the table with a ``"me"`` seat and open seats
(``POST /api/tables``), the others take them (``POST /api/tables/{id}/join``),
which starts the game.  Every seat then opens the table's WebSocket with its
token and plays: when it is to move it waits ``think`` seconds (× a random
0.5–1.5), picks a seeded random legal action from the state it received and
sends it.  A finished game is followed by a rematch (``POST …/rematch`` by
every seat's player: a proposal, then its acceptances), so tables keep playing until the time is up.

With ``spectators`` (K > 0) a third phase follows the measured one: K spectator sockets per
table (no seat token, spread over the table's workers) join every table, and once they are all
connected the same play is measured again for ``seconds`` with them watching.  Its row adds
``spectator`` (send → each spectator's socket receives the new ``state``) and the server CPU
one spectator costs per move, ``server_cpu_ms_per_spectator``: the CPU per move of that phase
less the measured phase's, over K.

Measured per phase (warm-up, then the measured phase; the warm-up is left
out of the headline figures), for every action sent:

* ``own``: send → the acting seat's WebSocket receives a newer ``state``;
* ``other``: send → each other seat's WebSocket receives a newer ``state``;

as p50/p95/p99/max, actions sent and acknowledged per second, errors
(``error`` messages by code, disconnects, updates not seen within
``TIMEOUT`` seconds), the server's CPU (sum over the worker processes and
their children, from /proc/<pid>/stat; 100 % = one core) and RSS, the
temporary PostgreSQL cluster's CPU, and the driver's own CPU and event-loop
lag (when the driver is near one core or lags, the latencies include the
driver's delays and the report says so).  Once every seat is connected the
driver's garbage collector is set up as a server's (``server_gc``), so its
own collections do not stall the loop it measures with.

Unless ``urls`` are given it starts its own servers: ``workers`` independent
``gemtable serve`` processes on free ports of 127.0.0.1 sharing one database
(a fresh temporary SQLite file, a throw-away PostgreSQL cluster for
``postgres-temp``, or a URL).  All clients come from 127.0.0.1, so these
private servers run with the per-address rate limits (new guests, new
tables, refused tokens) lifted; the per-connection message limit stays.
Seats are spread round-robin: seat ``i`` of table ``t`` talks to worker
``(t + i) % workers``, so with two or more workers the seats of a table sit
on different workers (``placement="split"``, the worst case); with
``placement="random"`` each seat's worker is drawn at random (seeded), as
behind a load balancer without sticky sessions; with ``placement="table"``
every request that names a table (joining it, its WebSocket) goes to the
worker its id hashes to, as behind a load balancer that hashes the request's
path (docs/deploy.md), while the requests that name none (a guest, a new
table) go round-robin, so about half the tables are created at a worker that
does not play them.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import http.client
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from gemtable.core import OptionError, i18n
from gemtable.core.i18n import mark, msg
from gemtable.server.app import server_gc
from gemtable.server.limits import Limits

from . import profile as profiler
from .common import free_port, percentile, stop_process

TIMEOUT = 10.0  # seconds an update may take before it counts as a timeout
MAX_SECONDS = 600.0
MAX_TABLES = 2000
MAX_WORKERS = 16
MAX_SPECTATORS = 50  # per table
DRAIN = 5.0  # seconds to wait for the last updates after the measured phase
CONNECT_CONCURRENCY = 64
SETUP_CONCURRENCY = 16


@dataclass
class LoadLimits(Limits):
    """The private servers' limits: per-address rates out of the way (every client is 127.0.0.1)."""

    create_rate: float = 1e6
    create_burst: int = 10**6
    player_rate: float = 1e6
    player_burst: int = 10**6
    auth_fail_rate: float = 1e6
    auth_fail_burst: int = 10**6


@dataclass
class LoadLimitsFast(LoadLimits):
    """... and the per-connection message limit too (think times under 0.3 s)."""

    ws_rate: float = 1e6
    ws_burst: int = 10**6


# -- processes: CPU and memory from /proc -------------------------------------------------
_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the 3rd (state) on


def _descendants(roots: list[int]) -> list[int]:
    children: dict[int, list[int]] = collections.defaultdict(list)
    for name in os.listdir("/proc"):
        if name.isdigit():
            f = _stat_fields(int(name))
            if f is not None:
                children[int(f[1])].append(int(name))
    out, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def proc_sample(roots: list[int]) -> tuple[float, float]:
    """(CPU seconds used so far, resident MB now) of ``roots`` and all their descendants."""
    cpu, rss, _ = proc_times(roots)
    return cpu, rss


def proc_times(roots: list[int]) -> tuple[float, float, float]:
    """(CPU seconds used so far, resident MB now, of the CPU seconds those in the kernel) of
    ``roots`` and all their descendants."""
    cpu = rss = system = 0.0
    for pid in _descendants(roots):
        f = _stat_fields(pid)
        if f is None:
            continue
        cpu += (int(f[11]) + int(f[12])) / _TICK  # utime + stime
        system += int(f[12]) / _TICK
        try:
            with open(f"/proc/{pid}/statm") as fh:
                rss += int(fh.read().split()[1]) * _PAGE / 2**20
        except OSError:
            pass
    return cpu, rss, system


def pressure() -> dict[str, float] | None:
    """The kernel's pressure-stall totals (Linux PSI, microseconds since boot): how long some task
    waited for a CPU (``cpu_some``) and how long every task waited on I/O at once (``io_full``);
    and the CPU time a hypervisor gave to others (``steal``, microseconds summed over the cores,
    from /proc/stat; 0 on a machine that is not virtual).  None where /proc/pressure is not
    available."""
    out: dict[str, float] = {}
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        out["steal"] = int(fields[8]) * 1e6 / os.sysconf("SC_CLK_TCK") if fields[0] == "cpu" else 0.0
    except (OSError, ValueError, IndexError):
        out["steal"] = 0.0
    for res, kind in (("cpu", "some"), ("io", "full")):
        try:
            with open(f"/proc/pressure/{res}") as f:
                for line in f:
                    if line.startswith(kind + " "):
                        out[f"{res}_{kind}"] = float(line.rsplit("total=", 1)[1])
        except (OSError, ValueError, IndexError):
            return None
    return out if len(out) == 3 else None


def _self_cpu() -> float:
    t = os.times()
    return t.user + t.system


# -- a throw-away PostgreSQL cluster ----------------------------------------------------
def _pg_bin() -> Path | None:
    base = Path("/usr/lib/postgresql")
    if base.is_dir():
        for ver in sorted(base.iterdir(), key=lambda p: p.name, reverse=True):
            if (ver / "bin" / "initdb").exists():
                return ver / "bin"
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class TempPostgres:
    """initdb + pg_ctl in a temporary folder (as user postgres under root), on a free port."""

    def __init__(self) -> None:
        self.bin = _pg_bin()
        if self.bin is None:
            raise RuntimeError("postgres-temp needs the PostgreSQL server binaries (initdb, pg_ctl)")
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user and shutil.which("runuser") is None:
            raise RuntimeError("postgres-temp under root needs runuser (to run PostgreSQL as user postgres)")
        self.folder = tempfile.mkdtemp(prefix="gt-loadtest-pg-")
        os.chmod(self.folder, 0o777)
        self.data = os.path.join(self.folder, "data")
        self.port = free_port()
        self.url = f"postgresql://gt@127.0.0.1:{self.port}/postgres"

    def _run(self, *cmd: Any) -> None:
        full = (["runuser", "-u", self.user, "--"] if self.user else []) + [str(c) for c in cmd]
        subprocess.run(full, check=True, capture_output=True, text=True, timeout=120)

    def __enter__(self) -> TempPostgres:
        try:
            self._run(self.bin / "initdb", "-D", self.data, "-A", "trust", "-U", "gt")
            self._run(self.bin / "pg_ctl", "-D", self.data, "-l", os.path.join(self.folder, "log"), "-w", "-o",
                      f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=300",
                      "start")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise RuntimeError(f"could not start a PostgreSQL cluster: {getattr(exc, 'stderr', exc)}") from None
        return self

    def pid(self) -> int | None:
        try:
            return int(Path(self.data, "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def __exit__(self, *exc: object) -> None:
        try:
            self._run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


# -- private `gemtable serve` workers ---------------------------------------------------
# The worker runs the real `gemtable serve` command; with relaxed limits, the Limits class
# it builds its limits from is swapped for LoadLimits first.
_BOOT = (
    "import sys\n"
    "relax = sys.argv.pop(1)\n"
    "if relax != 'strict':\n"
    "    import gemtable.server.limits as L, gemtable.measure.loadtest as T\n"
    "    L.Limits = T.LoadLimitsFast if relax == 'fast' else T.LoadLimits\n"
    "from gemtable.cli.main import app\n"
    "app(sys.argv[1:], prog_name='gemtable')\n"
)


class Worker:
    def __init__(self, db_url: str, folder: str, index: int, relax: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(folder, f"worker{index}.log")
        self.cmd = [sys.executable, "-c", _BOOT, relax, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                    "--db", db_url, "--bot-delay", "0", "--log-level", "warning"]
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker on port {self.port} exited ({self.proc.returncode}): {self.log_tail()}")
            try:
                status, _, _ = _http(self.url, "GET", "/api/me", timeout=2.0)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"worker on port {self.port} did not answer within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self, n: int = 1500) -> str:
        try:
            return Path(self.log_path).read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)
        if getattr(self, "_log", None):
            self._log.close()


# -- HTTP (setup only: guests, tables, joins, rematches) -----------------------------------
def _http(base: str, method: str, path: str, body: Any = None, cookie: str | None = None,
          timeout: float = 30.0) -> tuple[int, Any, dict[str, str]]:
    """(status, JSON body, headers) of one request; a new connection each time."""
    u = urllib.parse.urlsplit(base)
    conn_cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(u.hostname, u.port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    try:
        conn.request(method, u.path.rstrip("/") + path, body=None if body is None else json.dumps(body),
                     headers=headers)
        res = conn.getresponse()
        raw = res.read()
        try:
            data = json.loads(raw or b"null")
        except ValueError:
            data = None
        return res.status, data, {k.lower(): v for k, v in res.getheaders()}
    finally:
        conn.close()


def _ws_base(base: str) -> str:
    u = urllib.parse.urlsplit(base)
    return ("wss" if u.scheme == "https" else "ws") + "://" + u.netloc + u.path.rstrip("/")


class SetupError(RuntimeError):
    pass


# -- statistics ---------------------------------------------------------------------------
def _dist(values: list[float]) -> dict[str, Any]:
    ms = lambda v: round(v * 1000, 1)
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}
    return {"n": len(values), "p50": ms(percentile(values, 0.5)), "p95": ms(percentile(values, 0.95)),
            "p99": ms(percentile(values, 0.99)), "max": ms(max(values))}


@dataclass
class PhaseStats:
    name: str
    sent: int = 0
    acked: int = 0
    own: list[float] = field(default_factory=list)
    other: list[float] = field(default_factory=list)
    rejected: collections.Counter = field(default_factory=collections.Counter)
    disconnects: collections.Counter = field(default_factory=collections.Counter)
    timeouts: int = 0
    games_finished: int = 0
    watch: list[float] = field(default_factory=list)  # send -> a spectator's socket has the new state
    watch_updates: int = 0  # state messages the spectators received

    def errors(self) -> int:
        return sum(self.rejected.values()) + sum(self.disconnects.values()) + self.timeouts


@dataclass
class Pending:
    sent: float
    version: int
    actor: int
    need: set[int]
    phase: PhaseStats


# -- the scripted players -----------------------------------------------------------------
# where a table's seats connect when there are several workers: "split" (seat i of table t at
# worker (t + i) % W: a table's seats on different workers, every move handled by both: the
# worst case) or "random" (each seat at a worker drawn at random, seeded: a load balancer
# without stickiness; with two workers half the two-seat tables have both seats on one) or
# "table" (a table's requests at the worker its id hashes to, as a balancer hashing the path)
PLACEMENTS = ("split", "random", "table")


def table_worker(table_id: str, workers: int) -> int:
    """The worker a balancer hashing ``/…/tables/{table_id}…`` paths sends the table to."""
    return zlib.crc32(table_id.encode()) % workers


class Seat:
    def __init__(self, table: Table, index: int, base: str) -> None:
        self.table, self.index, self.base = table, index, base
        self.cookie: str | None = None
        self.token: str | None = None
        self.ws = None
        self.latest: dict[str, Any] | None = None
        self.move_task: asyncio.Task | None = None
        self.rng = random.Random(table.driver.seed * 7919 + table.index * 31 + index)


class Table:
    def __init__(self, driver: Driver, index: int) -> None:
        self.driver, self.index = driver, index
        n = len(driver.bases)
        if driver.placement == "random":  # as a load balancer without stickiness would, seeded
            pick = random.Random(driver.seed * 104729 + index)
            where = [pick.randrange(n) for _ in range(driver.players)]
        elif driver.placement == "table":  # until the id is known: round-robin (set_up moves them)
            where = [index % n] * driver.players
        else:  # "split": seat i at worker (index + i) % n, a table's seats on different workers
            where = [(index + i) % n for i in range(driver.players)]
        self.seats = [Seat(self, i, driver.bases[w]) for i, w in enumerate(where)]
        self.id: str | None = None
        self.pending: list[Pending] = []
        self.over = asyncio.Event()
        self.sent: collections.Counter = collections.Counter()  # actions sent, by phase name
        # the version each recent action leads to -> when it was sent and in which phase (what a
        # spectator's state message is matched with)
        self.sent_at: dict[int, tuple[float, PhaseStats]] = {}


class Driver:
    def __init__(self, bases: list[str], tables: int, seconds: float, warmup: float, think: float, game: str,
                 players: int, seed: int, compression: bool, placement: str = "split", spectators: int = 0) -> None:
        self.bases, self.seconds, self.warmup, self.think = bases, seconds, warmup, think
        self.game, self.players, self.seed, self.compression = game, players, seed, compression
        self.placement = placement
        self.spectators = spectators  # per table, in the phase after the measured one
        self.watching = 0  # spectator sockets open
        self.run_id = f"{random.Random(seed ^ int(time.time())).randrange(16**4):04x}"
        self.tables = [Table(self, t) for t in range(tables)]
        self.setup = PhaseStats("setup")
        self.phases = [PhaseStats("warmup"), PhaseStats("measured")] + ([PhaseStats("watched")] if spectators else [])
        self.joining = PhaseStats("joining")  # between the measured phase and the watched one
        self.http_times: list[float] = []
        self.http_errors: collections.Counter = collections.Counter()
        self.rate_limited = 0
        self.go = asyncio.Event()
        # warm-up start, measured start, measured end; the watched phase's start and end
        self.t0 = self.t1 = self.t2 = self.t3 = self.t4 = float("inf")
        self.stopping = False
        self.lag: dict[str, list[float]] = {p.name: [] for p in self.phases}
        self.pool = ThreadPoolExecutor(max_workers=SETUP_CONCURRENCY, thread_name_prefix="loadtest-http")

    # -- phases
    def phase_at(self, t: float) -> PhaseStats:
        if t < self.t0:
            return self.setup
        if t < self.t1:
            return self.phases[0]
        if t < self.t2 or not self.spectators:
            return self.phases[1]
        return self.phases[2] if self.t3 <= t < self.t4 else self.joining

    @property
    def t_end(self) -> float:
        """When the players stop moving: the end of the last phase."""
        return self.t4 if self.spectators else self.t2

    # -- HTTP with retries on 429 (an existing server keeps its limits)
    async def http(self, base: str, method: str, path: str, body: Any = None, cookie: str | None = None):
        loop = asyncio.get_running_loop()
        for _ in range(60):
            start = time.perf_counter()
            try:
                status, data, headers = await loop.run_in_executor(
                    self.pool, lambda: _http(base, method, path, body, cookie))
            except OSError as exc:
                self.http_errors[type(exc).__name__] += 1
                raise SetupError(f"{method} {path}: {exc}") from None
            self.http_times.append(time.perf_counter() - start)
            if status == 429:
                self.rate_limited += 1
                await asyncio.sleep(min(10.0, float(headers.get("retry-after") or 1)))
                continue
            if status >= 400:
                self.http_errors[f"{status} {(data or {}).get('error') if isinstance(data, dict) else ''}"] += 1
                raise SetupError(f"{method} {path}: {status} {data}")
            return data, headers
        raise SetupError(f"{method} {path}: still rate limited")

    async def guest(self, seat: Seat) -> None:
        name = f"lt{self.run_id}-{seat.table.index}-{seat.index}"
        _, headers = await self.http(seat.base, "POST", "/api/me", {"name": name})
        cookie = headers.get("set-cookie", "").split(";", 1)[0]
        if not cookie.startswith("gt_player="):
            raise SetupError("POST /api/me set no gt_player cookie")
        seat.cookie = cookie

    async def set_up(self, table: Table) -> None:
        for seat in table.seats:
            await self.guest(seat)
        host = table.seats[0]
        body = {"game": self.game, "players": self.players, "private": True,
                "seats": [{"kind": "me"}] + [{"kind": "open"}] * (self.players - 1)}
        res, _ = await self.http(host.base, "POST", "/api/tables", body, host.cookie)
        table.id = res["table"]["id"]
        host.token = res["seats"][0]["token"]
        self.route_by_table(table)  # from now on every request names the table
        for seat in table.seats[1:]:
            res, _ = await self.http(seat.base, "POST", f"/api/tables/{table.id}/join", {"seat": seat.index},
                                     seat.cookie)
            seat.token = res["token"]

    async def rematch(self, table: Table) -> None:
        old = table.id
        for seat in table.seats:  # the first seat's player proposes it, the others accept
            await self.http(seat.base, "POST", f"/api/tables/{old}/rematch", None, seat.cookie)
        for seat in table.seats:  # made: every seat's player is given its seat there (the same new table)
            res, _ = await self.http(seat.base, "POST", f"/api/tables/{old}/rematch", None, seat.cookie)
            table.id, seat.token = res["table"], res["token"]
        self.route_by_table(table)  # the new table's WebSockets go where its id hashes to

    def route_by_table(self, table: Table) -> None:
        """``placement="table"``: every seat's requests at the worker ``table.id`` hashes to."""
        if self.placement == "table":
            for seat in table.seats:
                seat.base = self.bases[table_worker(table.id, len(self.bases))]

    # -- WebSockets
    async def connect(self, seat: Seat, sem: asyncio.Semaphore) -> bool:
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol

        async with sem:
            try:
                seat.ws = await connect(
                    f"{_ws_base(seat.base)}/ws/tables/{seat.table.id}",
                    subprotocols=[Subprotocol("gemtable"), Subprotocol(f"token.{seat.token}")],
                    compression="deflate" if self.compression else None,
                    open_timeout=60, ping_interval=None, close_timeout=2, max_size=2**24,
                )
                return True
            except Exception as exc:  # refused, timed out, handshake failed
                self.phase_at(time.perf_counter()).disconnects[f"connect failed: {type(exc).__name__}"] += 1
                seat.ws = None
                return False

    def on_message(self, seat: Seat, raw: str | bytes, now: float) -> None:
        frame = orjson.loads(raw)
        kind = frame.get("type")
        table = seat.table
        if kind == "state":
            version = frame["version"]
            for p in list(table.pending):
                if version > p.version and seat.index in p.need:
                    p.need.discard(seat.index)
                    if seat.index == p.actor:
                        p.phase.own.append(now - p.sent)
                        p.phase.acked += 1
                    else:
                        p.phase.other.append(now - p.sent)
                    if not p.need:
                        table.pending.remove(p)
            seat.latest = frame
            if frame.get("over"):
                if not table.over.is_set():
                    self.phase_at(now).games_finished += 1
                table.over.set()
            elif frame.get("legal") and (seat.move_task is None or seat.move_task.done()):
                seat.move_task = asyncio.get_running_loop().create_task(self.move(seat))
        elif kind == "error":
            self.phase_at(now).rejected[str(frame.get("code"))] += 1
            # the action this seat sent was refused: it has no update to wait for
            table.pending[:] = [p for p in table.pending if p.actor != seat.index]
            if frame.get("code") != "stale":  # a stale action is followed by a fresh state; else ask
                asyncio.get_running_loop().create_task(self.send(seat, {"type": "refresh"}))

    async def send(self, seat: Seat, frame: dict[str, Any]) -> None:
        try:
            await seat.ws.send(json.dumps(frame, separators=(",", ":")))
        except Exception:
            pass  # the reader sees the closed connection

    async def move(self, seat: Seat) -> None:
        await self.go.wait()
        if self.think > 0:
            await asyncio.sleep(self.think * (0.5 + seat.rng.random()))
        else:
            await asyncio.sleep(0)
        frame = seat.latest
        now = time.perf_counter()
        if self.stopping or now >= self.t_end or frame is None or not frame.get("legal") or frame.get("over"):
            return
        choice = seat.rng.choice(frame["legal"])["json"]
        table = seat.table
        phase = self.phase_at(now)
        table.pending.append(Pending(now, frame["version"], seat.index, set(range(len(table.seats))), phase))
        if self.spectators:
            table.sent_at[frame["version"] + 1] = (now, phase)
            if len(table.sent_at) > 16:
                del table.sent_at[min(table.sent_at)]
        phase.sent += 1
        table.sent[phase.name] += 1
        await self.send(seat, {"type": "action", "version": frame["version"], "action": choice})

    async def read(self, seat: Seat) -> None:
        """Read one seat's socket until it closes; a close we did not ask for counts as a disconnect."""
        from websockets.exceptions import ConnectionClosed

        ws = seat.ws
        code = None
        try:
            async for raw in ws:
                self.on_message(seat, raw, time.perf_counter())
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
        except Exception as exc:
            code = type(exc).__name__
        if not self.stopping and not seat.table.over.is_set():
            if code is None and ws.close_code is not None:
                code = ws.close_code
            self.phase_at(time.perf_counter()).disconnects[f"closed {code}"] += 1

    async def play_table(self, table: Table, sem: asyncio.Semaphore) -> None:
        """Connect every seat, play until the game is over or the time is up; rematch; repeat."""
        while not self.stopping:
            table.over.clear()
            table.pending.clear()
            table.sent_at.clear()
            if not all(await asyncio.gather(*(self.connect(s, sem) for s in table.seats))):
                await asyncio.sleep(1.0)
                for s in table.seats:
                    if s.ws is not None:
                        await s.ws.close()
                continue
            readers = [asyncio.ensure_future(self.read(s)) for s in table.seats]
            waiter = asyncio.ensure_future(table.over.wait())
            # a seat whose connection drops reconnects after a second (as the browser does)
            while not self.stopping and not table.over.is_set():
                done, _ = await asyncio.wait([waiter, *readers], return_when=asyncio.FIRST_COMPLETED)
                for i, r in enumerate(readers):
                    if r in done and not self.stopping and not table.over.is_set():
                        await asyncio.sleep(1.0)
                        seat = table.seats[i]
                        if await self.connect(seat, sem):
                            readers[i] = asyncio.ensure_future(self.read(seat))
                        else:
                            readers[i] = asyncio.ensure_future(asyncio.sleep(0))
            waiter.cancel()
            end = time.perf_counter() + 2.0  # the final state reaching every seat
            while table.pending and time.perf_counter() < end and not self.stopping:
                await asyncio.sleep(0.05)
            for s in table.seats:
                if s.move_task is not None:
                    s.move_task.cancel()
                if s.ws is not None:
                    await s.ws.close()
            await asyncio.gather(*readers, return_exceptions=True)
            if self.stopping:
                return
            await asyncio.sleep(0.5)
            try:
                await self.rematch(table)
            except SetupError as exc:
                self.phase_at(time.perf_counter()).rejected[f"rematch: {str(exc)[:60]}"] += 1
                return

    # -- spectators
    async def watch_table(self, table: Table, sem: asyncio.Semaphore) -> None:
        """Keep ``spectators`` sockets watching ``table``'s game, the game after a rematch too,
        until the run stops."""
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol

        while not self.stopping:
            tid = table.id
            sockets = []
            for j in range(self.spectators):
                base = table.seats[j % len(table.seats)].base  # spread as the seats are
                async with sem:
                    try:
                        sockets.append(await connect(
                            f"{_ws_base(base)}/ws/tables/{tid}", subprotocols=[Subprotocol("gemtable")],
                            compression="deflate" if self.compression else None,
                            open_timeout=60, ping_interval=None, close_timeout=2, max_size=2**24))
                    except Exception as exc:  # refused, timed out, handshake failed
                        self.phase_at(time.perf_counter()).disconnects[
                            f"spectator connect failed: {type(exc).__name__}"] += 1
            self.watching += len(sockets)
            readers = [asyncio.ensure_future(self.read_watcher(table, tid, ws)) for ws in sockets]
            while not self.stopping and table.id == tid:  # a rematch moves the table to a new id
                await asyncio.sleep(0.2)
            self.watching -= len(sockets)
            for ws in sockets:
                await ws.close()
            await asyncio.gather(*readers, return_exceptions=True)

    async def read_watcher(self, table: Table, tid: str | None, ws: Any) -> None:
        """Read one spectator socket until it closes; a close we did not ask for counts as a disconnect."""
        from websockets.exceptions import ConnectionClosed

        code = None
        try:
            async for raw in ws:
                now = time.perf_counter()
                frame = orjson.loads(raw)
                kind = frame.get("type")
                if kind == "state":
                    self.phase_at(now).watch_updates += 1
                    sent = table.sent_at.get(frame["version"])
                    if sent is not None:
                        sent[1].watch.append(now - sent[0])
                elif kind == "error":
                    self.phase_at(now).rejected[f"spectator: {frame.get('code')}"] += 1
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
        except Exception as exc:
            code = type(exc).__name__
        if not self.stopping and table.id == tid:
            self.phase_at(time.perf_counter()).disconnects[f"spectator closed {code or ws.close_code}"] += 1

    async def watch_timeouts(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            now = time.perf_counter()
            for table in self.tables:
                late = [p for p in table.pending if now - p.sent > TIMEOUT]
                for p in late:
                    p.phase.timeouts += len(p.need)
                    table.pending.remove(p)

    async def watch_lag(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.1)
            now = time.perf_counter()
            if self.t0 <= now < self.t_end:
                lag = self.lag.get(self.phase_at(now).name)
                if lag is not None:
                    lag.append(now - start - 0.1)


def _machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}


def _raise_fd_limit(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, need)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def _drive(driver: Driver, server_pids: list[int], db_pid: int | None,
                 profile: str | None = None) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    report: dict[str, Any] = {}
    # 1. setup: guests, tables, joins (HTTP), then every seat's WebSocket
    setup_start, setup_cpu = time.perf_counter(), _self_cpu()
    sem = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(table: Table) -> bool:
        async with sem:
            try:
                await driver.set_up(table)
                return True
            except SetupError as exc:
                driver.setup.rejected[str(exc)[:80]] += 1
                return False

    ready = await asyncio.gather(*(one(t) for t in driver.tables))
    driver.tables = [t for t, ok in zip(driver.tables, ready) if ok]
    setup_http = time.perf_counter() - setup_start
    if not driver.tables:
        raise SetupError(f"no table could be set up: {dict(driver.setup.rejected)}")
    watchers = [loop.create_task(driver.watch_timeouts()), loop.create_task(driver.watch_lag())]
    connect_sem = asyncio.Semaphore(CONNECT_CONCURRENCY)
    players = [loop.create_task(driver.play_table(t, connect_sem)) for t in driver.tables]
    # wait until every seat has its first state (or a while)
    deadline = time.perf_counter() + 120
    while time.perf_counter() < deadline:
        if all(s.latest is not None for t in driver.tables for s in t.seats):
            break
        await asyncio.sleep(0.1)
    connected = sum(s.latest is not None for t in driver.tables for s in t.seats)
    # the driver's collector set up as a server's: its full collections, scanning every seat's
    # last state, stopped its loop for 35-70 ms (lag p99 34-54 ms), and the latencies included it
    server_gc()
    setup_total = time.perf_counter() - setup_start
    setup_cpu = _self_cpu() - setup_cpu
    # 2. play: warm-up, then the measured phase
    samples = []
    peak_rss = [0.0]

    def sample() -> None:
        samples.append((time.perf_counter(), _self_cpu(), proc_times(server_pids) if server_pids else None,
                        proc_sample([db_pid]) if db_pid else None, pressure()))

    async def until(t: float) -> None:
        while (left := t - time.perf_counter()) > 0:
            await asyncio.sleep(min(1.0, left))
            if server_pids:
                peak_rss[0] = max(peak_rss[0], proc_sample(server_pids)[1])

    driver.t0 = time.perf_counter()
    driver.t1 = driver.t0 + driver.warmup
    driver.t2 = driver.t1 + driver.seconds
    sample()
    driver.go.set()
    await until(driver.t1)
    sample()
    recorders = profiler.start(server_pids, driver.seconds, profile) if profile and server_pids else None
    await until(driver.t2)
    sample()
    if recorders is not None:
        report["profile"] = await loop.run_in_executor(None, profiler.finish, recorders)
    spectating = []
    if driver.spectators:  # 2b. the spectators join, then the same play is measured with them
        want = driver.spectators * len(driver.tables)
        spectating = [loop.create_task(driver.watch_table(t, connect_sem)) for t in driver.tables]
        deadline = time.perf_counter() + 120
        while driver.watching < want and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        report["spectators_connected"] = driver.watching
        driver.t3 = time.perf_counter() + 1.0  # (their first states go out)
        driver.t4 = driver.t3 + driver.seconds
        await until(driver.t3)
        sample()
        await until(driver.t4)
        sample()
    # 3. the last updates of actions sent before the end
    end = time.perf_counter() + DRAIN
    while time.perf_counter() < end and any(t.pending for t in driver.tables):
        await asyncio.sleep(0.05)
    unfinished = sum(len(p.need) for t in driver.tables for p in t.pending)
    driver.stopping = True
    for w in watchers:
        w.cancel()
    for t in driver.tables:
        t.over.set()  # wake the table loops; they close their sockets
    await asyncio.wait(players + spectating, timeout=30)
    driver.pool.shutdown(wait=False)

    report["setup"] = {
        "tables": len(driver.tables), "seats_connected": connected,
        "seconds_http": round(setup_http, 2), "seconds_total": round(setup_total, 2),
        "http_requests": len(driver.http_times), "http_ms": _dist(driver.http_times),
        "http_errors": dict(driver.http_errors), "rate_limited_429": driver.rate_limited,
        "failures": dict(driver.setup.rejected), "disconnects": dict(driver.setup.disconnects),
        "driver_cpu_s": round(setup_cpu, 2),
    }
    rows = []
    # the samples: warm-up start, measured start, measured end, [watched start, watched end]
    spans = [(0, 1), (1, 2), (3, 4)]
    for phase, (i, j) in zip(driver.phases, spans):
        (ta, ca, sa, da, pa), (tb, cb, sb, db, pb) = samples[i], samples[j]
        wall = max(1e-9, tb - ta)
        # a table at which nobody acted during a phase long enough for several moves is stuck
        stalled = (sum(1 for t in driver.tables if not t.sent[phase.name])
                   if wall >= 3 * 1.5 * driver.think + 2.0 else None)
        rows.append({
            "phase": phase.name, "seconds": round(wall, 2),
            "actions_sent": phase.sent, "actions_acked": phase.acked,
            "actions_per_s": round(phase.acked / wall, 1),
            "own_ms": _dist(phase.own), "other_ms": _dist(phase.other),
            "errors": {"rejected": dict(phase.rejected), "disconnects": dict(phase.disconnects),
                       "timeouts": phase.timeouts, "stalled_tables": stalled,
                       "total": phase.errors() + (stalled or 0)},
            "games_finished": phase.games_finished,
            "server_cpu_pct": round(100 * (sb[0] - sa[0]) / wall, 1) if sa else None,
            # the servers' CPU time (all workers, user + kernel) per acknowledged action, and the
            # kernel's share of it (socket writes, disk flushes, thread wake-ups)
            "server_cpu_ms_per_action": (round(1000 * (sb[0] - sa[0]) / phase.acked, 3)
                                         if sa and phase.acked else None),
            "server_kernel_pct_of_cpu": (round(100 * (sb[2] - sa[2]) / (sb[0] - sa[0]), 1)
                                         if sa and sb[0] > sa[0] else None),
            "server_rss_mb": round(sb[1], 1) if sb else None,
            "db_cpu_pct": round(100 * (db[0] - da[0]) / wall, 1) if da else None,
            "driver_cpu_pct": round(100 * (cb - ca) / wall, 1),
            "driver_lag_ms": _dist(driver.lag[phase.name]),
            # the whole machine (every process on it): share of the time some task waited for a
            # CPU, and milliseconds during which all tasks waited on I/O (disk flushes)
            "machine_cpu_wait_pct": round(100 * (pb["cpu_some"] - pa["cpu_some"]) / 1e6 / wall, 1) if pa and pb else None,
            "machine_io_stall_ms": round((pb["io_full"] - pa["io_full"]) / 1e3, 1) if pa and pb else None,
            # CPU time the hypervisor gave to other machines (100 % = one core): a slower machine
            "machine_steal_pct": round(100 * (pb["steal"] - pa["steal"]) / 1e6 / wall, 1) if pa and pb else None,
        })
        if phase.name == "watched":
            base, now_ms = rows[1]["server_cpu_ms_per_action"], rows[-1]["server_cpu_ms_per_action"]
            rows[-1].update({
                "spectators_per_table": driver.spectators,
                "spectator_ms": _dist(phase.watch), "spectator_updates": phase.watch_updates,
                # what one spectator adds to the servers' CPU per move (against the measured phase)
                "server_cpu_ms_per_spectator": (round((now_ms - base) / driver.spectators, 3)
                                                if base is not None and now_ms is not None else None),
            })
    report["phases"] = rows
    report["server_peak_rss_mb"] = round(peak_rss[0], 1) if server_pids else None
    report["unfinished_at_end"] = unfinished
    return report


def run_loadtest(tables: int = 10, seconds: float = 60.0, think: float = 1.0, game: str = "splendor",
                 players: int = 2, workers: int = 1, db: str | None = None, urls: list[str] | None = None,
                 warmup: float | None = None, seed: int = 1, compression: bool = True,
                 pids: list[int] | None = None, strict_limits: bool = False,
                 placement: str = "split", profile: str | None = None, spectators: int = 0) -> dict[str, Any]:
    """Run one load test; returns the report (a JSON-able dict).  Raises OptionError (a
    ValueError) on bad options.

    ``profile``: a folder where py-spy's samples of every worker during the measured phase go
    (``measure/profile.py``); the report's ``profile`` sorts them into the parts of a move.
    ``spectators``: K spectator sockets per table in a phase after the measured one (see above)."""
    if not 1 <= tables <= MAX_TABLES:
        raise OptionError(msg("--tables must be 1..{most}", most=MAX_TABLES))
    if not 1 <= seconds <= MAX_SECONDS:
        raise OptionError(msg("--seconds must be 1..{most}", most=f"{MAX_SECONDS:g}"))
    if not 0 <= think <= 60:
        raise OptionError(msg("--think must be 0..60 seconds"))
    if not 1 <= workers <= MAX_WORKERS:
        raise OptionError(msg("--workers must be 1..{most}", most=MAX_WORKERS))
    if not 0 <= spectators <= MAX_SPECTATORS:
        raise OptionError(msg("--spectators must be 0..{most}", most=MAX_SPECTATORS))
    if placement not in PLACEMENTS:
        raise OptionError(msg("--placement must be one of {choices}", choices=", ".join(PLACEMENTS)))
    if profile and profiler.py_spy() is None:
        raise OptionError(msg("--profile needs py-spy: pip install py-spy (in the dev extra)"))
    warmup = min(10.0, seconds / 5) if warmup is None else warmup
    if not 0 <= warmup <= 120:
        raise OptionError(msg("--warmup must be 0..120 seconds"))
    from gemtable.core.registry import get_game

    try:
        counts = get_game(game).player_counts
    except KeyError:
        raise OptionError(msg("unknown game {game}", game=repr(game))) from None
    if players not in counts:
        raise OptionError(msg("{game} is played by {counts} players, not {players}", game=game,
                                  counts=", ".join(map(str, counts)), players=players))
    if urls and (db or workers != 1):
        raise OptionError(msg("--url targets an existing server: --db and --workers are for private servers"))
    kind = "url" if urls else ("postgres-temp" if db == "postgres-temp" else
                               "sqlite-temp" if not db else ("postgresql" if db.startswith("postgres") else "sqlite"))
    if workers > 1 and kind in ("sqlite", "sqlite-temp"):
        raise OptionError(msg("several workers need PostgreSQL: --db postgres-temp or --db postgresql://…"))
    _raise_fd_limit(4 * tables * (players + spectators) + 256)
    relax = "strict" if strict_limits else ("fast" if think < 0.3 else "relaxed")
    config = {"tables": tables, "seconds": seconds, "warmup": warmup, "think": think, "game": game,
              "players": players, "workers": len(urls) if urls else workers, "db": kind, "seed": seed,
              "compression": compression, "placement": placement, "spectators": spectators, "timeout_s": TIMEOUT,
              "limits": LIMITS["url" if urls else relax]}
    machine_before = _machine()
    folder = tempfile.mkdtemp(prefix="gt-loadtest-")
    pg: TempPostgres | None = None
    started: list[Worker] = []
    try:
        if urls:
            bases, server_pids, db_pid = list(urls), list(pids or []), None
        else:
            if kind == "postgres-temp":
                pg = TempPostgres().__enter__()
                db_url = pg.url
            elif kind == "sqlite-temp":
                db_url = f"sqlite:///{Path(folder) / 'loadtest.sqlite3'}"
            else:
                db_url = db
            for i in range(workers):  # one at a time: the first creates the schema
                w = Worker(db_url, folder, i, relax)
                started.append(w)
                w.start()
                w.wait_ready()
            bases = [w.url for w in started]
            server_pids = [w.proc.pid for w in started]
            db_pid = pg.pid() if pg else None
        driver = Driver(bases, tables, seconds, warmup, think, game, players, seed, compression, placement,
                        spectators)
        try:
            import uvloop

            runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
            config["driver_loop"] = "uvloop"
        except ImportError:
            runner = asyncio.Runner()
            config["driver_loop"] = "asyncio"
        thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
        try:
            with runner:
                report = runner.run(_drive(driver, server_pids, db_pid, profile))
        finally:  # the collector as it was (the driver may run inside another program)
            if not frozen:  # (what a caller froze itself stays frozen)
                gc.unfreeze()
            gc.set_threshold(*thresholds)
        for w in started:
            if w.proc.poll() is not None:
                report.setdefault("worker_exits", []).append({"port": w.port, "code": w.proc.returncode,
                                                              "log": w.log_tail()})
            elif any(p["errors"]["total"] for p in report["phases"]) and w.log_tail():
                report.setdefault("worker_logs", {})[w.url] = w.log_tail(3000)
    finally:
        for w in started:
            w.stop()
        if pg is not None:
            pg.__exit__(None, None, None)
        shutil.rmtree(folder, ignore_errors=True)
    measured = measured_phase(report)
    driver_row = measured["driver_cpu_pct"]
    lag99 = measured["driver_lag_ms"]["p99"] or 0.0
    report["config"] = config
    report["machine"] = {"before": machine_before, "after": _machine()}
    report["driver_bottleneck"] = bool(driver_row >= 80.0 or lag99 >= 50.0)
    report["errors"] = (sum(p["errors"]["total"] for p in report["phases"]) + driver.joining.errors()
                        + sum(report["setup"]["failures"].values()) + sum(report["setup"]["disconnects"].values()))
    return report


def measured_phase(report: dict[str, Any]) -> dict[str, Any]:
    """The report's row of the measured phase (the headline figures)."""
    return next(p for p in report["phases"] if p["phase"] == "measured")


def format_report(report: dict[str, Any], lang: str = i18n.SOURCE) -> list[str]:
    """The report as lines of text in ``lang`` (the figures as the JSON has them)."""
    def say(message: i18n.Message) -> str:
        return i18n.render(message, lang)

    c = report["config"]
    s = report["setup"]
    lines = [
        say(msg("{tables} tables × {players} seats of {game}, think {think} s, {workers} worker(s), "
                "database {db}; warm-up {warmup} s, measured {seconds} s; limits: {limits}",
                tables=c["tables"], players=c["players"], game=c["game"], think=c["think"], workers=c["workers"],
                db=c["db"], warmup=f"{c['warmup']:g}", seconds=f"{c['seconds']:g}",
                limits=say(_limits_text(c["limits"])))),
        say(msg("setup: {tables} tables, {seats} seats connected in {seconds} s ({requests} HTTP requests, "
                "p50 {p50} ms p99 {p99} ms; 429s {limited}; failures {failures})", tables=s["tables"],
                seats=s["seats_connected"], seconds=s["seconds_total"], requests=s["http_requests"],
                p50=s["http_ms"]["p50"], p99=s["http_ms"]["p99"], limited=s["rate_limited_429"],
                failures=s["failures"] or 0)),
    ]
    for r in report["phases"]:
        o, t, e = r["own_ms"], r["other_ms"], r["errors"]
        phase = say(msg(PHASES[r["phase"]])) if r["phase"] in PHASES else r["phase"]
        width = max(9, len(phase))
        lines.append(f"{phase:>{width}}: " + say(msg(
            "{sent} sent, {acked} acked, {rate} actions/s | own update p50 {o50} p95 {o95} p99 {o99} max {omax} ms | "
            "other seat p50 {t50} p95 {t95} p99 {t99} max {tmax} ms", sent=r["actions_sent"],
            acked=r["actions_acked"], rate=r["actions_per_s"], o50=o["p50"], o95=o["p95"], o99=o["p99"],
            omax=o["max"], t50=t["p50"], t95=t["p95"], t99=t["p99"], tmax=t["max"])))
        lines.append(f"{'':>{width}}  " + say(msg(
            "errors {errors} (rejected {rejected}, disconnects {disconnects}, timeouts {timeouts}, stalled tables "
            "{stalled}) | server CPU {cpu} % ({cpu_ms} ms per action, {kernel} % of it in the kernel) "
            "RSS {rss} MB | db CPU {db} % | driver CPU {driver} %, loop lag p99 {lag} ms | games finished {finished}",
            errors=e["total"], rejected=e["rejected"] or 0, disconnects=e["disconnects"] or 0,
            timeouts=e["timeouts"], stalled=e["stalled_tables"], cpu=r["server_cpu_pct"],
            cpu_ms=r.get("server_cpu_ms_per_action"), kernel=r.get("server_kernel_pct_of_cpu"),
            rss=r["server_rss_mb"], db=r["db_cpu_pct"], driver=r["driver_cpu_pct"], lag=r["driver_lag_ms"]["p99"],
            finished=r["games_finished"])))
        if r["phase"] == "watched":
            w = r["spectator_ms"]
            lines.append(f"{'':>{width}}  " + say(msg(
                "{k} spectators per table ({connected} connected): {updates} updates, spectator update p50 {w50} "
                "p95 {w95} p99 {w99} max {wmax} ms | server CPU per spectator per action {cpu} ms",
                k=r["spectators_per_table"], connected=report.get("spectators_connected"),
                updates=r["spectator_updates"], w50=w["p50"], w95=w["p95"], w99=w["p99"], wmax=w["max"],
                cpu=r["server_cpu_ms_per_spectator"])))
        if r.get("machine_cpu_wait_pct") is not None:
            lines.append(f"{'':>{width}}  " + say(msg(
                "machine: some task waited for a CPU {wait} % of the time; every task stalled on I/O for "
                "{stall} ms; the hypervisor took {steal} % of a core", wait=r["machine_cpu_wait_pct"],
                stall=r["machine_io_stall_ms"], steal=r["machine_steal_pct"])))
    m = report["machine"]
    lines.append(say(msg("load average before {before}, after {after} ({cpus} CPUs)",
                         before=str(m["before"]["loadavg"]), after=str(m["after"]["loadavg"]),
                         cpus=m["before"]["cpus"])))
    measured = measured_phase(report)
    if measured["driver_cpu_pct"] >= 80.0:
        lines.append(say(msg("THE DRIVER IS THE BOTTLENECK: it used {cpu} % of a core (one event loop); latencies "
                             "include its own delays", cpu=measured["driver_cpu_pct"])))
    elif report["driver_bottleneck"]:
        lines.append(say(msg("THE DRIVER'S EVENT LOOP LAGGED (p99 {lag} ms) at {cpu} % CPU: the machine is short "
                             "of CPU (load average {load} on {cpus} CPUs); latencies include up to that much "
                             "driver delay", lag=measured["driver_lag_ms"]["p99"], cpu=measured["driver_cpu_pct"],
                             load=m["after"]["loadavg"][0], cpus=m["after"]["cpus"])))
    if report.get("profile"):
        lines.extend(profiler.format_profile(report["profile"], lang))
    for where, text in (report.get("worker_logs") or {}).items():
        lines.append(say(msg("log of the worker at {url} (its end):", url=where)))
        lines.extend("    " + line for line in text.splitlines()[-25:])
    if report.get("worker_exits"):
        lines.append(say(msg("WORKERS EXITED DURING THE RUN: {exits}", exits=repr(report["worker_exits"]))))
    return lines


PHASES = {"warmup": mark("warmup"), "measured": mark("measured"), "watched": mark("with spectators")}
"""The phases' names as the report prints them (the JSON keeps the English)."""


LIMITS = {
    "url": mark("the target server's own"),
    "strict": mark("server defaults"),
    "fast": mark("per-address rate limits lifted (all clients are 127.0.0.1); per-connection message limit "
                 "lifted too (think < 0.3 s)"),
    "relaxed": mark("per-address rate limits lifted (all clients are 127.0.0.1); per-connection message limit "
                    "as served"),
}
"""What the load test does to the servers' rate limits, as ``config["limits"]`` says it (in English)."""


def _limits_text(text: str) -> i18n.Message | str:
    return msg(text) if text in LIMITS.values() else text


__all__ = ["LoadLimits", "TempPostgres", "format_report", "measured_phase", "pressure", "proc_sample", "proc_times",
           "run_loadtest"]
