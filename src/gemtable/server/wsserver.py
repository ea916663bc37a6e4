"""uvicorn's WebSocket protocol (websockets' sans-I/O implementation) tuned for the table socket.

On the per-move hot path, and nothing in what a client receives:

- permessage-deflate at zlib level 1 (``COMPRESS_LEVEL``) instead of zlib's default 6.  A
  Splendor state message (3-7 KB of JSON, each much like the last one the socket was sent, which
  the shared compression window makes cheap) deflates about three times faster at level 1 and
  comes out about a quarter larger.  Browsers decompress either the same.
- a 32 KB compression window (``SERVER_WINDOW_BITS`` = 15, zlib's and the browsers' default) instead
  of uvicorn's 4 KB.  A state message (about 5 KB) then still has the last one the socket was sent
  in its window, so it comes out about a third the size (Splendor, 2 players: 320 bytes instead of
  970) and deflates in two thirds of the time.  The price is memory: about 144 KB of compressor
  state per socket instead of 32 KB (``memLevel`` 5, as uvicorn sets it).

Used through ``uvicorn_config`` (app.py); the application works the same on any other ASGI
server.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

COMPRESS_LEVEL = 1  # zlib's level for permessage-deflate (1 fastest .. 9 smallest)
SERVER_WINDOW_BITS = 15  # the server's deflate window, 2**15 bytes (a client may ask for less)


class TableSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with a faster deflate level and a wider window."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for factory in self.conn.available_extensions or ():
            if isinstance(factory, ServerPerMessageDeflateFactory):
                factory.compress_settings = {**(factory.compress_settings or {}), "level": COMPRESS_LEVEL}
                factory.server_max_window_bits = SERVER_WINDOW_BITS
