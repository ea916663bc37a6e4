"""uvicorn's WebSocket protocol (websockets' sans-I/O implementation) tuned for the table socket.

On the per-move hot path, and nothing in what a client receives:

- permessage-deflate at zlib level 1 (``COMPRESS_LEVEL``) instead of zlib's default 6.  A
  Splendor state message (3-7 KB of JSON, each much like the last one the socket was sent, which
  the shared compression window makes cheap) deflates about three times faster at level 1 and
  comes out about a quarter larger (under 1 KB either way).  Browsers decompress either the same.

Used through ``uvicorn_config`` (app.py); the application works the same on any other ASGI
server.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

COMPRESS_LEVEL = 1  # zlib's level for permessage-deflate (1 fastest .. 9 smallest)


class TableSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with a faster deflate level."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for factory in self.conn.available_extensions or ():
            if isinstance(factory, ServerPerMessageDeflateFactory):
                factory.compress_settings = {**(factory.compress_settings or {}), "level": COMPRESS_LEVEL}
