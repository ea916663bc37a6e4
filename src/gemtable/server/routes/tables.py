"""Tables over REST: create and list them, a table's summary and a seat's state, actions,
replays and match files of finished games, and the rematch."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, Field

from gemtable.core import IllegalAction

from gemtable.core import i18n
from .. import hints, language, lobby
from ..deps import (
    client_address,
    get_identity,
    get_inplay,
    get_manager,
    header_token,
    no_token_in_url,
    seat_of,
    NEW_TABLES,
    too_many,
)
from ..inplay import rotation
from ..limits import Limits, RateLimiter, shown
from ..players import Identity
from ..table import Rejected
from ..tables import TableManager


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
    practice: bool = Field(False, description="nothing at stake: every seat may ask for hints, and the game is not rated")
    clock: dict[str, Any] | None = Field(None, description="time control: {\"mode\": \"none\"}, {\"mode\": \"realtime\", "
                                                           "\"base\": s, \"increment\": s} or {\"mode\": \"turn\", "
                                                           "\"per_move\": s}")


class WhyRequest(BaseModel):
    action: dict[str, Any] = Field(..., description="the action's JSON, as a board marks it (data-why)")


class ActionRequest(BaseModel):
    token: str | None = Field(None, description="the seat's secret token (or the X-Seat-Token / "
                                                "Authorization: Bearer header); never put it in the URL")
    version: int = Field(..., description="the table version ('version' of the state) the action was chosen at")
    action: dict[str, Any] = Field(..., description="the action's JSON, as offered in 'legal'")


class RematchAnswer(BaseModel):
    answer: Literal["propose", "accept", "decline"] | None = Field(
        None, description="'propose' a rematch, 'accept' or 'decline' the open proposal; none: propose, or "
                          "accept the proposal that is open")


async def seat_or_player(request: Request, table_id: str, identity: Identity):
    """The table and the caller's seat: by its token (X-Seat-Token), else the player cookie's seat."""
    table, seat = await seat_of(request, table_id, header_token(request))
    if seat is None:
        pid = await identity.player_id(request)
        held = [s.seat for s in table.seats if pid is not None and s.player == pid]
        seat = held[0] if held else None
    return table, seat


def router(limits: Limits) -> APIRouter:
    """The tables' routes (the lobby's listing is described with the server's ``limits``)."""
    api = APIRouter()

    @api.post("/api/tables", tags=["tables"], status_code=201,
              summary="Create a table; returns every human seat's secret invite link",
              responses={429: {"description": "too many tables created from this address (see Retry-After)"}})
    async def create_table(body: CreateTable, request: Request, manager: TableManager = Depends(get_manager),
                           identity: Identity = Depends(get_identity)) -> dict[str, Any]:
        address = client_address(request)
        limiter = request.app.state.create_limiter
        if not limiter.bucket(address).take():
            raise too_many(limiter, address, NEW_TABLES)
        seats = None if body.seats is None else [s.model_dump() for s in body.seats]
        player = await identity.current(request)
        seats, setup = lobby.prepare(seats, player, body.private)
        steps = [setup, request.app.state.inplay.clock_setup(body.clock),  # the lobby's, then the clock's
                 hints.practice_setup(body.practice)]
        table = await manager.create(body.game, body.players, body.options, seats, body.seed, creator=address,
                                     setup=steps)
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

    @api.get("/api/tables", tags=["tables"],
             summary="Open, running and finished tables (public summaries)",
             description=f"The {limits.lobby_size} most recently active tables, at most "
                         f"{limits.lobby_per_creator} of any one creator.")
    async def list_tables(manager: TableManager = Depends(get_manager)) -> list[dict[str, Any]]:
        return await manager.list_tables()

    @api.get("/api/tables/{table_id}", tags=["tables"], summary="A table's public summary")
    async def table_info(table_id: str, manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
        return (await manager.get(table_id)).summary()

    @api.get("/api/tables/{table_id}/state", tags=["tables"],
             summary="The view of a seat (token in the X-Seat-Token or Authorization: Bearer header) "
                     "or of a spectator (no token)", dependencies=[Depends(no_token_in_url)])
    async def table_state(table_id: str, request: Request,
                          x_seat_token: str | None = Header(None, description="the seat's secret token")) -> dict[str, Any]:
        table, seat = await seat_of(request, table_id, header_token(request))
        return table.payload(seat, lang=language.of(request))

    @api.post("/api/tables/{table_id}/actions", tags=["tables"],
              summary="Play an action for the seat whose token is given (body or header)",
              dependencies=[Depends(no_token_in_url)])
    async def play(table_id: str, body: ActionRequest, request: Request,
                   x_seat_token: str | None = Header(None, description="the seat's secret token"),
                   manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
        token = header_token(request) or body.token
        table, seat = await seat_of(request, table_id, token)
        if seat is None:
            raise Rejected("no_token", i18n.msg("Only a seat (with its token) can act; spectators cannot."), 403)
        moderation = getattr(request.app.state, "moderation", None)
        banned = None if moderation is None else await moderation.seat_banned(table, seat)
        if banned is not None:  # a banned player's seat
            raise banned
        lang = language.of(request)
        await manager.submit(table, seat, body.action, body.version, token=token, lang=lang)
        return table.payload(seat, lang=lang)

    # "why not?" is asked per tap: each seat at the rate of its table messages (``ws_rate``)
    why_limiter = RateLimiter(limits.ws_rate, limits.ws_burst)

    @api.post("/api/tables/{table_id}/why", tags=["tables"],
              summary="Why the seat whose token is given may not take an action now (the rule, from "
                      "what that seat can see); {legal: true} when it may",
              dependencies=[Depends(no_token_in_url)],
              responses={429: {"description": "too many questions from this seat (see Retry-After)"}})
    async def why(table_id: str, body: WhyRequest, request: Request,
                  x_seat_token: str | None = Header(None, description="the seat's secret token")) -> dict[str, Any]:
        table, seat = await seat_of(request, table_id, header_token(request))
        if seat is None:
            raise Rejected("no_token", i18n.msg("Only a seat (with its token) can ask why a move is not allowed."), 403)
        key = f"{table.id}:{seat}"
        if not why_limiter.bucket(key).take():
            wait = why_limiter.bucket(key).retry_after()
            raise Rejected("rate_limited", i18n.msg("Too many questions from this seat: try again in {wait} s.", wait=wait), 429,
                           retry_after=wait)
        if table.waiting:
            raise Rejected("waiting", i18n.msg("The game has not started yet."), 409)
        try:
            action = table.game.action_from_json(body.action)
        except IllegalAction:
            raise Rejected("no_such_action", i18n.msg("{game} has no action {action}.", game=i18n.msg(table.game.title),
                                                    action=shown(body.action, 80)), 400, domains=table.game.domains) from None
        # State.explain: worked out from this seat's view alone (nothing hidden can show)
        lang = language.of(request)
        reason = table.state.explain(seat, action) if lang == "en" else table.state.explain(seat, action, lang)
        return {"legal": reason is None, "reason": reason, "version": table.version}

    @api.get("/api/tables/{table_id}/replay", tags=["replays"],
             summary="Every position of a finished game (public views and log)")
    async def replay(table_id: str, request: Request, manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
        table = await manager.get(table_id)
        return await manager.replay(table, language.of(request))

    @api.get("/api/tables/{table_id}/match", tags=["replays"],
             summary="The match file of a finished game (for `gemtable replay`)")
    async def match_file(table_id: str, manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
        table = await manager.get(table_id)
        if not table.over:
            raise Rejected("running", i18n.msg("The match file is available when the game is over."), 409)
        return table.match.to_json()

    @api.post("/api/tables/{table_id}/rematch", tags=["tables"],
              summary="Propose, accept or decline the rematch of a finished table (same players, bots, options "
                      "and clock, the seats moved round one place, a new deal); for a seat of the table (its "
                      "token in X-Seat-Token, or the player cookie)",
              description="The new table is made when every other player has accepted (at once when there is "
                          "nobody else to ask); until then the answer is the proposal: {\"proposal\": {by, yes, "
                          "waiting, no, state, left}}.  A proposal left unanswered expires.  Once made, "
                          "{\"table\", \"seat\", \"token\"}: the caller's seat at the new table.",
              dependencies=[Depends(no_token_in_url)])
    async def rematch(table_id: str, request: Request, body: RematchAnswer | None = None,
                      identity: Identity = Depends(get_identity)) -> dict[str, Any]:
        table, seat = await seat_or_player(request, table_id, identity)
        inplay = get_inplay(request)
        new = await inplay.rematch(table, seat, body.answer if body is not None else None)
        if new is None:
            return {"proposal": inplay.proposal_view(table, inplay.play(table))}
        mine = new.seats[rotation(table.num_players).index(seat)]
        return {"table": new.id, "seat": mine.seat, **({"token": mine.token} if mine.kind == "human" else {})}

    @api.post("/api/tables/{table_id}/resign", tags=["tables"],
              summary="Resign a running game for a seat (its token in X-Seat-Token, or the player cookie): the "
                      "seat takes the last place; with two players (or one left) the game ends, else a bot "
                      "plays the seat to the end", dependencies=[Depends(no_token_in_url)])
    async def resign(table_id: str, request: Request, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
        table, seat = await seat_or_player(request, table_id, identity)
        ended = await get_inplay(request).resign(table, seat)
        return {"ended": ended, "over": table.over, "result": table.result() if table.over else None}

    return api
