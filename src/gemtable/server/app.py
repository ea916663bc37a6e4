"""The FastAPI application: ``create_app`` assembles the server from its parts.

The parts: the edge (edge.py: size caps, origin checks, security headers, the error shape),
the routers (routes/: games, tables, the table WebSocket, lobby, players, ratings, pages) and
the table manager (tables.py), built when the application starts and shared by the routes
through ``Depends`` (deps.py).  REST is documented by FastAPI at /docs (OpenAPI at
/openapi.json); the WebSocket messages in docs/websocket.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
from typing import Any

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from gemtable.core.registry import all_games

from . import hints, ratings, reviews
from .community import Community
from .db import Database
from .assets import Assets
from .edge import Guard, QuietInvalidText, SafeJSONResponse, install_error_handlers
from .inplay import InPlay
from .limits import Limits, RateLimiter
from .mail import MailSettings
from .moderation import Moderation
from .tournaments import Tournaments
from .lobby import LobbyHooks
from .origins import OriginCheck
from .players import Identity
from .listing import PlayNow
from .routes import community as community_routes
from .routes import games, live, pages, tables
from .routes import listing as listing_routes
from .routes import lobby as lobby_routes
from .routes import players as players_routes
from .routes import ratings as ratings_routes
from .routes import stats as stats_routes
from .routes import moderation as moderation_routes
from .routes import analysis as analysis_routes
from .routes import tournaments as tournament_routes
from .routes import language as language_routes
from .routes.pages import WEB_DIR
from .tables import TableManager

log = logging.getLogger("gemtable.server")


def uvicorn_config(app, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                   limits: Limits | None = None, behind_proxy: bool = False, **kwargs: Any):
    """uvicorn settings with the server's limits (used by `gemtable serve` and the tests).

    h11 rather than httptools: h11 caps the size of a request head that has not
    fully arrived (``h11_max_incomplete_event_size``: the request target's cap plus
    the headers' cap), and ``http11.GuardedH11Protocol`` answers such a head 414 or 431
    instead of h11's bare 400; a head that arrived whole is measured by ``Guard``.
    WebSockets: uvicorn's sans-I/O protocol with a faster deflate level
    (``wsserver.TableSocketProtocol``); frames are capped by ``ws_max_size``.  Forwarded client addresses are
    trusted only behind a proxy.
    """
    import uvicorn

    limits = limits or getattr(getattr(app, "state", None), "limits", None) or Limits()
    options: dict[str, Any] = dict(
        host=host, port=port, log_level=log_level, http="gemtable.server.http11:GuardedH11Protocol",
        ws="gemtable.server.wsserver:TableSocketProtocol",
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
    mail = MailSettings(**settings.pop("mail", {}))
    return create_app(settings.pop("db_url"), limits=limits, freeze_gc=True, mail=mail, **settings)


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
               bot_workers: int = 1, freeze_gc: bool = False, behind_proxy: bool = False,
               mail: MailSettings | None = None, review_processes: int = reviews.PROCESSES,
               review_queue: int = reviews.QUEUE) -> FastAPI:
    """The server application.  ``freeze_gc`` (a server process of its own, as `gemtable serve`
    starts): once started, the process's garbage collector is set up for serving
    (``server_gc``).  ``behind_proxy``: the site's own origin, which alone may change things
    (origins.py), is the one the proxy forwards (``X-Forwarded-Proto``, ``X-Forwarded-Host``).
    ``mail``: the SMTP server and the site's address for links in mails (mail.py; default: none,
    mails wait in the queue).  ``review_processes``, ``review_queue``: the game reviews' CPU
    budget (processes) and how many may wait (reviews.py)."""
    limits = limits or Limits()
    mail = mail or MailSettings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        QuietInvalidText.install()  # (after the server has set its logging up)
        db = await asyncio.to_thread(Database, db_url)
        manager = TableManager(db, bot_delay=bot_delay, limits=limits, bot_workers=bot_workers)
        # the features, plugged into the table core in this order (hooks.py)
        inplay = InPlay(manager)  # clocks and stand-in bots, chat, undo, rematch
        rating = ratings.RatingsHooks(manager)
        community = Community(manager, mail, app.state.identity.server_secret)  # turn alerts, friends
        review = reviews.Reviews(manager, processes=review_processes, queue=review_queue)
        hint = hints.Hints(manager)
        moderation = Moderation(manager, inplay)  # mutes, bans, hidden lines (after blocks: hidden_from)
        tournaments = Tournaments(manager, inplay)  # rounds made, results recorded, no-shows forfeited
        for feature in (LobbyHooks(), inplay, rating, community, review, hint, moderation, tournaments):
            manager.add_hooks(feature)
        app.state.tournaments = tournaments
        app.state.moderation = moderation
        app.state.community = community
        app.state.manager = manager
        app.state.inplay = inplay
        app.state.ratings = rating
        app.state.play_now = PlayNow(manager)  # the lobby's Play now (listing.py)
        app.state.reviews = review
        app.state.hints = hint
        all_games()
        # several workers (PostgreSQL, bus.py): listen for other workers' changes first; the
        # tables are then taken over through their leases.  One process: resume every table.
        await manager.bus.start(manager)
        if not manager.bus.shared:
            resumed = await manager.resume_all()
            if resumed:
                log.info("resumed %d unfinished tables", resumed)
        await review.catch_up()
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
    app.state.assets = Assets(WEB_DIR)  # the web client's files, hashed and compressed (assets.py)
    app.state.create_limiter = RateLimiter(limits.create_rate, limits.create_burst)
    app.state.auth_limiter = RateLimiter(limits.auth_fail_rate, limits.auth_fail_burst)
    app.state.identity = Identity(lambda: app.state.manager, limits)
    OriginCheck(limits.allowed_origins)  # a listed origin that is none fails here (ValueError), not per request
    # JSON answers over 1 KiB compressed for clients that accept gzip (the static files come compressed already)
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    app.add_middleware(Guard, limits=limits, behind_proxy=bool(behind_proxy))
    install_error_handlers(app)
    app.include_router(games.router)
    app.include_router(tables.router(limits))
    app.include_router(players_routes.router)
    app.include_router(lobby_routes.router)
    app.include_router(listing_routes.router)
    app.include_router(ratings_routes.router)
    app.include_router(stats_routes.router)
    app.include_router(analysis_routes.router)
    app.include_router(live.router)
    app.include_router(community_routes.router)
    app.include_router(moderation_routes.router)
    app.include_router(tournament_routes.router)
    app.include_router(language_routes.router)
    app.include_router(pages.router)
    return app
