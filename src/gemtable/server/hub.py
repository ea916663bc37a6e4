"""The subscriber hub: the connections at a table and what they are sent.

Nothing here awaits a socket: each connection (``Subscriber``) has a bounded queue of
messages, already encoded, that its own writer task sends out; a connection that falls
behind is dropped.  ``broadcast`` sends every connection its own view after a change.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Callable

import orjson

from .closes import CLOSE_SEAT_LOST, CLOSE_SLOW
from .table import SEAT_LOST

if TYPE_CHECKING:  # pragma: no cover
    from .table import LiveTable


def encode_message(msg: dict[str, Any]) -> str:
    """A WebSocket message as compact JSON text (orjson: a few times faster than the standard
    library on the per-move hot path; keys that are not strings become strings, as ``json`` does).

    What orjson refuses and the standard library writes (a lone surrogate, an integer beyond 64
    bits) goes through the standard library, so no message a table could send before is lost.
    """
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(msg, separators=(",", ":"))


_END = "\x00end"  # queued by ``Subscriber.end``: the writer closes the connection when it gets there


class Subscriber:
    """One open WebSocket: the seat it plays (None: spectator) and what it was sent.

    Messages go into a bounded queue, already encoded as JSON text, that the
    connection's writer task sends out; ``push`` never waits.  (Queued as text,
    a message waiting for its socket is one string, not hundreds of dicts and
    lists for the garbage collector to scan again and again under load.)  A
    connection whose queue is full, or whose
    socket takes longer than ``send_timeout`` to accept a frame, is a slow
    reader: it is dropped (``on_drop`` closes it with CLOSE_SLOW) so that it
    can never hold up the table or anyone else's messages.
    """

    def __init__(self, seat: int | None, send: Callable[[str], Any], queue_size: int = 32,
                 send_timeout: float = 10.0, on_drop: Callable[[int, str], Any] | None = None,
                 token: str | None = None) -> None:
        self.seat = seat
        # the seat token this connection was granted its seat with: it plays the seat only while
        # the seat still has that token (``LiveTable.holds``)
        self.token = token
        self.ending: tuple[int, str] | None = None  # closing once what is queued went out (``end``)
        self.send = send  # async callable writing one message (JSON text) to the socket
        self.sent_version = -1
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=queue_size)
        self.send_timeout = send_timeout
        self.on_drop = on_drop
        self.dropped: tuple[int, str] | None = None
        self.address = ""  # the client's address (a spectator's chat allowance is per address)
        # the player whose browser opened it (its cookie; None: no player): a spectator is known
        # by it alone (a ban closes the banned player's spectator sockets too)
        self.player: str | None = None
        self.writer: asyncio.Task | None = None

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def push(self, msg: dict[str, Any] | str) -> bool:
        """Queue ``msg`` (a message, or one already encoded by ``encode_message`` when several
        subscribers get the same one).  False when this subscriber is (now) dropped."""
        if self.dropped is not None or self.ending is not None:
            return False
        try:
            self.queue.put_nowait(msg if isinstance(msg, str) else encode_message(msg))
            return True
        except asyncio.QueueFull:
            self.drop(CLOSE_SLOW, "too slow reading: messages piled up")
            return False

    async def _write(self) -> None:
        try:
            while self.dropped is None:
                msg = await self.queue.get()
                if msg is _END:
                    self.drop(*self.ending)
                    return
                try:
                    async with asyncio.timeout(self.send_timeout):  # no task per message (wait_for makes one)
                        await self.send(msg)
                except TimeoutError:
                    self.drop(CLOSE_SLOW, "too slow reading: a message could not be delivered")
                    return
                except Exception:  # the socket went away
                    self.drop(1001, "connection lost")
                    return
        except asyncio.CancelledError:
            pass

    def end(self, code: int, reason: str, last: dict[str, Any] | None = None) -> None:
        """Close with ``code`` once the messages already queued (and ``last``) went out; nothing
        pushed from now on is sent.  Dropped at once when the queue has no room left."""
        if self.dropped is not None or self.ending is not None:
            return
        if last is not None:
            self.push(last)
        self.ending = (code, reason)
        try:
            self.queue.put_nowait(_END)
        except asyncio.QueueFull:
            self.drop(code, reason)
            return
        if self.writer is None:  # never started: nothing will write the queue out
            self.drop(code, reason)

    def drop(self, code: int, reason: str) -> None:
        if self.dropped is not None:
            return
        self.dropped = (code, reason)
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()
        if self.on_drop is not None:
            self.on_drop(code, reason)

    async def stop(self) -> None:
        """Let the queued messages go out, a little while at most, then stop the writer."""
        if self.writer is None:
            return
        if self.dropped is None and not self.queue.empty():
            try:
                await asyncio.wait_for(self._drain(), 1.0)
            except asyncio.TimeoutError:
                pass
        self.writer.cancel()
        try:
            await self.writer
        except (asyncio.CancelledError, Exception):
            pass

    async def _drain(self) -> None:
        while not self.queue.empty() and self.dropped is None:
            await asyncio.sleep(0.01)


def broadcast(table: LiveTable) -> None:
    """Every subscriber its own view: the public summary is built once, and spectators who
    saw the same version share one message (what they are sent is the same)."""
    if not table.subscribers:
        return
    summary = table.summary()
    shared: dict[int, str] = {}  # spectators' messages (encoded once) by the version they saw
    for sub in list(table.subscribers):
        if not table.holds(sub):
            revoke(table, sub)
        elif sub.seat is None:
            msg = shared.get(sub.sent_version)
            if msg is None:
                msg = shared[sub.sent_version] = encode_message(table.payload(None, sub.sent_version, summary))
            _push_state(table, sub, msg)
        else:
            _push_state(table, sub, table.payload(sub.seat, sub.sent_version, summary))

def send_state(table: LiveTable, sub: Subscriber) -> None:
    if not table.holds(sub):
        revoke(table, sub)
        return
    _push_state(table, sub, table.payload(sub.seat, sub.sent_version))

def revoke(table: LiveTable, sub: Subscriber) -> None:
    """End a connection whose seat is no longer its holder's: it gets an ``error``
    (``seat_lost``) and is closed with CLOSE_SEAT_LOST; from now on it is sent nothing.

    Called wherever a seat connection is about to be sent something or to act, so a seat
    change made here or at another worker (caught up from its notice) ends the old
    holder's connections before anything of the seat reaches them."""
    table.subscribers.discard(sub)
    sub.end(CLOSE_SEAT_LOST, "this seat is no longer yours",
            {"type": "error", "code": "seat_lost", "message": SEAT_LOST, "version": table.version})

def _push_state(table: LiveTable, sub: Subscriber, msg: dict[str, Any] | str) -> None:
    sub.sent_version = table.version
    if not sub.push(msg):
        table.subscribers.discard(sub)

def broadcast_presence(table: LiveTable, exclude: Subscriber | None = None) -> None:
    if not any(other is not exclude for other in table.subscribers):
        return
    msg = encode_message({"type": "presence", "table": table.summary()})
    for other in list(table.subscribers):
        if other is exclude:
            continue
        if not table.holds(other):
            revoke(table, other)
        elif not other.push(msg):
            table.subscribers.discard(other)


def push_all(table: LiveTable, msg: dict[str, Any], skip: set[int] | frozenset[int] = frozenset()) -> None:
    """The same message to every connection at the table (encoded once), but those of the seats
    in ``skip``."""
    text = encode_message(msg)
    for sub in list(table.subscribers):
        if skip and sub.seat in skip:
            continue
        if not table.holds(sub):
            revoke(table, sub)
        elif not sub.push(text):
            table.subscribers.discard(sub)
