"""The FastAPI application: REST lobby/API, the WebSocket hub and the static shell.

REST is documented by FastAPI at /docs (OpenAPI at /openapi.json); the
WebSocket messages are described in docs/websocket.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
from pathlib import Path, PurePosixPath
from typing import Any

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from gemtable.core.registry import all_games, get_game

from . import inplay, lobby, players, ratings
from .db import Database
from .limits import (
    Limits,
    RateLimiter,
    TokenBucket,
    body_nests_deeper,
    depth_exceeds,
    parse_message,
    shown,
)
from .origins import OriginCheck
from .tables import LiveTable, Rejected, Subscriber, TableManager

log = logging.getLogger("gemtable.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; frame-ancestors 'none'"
)

# WebSocket close codes (4000-4999 are ours; see docs/websocket.md)
CLOSE_MALFORMED = 4400
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_GONE = 4410
CLOSE_SLOW = 4408
CLOSE_RATE = 4429
CLOSE_TOO_BIG = 1009

SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # the site's own requests carry its origin, which Guard checks (under "no-referrer" the Fetch
    # standard has a browser send "Origin: null" with them); other sites are told nothing
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
STATIC_TYPES = {".js", ".css", ".svg", ".html", ".png", ".ico", ".woff2", ".json"}


# -- request/response models (OpenAPI) -----------------------------------------------
class SeatSpec(BaseModel):
    kind: str = Field("human", description="'human' (gets a secret invite link), 'bot', 'open' (anyone may "
                                           "join from the lobby; the table waits) or 'me' (the creator's seat, "
                                           "bound to their player cookie)")
    bot: str | None = Field(None, description="bot level (a name from GET /api/bots 'levels': easy, medium, "
                                              "hard, expert) or spec ('random', 'mcts:iterations=200')")
    name: str | None = Field(None, description="seat name shown in the log (max 24 characters)")


class CreateTable(BaseModel):
    game: str = Field(..., description="game id, see GET /api/games")
    players: int = Field(..., description="number of players")
    options: dict[str, Any] = Field(default_factory=dict, description="game options by name")
    seats: list[SeatSpec] | None = Field(None, description="one entry per seat; default: you plus easy bots")
    seed: int | None = Field(None, description="optional seed (never shown while the game runs); a table "
                                               "with a chosen seed tells every seat that its creator fixed the deal")
    private: bool = Field(False, description="not listed in the lobby: invite links (and the table's address) only")
    clock: dict[str, Any] | None = Field(None, description="time control: {\"mode\": \"none\"}, {\"mode\": \"realtime\", "
                                                           "\"base\": s, \"increment\": s} or {\"mode\": \"turn\", "
                                                           "\"per_move\": s}")


class ActionRequest(BaseModel):
    token: str | None = Field(None, description="the seat's secret token (or the X-Seat-Token / "
                                                "Authorization: Bearer header); never put it in the URL")
    version: int = Field(..., description="the table version ('version' of the state) the action was chosen at")
    action: dict[str, Any] = Field(..., description="the action's JSON, as offered in 'legal'")


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


class SafeStaticFiles(StaticFiles):
    """The web shell's assets only: never Python files, dotfiles or anything else in the folder."""

    async def get_response(self, path: str, scope):
        p = PurePosixPath(path)
        if p.suffix.lower() not in STATIC_TYPES or any(part.startswith((".", "_")) for part in p.parts):
            raise StarletteHTTPException(404)
        return await super().get_response(path, scope)


