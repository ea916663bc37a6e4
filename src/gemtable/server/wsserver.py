"""uvicorn's WebSocket protocol (websockets' sans-I/O implementation) tuned for the table socket.

Two changes, both on the per-move hot path, none in what a client receives:

- permessage-deflate at zlib level 1 (``COMPRESS_LEVEL``) instead of zlib's default 6.  A
  Splendor state message (3-7 KB of JSON, each much like the last one the socket was sent, which
  the shared compression window makes cheap) deflates about three times faster at level 1 and
  comes out about a quarter larger (under 1 KB either way).  Browsers decompress either the same.
- ``write_text_now``: a text message framed and written to the transport at once, from the
  code that has it (``hub.Subscriber.push``), when ASGI's ``websocket.send`` would not have
  waited either.  The ASGI path (a writer task per connection, Starlette's WebSocket and every
  middleware's ``send`` wrapper) stays for everything else: a socket whose transport asked
  to pause writing, closing, the handshake.

Used through ``uvicorn_config`` (app.py); the application works the same on any other ASGI
server, where ``direct_writer`` finds no protocol of this class and every message takes the
ASGI path.
"""

from __future__ import annotations

from typing import Any, Callable

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

COMPRESS_LEVEL = 1  # zlib's level for permessage-deflate (1 fastest .. 9 smallest)


class TableSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with a faster deflate level and a direct write."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for factory in self.conn.available_extensions or ():
            if isinstance(factory, ServerPerMessageDeflateFactory):
                factory.compress_settings = {**(factory.compress_settings or {}), "level": COMPRESS_LEVEL}

    def write_text_now(self, text: str) -> bool:
        """Frame ``text`` and hand it to the transport now; False (nothing sent) when ASGI's
        ``websocket.send`` would have waited or refused: the transport paused writing (the
        peer reads slowly), the handshake is not done, a close was sent or the peer left.
        Raises what the framing raises (the connection's state forbids sending)."""
        if (self.disconnected or self.close_sent or not self.handshake_complete
                or self.initial_response is not None or not self.writable.is_set()):
            return False
        self.conn.send_text(text.encode())
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


def direct_writer(scope: dict[str, Any]) -> Callable[[str], bool] | None:
    """The connection's ``write_text_now`` when the server behind ``scope`` is this protocol
    (its ``send`` is kept in the scope by ``edge.Guard``), else None."""
    proto = getattr(scope.get("gemtable.server_send"), "__self__", None)
    return proto.write_text_now if isinstance(proto, TableSocketProtocol) else None
