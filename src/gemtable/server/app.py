"""The FastAPI application: REST lobby/API, the WebSocket hub and the static shell.

REST is documented by FastAPI at /docs (OpenAPI at /openapi.json); the
WebSocket messages are described in docs/websocket.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketDisconnect, WebSocketState

from gemtable.games.registry import all_games, get_game

from .db import Database
from .tables import LiveTable, Rejected, Subscriber, TableManager

log = logging.getLogger("gemtable.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
MAX_MESSAGE = 64 * 1024
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; frame-ancestors 'none'"
)

# WebSocket close codes (4000-4999 are ours; see docs/websocket.md)
CLOSE_MALFORMED = 4400
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_GONE = 4410
CLOSE_TOO_BIG = 1009


# -- request/response models (OpenAPI) -----------------------------------------------
class SeatSpec(BaseModel):
    kind: str = Field("human", description="'human' (gets a secret invite link) or 'bot'")
    bot: str | None = Field(None, description="bot level ('easy', 'medium', 'hard') or spec ('random', 'mcts:iterations=200')")
    name: str | None = Field(None, description="seat name shown in the log (max 24 characters)")


class CreateTable(BaseModel):
    game: str = Field(..., description="game id, see GET /api/games")
    players: int = Field(..., description="number of players")
    options: dict[str, Any] = Field(default_factory=dict, description="game options by name")
    seats: list[SeatSpec] | None = Field(None, description="one entry per seat; default: you plus easy bots")
    seed: int | None = Field(None, description="optional seed (never shown while the game runs)")


class ActionRequest(BaseModel):
    token: str | None = Field(None, description="the seat's secret token (or X-Seat-Token header)")
    version: int = Field(..., description="the table version ('version' of the state) the action was chosen at")
    action: dict[str, Any] = Field(..., description="the action's JSON, as offered in 'legal'")


def create_app(db_url: str | None = None, bot_delay: float = 0.8) -> FastAPI:
    holder: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        db = Database(db_url)
        manager = TableManager(db, bot_delay=bot_delay)
        app.state.manager = manager
        holder["manager"] = manager
        all_games()
        resumed = await manager.resume_all()
        if resumed:
            log.info("resumed %d unfinished tables", resumed)
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
            "live play over the WebSocket at /ws/tables/{id}?token=… (see docs/websocket.md). "
            "A seat's token grants that seat's view and actions only; the seed of a running game is never sent."
        ),
        lifespan=lifespan,
        # FastAPI's Swagger UI and ReDoc load their assets from a CDN: we serve our own
        # page at /docs that reads /openapi.json (nothing fetched from the internet).
        docs_url=None,
        redoc_url=None,
    )

    def manager() -> TableManager:
        return holder["manager"]

    @app.exception_handler(Rejected)
    async def _rejected(_request: Request, exc: Rejected):
        return JSONResponse({"error": exc.code, "detail": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            problems.append(f"{where or 'body'}: {err.get('msg')}")
        return JSONResponse({"error": "malformed", "detail": "; ".join(problems) or "malformed request"},
                            status_code=422)

    @app.middleware("http")
    async def _headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if request.url.path.startswith("/static/") or request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-cache")
        return response

    # -- games -------------------------------------------------------------------
    def renderer_of(game_id: str) -> str | None:
        path = WEB_DIR / "games" / f"{game_id}.js"
        return f"/static/games/{game_id}.js" if path.is_file() else None

    @app.get("/api/games", tags=["games"], summary="Every installed game")
    def list_games() -> list[dict[str, Any]]:
        return [dict(g.describe(), renderer=renderer_of(g.id)) for _, g in sorted(all_games().items())]

    @app.get("/api/games/{game_id}", tags=["games"], summary="One game, with its rules text (Markdown)")
    def game_info(game_id: str) -> dict[str, Any]:
        try:
            game = get_game(game_id)
        except KeyError:
            raise Rejected("unknown_game", f"There is no game {game_id!r}.", 404) from None
        try:
            rules = game.rules_text()
        except OSError:
            rules = ""
        return dict(game.describe(), renderer=renderer_of(game.id), rules=rules)

    @app.get("/api/bots", tags=["games"], summary="Bot levels and kinds a seat can hold")
    def list_bots() -> dict[str, Any]:
        from gemtable.bots import BOT_KINDS, LEVELS
        from gemtable.bots.base import _load_all

        _load_all()
        return {"levels": dict(LEVELS), "kinds": sorted(BOT_KINDS)}

    # -- tables ------------------------------------------------------------------
    @app.post("/api/tables", tags=["tables"], status_code=201,
              summary="Create a table; returns every human seat's secret invite link")
    async def create_table(body: CreateTable) -> dict[str, Any]:
        seats = None if body.seats is None else [s.model_dump() for s in body.seats]
        table = manager().create(body.game, body.players, body.options, seats, body.seed)
        return {
            "table": table.summary(),
            "seats": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot,
                 **({"token": s.token, "invite": f"/table/{table.id}#token={s.token}"} if s.kind == "human" else {})}
                for s in table.seats
            ],
            "spectate": f"/table/{table.id}",
        }

    @app.get("/api/tables", tags=["tables"], summary="Open, running and finished tables (public summaries)")
    def list_tables() -> list[dict[str, Any]]:
        return manager().list_tables()

    async def seat_of(table_id: str, token: str | None) -> tuple[LiveTable, int | None]:
        table = await manager().get(table_id)
        if token is None or token == "":
            return table, None
        seat = table.seat_for_token(token)
        if seat is None:
            raise Rejected("bad_token", "That seat token is not valid for this table.", 403)
        return table, seat.seat

    @app.get("/api/tables/{table_id}", tags=["tables"], summary="A table's public summary")
    async def table_info(table_id: str) -> dict[str, Any]:
        return (await manager().get(table_id)).summary()

    @app.get("/api/tables/{table_id}/state", tags=["tables"],
             summary="The view of a seat (with its token) or of a spectator (without)")
    async def table_state(table_id: str, token: str | None = Query(None),
                          x_seat_token: str | None = Header(None)) -> dict[str, Any]:
        table, seat = await seat_of(table_id, x_seat_token or token)
        return table.payload(seat)

    @app.post("/api/tables/{table_id}/actions", tags=["tables"],
              summary="Play an action for the seat whose token is given")
    async def play(table_id: str, body: ActionRequest, x_seat_token: str | None = Header(None)) -> dict[str, Any]:
        table, seat = await seat_of(table_id, x_seat_token or body.token)
        if seat is None:
            raise Rejected("no_token", "Only a seat (with its token) can act; spectators cannot.", 403)
        await manager().submit(table, seat, body.action, body.version)
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

    # -- WebSocket ---------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str):
        # The token may come as the subprotocol "token.<token>" (what the browser shell
        # does: it keeps the token out of URLs and access logs) or as ?token=.
        offered = list(ws.scope.get("subprotocols") or [])
        token = next((p[len("token."):] for p in offered if p.startswith("token.")), None)
        await ws.accept(subprotocol="gemtable" if "gemtable" in offered else None)
        token = token or ws.query_params.get("token") or None
        try:
            table, seat = await seat_of(table_id, token)
        except Rejected as exc:
            code = {"bad_token": CLOSE_FORBIDDEN, "no_table": CLOSE_NOT_FOUND}.get(exc.code, CLOSE_GONE)
            await ws.send_json({"type": "error", "code": exc.code, "message": exc.message})
            await ws.close(code=code, reason=exc.message[:120])
            return
        send_lock = asyncio.Lock()

        async def send(msg: dict[str, Any]) -> None:
            async with send_lock:
                if ws.application_state == WebSocketState.CONNECTED:
                    await ws.send_text(json.dumps(msg, separators=(",", ":")))

        sub = Subscriber(seat, send)
        if seat is not None:
            manager().mark_joined(table, table.seats[seat])
        await manager().subscribe(table, sub)
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    await ws.close(code=CLOSE_MALFORMED, reason="send JSON text frames, not binary")
                    break
                if len(text) > MAX_MESSAGE:
                    await ws.close(code=CLOSE_TOO_BIG, reason="message too large")
                    break
                try:
                    data = json.loads(text)
                except ValueError:
                    await ws.close(code=CLOSE_MALFORMED, reason="message is not valid JSON")
                    break
                if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                    await ws.close(code=CLOSE_MALFORMED, reason="a message must be a JSON object with a 'type'")
                    break
                await handle(table, sub, data, send)
        except WebSocketDisconnect:
            pass
        finally:
            await manager().unsubscribe(table, sub)

    async def handle(table: LiveTable, sub: Subscriber, data: dict[str, Any], send) -> None:
        kind = data["type"]
        if kind == "ping":
            await send({"type": "pong", "version": table.version})
        elif kind == "refresh":
            sub.sent_version = -1
            await manager().send_state(table, sub)
        elif kind == "action":
            if sub.seat is None:
                await send({"type": "error", "code": "spectator",
                            "message": "Spectators cannot act: open the table with a seat's invite link."})
                return
            if "action" not in data or "version" not in data:
                await send({"type": "error", "code": "malformed",
                            "message": "An action message needs 'action' (the action's JSON) and 'version'."})
                return
            try:
                await manager().submit(table, sub.seat, data["action"], data["version"])
            except Rejected as exc:
                await send({"type": "error", "code": exc.code, "message": exc.message,
                            "version": table.version})
                if exc.code == "stale":
                    await manager().send_state(table, sub)
        else:
            await send({"type": "error", "code": "malformed",
                        "message": f"Unknown message type {kind!r} (use 'action', 'ping' or 'refresh')."})

    # -- the shell ---------------------------------------------------------------
    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

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

    return app
