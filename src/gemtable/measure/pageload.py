"""`gemtable pageload`: how fast the web pages draw and how many bytes they cost, in a real browser.

Drives Debian's chromium through Playwright against a table server (its own, started on a free
port with a temporary SQLite database, or an existing one given by URL) and reports, for the
lobby and for a table's page, each visited with a cold cache (a fresh browser profile) and
again warm (the same profile, a new visit):

- ``ready_ms``: from the start of navigation to the page being drawn — for a table, the first
  ``<svg>`` of the board inside ``#board``; for the lobby, the table list's first row.
- ``bytes``: bytes that came over the network for the visit (headers and bodies as sent, so
  compressed bodies count compressed; answers from the browser's cache count nothing),
  with ``requests`` (answered from the network) and ``cached`` (answered from the cache).

Each figure is the median of ``runs`` visits.  No timed assertion anywhere: it is a measuring
tool, the numbers depend on the machine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from gemtable.core import i18n
from gemtable.core.i18n import msg, msgp

from .common import free_port, stop_process

CHROMIUM = os.environ.get("GEMTABLE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# records when the page is drawn (performance.now(), from the start of navigation)
_WATCH = """
(() => {
  const mark = (name, test) => {
    const check = () => { if (window[name] === undefined && test()) window[name] = performance.now(); };
    new MutationObserver(check).observe(document, { childList: true, subtree: true });
  };
  mark("__gtBoard", () => !!document.querySelector("#board svg"));
  mark("__gtLobby", () => !!document.querySelector("table.tables-list tbody tr, #lobby-list tbody tr"));
})();
"""


def _post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Origin": url})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def _wait_up(url: str, proc: subprocess.Popen | None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode})")
        try:
            with urllib.request.urlopen(url + "/api/games", timeout=2) as res:
                if res.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"no answer from {url} within {timeout:.0f} s")


def _visit(context, url: str, marker: str, timeout_ms: int = 20000) -> dict[str, Any]:
    """One visit of ``url`` in ``context``: time until ``marker`` is set, bytes over the network."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    sizes: dict[str, float] = {}
    cached: set[str] = set()
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e.get("encodedDataLength", 0)))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on("Network.responseReceived",
           lambda e: cached.add(e["requestId"]) if e["response"].get("fromDiskCache") else None)
    urls: dict[str, str] = {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.webSocketFrameReceived",
           lambda e: sizes.__setitem__("ws" + str(len(sizes)), len(e["response"].get("payloadData", ""))))
    page.goto(url, wait_until="commit")
    deadline = time.monotonic() + timeout_ms / 1000
    ready = None
    while ready is None:  # (polled: the site's CSP refuses wait_for_function's eval)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} was not drawn within {timeout_ms} ms")
        time.sleep(0.02)
        ready = page.evaluate(f"() => window.{marker} ?? null")
    page.wait_for_load_state("networkidle")
    time.sleep(0.2)
    from_cache = [k for k in sizes if k in cached]
    out = {"ready_ms": round(ready, 1),
           "bytes": int(sum(v for k, v in sizes.items() if k not in cached)),
           "requests": len([k for k in sizes if k not in cached and not k.startswith("ws")]),
           "cached": len(from_cache)}
    out["network"] = sorted(urls[k].split("/", 3)[-1] for k in sizes if k in urls and k not in cached)
    page.close()
    return out


def measure(url: str, runs: int = 5) -> dict[str, Any]:
    """Visit the lobby and a table's page ``runs`` times each, cold then warm (see the module)."""
    from playwright.sync_api import sync_playwright

    # a table with a person's seat and a bot: its page draws the board at once
    made = _post(url, "/api/tables", {"game": "splendor", "players": 2,
                                      "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}]})
    table_url = url + made["seats"][0]["invite"]
    pages = {"lobby": (url + "/", "__gtLobby"), "table": (table_url, "__gtBoard")}
    result: dict[str, Any] = {"url": url, "runs": runs}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for name, (address, marker) in pages.items():
                cold, warm = [], []
                for _ in range(runs):
                    context = browser.new_context(viewport={"width": 1280, "height": 800})
                    context.add_init_script(_WATCH)
                    cold.append(_visit(context, address, marker))
                    warm.append(_visit(context, address, marker))
                    context.close()
                result[name] = {"cold": _median(cold), "warm": _median(warm)}
        finally:
            browser.close()
    return result


def _median(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: round(statistics.median(r[k] for r in rows), 1) if k != "network" else rows[-1][k] for k in rows[0]}


def run(url: str | None = None, runs: int = 5) -> dict[str, Any]:
    """``measure`` against ``url``, or against a server of this installation started for it."""
    if url:
        _wait_up(url, None)
        return measure(url.rstrip("/"), runs)
    folder = tempfile.mkdtemp(prefix="gt-pageload-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "gemtable.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--db", f"sqlite:///{Path(folder) / 'pageload.sqlite3'}", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        _wait_up(url, proc)
        return measure(url, runs)
    finally:
        stop_process(proc)


def format_report(report: dict[str, Any], lang: str = i18n.SOURCE) -> list[str]:
    """The report as lines of text in ``lang``."""
    def say(message: i18n.Message) -> str:
        return i18n.render(message, lang)

    lines = [say(msg("{url} (median of {runs} visits; chromium, 1280x800)", url=report["url"], runs=report["runs"]))]
    pages = {"lobby": msgp("page", "lobby"), "table": msgp("page", "table")}
    kinds = {"cold": msgp("cache", "cold"), "warm": msgp("cache", "warm")}
    names = {name: say(page) for name, page in pages.items()}
    width = max(6, *(len(n) for n in names.values()))
    for name in ("lobby", "table"):
        for kind in ("cold", "warm"):
            r = report[name][kind]
            lines.append(f"{names[name]:>{width}} " + say(msg(
                "{kind}: drawn at {ms} ms | {kib} KiB over the network in {requests} requests, {cached} from the "
                "cache", kind=say(kinds[kind]), ms=f"{r['ready_ms']:7.1f}", kib=f"{r['bytes'] / 1024:7.1f}",
                requests=f"{r['requests']:.0f}", cached=f"{r['cached']:.0f}")))
    return lines


__all__ = ["format_report", "measure", "run"]