def client_address(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else "unknown"


def header_token(conn: Request | WebSocket) -> str | None:
    """A seat token from ``X-Seat-Token`` or ``Authorization: Bearer …``."""
    token = conn.headers.get("x-seat-token")
    if token:
        return token
    auth = conn.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


TOKEN_IN_URL = ("Seat tokens are not accepted in URLs (they end up in logs): send the token in the "
                "X-Seat-Token or Authorization: Bearer header, or as the WebSocket subprotocol token.<token>.")


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


def uvicorn_config(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                   limits: Limits | None = None, behind_proxy: bool = False, **kwargs: Any):
    """uvicorn settings with the server's limits (used by `gemtable serve` and the tests).

    h11 rather than httptools: h11 caps the size of a request head that has not
    fully arrived (``h11_max_incomplete_event_size``: the request target's cap plus
    the headers' cap), and ``http11.GuardedH11Protocol`` answers such a head 414 or 431
    instead of h11's bare 400; a head that arrived whole is measured by ``Guard``.
    WebSocket frames are capped by ``ws_max_size``.  Forwarded client addresses are
    trusted only behind a proxy.
    """
    import uvicorn

    limits = limits or getattr(getattr(app, "state", None), "limits", None) or Limits()
    options: dict[str, Any] = dict(
        host=host, port=port, log_level=log_level, http="gemtable.server.http11:GuardedH11Protocol",
        h11_max_incomplete_event_size=limits.max_target + limits.max_headers,
        ws_max_size=limits.max_message, ws_ping_interval=20.0, ws_ping_timeout=20.0,
        proxy_headers=behind_proxy, server_header=False, limit_concurrency=2000, timeout_keep_alive=5,
    )
    if behind_proxy:
        options["forwarded_allow_ips"] = "*" if behind_proxy is True else behind_proxy
    options.update(kwargs)
    config = uvicorn.Config(app, **options)
    config.gemtable_max_target = limits.max_target  # read by GuardedH11Protocol
    return config


SETTINGS_ENV = "GEMTABLE_SERVE_SETTINGS"


def app_from_env() -> FastAPI:
    """The application of one worker of `gemtable serve --workers N` (uvicorn's factory):
    the settings come as JSON in the environment variable GEMTABLE_SERVE_SETTINGS."""
    settings = json.loads(os.environ[SETTINGS_ENV])
    limits = settings.pop("limits", {})
    limits = Limits(**dict(limits, allowed_origins=tuple(limits.get("allowed_origins", ()))))
    return create_app(settings.pop("db_url"), limits=limits, freeze_gc=True, **settings)


# (young, middle, old): how many net new container objects start a young collection, how many young
# collections a middle one, how many middle ones a full one; CPython's default is (700, 10, 10)
SERVER_GC_THRESHOLDS = (3000, 10, 1000)


def server_gc() -> None:
    """Set a server process's garbage collector up for serving (called once it has started).

    What startup made (modules, game data, resumed tables) is moved out of the collector's sight
    (``gc.freeze``), and full collections become rare (``SERVER_GC_THRESHOLDS``): play makes
    almost no reference cycles — under load (500 tables, two workers) the full collections found
    nothing to free, yet each stopped a worker for 100–250 ms, which set the tail latency — and
    what it makes without cycles is freed at once by reference counting.  Cycles are still
    collected, only later.  Young collections run about four times less often than by default
    (each costs a few milliseconds more; fewer of them, measured, gave the shorter tail).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVER_GC_THRESHOLDS)


def create_app(db_url: str | None = None, bot_delay: float = 0.8, limits: Limits | None = None,
               bot_workers: int = 1, freeze_gc: bool = False, behind_proxy: bool = False) -> FastAPI:
    """The server application.  ``freeze_gc`` (a server process of its own, as `gemtable serve`
    starts): once started, the process's garbage collector is set up for serving
    (``server_gc``).  ``behind_proxy``: the site's own origin, which alone may change things
    (origins.py), is the one the proxy forwards (``X-Forwarded-Proto``, ``X-Forwarded-Host``)."""
    holder: dict[str, Any] = {}
    limits = limits or Limits()
    create_limiter = RateLimiter(limits.create_rate, limits.create_burst)
    auth_limiter = RateLimiter(limits.auth_fail_rate, limits.auth_fail_burst)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        QuietInvalidText.install()  # (after the server has set its logging up)
        db = await asyncio.to_thread(Database, db_url)
        manager = TableManager(db, bot_delay=bot_delay, limits=limits, bot_workers=bot_workers)
        app.state.manager = manager
        holder["manager"] = manager
        all_games()
        manager.finish_hooks.append(ratings.finish_hook(manager))
        # several workers (PostgreSQL, bus.py): listen for other workers' changes first; the
        # tables are then taken over through their leases.  One process: resume every table.
        await manager.bus.start(manager)
        if not manager.bus.shared:
            resumed = await manager.resume_all()
            if resumed:
                log.info("resumed %d unfinished tables", resumed)
        rated = await ratings.catch_up(manager)
        if rated:
            log.info("rated %d finished tables", rated)
        manager.start_maintenance()
        if freeze_gc:
            server_gc()
        try:
            yield
        finally:
            await manager.close()
            db.dispose()

    app = FastAPI(
        title="gemtable table server",
        version="1",
        description=(
            "Play gemtable's games in the browser. REST for the lobby, tables, actions and replays; "
            "live play over the WebSocket at /ws/tables/{id} (see docs/websocket.md). "
            "A seat's token grants that seat's view and actions only. Send it in the `X-Seat-Token` "
            "(or `Authorization: Bearer …`) header, in an action's body, or on the WebSocket as the "
            "subprotocol `token.<token>` — never in a URL. The seed of a running game is never sent; "
            "a table whose creator chose the seed says so to every seat (`seed_fixed`).\n\n"
            f"Limits: request bodies up to {limits.max_body // 1024} KiB, headers up to "
            f"{limits.max_headers // 1024} KiB, WebSocket messages up to {limits.max_message // 1024} KiB and "
            f"{limits.ws_rate:g} a second per connection (bursts of {limits.ws_burst}); "
            f"{limits.create_burst} new tables per address, then one every {1 / limits.create_rate:.0f} s; "
            "too many refused tokens from one address are answered 429 with Retry-After. "
            f"Bots think at most {limits.bot_seconds:g} s and {limits.bot_iterations} iterations per move. "
            "Errors are `{\"error\": code, \"detail\": sentence}`."
        ),
        lifespan=lifespan,
        default_response_class=SafeJSONResponse,
        # FastAPI's Swagger UI and ReDoc load their assets from a CDN: we serve our own
        # page at /docs that reads /openapi.json (nothing fetched from the internet).
        docs_url=None,
        redoc_url=None,
    )
    app.state.limits = limits
    OriginCheck(limits.allowed_origins)  # a listed origin that is none fails here (ValueError), not per request
    app.add_middleware(Guard, limits=limits, behind_proxy=bool(behind_proxy))

    def manager() -> TableManager:
        return holder["manager"]

    @app.exception_handler(Rejected)
    async def _rejected(_request: Request, exc: Rejected):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return error_response(exc.code, exc.message, exc.status, headers)

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

    def too_many(limiter: RateLimiter, key: str, what: str) -> Rejected:
        wait = limiter.bucket(key).retry_after()
        return Rejected("rate_limited", f"Too many {what} from your address: try again in {wait} s.", 429,
                        retry_after=wait)

    # -- games -------------------------------------------------------------------
    def renderer_of(game_id: str) -> str | None:
        path = WEB_DIR / "games" / f"{game_id}.js"
        return f"/static/games/{game_id}.js" if path.is_file() else None

    @app.get("/api/games", tags=["games"], summary="Every installed game")
    def list_games() -> list[dict[str, Any]]:
        return [dict(g.describe(), renderer=renderer_of(g.id)) for _, g in sorted(all_games().items())]

    def known_game(game_id: str):
        try:
            return get_game(game_id)
        except KeyError:
            raise Rejected("unknown_game", f"There is no game {shown(game_id)}.", 404) from None

    @app.get("/api/games/{game_id}", tags=["games"],
             summary="One game, with its how-to-play for players (Markdown)")
    def game_info(game_id: str) -> dict[str, Any]:
        # ``rules`` is the players' how-to-play (PLAY.md); the developer notes (RULES.md)
        # stay in the repository and are not served.
        game = known_game(game_id)
        try:
            rules = game.play_text()
        except OSError:
            rules = ""
        return dict(game.describe(), renderer=renderer_of(game.id), rules=rules)

    @app.get("/api/games/{game_id}/sample", tags=["games"],
             summary="The public view of a freshly set-up game (pictures for the how-to-play)")
    def game_sample(game_id: str, players: int | None = None, seed: int = 1) -> dict[str, Any]:
        game = known_game(game_id)
        n = players if players is not None else (2 if 2 in game.player_counts else game.player_counts[0])
        if n not in game.player_counts:
            counts = ", ".join(map(str, game.player_counts))
            raise Rejected("bad_players", f"{game.title} is played by {counts} players, not {n}.", 400)
        state = game.new(n, seed=seed % (2**31))
        return {"game": game.id, "players": n, "view": state.view(None),
                "to_move": list(state.to_move())}

    @app.get("/api/health", tags=["server"], summary="200 {\"ok\": true} when the database answers; else 503",
             responses={503: {"description": "the database does not answer"}})
    async def health():
        if await manager().healthy():
            return SafeJSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})
        return SafeJSONResponse({"ok": False, "error": "database", "detail": "The database does not answer."},
                                status_code=503, headers={"Cache-Control": "no-store"})

    @app.get("/api/bots", tags=["games"],
             summary="Bot levels (easiest first) and kinds a seat can hold; per game, the levels' ratings "
                     "from the bots' round robin (null when the game has none)")
    def list_bots() -> dict[str, Any]:
        from gemtable.analysis.ladder import current_ratings
        from gemtable.bots import BOT_KINDS, LEVELS
        from gemtable.bots.base import _load_all
        from gemtable.core.registry import all_games

        _load_all()
        return {"levels": dict(LEVELS), "kinds": sorted(BOT_KINDS),
                "limits": {"seconds": limits.bot_seconds, "iterations": limits.bot_iterations, **limits.bot_params},
                "ratings": {g.id: current_ratings(g) for g in all_games().values()}}

    # -- tables ------------------------------------------------------------------
    @app.post("/api/tables", tags=["tables"], status_code=201,
              summary="Create a table; returns every human seat's secret invite link",
              responses={429: {"description": "too many tables created from this address (see Retry-After)"}})
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        address = client_address(request)
        if not create_limiter.bucket(address).take():
            raise too_many(create_limiter, address, "new tables")
        seats = None if body.seats is None else [s.model_dump() for s in body.seats]
        player = await identity.current(request)
        seats, setup = lobby.prepare(seats, player, body.private)
        table = await manager().create(body.game, body.players, body.options, seats, body.seed, creator=address,
                                       lobby=setup, clock=body.clock)
        return {
            "table": table.summary(),
            "seats": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot, "open": s.open,
                 # an open seat's token belongs to whoever joins it
                 **({"token": s.token, "invite": f"/table/{table.id}#token={s.token}"}
                    if s.kind == "human" and not s.open else {})}
                for s in table.seats
            ],
            "spectate": f"/table/{table.id}",
        }

    @app.get("/api/tables", tags=["tables"],
             summary="Open, running and finished tables (public summaries)",
             description=f"The {limits.lobby_size} most recently active tables, at most "
                         f"{limits.lobby_per_creator} of any one creator.")
    async def list_tables() -> list[dict[str, Any]]:
        return await manager().list_tables()

    async def seat_of(table_id: str, token: str | None, address: str) -> tuple[LiveTable, int | None]:
        table = await manager().get(table_id)
        if token is None or token == "":
            return table, None
        if auth_limiter.bucket(address).empty():
            raise too_many(auth_limiter, address, "refused tokens")
        seat = table.seat_for_token(token)
        if seat is None:
            auth_limiter.bucket(address).take()
            raise Rejected("bad_token", "That seat token is not valid for this table.", 403)
        return table, seat.seat

    @app.get("/api/tables/{table_id}", tags=["tables"], summary="A table's public summary")
    async def table_info(table_id: str) -> dict[str, Any]:
        return (await manager().get(table_id)).summary()

    @app.get("/api/tables/{table_id}/state", tags=["tables"],
             summary="The view of a seat (token in the X-Seat-Token or Authorization: Bearer header) "
                     "or of a spectator (no token)")
    async def table_state(table_id: str, request: Request,
                          x_seat_token: str | None = Header(None, description="the seat's secret token")) -> dict[str, Any]:
        if "token" in request.query_params:
            raise Rejected("token_in_url", TOKEN_IN_URL, 400)
        table, seat = await seat_of(table_id, header_token(request), client_address(request))
        return table.payload(seat)

    @app.post("/api/tables/{table_id}/actions", tags=["tables"],
              summary="Play an action for the seat whose token is given (body or header)")
    async def play(table_id: str, body: ActionRequest, request: Request,
                   x_seat_token: str | None = Header(None, description="the seat's secret token")) -> dict[str, Any]:
        if "token" in request.query_params:
            raise Rejected("token_in_url", TOKEN_IN_URL, 400)
        token = header_token(request) or body.token
        table, seat = await seat_of(table_id, token, client_address(request))
        if seat is None:
            raise Rejected("no_token", "Only a seat (with its token) can act; spectators cannot.", 403)
        await manager().submit(table, seat, body.action, body.version, token=token)
        return table.payload(seat)

    @app.get("/api/tables/{table_id}/replay", tags=["replays"],
             summary="Every position of a finished game (public views and log)")
    async def replay(table_id: str) -> dict[str, Any]:
        table = await manager().get(table_id)
        return await manager().replay(table)

    @app.get("/api/tables/{table_id}/match", tags=["replays"],
             summary="The match file of a finished game (for `gemtable replay`)")
    async def match_file(table_id: str) -> dict[str, Any]:
        table = await manager().get(table_id)
        if not table.over:
            raise Rejected("running", "The match file is available when the game is over.", 409)
        return table.match.to_json()

    @app.post("/api/tables/{table_id}/rematch", tags=["tables"],
              summary="Start (or find) the rematch of a finished table: same seats, bots, options and clock, "
                      "new deal; for a seat of the table (its token in X-Seat-Token, or the player cookie)")
    async def rematch(table_id: str, request: Request) -> dict[str, Any]:
        if "token" in request.query_params:
            raise Rejected("token_in_url", TOKEN_IN_URL, 400)
        table, seat = await seat_of(table_id, header_token(request), client_address(request))
        if seat is None:
            pid = await identity.player_id(request)
            held = [s.seat for s in table.seats if pid is not None and getattr(s, "player", None) == pid]
            seat = held[0] if held else None
        new = await manager().inplay.rematch(table, seat)
        mine = new.seats[seat]
        return {"table": new.id, "seat": seat, **({"token": mine.token} if mine.kind == "human" else {})}

    # -- players, lobby, ratings (players.py, lobby.py, ratings.py) ---------------------
    identity = players.install(app, manager, limits, client_address)
    lobby.install(app, manager, identity, seat_of, header_token, client_address)
    ratings.install(app, manager, identity)

    # -- WebSocket ---------------------------------------------------------------
    async def close_socket(ws: WebSocket, code: int, reason: str) -> None:
        try:
            await asyncio.wait_for(ws.close(code=code, reason=reason[:120]), 2.0)
        except asyncio.TimeoutError:
            abort_connection(ws)  # the peer does not read: not even a close frame gets through
        except Exception:  # already gone
            pass

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str):
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
            table, seat = await seat_of(table_id, token, client_address(ws))
        except Rejected as exc:
            code = {"bad_token": CLOSE_FORBIDDEN, "no_table": CLOSE_NOT_FOUND,
                    "rate_limited": CLOSE_RATE}.get(exc.code, CLOSE_GONE)
            await refuse(exc.code, exc.message, code)
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
        sub.start()
        if seat is not None:
            await manager().mark_joined(table, table.seats[seat])
            # an invite seat opened by a browser with a player: the seat joins that player's games
            await lobby.bind_seat(manager(), table, seat, await identity.player_id(ws))
        table = manager().subscribe(table, sub)  # (the copy this worker follows)
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
                await handle(table, sub, data)
        except WebSocketDisconnect:
            pass
        finally:
            manager().unsubscribe(table, sub)
            if sub.dropped is not None and close is None:
                close = sub.dropped
            if close is None:
                await sub.stop()  # let what is queued go out
            else:
                sub.drop(*close)
                await sub.stop()
                await close_socket(ws, *close)

    async def handle(table: LiveTable, sub: Subscriber, data: dict[str, Any]) -> None:
        if not table.holds(sub):  # the seat changed hands since this connection opened
            manager().revoke(table, sub)
            return
        kind = data["type"]
        if kind == "ping":
            sub.push({"type": "pong", "version": table.version})
        elif kind == "refresh":
            sub.sent_version = -1
            manager().send_state(table, sub)
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
                await manager().submit(table, sub.seat, data["action"], data["version"], token=sub.token)
            except Rejected as exc:
                if exc.code == "seat_lost":
                    manager().revoke(table, sub)
                    return
                sub.push({"type": "error", "code": exc.code, "message": exc.message, "version": table.version})
                if exc.code == "stale":
                    manager().send_state(table, sub)
        elif kind in inplay.MESSAGES:  # chat, undo, take_seat, mute_spectators (inplay.py)
            await manager().inplay.handle(table, sub, data)
        else:
            sub.push({"type": "error", "code": "malformed",
                      "message": f"Unknown message type {shown(kind)} (use 'action', 'ping', 'refresh', 'chat', "
                                 "'undo', 'take_seat' or 'mute_spectators')."})

    # -- the shell ---------------------------------------------------------------
    app.mount("/static", SafeStaticFiles(directory=WEB_DIR), name="static")

    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    def home():
        return index()

    @app.get("/table/{table_id}", include_in_schema=False)
    def table_page(table_id: str):
        return index()

    @app.get("/replay/{table_id}", include_in_schema=False)
    def replay_page(table_id: str):
        return index()

    @app.get("/docs", include_in_schema=False)
    def api_docs():
        return FileResponse(WEB_DIR / "api.html", headers={"Cache-Control": "no-cache"})

    @app.get("/rules/{game_id}", include_in_schema=False)
    def rules_page(game_id: str):
        return index()

    # the players' pages (players.py, ratings.py): the shell routes them
    @app.get("/me", include_in_schema=False)
    def me_page():
        return index()

    @app.get("/leaderboard", include_in_schema=False)
    def leaderboard_page():
        return index()

    @app.get("/leaderboard/{game_id}", include_in_schema=False)
    def game_leaderboard_page(game_id: str):
        return index()

    @app.get("/players/{name}", include_in_schema=False)
    def player_page(name: str):
        return index()

    return app
