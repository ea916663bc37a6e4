"""What the routes depend on (FastAPI ``Depends``): the table manager, the players' identity,
the limits, the client's address and seat token, and the seat a token opens.

Each is read from the application's state, set up by ``create_app``: a route names what it
needs as a parameter, and no route reaches into another module's internals for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from gemtable.core import i18n
from .limits import Limits, RateLimiter
from .table import LiveTable, Rejected
from .tables import TableManager

if TYPE_CHECKING:  # pragma: no cover
    from .inplay import InPlay
    from .players import Identity

TOKEN_IN_URL = ("Seat tokens are not accepted in URLs (they end up in logs): send the token in the "
                "X-Seat-Token or Authorization: Bearer header, or as the WebSocket subprotocol token.<token>.")


def get_manager(conn: HTTPConnection) -> TableManager:
    """The live tables of this worker."""
    return conn.app.state.manager


def get_identity(conn: HTTPConnection) -> Identity:
    """Players, sessions and login limits (players.py)."""
    return conn.app.state.identity


def get_inplay(conn: HTTPConnection) -> InPlay:
    """Clocks, chat, undo and rematch (inplay.py)."""
    return conn.app.state.inplay


def get_limits(conn: HTTPConnection) -> Limits:
    return conn.app.state.limits


def client_address(conn: HTTPConnection) -> str:
    return conn.client.host if conn.client else "unknown"


def header_token(conn: HTTPConnection) -> str | None:
    """A seat token from ``X-Seat-Token`` or ``Authorization: Bearer …``."""
    token = conn.headers.get("x-seat-token")
    if token:
        return token
    auth = conn.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def no_token_in_url(conn: HTTPConnection) -> None:
    """Refuse a seat token in the query string (400 ``token_in_url``)."""
    if "token" in conn.query_params:
        raise Rejected("token_in_url", TOKEN_IN_URL, 400)


NEW_TABLES = i18n.mark("Too many new tables from your address: try again in {wait} s.")


def too_many(limiter: RateLimiter, key: str, what: str) -> Rejected:
    """The refusal (429) for an empty bucket: ``what`` is a marked text with the field {wait}."""
    wait = limiter.bucket(key).retry_after()
    return Rejected("rate_limited", i18n.msg(what, wait=wait), 429,
                    retry_after=wait)


async def seat_of(conn: HTTPConnection, table_id: str, token: str | None) -> tuple[LiveTable, int | None]:
    """The table and the seat ``token`` opens there (None without a token: a spectator).

    A wrong token is answered 403 ``bad_token``; an address that sent too many of them is
    answered 429 for a while (``Limits.auth_fail_rate``), whatever it sends.
    """
    table = await get_manager(conn).get(table_id)
    if token is None or token == "":
        return table, None
    limiter: RateLimiter = conn.app.state.auth_limiter
    address = client_address(conn)
    if limiter.bucket(address).empty():
        raise too_many(limiter, address, i18n.mark("Too many refused tokens from your address: try again in {wait} s."))
    seat = table.seat_for_token(token)
    if seat is None:
        limiter.bucket(address).take()
        raise Rejected("bad_token", i18n.msg("That seat token is not valid for this table."), 403)
    return table, seat.seat
