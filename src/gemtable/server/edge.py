"""The server's edge: what is refused before any route sees a request, and the error shape of
every answer (the static files: assets.py and routes/pages.py).

``Guard`` (ASGI middleware) caps request heads and bodies, checks the origin of requests that
change something, and adds the security headers; ``install_error_handlers`` makes every error,
the framework's own included, ``{"error": code, "detail": a sentence for people}``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .closes import CLOSE_FORBIDDEN, CLOSE_MALFORMED, CLOSE_TOO_BIG
from .limits import Limits, body_nests_deeper
from .origins import OriginCheck
from . import language
from .table import Rejected

log = logging.getLogger("gemtable.server")

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; frame-ancestors 'none'"
)

SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # the site's own requests carry its origin, which Guard checks (under "no-referrer" the Fetch
    # standard has a browser send "Origin: null" with them); other sites are told nothing
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class SafeJSONResponse(JSONResponse):
    """JSON with non-ASCII escaped: text that is not valid Unicode can never make a response fail."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def error_response(code: str, detail: str, status: int, headers: dict[str, str] | None = None) -> SafeJSONResponse:
    """Every error the server answers: ``{"error": code, "detail": a sentence for people}``."""
    response = SafeJSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)
    return response


class Guard:
    """ASGI middleware: what is refused before the application sees a request, and security headers.

    In order: a malformed Host header (400), a request target over ``max_target`` (414),
    headers over ``max_headers`` (431), a state-changing request or WebSocket handshake
    from another site's page (403 ``bad_origin``, origins.py), a body over ``max_body``
    (413), a JSON body nested deeper than ``max_depth`` (400 ``malformed``).  A refused
    request reaches no handler, so it changes nothing.  A refused WebSocket handshake is
    closed before it is accepted (uvicorn answers it 403).

    Bodies are read here (at most ``max_body`` bytes) before the application
    sees them, so an oversized body costs no more than the cap.
    """

    def __init__(self, app, limits: Limits, behind_proxy: bool = False) -> None:
        self.app = app
        self.limits = limits
        self.origins = OriginCheck(limits.allowed_origins, behind_proxy=behind_proxy)

    def _head_refusal(self, scope) -> tuple[int, str, str] | None:
        """(status, code, sentence) for a request refused on its request line and headers alone."""
        headers = scope.get("headers") or []
        if self.origins.bad_host(headers):
            return 400, "bad_request", "The Host header is not a valid host name (and port)."
        target = len(scope.get("raw_path") or scope.get("path", "").encode()) + len(scope.get("query_string") or b"")
        if target > self.limits.max_target:
            return 414, "uri_too_long", (f"The address (path and query string) is longer than this server's "
                                         f"limit of {self.limits.max_target // 1024} KiB.")
        size = sum(len(k) + len(v) + 4 for k, v in headers)
        if size > self.limits.max_headers:
            return 431, "headers_too_large", (f"The request headers are larger than this server's limit of "
                                              f"{self.limits.max_headers // 1024} KiB.")
        why = self.origins.refusal(scope)
        if why is not None:
            return 403, "bad_origin", why
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        refused = self._head_refusal(scope)
        if scope["type"] == "websocket":
            if refused is not None:
                return await self._deny_socket(send, *refused)
            scope["gemtable.server_send"] = send  # the server's own send (see abort_connection)
            return await self.app(scope, receive, send)
        if refused is not None:
            return await self._refuse(send, *refused)
        headers = scope.get("headers") or []

        too_big = (413, "body_too_large",
                   f"The request body is larger than this server's limit of {self.limits.max_body // 1024} KiB.")
        json_body = True  # FastAPI reads a body as JSON without a Content-Type, or with a JSON one
        for k, v in headers:
            if k == b"content-length":
                try:
                    if int(v) > self.limits.max_body:
                        return await self._refuse(send, *too_big)
                except ValueError:
                    return await self._refuse(send, 400, "bad_request", "The Content-Length header is not a number.")
            elif k == b"content-type":
                json_body = b"json" in v.lower()
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > self.limits.max_body:
                return await self._refuse(send, *too_big)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        # nesting is counted on the bytes: a parser recursing into [[[[... would fail (or answer
        # differently) at a depth that depends on the parser, not on the server's limit
        if json_body and body and body_nests_deeper(body, self.limits.max_depth):
            return await self._refuse(send, 400, "malformed",
                                      f"The request body nests deeper than {self.limits.max_depth} levels.")
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        path = scope.get("path", "")

        async def secured(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                if (path.startswith("/static/") or path.startswith("/api/")) and b"cache-control" not in have:
                    extra.append((b"cache-control", b"no-cache"))
                message = dict(message, headers=list(message.get("headers", [])) + extra)
            await send(message)

        await self.app(scope, replay, secured)

    @staticmethod
    async def _refuse(send, status: int, code: str, detail: str) -> None:
        body = json.dumps({"error": code, "detail": detail}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close"), *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _deny_socket(send, status: int, code: str, detail: str) -> None:
        """Refuse a WebSocket handshake: closed before it is accepted, which uvicorn answers with
        HTTP 403 and no body.  (uvicorn can send another answer, ASGI's ``websocket.http.response``,
        but then logs an error for every refused handshake.)"""
        close_code = {400: CLOSE_MALFORMED, 403: CLOSE_FORBIDDEN}.get(status, CLOSE_TOO_BIG)
        reason = f"{code}: {detail}".encode("ascii", "replace")[:120].decode()
        await send({"type": "websocket.close", "code": close_code, "reason": reason})


class QuietInvalidText(logging.Filter):
    """uvicorn closes a WebSocket whose client sent a text frame that is not UTF-8 with 1007, as it
    should, but logs it as an ERROR with a traceback: a client's mistake, not the server's.  This
    filter (on the ``uvicorn.error`` logger) turns that record into one INFO line."""

    MESSAGE = "WebSocket closed with 1007: the client sent a text frame that is not valid UTF-8"

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, UnicodeDecodeError) and "UTF-8" in str(record.msg):
            record.msg, record.args = self.MESSAGE, ()
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info = record.exc_text = None
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True

    @classmethod
    def install(cls) -> None:
        logger = logging.getLogger("uvicorn.error")
        if not any(isinstance(f, cls) for f in logger.filters):
            logger.addFilter(cls())


def abort_connection(ws: WebSocket) -> bool:
    """Cut a WebSocket's TCP connection at once (for a peer that stopped reading).

    ASGI has no "abort": this reaches the server protocol behind the server's
    ``send`` callable (kept in the scope by Guard; uvicorn's protocols hold their
    transport there).  Elsewhere it does nothing and the connection is closed by
    the server when the peer goes away.
    """
    send = ws.scope.get("gemtable.server_send")
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is not None and hasattr(transport, "abort"):
        transport.abort()
        return True
    return False


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal and failure answered as ``{"error": code, "detail": sentence}``."""

    @app.exception_handler(Rejected)
    async def _rejected(request: Request, exc: Rejected):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        # a refusal written as a message reads in the reader's language (language.py)
        detail = exc.text(language.of(request)) if exc.localized is not None or exc.rendered else exc.message
        return error_response(exc.code, detail, exc.status, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        problems = []
        for err in exc.errors():
            if err.get("type") == "json_invalid":
                why = (err.get("ctx") or {}).get("error")
                problems.append("The request body is not valid JSON" + (f" ({why})" if why else "") + ".")
                continue
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            msg = str(err.get("msg") or "is not valid").rstrip(".")
            problems.append(f"'{where}': {msg}." if where else f"The request body: {msg}.")
        return error_response("malformed", " ".join(problems) or "The request is malformed.", 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        sentences = {
            400: ("bad_request", "The request is malformed."),
            404: ("not_found", "There is nothing at this address."),
            405: ("method_not_allowed", f"This address does not accept {request.method} requests."),
        }
        code, detail = sentences.get(exc.status_code, ("http_error", "The request was refused."))
        return error_response(code, detail, exc.status_code, getattr(exc, "headers", None))

    @app.exception_handler(RecursionError)
    async def _too_deep(_request: Request, _exc: RecursionError):
        return error_response("malformed", "The request body nests too deeply.", 400)

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception):
        # answered outside the middleware: the security headers are added here
        log.error("internal error", exc_info=exc)
        response = error_response("internal", "The server failed on this request; the failure is logged.", 500)
        for k, v in SECURITY_HEADERS:
            response.headers[k.decode()] = v.decode()
        return response
