from __future__ import annotations

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
