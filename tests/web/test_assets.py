"""How a page loads in the browser, at 1280x800 and 390x844: compressed, content-hashed files
cached for a year, a revalidated shell, and every module and the first data asked for at once
(by the shell's own tags, never discovered one after another).  Checked by who asked for each
request (Chrome's initiator) and by the answers' headers, not by time."""

from __future__ import annotations

import re
import shutil

import httpx
import pytest

from gemtable.server.assets import Assets
from gemtable.server.routes.pages import WEB_DIR

from .conftest import LiveServer
from .test_mobile import SIZES

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path):
    """A server of its own whose web folder is a copy (the test changes a file in it)."""
    from gemtable.server.limits import Limits

    srv = LiveServer(f"sqlite:///{tmp_path / 'assets.sqlite3'}", limits=Limits.relaxed()).start()
    web = tmp_path / "web"
    shutil.copytree(WEB_DIR, web, ignore=shutil.ignore_patterns("__pycache__"))
    srv.app.state.assets = Assets(web)
    srv.web = web
    yield srv
    srv.stop()


class Recorder:
    """The page's network through the DevTools protocol: each request's URL, initiator, answer."""

    def __init__(self, context, page) -> None:
        self.requests: dict[str, dict] = {}
        self.order: list[str] = []
        self.console: list[str] = []
        page.on("console", lambda m: self.console.append(m.text))
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.responseReceived", self._answered)
        cdp.on("Network.requestServedFromCache", lambda e: self.requests.get(e["requestId"], {}).update(cache=True))

    def _sent(self, e):
        self.order.append(e["requestId"])
        self.requests[e["requestId"]] = {"url": e["request"]["url"], "initiator": e["initiator"],
                                         "asked": e["request"]["headers"]}

    def _answered(self, e):
        r = e["response"]
        self.requests.setdefault(e["requestId"], {}).update(
            status=r["status"], headers={k.lower(): v for k, v in r["headers"].items()},
            cache=r.get("fromDiskCache", False) or self.requests.get(e["requestId"], {}).get("cache", False))

    def path(self, rid):
        return "/" + self.requests[rid]["url"].split("/", 3)[3]

    def matching(self, pattern):
        return [rid for rid in self.order if re.search(pattern, self.path(rid))]


def _open(browser, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    return context, page


@pytest.mark.parametrize("size", list(SIZES))
def test_a_table_loads_compressed_hashed_and_all_at_once(browser, server, size):
    made = httpx.post(server.url + "/api/tables", headers={"Origin": server.url}, json={
        "game": "splendor", "players": 2, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}]}).json()
    tid = made["table"]["id"]
    context, page = _open(browser, size)
    net = Recorder(context, page)
    page.goto(server.url + made["seats"][0]["invite"])
    page.wait_for_selector("#board svg")
    page.wait_for_load_state("networkidle")

    shell = net.requests[net.matching(rf"^/table/{tid}$")[0]]
    assert shell["status"] == 200 and shell["headers"]["cache-control"] == "no-cache"
    assert shell["headers"]["content-encoding"] == "gzip"

    scripts = net.matching(r"^/static/.*\.js$")
    needed = {"app", "svg", "online", "generic", "motion", "games/splendor", "dialog"}
    got = {re.sub(r"^/static/|\.[0-9a-f]{12}\.js$", "", net.path(r)) for r in scripts}
    assert needed <= got, got
    for rid in scripts + net.matching(r"^/static/.*\.(css|svg)$"):
        req = net.requests[rid]
        assert re.search(r"\.[0-9a-f]{12}\.\w+$", net.path(rid)), net.path(rid)  # a hashed name
        assert req["status"] == 200 and req["headers"]["cache-control"] == "public, max-age=31536000, immutable"
        if not net.path(rid).endswith(".svg"):
            assert req["headers"].get("content-encoding") == "gzip", net.path(rid)
        # asked for by the shell's own tags (modulepreload, the stylesheet), not by a module
        # that had to arrive first (the icon is asked for by the browser itself)
        if not net.path(rid).endswith(".svg"):
            assert req["initiator"]["type"] == "parser", (net.path(rid), req["initiator"])
    # the table's summary: preloaded by the shell too, and fetched once
    summary = net.matching(rf"^/api/tables/{tid}$")
    assert len(summary) == 1 and net.requests[summary[0]]["initiator"]["type"] == "parser"
    assert len(net.matching(r"^/api/games$")) == 1
    assert not [m for m in net.console if "Content Security Policy" in m], net.console
    assert page.js_errors == []

    # again (warm): every hashed file from the cache, the shell asked again (revalidated)
    net2 = Recorder(context, page)
    page.reload()
    page.wait_for_selector("#board svg")
    page.wait_for_load_state("networkidle")
    assert len(net2.matching(rf"^/table/{tid}$")) == 1
    for rid in net2.matching(r"^/static/"):
        assert net2.requests[rid].get("cache"), net2.path(rid)
    context.close()


def test_a_changed_file_is_fetched_under_its_new_name(browser, server):
    context, page = _open(browser, "desktop")
    page.goto(server.url + "/")
    page.wait_for_selector("#lobby-list")
    old = server.app.state.assets.url("svg.js")
    (server.web / "svg.js").write_text((server.web / "svg.js").read_text() + "\n// a new version\n")
    net = Recorder(context, page)
    page.reload()
    page.wait_for_selector("#lobby-list")
    page.wait_for_load_state("networkidle")
    new = server.app.state.assets.url("svg.js")
    assert new != old
    fetched = [net.requests[r] for r in net.matching(r"^/static/svg\.")]
    assert [net.path(r) for r in net.matching(r"^/static/svg\.")] == [new]
    assert not fetched[0].get("cache")  # from the server: a new name is a new file for the cache
    others = [r for r in net.matching(r"^/static/") if not net.path(r).startswith("/static/svg.")]
    assert others and all(net.requests[r].get("cache") for r in others)  # the rest stayed cached
    # the old name is gone: a 404 (an old page asking for it gets a clear answer, not a 5xx)
    assert httpx.get(server.url + old).status_code == 404
    assert httpx.get(server.url + "/static/svg.000000000000.js").status_code == 404
    assert page.js_errors == []
    context.close()
