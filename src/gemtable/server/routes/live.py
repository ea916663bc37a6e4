"""The table WebSocket: one connection per open seat (or spectator); docs/websocket.md.

The seat token comes as the subprotocol ``token.<token>`` (what the browser shell does) or in
a header, never in the URL.  Each connection has its own bounded send queue (``Subscriber``),
its own message rate limit, and is closed as soon as its seat is no longer its holder's.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from .. import inplay, lobby
from ..closes import CLOSE_FORBIDDEN, CLOSE_GONE, CLOSE_MALFORMED, CLOSE_NOT_FOUND, CLOSE_RATE, CLOSE_TOO_BIG
from ..deps import TOKEN_IN_URL, client_address, get_identity, get_inplay, get_limits, get_manager, header_token, seat_of
from ..edge import abort_connection
from ..moderation import CLOSE_BANNED
from ..limits import TokenBucket, depth_exceeds, parse_message, shown
from ..hub import Subscriber
from ..table import LiveTable, Rejected
from ..tables import TableManager

router = APIRouter()


async def close_socket(ws: WebSocket, code: int, reason: str) -> None:
    try:
        await asyncio.wait_for(ws.close(code=code, reason=reason[:120]), 2.0)
    except asyncio.TimeoutError:
        abort_connection(ws)  # the peer does not read: not even a close frame gets through
    except Exception:  # already gone
        pass

@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str):
    manager = get_manager(ws)
    limits = get_limits(ws)
    identity = get_identity(ws)
    # The token comes as the subprotocol "token.<token>" (what the browser shell does)
    # or in a header; never in the URL, which ends up in access logs.
    offered = list(ws.scope.get("subprotocols") or [])
    token = next((p[len("token."):] for p in offered if p.startswith("token.")), None) or header_token(ws)
    await ws.accept(subprotocol="gemtable" if "gemtable" in offered else None)

    async def refuse(code: str, message: str, close_code: int) -> None:
        try:
            await asyncio.wait_for(ws.send_text(json.dumps({"type": "error", "code": code, "message": message})), 2.0)
        except Exception:
            pass
        await close_socket(ws, close_code, message)

    if "token" in ws.query_params:
        await refuse("token_in_url", TOKEN_IN_URL, CLOSE_MALFORMED)
        return
    try:
        table, seat = await seat_of(ws, table_id, token)
    except Rejected as exc:
        code = {"bad_token": CLOSE_FORBIDDEN, "no_table": CLOSE_NOT_FOUND,
                "rate_limited": CLOSE_RATE}.get(exc.code, CLOSE_GONE)
        await refuse(exc.code, exc.message, code)
        return
    moderation = getattr(ws.app.state, "moderation", None)
    banned = None if moderation is None else await moderation.seat_banned(table, seat)
    if banned is not None:  # a banned player's seat
        await refuse(banned.code, banned.message, CLOSE_BANNED)
        return

    reader = asyncio.current_task()
    receiving = woken = False  # waiting for the client's next message; that wait cancelled by a drop

    def on_drop(_code: int, _reason: str) -> None:
        """A slow reader was dropped (its writer gave up, or its queue overflowed): a reader
        waiting for the client's next message stops waiting; one busy with a message stops
        after it (``sub.dropped`` is looked at before every wait)."""
        nonlocal woken
        if receiving and not woken and reader is not None:
            woken = True
            reader.cancel()

    async def send(text: str) -> None:
        await ws.send_text(text)

    sub = Subscriber(seat, send, queue_size=limits.send_queue, send_timeout=limits.send_timeout,
                     on_drop=on_drop, token=token if seat is not None else None)
    sub.address = client_address(ws)  # chat rate limits of spectators (inplay.py)
    sub.player = await identity.player_id(ws)  # (a ban closes the player's sockets: moderation.py)
    sub.start()
    if seat is not None:
        await manager.mark_joined(table, table.seats[seat])
        # an invite seat opened by a browser with a player: the seat joins that player's games
        await lobby.bind_seat(manager, table, seat, sub.player)
    table = manager.subscribe(table, sub)  # (the copy this worker follows)
    bucket = TokenBucket(limits.ws_rate, limits.ws_burst)
    close: tuple[int, str] | None = None
    try:
        while close is None and sub.dropped is None:  # dropped: sub.dropped holds the close code
            receiving = True
            try:
                msg = await ws.receive()  # (no task per message: a drop cancels this wait)
            except asyncio.CancelledError:
                if woken and reader is not None and reader.uncancel() == 0:
                    break  # cancelled by on_drop alone
                raise  # the server is stopping
            finally:
                receiving = False
            if msg["type"] == "websocket.disconnect":
                break
            if not bucket.take():
                close = (CLOSE_RATE, f"too many messages: at most {limits.ws_rate:g} a second")
                break
            text = msg.get("text")
            if text is None:
                close = (CLOSE_MALFORMED, "send JSON text frames, not binary")
                break
            if len(text) > limits.max_message:
                close = (CLOSE_TOO_BIG, "message too large")
                break
            try:
                data = parse_message(text)
            except RecursionError:
                close = (CLOSE_MALFORMED, f"message nests deeper than {limits.max_depth} levels")
                break
            except ValueError:
                close = (CLOSE_MALFORMED, "message is not valid JSON")
                break
            if depth_exceeds(data, limits.max_depth):
                close = (CLOSE_MALFORMED, f"message nests deeper than {limits.max_depth} levels")
                break
            if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                close = (CLOSE_MALFORMED, "a message must be a JSON object with a 'type'")
                break
            await handle(manager, get_inplay(ws), table, sub, data)
    except WebSocketDisconnect:
        pass
    finally:
        manager.unsubscribe(table, sub)
        if sub.dropped is not None and close is None:
            close = sub.dropped
        if close is None:
            await sub.stop()  # let what is queued go out
        else:
            sub.drop(*close)
            await sub.stop()
            await close_socket(ws, *close)

async def handle(manager: TableManager, play: inplay.InPlay, table: LiveTable, sub: Subscriber,
                 data: dict[str, Any]) -> None:
    """One message of a connection (docs/websocket.md, "Client → server")."""
    if not table.holds(sub):  # the seat changed hands since this connection opened
        manager.revoke(table, sub)
        return
    kind = data["type"]
    if kind == "ping":
        sub.push({"type": "pong", "version": table.version})
    elif kind == "refresh":
        sub.sent_version = -1
        manager.send_state(table, sub)
    elif kind == "action":
        if sub.seat is None:
            sub.push({"type": "error", "code": "spectator",
                      "message": "Spectators cannot act: open the table with a seat's invite link."})
            return
        if "action" not in data or "version" not in data:
            sub.push({"type": "error", "code": "malformed",
                      "message": "An action message needs 'action' (the action's JSON) and 'version'."})
            return
        try:
            await manager.submit(table, sub.seat, data["action"], data["version"], token=sub.token)
        except Rejected as exc:
            if exc.code == "seat_lost":
                manager.revoke(table, sub)
                return
            sub.push({"type": "error", "code": exc.code, "message": exc.message, "version": table.version})
            if exc.code == "stale":
                manager.send_state(table, sub)
    elif kind in inplay.MESSAGES:  # chat, undo, take_seat, mute_spectators (inplay.py)
        await play.handle(table, sub, data)
    else:
        sub.push({"type": "error", "code": "malformed",
                  "message": f"Unknown message type {shown(kind)} (use 'action', 'ping', 'refresh', 'chat', "
                             "'undo', 'take_seat' or 'mute_spectators')."})
