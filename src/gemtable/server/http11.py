"""uvicorn's h11 protocol with clear answers for request heads that are too large.

``Guard`` (app.py) measures a request's target and headers once h11 has parsed
them.  Two cases never reach it:

- a head still arriving when it outgrows h11's buffer
  (``h11_max_incomplete_event_size``, see ``uvicorn_config``): h11 stops, and
  uvicorn would answer a bare 400.  Here the answer is 414 ``uri_too_long``
  when the request line is the part over its cap, else 431 ``headers_too_large``;
- a WebSocket upgrade whose request line is longer than the websockets
  library parses (8 KiB by default): the library would drop the connection
  without an answer.  Here it is answered 414 before the upgrade.

Answers are the server's JSON error shape with its security headers, and the
connection is closed.
"""

from __future__ import annotations

import json
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import Limits

try:  # the longest request line the websockets library reads in a handshake
    from websockets.http11 import MAX_LINE_LENGTH as WS_MAX_LINE
except ImportError:  # pragma: no cover - websockets not installed: uvicorn uses wsproto
    WS_MAX_LINE = None


class GuardedH11Protocol(H11Protocol):
    def _max_target(self) -> int:
        return getattr(self.config, "gemtable_max_target", Limits.max_target)

    def send_400_response(self, msg: str) -> None:
        # h11 refused the request; when its buffer overflowed, the unparsed head is still there
        head, _closed = self.conn.trailing_data
        limit = self.config.h11_max_incomplete_event_size
        if limit is not None and len(head) > limit:
            line, newline, _ = head.partition(b"\n")
            if not newline or len(line.rstrip(b"\r")) > self._max_target() + len(b"GET  HTTP/1.1"):
                return self._refuse(414, "uri_too_long", "The address (path and query string) is longer than "
                                                         f"this server's limit of {self._max_target() // 1024} KiB.")
            return self._refuse(431, "headers_too_large", "The request headers are larger than this server's limit.")
        super().send_400_response(msg)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        line = len(event.method) + len(event.target) + len(b"  HTTP/1.1")
        if len(event.target) > self._max_target() or (WS_MAX_LINE is not None and line > WS_MAX_LINE):
            self._refuse(414, "uri_too_long", "The address (path and query string) is longer than this "
                                              "server's limit for a WebSocket.")
            return
        super().handle_websocket_upgrade(event)

    def _refuse(self, status: int, code: str, detail: str) -> None:
        from .edge import SECURITY_HEADERS

        body = json.dumps({"error": code, "detail": detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), *SECURITY_HEADERS]
        try:
            for event in (h11.Response(status_code=status, headers=headers, reason=HTTPStatus(status).phrase.encode()),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # h11 cannot answer in this state: the connection just closes
            pass
        self.transport.close()
