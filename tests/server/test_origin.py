"""The server's edge: where a state-changing request may come from (Origin, Referer, Host),
over-long request targets, deeply nested bodies and WebSocket text that is not UTF-8."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import socket
import struct
import subprocess
import time
from itertools import count

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from gemtable.server import create_app
from gemtable.server.limits import Limits

from .conftest import GEMTABLE, free_port, seat_socket, wait_serving
from .test_lobby import hosted, snapshot
from .test_players import named

SITE = "http://testserver"  # what TestClient's requests are addressed to
EVIL = "http://evil.example"
OPEN3 = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]


def seated(client, name="Bob"):
    """Ann hosts a waiting table; Bob (a cookie player) holds its seat 1."""
    ann, res = hosted(client, seats=OPEN3, players=3)
    tid = res["table"]["id"]
    bob = named(client, name, host="203.0.113.40")
    joined = bob.post(f"/api/tables/{tid}/join", json={})
    assert joined.status_code == 200, joined.text
    return ann, bob, tid, joined.json()["token"]


def table_count(client) -> int:
    from sqlalchemy import func, select

    from gemtable.server.db import TableRow

    with client.app.state.manager.db.session() as s:
        return s.scalar(select(func.count()).select_from(TableRow))


def assert_bad_origin(r):
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["error"] == "bad_origin" and body["detail"].endswith(".")
    assert "set-cookie" not in r.headers


# -- 1. Origin and Referer ---------------------------------------------------------------------
def test_a_foreign_page_cannot_free_a_seat_and_the_seat_owner_can(client):
    _ann, bob, tid, token = seated(client)
    before = snapshot(client, tid)
    # a form or fetch from another site: text/plain needs no CORS preflight, and the cookie goes along
    r = bob.post(f"/api/tables/{tid}/leave", headers={"Origin": EVIL, "Content-Type": "text/plain"})
    assert_bad_origin(r)
    assert "evil.example" in r.json()["detail"] and SITE in r.json()["detail"]
    assert snapshot(client, tid) == before
    assert bob.get(f"/api/tables/{tid}/seat").json() == {"seat": 1, "token": token}
    # the site's own page, and a program sending no Origin, may
    r = bob.post(f"/api/tables/{tid}/leave", headers={"Origin": SITE})
    assert r.status_code == 200 and r.json()["table"]["seats"][1]["player"] is None
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200
    assert bob.post(f"/api/tables/{tid}/leave").status_code == 200


def test_a_foreign_page_cannot_log_a_player_out(client):
    bob = named(client, "Bob", host="203.0.113.41")
    me = bob.get("/api/me").json()["player"]
    r = bob.post("/api/account/logout", headers={"Origin": EVIL, "Content-Type": "text/plain"})
    assert_bad_origin(r)
    assert bob.get("/api/me").json()["player"] == me  # the cookie still works
    r = bob.post("/api/account/logout", headers={"Origin": SITE})
    assert r.status_code == 200 and "gt_player" in r.headers["set-cookie"]
    assert bob.get("/api/me").json()["player"] is None


def test_a_foreign_page_cannot_create_join_act_or_start(client):
    ann, res = hosted(client, seats=OPEN3, players=3)
    tid, host_token = res["table"]["id"], res["seats"][0]["token"]
    bob = named(client, "Bob", host="203.0.113.42")
    tables, before = table_count(client), snapshot(client, tid)
    foreign = {"Origin": EVIL}
    assert_bad_origin(ann.post("/api/tables", json={"game": "toy", "players": 2}, headers=foreign))
    assert_bad_origin(bob.post(f"/api/tables/{tid}/join", json={}, headers=foreign))
    assert_bad_origin(ann.post(f"/api/tables/{tid}/start", json={"bots": "easy"}, headers=foreign))
    assert_bad_origin(ann.post(f"/api/tables/{tid}/actions", headers={**foreign, "X-Seat-Token": host_token},
                               json={"version": 0, "action": {"type": "pick", "n": 1}}))
    assert_bad_origin(bob.post("/api/me", json={"name": "Mallory"}, headers=foreign))
    for method in ("PUT", "PATCH", "DELETE"):  # refused before routing: not even a 405 is worked out
        assert_bad_origin(ann.request(method, f"/api/tables/{tid}", headers=foreign))
    assert table_count(client) == tables and snapshot(client, tid) == before
    assert bob.get("/api/me").json()["player"]["name"] == "Bob"
    # reading is not changing: a foreign Origin on a GET is answered as usual
    assert ann.get(f"/api/tables/{tid}", headers=foreign).status_code == 200
    # the same requests from the site's own pages go through
    assert ann.post("/api/tables", json={"game": "toy", "players": 2}, headers={"Origin": SITE}).status_code == 201
    assert bob.post(f"/api/tables/{tid}/join", json={}, headers={"Origin": SITE}).status_code == 200
    assert table_count(client) == tables + 1


@pytest.mark.parametrize("origin, ok", [
    (SITE, True),
    ("http://TestServer", True),  # host names are case-insensitive
    ("http://testserver:80", True),  # the scheme's default port
    ("null", False),  # a sandboxed frame, a file:// page, a redirect across sites
    ("NULL", False),
    ("https://testserver", False),  # another scheme is another origin
    ("http://testserver:8000", False),
    ("http://testserver.evil.example", False),
    ("http://evil.example", False),
    ("testserver", False),
    ("http://testserver/table/x", False),  # an Origin header is never a URL with a path
    ("http://", False),
    ("", False),
])
def test_which_origins_are_the_sites_own(client, origin, ok):
    r = client.post("/api/account/logout", headers={"Origin": origin})
    assert (r.status_code == 200) if ok else (r.status_code == 403 and r.json()["error"] == "bad_origin"), r.text


def test_without_origin_the_referer_decides_and_without_either_a_program_may(client):
    _ann, bob, tid, _token = seated(client)
    before = snapshot(client, tid)
    for referer in (f"{EVIL}/page", "not a url", "http://testserver.evil.example/", "https://testserver/"):
        assert_bad_origin(bob.post(f"/api/tables/{tid}/leave", headers={"Referer": referer}))
    # Origin, when sent, is what counts
    assert_bad_origin(bob.post(f"/api/tables/{tid}/leave", headers={"Origin": EVIL, "Referer": f"{SITE}/"}))
    assert snapshot(client, tid) == before
    assert bob.post(f"/api/tables/{tid}/leave", headers={"Referer": f"{SITE}/table/{tid}?x=1#frag"}).status_code == 200
    assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200  # curl, scripts: neither header
    # the server's own pages send their origin with every request (Referrer-Policy: same-origin)
    assert client.get("/").headers["referrer-policy"] == "same-origin"


def test_a_listed_origin_is_accepted(db_url, toy_registered):
    limits = dataclasses.replace(Limits.relaxed(), allowed_origins=("https://games.example.org/",))
    with TestClient(create_app(db_url, bot_delay=0.0, limits=limits)) as c:
        body = {"game": "toy", "players": 2}
        assert c.post("/api/tables", json=body, headers={"Origin": "https://games.example.org"}).status_code == 201
        assert c.post("/api/tables", json=body, headers={"Origin": "https://games.example.org:443"}).status_code == 201
        assert c.post("/api/tables", json=body, headers={"Origin": SITE}).status_code == 201
        for origin in ("http://games.example.org", "https://other.example.org", "https://games.example.org:8443"):
            assert_bad_origin(c.post("/api/tables", json=body, headers={"Origin": origin}))
    with pytest.raises(ValueError):
        create_app(db_url, limits=Limits(allowed_origins=("games.example.org",)))


@pytest.mark.parametrize("behind_proxy", [True, False])
def test_behind_a_proxy_the_forwarded_host_and_scheme_are_the_sites_own(db_url, toy_registered, behind_proxy):
    public = "https://games.example.org"
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed(), behind_proxy=behind_proxy)) as c:
        def status(origin, **headers):
            return c.post("/api/account/logout", headers={"Origin": origin, **headers}).status_code

        # a proxy that forwards the host it was asked for in X-Forwarded-Host (and the scheme)
        forwarded = {"Host": "10.0.0.11:8000", "X-Forwarded-Host": "games.example.org",
                     "X-Forwarded-Proto": "https"}
        assert status(public, **forwarded) == (200 if behind_proxy else 403)
        assert status("http://10.0.0.11:8000", **forwarded) == (403 if behind_proxy else 200)
        # nginx as docs/deploy.md sets it up: the Host header kept, the scheme forwarded
        kept = {"Host": "games.example.org", "X-Forwarded-Proto": "https"}
        assert status(public, **kept) == (200 if behind_proxy else 403)
        assert status("http://games.example.org", **kept) == (403 if behind_proxy else 200)
        assert status(EVIL, **forwarded) == 403 and status(EVIL, **kept) == 403
        assert status(public, **{"Host": "games.example.org:8443", "X-Forwarded-Proto": "https"}) == 403


def test_a_malformed_host_header_is_a_400(client):
    for host in ("[", "a b", "host:99999", "[::1", "[not:v6]"):
        r = client.get("/api/games", headers={"Host": host})
        assert r.status_code == 400 and r.json()["error"] == "bad_request", (host, r.text)
    assert client.get("/api/games", headers={"Host": "[::1]:8000"}).status_code == 200


def test_a_websocket_handshake_from_a_foreign_page_is_refused(client):
    _ann, _bob, tid, token = seated(client)
    for origin in (EVIL, "null", "https://testserver"):
        with pytest.raises(WebSocketDisconnect) as exc:
            with client.websocket_connect(f"/ws/tables/{tid}", subprotocols=["gemtable", f"token.{token}"],
                                          headers={"Origin": origin}):
                pass
        assert exc.value.code == 4403 and "bad_origin" in exc.value.reason
    for headers in ({"Origin": SITE}, {}):
        with client.websocket_connect(f"/ws/tables/{tid}", subprotocols=["gemtable", f"token.{token}"],
                                      headers=headers) as ws:
            assert ws.receive_json()["type"] == "state"


# -- 2. fuzzing the check ----------------------------------------------------------------------
PRINTABLE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30)
ORIGIN_VALUES = st.none() | st.sampled_from(
    [SITE, EVIL, "null", "https://testserver", "http://testserver:80", "http://[::1]", "http://a:99999", "http://"]
) | PRINTABLE | st.builds(lambda h: f"http://{h}", PRINTABLE)
HOST_VALUES = st.none() | st.sampled_from(["testserver", "testserver:80", "[::1]:80", "evil.example"]) | PRINTABLE
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def test_fuzz_origin_referer_and_host_never_5xx_and_refused_changes_nothing(client):
    ann, res = hosted(client, seats=OPEN3, players=3)
    tid = res["table"]["id"]
    names = count()
    people = {}

    def bob():
        """A seated cookie player (a new one after an accepted logout or leave)."""
        c = people.get("bob")
        if c is None or c.get("/api/me").json()["player"] is None:  # logged out: the host frees his seat
            for seat in snapshot(client, tid)["seats"][1:]:
                if seat["player"] is not None:
                    assert ann.post(f"/api/tables/{tid}/kick", json={"seat": seat["seat"]}).status_code == 200
            c = people["bob"] = named(client, f"Bob{next(names)}", host="203.0.113.43")
        got = c.get(f"/api/tables/{tid}/seat")
        if got.status_code != 200:
            got = c.post(f"/api/tables/{tid}/join", json={})
            assert got.status_code == 200, got.text
        return c, got.json()["token"]

    @FUZZ
    @given(method=st.sampled_from(["POST", "PUT", "PATCH", "DELETE", "GET"]),
           what=st.sampled_from(["leave", "logout", "create", "join", "action", "me"]),
           origin=ORIGIN_VALUES, referer=ORIGIN_VALUES, host=HOST_VALUES)
    def check(method, what, origin, referer, host):
        c, token = bob()
        path, body = {
            "leave": (f"/api/tables/{tid}/leave", None),
            "logout": ("/api/account/logout", None),
            "create": ("/api/tables", {"game": "toy", "players": 2}),
            "join": (f"/api/tables/{tid}/join", {}),
            "action": (f"/api/tables/{tid}/actions", {"version": 0, "action": {"type": "pick", "n": 1}}),
            "me": ("/api/me", {"name": "Mallory"}),
        }[what]
        headers = {"X-Seat-Token": token}
        for name, value in (("Origin", origin), ("Referer", referer), ("Host", host)):
            if value is not None:
                headers[name] = value
        before = (snapshot(client, tid), table_count(client), c.get("/api/me").json())
        r = c.request(method, path, headers=headers, json=body)
        assert r.status_code < 500, r.text
        answer = r.json()
        refused = r.status_code == 403 and isinstance(answer, dict) and answer.get("error") == "bad_origin"
        if refused:
            assert "set-cookie" not in r.headers
            assert (snapshot(client, tid), table_count(client), c.get("/api/me").json()) == before
        claimed = origin if origin is not None else referer
        if method == "GET" or claimed is None or (claimed == SITE and host is None):
            assert not refused, r.text  # reading, a program, or the site's own page
        if method != "GET" and claimed in (EVIL, "null") and host in (None, "testserver", "testserver:80"):
            assert refused, r.text

    check()
    assert ann.get(f"/api/tables/{tid}").status_code == 200


# -- 3. nesting ------------------------------------------------------------------------------
@pytest.fixture
def roomy_client(db_url, toy_registered):
    """Bodies up to 1 MiB: a body nested 100,000 deep fits."""
    limits = dataclasses.replace(Limits.relaxed(), max_body=1 << 20)
    with TestClient(create_app(db_url, bot_delay=0.0, limits=limits)) as c:
        yield c


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [33, 200, 500, 1000, 100_000])
def test_every_body_nested_too_deeply_is_a_400_whatever_the_depth(roomy_client, depth):
    c = roomy_client
    tid = c.post("/api/tables", json={"game": "toy", "players": 2,
                                      "seats": [{"kind": "human"}, {"kind": "human"}]}).json()["table"]["id"]
    tables, before = table_count(c), snapshot(c, tid)
    bodies = {
        # the whole body counts: its own object is the first level
        "/api/tables": '{"game": "toy", "players": 2, "options": {"x": %s}}' % nested(depth - 2),
        f"/api/tables/{tid}/actions": '{"version": 0, "action": {"type": "pick", "n": %s}}' % nested(depth - 2),
        f"/api/tables/{tid}/join": nested(depth),
        "/api/me": '{"name": %s}' % nested(depth - 1),
    }
    for path, body in bodies.items():
        for content_type in ("application/json", None):
            headers = {"Content-Type": content_type} if content_type else {}
            r = c.post(path, content=body.encode(), headers=headers)
            assert r.status_code == 400, (path, r.status_code, r.text[:200])
            assert r.json() == {"error": "malformed",
                                "detail": "The request body nests deeper than 32 levels."}
    # UTF-16, which a JSON parser also reads
    r = c.post("/api/tables", content=bodies["/api/tables"].encode("utf-16"),
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "malformed"
    assert table_count(c) == tables and snapshot(c, tid) == before


def test_nesting_of_32_is_accepted_and_brackets_in_strings_do_not_count(client):
    res = client.post("/api/tables", json={"game": "toy", "players": 2,
                                           "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    action = {"type": "pick", "n": json.loads(nested(30))}  # the body: 1 + 1 + 30 levels
    r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                    json={"version": 0, "action": action})
    assert r.status_code == 409 and r.json()["error"] == "illegal", r.text  # read, and not a legal move
    r = client.post("/api/tables", json={"game": "toy", "players": 2, "options": {"x": json.loads(nested(30))}})
    assert r.status_code == 422 and r.json()["error"] == "bad_options", r.text
    # brackets in text are text, escaped quotes included
    r = client.post("/api/tables", json={"game": "toy", "players": 2,
                                         "seats": [{"kind": "human", "name": '\\"' + "[{" * 500},
                                                   {"kind": "human", "name": "]" * 10}]})
    assert r.status_code == 201 and r.json()["seats"][0]["name"].startswith('\\"[{')


def test_a_deep_body_over_the_size_cap_is_refused_for_its_size(client):
    r = client.post("/api/tables", content=nested(100_000).encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "body_too_large"


# -- 4. a real server: request lines, handshakes, invalid UTF-8 --------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`gemtable serve` with an operator's extra origin, and its log."""
    folder = tmp_path_factory.mktemp("edge")
    port, log = free_port(), folder / "serve.log"
    cmd = [str(GEMTABLE), "serve", "--port", str(port), "--db", f"sqlite:///{folder / 'db.sqlite3'}",
           "--bot-delay", "0", "--allowed-origin", "https://games.example.org"]
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_serving(proc, port, log)
        url = f"http://127.0.0.1:{port}"
        res = httpx.post(f"{url}/api/tables", json={"game": "splendor", "players": 2,
                                                     "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
        yield {"port": port, "url": url, "log": log, "table": res["table"]["id"], "token": res["seats"][0]["token"]}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def raw_exchange(port: int, request: bytes, pieces: int = 1) -> bytes:
    """Send ``request`` (in ``pieces`` writes, a moment apart) and read until the server closes
    or a head has come back."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        step = -(-len(request) // pieces)
        try:
            for i in range(0, len(request), step):
                sock.sendall(request[i:i + step])
                if pieces > 1:
                    time.sleep(0.005)
        except OSError:
            pass  # the server answered and closed before the rest was sent
        out = b""
        try:
            while b"\r\n\r\n" not in out or (b" 101 " not in out.split(b"\r\n", 1)[0] and not out.endswith(b"}")):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                out += chunk
        except OSError:
            pass
        return out


def upgrade(path: str, host: str = "127.0.0.1", origin: str | None = None) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: gemtable"]
    if origin:
        lines.append(f"Origin: {origin}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def status_of(answer: bytes) -> int | None:
    first = answer.split(b"\r\n", 1)[0].split()
    return int(first[1]) if len(first) >= 2 and first[1].isdigit() else None


@pytest.mark.parametrize("pieces", [1, 40], ids=["whole", "in-pieces"])
def test_a_100_kb_request_line_is_a_414_over_http_and_websocket(served, pieces):
    port, tid = served["port"], served["table"]
    long_query = "?" + "a" * 100_000
    answer = raw_exchange(port, f"GET /api/games{long_query} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), pieces)
    assert status_of(answer) == 414, answer[:300]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "uri_too_long"
    answer = raw_exchange(port, upgrade(f"/ws/tables/{tid}{long_query}"), pieces)
    assert status_of(answer) == 414, answer[:300]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "uri_too_long"
    # a long address under the cap is served
    assert httpx.get(f"{served['url']}/api/games?x={'a' * 7000}").status_code == 200


def test_a_websocket_handshake_from_a_foreign_page_is_refused_by_a_real_server(served):
    port, tid = served["port"], served["table"]
    own = f"http://127.0.0.1:{port}"
    for origin in (EVIL, "null", f"http://127.0.0.1:{port + 1}"):
        answer = raw_exchange(port, upgrade(f"/ws/tables/{tid}", host=f"127.0.0.1:{port}", origin=origin))
        assert status_of(answer) == 403, answer[:300]
    for origin in (own, None):
        answer = raw_exchange(port, upgrade(f"/ws/tables/{tid}", host=f"127.0.0.1:{port}", origin=origin))
        assert status_of(answer) == 101, answer[:300]


def test_allowed_origin_reaches_the_server_from_the_command_line(served):
    url = served["url"]
    assert httpx.post(f"{url}/api/account/logout", headers={"Origin": "https://games.example.org"}).status_code == 200
    assert httpx.post(f"{url}/api/account/logout", headers={"Origin": url}).status_code == 200
    r = httpx.post(f"{url}/api/account/logout", headers={"Origin": "https://other.example.org"})
    assert r.status_code == 403 and r.json()["error"] == "bad_origin"


def test_a_text_frame_that_is_not_utf8_closes_1007_with_one_quiet_log_line(served):
    from gemtable.measure.rawws import RawSocket

    ws = RawSocket("127.0.0.1", served["port"], f"/ws/tables/{served['table']}", ["gemtable"])
    try:
        assert ws.receive_json()["type"] == "state"
        payload, mask = b"\xff\xfe{\x80}", os.urandom(4)
        ws.sock.sendall(struct.pack("!BB", 0x81, 0x80 | len(payload)) + mask
                        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            opcode, data = ws.receive()
            if opcode == 8:
                break
        assert struct.unpack("!H", data[:2])[0] == 1007
    finally:
        ws.close()
    deadline = time.monotonic() + 5
    while "not valid UTF-8" not in served["log"].read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = served["log"].read_text()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]
    assert log.count("not valid UTF-8") == 1, log[-3000:]


# -- 5. `gemtable serve --workers N` hands the options to every worker ----------------------------
def test_serve_hands_allowed_origins_and_behind_proxy_to_its_workers(monkeypatch):
    import uvicorn.config
    import uvicorn.supervisors
    from typer.testing import CliRunner

    from gemtable.cli.main import app as cli
    from gemtable.server.app import SETTINGS_ENV, Guard, app_from_env

    monkeypatch.setenv(SETTINGS_ENV, "")  # restored after the test (serve sets it)

    class Started:
        def __init__(self, config, sockets):
            for s in sockets:
                s.close()

        def run(self):
            pass

    monkeypatch.setattr(uvicorn.supervisors, "Multiprocess", Started)
    # uvicorn's Config sets logging up on streams that CliRunner closes afterwards: not here
    monkeypatch.setattr(uvicorn.config.Config, "configure_logging", lambda self: None)
    args = ["serve", "--workers", "2", "--db", "postgresql://gt@127.0.0.1:1/none", "--port", str(free_port()),
            "--behind-proxy", "--allowed-origin", "https://games.example.org",
            "--allowed-origin", "https://play.example.org:8443"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    worker = app_from_env()
    assert worker.state.limits.allowed_origins == ("https://games.example.org", "https://play.example.org:8443")
    (guard,) = [m for m in worker.user_middleware if m.cls is Guard]
    assert guard.kwargs["behind_proxy"] is True
    bad = CliRunner().invoke(cli, ["serve", "--allowed-origin", "games.example.org"])
    assert bad.exit_code == 2 and "allowed-origin" in bad.output
