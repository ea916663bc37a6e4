"""The table socket's WebSocket protocol (wsserver.py) under a real uvicorn server.

A client offering permessage-deflate (as browsers do) gets deflated messages at zlib level 1
that decode to the same state messages the ASGI path sends.
"""

from __future__ import annotations

import asyncio

import json
import socket
import threading
import time

import pytest
import uvicorn
from websockets.sync.client import connect

from gemtable.server import create_app
from gemtable.server.app import uvicorn_config
from gemtable.server.limits import Limits
from gemtable.server.wsserver import COMPRESS_LEVEL, SERVER_WINDOW_BITS, TableSocketProtocol


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    app = create_app(f"sqlite:///{tmp_path / 'ws.sqlite3'}", bot_delay=0.0, limits=Limits.relaxed())
    srv = uvicorn.Server(uvicorn_config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline and thread.is_alive(), "the test server did not start"
        time.sleep(0.02)
    yield f"127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def _post(base: str, path: str, body: dict) -> dict:
    import httpx

    r = httpx.post(f"http://{base}{path}", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _next_state(ws, version: int) -> dict:
    while True:
        msg = json.loads(ws.recv(timeout=10))
        assert msg["type"] != "error", msg
        if msg["type"] == "state" and msg["version"] >= version:
            return msg


def test_uvicorn_config_serves_websockets_with_the_table_socket_protocol():
    config = uvicorn_config(create_app("sqlite://", limits=Limits.relaxed()))
    config.load()
    assert config.ws_protocol_class is TableSocketProtocol
    loop = asyncio.new_event_loop()  # (its own: another test may have left this thread without one)
    try:
        proto = TableSocketProtocol(config, server_state=type("S", (), {"connections": set(), "tasks": set(),
                                                                        "default_headers": []})(), app_state={},
                                    _loop=loop)
    finally:
        loop.close()
    settings = [f.compress_settings for f in proto.conn.available_extensions]
    assert settings and all(s["level"] == COMPRESS_LEVEL == 1 for s in settings)
    # the whole 32 KB window: a state message still finds the previous one in it
    assert all(f.server_max_window_bits == SERVER_WINDOW_BITS == 15 for f in proto.conn.available_extensions)


def test_deflated_table_socket_plays_a_game(server):
    res = _post(server, "/api/tables", {"game": "splendor", "players": 2,
                                        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bo"}]})
    tid = res["table"]["id"]
    tokens = [s["token"] for s in res["seats"]]
    sockets = [connect(f"ws://{server}/ws/tables/{tid}", subprotocols=["gemtable", f"token.{t}"],
                       compression="deflate") for t in tokens]
    try:
        for ws in sockets:
            offered = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
            assert "permessage-deflate" in offered
            params = dict(p.strip().partition("=")[::2] for p in offered.split(";")[1:])
            assert params.get("server_max_window_bits", "15") == "15"  # (absent: 15, the default)
        states = [_next_state(ws, 0) for ws in sockets]
        for move in range(12):
            mover = states[0]["to_move"][0]
            choice = states[mover]["legal"][move % len(states[mover]["legal"])]
            sockets[mover].send(json.dumps({"type": "action", "action": choice["json"], "version": move}))
            states = [_next_state(ws, move + 1) for ws in sockets]
            for seat, st in enumerate(states):
                assert st["version"] == move + 1 and st["seat"] == seat
                assert bool(st["legal"]) == (seat in st["to_move"])
    finally:
        for ws in sockets:
            ws.close()
