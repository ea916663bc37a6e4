"""Fixtures for the browser tests: a live server on a free port and Debian's chromium."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("GEMTABLE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).parent / "artifacts"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """uvicorn in a background thread; restartable on the same database."""

    def __init__(self, db_url: str, bot_delay: float = 0.05, **app_options) -> None:
        self.db_url = db_url
        self.bot_delay = bot_delay
        self.app_options = app_options  # e.g. limits=Limits(...)
        self.app = None
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None
        self.thread = None

    def start(self) -> "LiveServer":
        import uvicorn

        from gemtable.server import create_app
        from gemtable.server.app import uvicorn_config

        app = self.app = create_app(self.db_url, bot_delay=self.bot_delay, **self.app_options)
        # the same uvicorn settings as `gemtable serve` (header and frame size caps), but
        # idle keep-alive connections stay open for the whole test: Playwright's request
        # context reuses an idle connection without retrying, so a server closing it after
        # 5 s races a request sent at that moment (ECONNRESET on a slow machine).  Browsers
        # retry such a request themselves; nginx in front closes its side first (deploy docs).
        config = uvicorn_config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_keep_alive=600)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)
            self.server = None


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    from gemtable.server.limits import Limits

    db = tmp_path_factory.mktemp("webdb") / "web.sqlite3"
    # every browser test creates tables from 127.0.0.1: the per-address rates out of the way
    server = LiveServer(f"sqlite:///{db}", limits=Limits.relaxed()).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    # One browser per test module, stopped when the module is done: Playwright's sync API keeps
    # an event loop marked as running in this thread while it is started, and the tests that run
    # asyncio themselves (loadtest, group commit...) may come next in the same process when the
    # suite runs in several processes (pytest -n).
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors
    requests: list[str] = []
    pg.on("request", lambda req: requests.append(req.url))
    pg.on("websocket", lambda ws: requests.append(ws.url))
    pg.requests = requests
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
