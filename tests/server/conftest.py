from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gemtable.games.registry import all_games
from gemtable.server import create_app
from gemtable.server.limits import Limits

from .toy import TOY


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(all_games(), "toy", TOY)
    return TOY


@pytest.fixture
def db_url(tmp_path):
    return f"sqlite:///{tmp_path / 'server.sqlite3'}"


@pytest.fixture
def client(db_url, toy_registered):
    # rate limits out of the way (these tests create many tables from one address);
    # tests of the limits use ``strict_client``
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as c:
        yield c


@pytest.fixture
def strict_client(db_url, toy_registered):
    """The server with its default limits."""
    app = create_app(db_url, bot_delay=0.0)
    with TestClient(app) as c:
        yield c


def seat_socket(client, table_id, token=None):
    """Open a table's WebSocket as a seat (token as subprotocol, as the browser does) or a spectator."""
    protocols = ["gemtable"] + ([f"token.{token}"] if token else [])
    return client.websocket_connect(f"/ws/tables/{table_id}", subprotocols=protocols)


def create(client, game="toy", players=2, seats=None, seed=None, options=None):
    body = {"game": game, "players": players}
    if seats is not None:
        body["seats"] = seats
    if seed is not None:
        body["seed"] = seed
    if options is not None:
        body["options"] = options
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# -- PostgreSQL (test_persistence.py, test_workers.py) ---------------------------------------
def _pg_tools():
    for base in ("/usr/lib/postgresql",):
        if os.path.isdir(base):
            for ver in sorted(os.listdir(base), reverse=True):
                bin_dir = Path(base) / ver / "bin"
                if (bin_dir / "initdb").exists():
                    return bin_dir
    return None


@pytest.fixture(scope="module")
def postgres_url():
    """A throw-away PostgreSQL cluster on a free local port (skipped without the server)."""
    bin_dir = _pg_tools()
    if bin_dir is None or shutil.which("runuser") is None:
        pytest.skip("PostgreSQL server binaries are not installed")
    pytest.importorskip("psycopg")
    tmp = tempfile.mkdtemp(prefix="gt-pg-")
    os.chmod(tmp, 0o777)
    data = os.path.join(tmp, "data")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    user = "postgres" if os.geteuid() == 0 else None

    def run(*cmd):
        full = (["runuser", "-u", user, "--"] if user else []) + [str(c) for c in cmd]
        return subprocess.run(full, check=True, capture_output=True, text=True, timeout=60)

    try:
        run(bin_dir / "initdb", "-D", data, "-A", "trust", "-U", "gt")
        run(bin_dir / "pg_ctl", "-D", data, "-l", os.path.join(tmp, "log"), "-w", "-o",
            f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1", "start")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"could not start a PostgreSQL cluster: {getattr(exc, 'stderr', exc)}")
    yield f"postgresql://gt@127.0.0.1:{port}/postgres"
    try:
        run(bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "stop")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- real `gemtable serve` processes (test_sigkill.py, test_workers.py) --------------------

GEMTABLE = Path(sys.executable).with_name("gemtable")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_serving(proc: subprocess.Popen, port: int, log: Path) -> subprocess.Popen:
    """Wait until the `gemtable serve` process ``proc`` answers on ``port`` (its output in ``log``)."""
    import httpx

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def spawn_server(db_url: str, port: int, log: Path, bot_delay: float = 0.0) -> subprocess.Popen:
    """Start `gemtable serve` in its own process group (so a test can SIGKILL it); don't wait."""
    cmd = [str(GEMTABLE), "serve", "--port", str(port), "--db", db_url, "--bot-delay", str(bot_delay)]
    return subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
