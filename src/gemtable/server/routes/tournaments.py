"""The tournaments' routes: the list, a tournament's page data (players, rounds with their
tables, standings), creating one, registering and withdrawing (tournaments.py holds the rules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from ..deps import get_identity
from ..players import Identity
from ..tournaments import Tournaments
from .pages import index

router = APIRouter()

# the shell's pages of the tournaments (the shell routes them itself)
for _path in ("/tournaments", "/tournaments/{tournament_id}"):
    router.add_api_route(_path, index, methods=["GET"], include_in_schema=False)


def get_tournaments(request: Request) -> Tournaments:
    return request.app.state.tournaments


class CreateTournament(BaseModel):
    name: Any = Field(..., description="the tournament's name (3 to 60 characters)")
    game: Any = Field(..., description="game id, see GET /api/games")
    players: Any = Field(..., description="players per table (within the game's range; a round robin: 2)")
    options: Any = Field(None, description="game options by name")
    clock: Any = Field(None, description="time control, as for a table: {\"mode\": \"none\"}, {\"mode\": \"realtime\", "
                                         "\"base\": s, \"increment\": s} or {\"mode\": \"turn\", \"per_move\": s}")
    format: Any = Field("swiss", description="'swiss' or 'roundrobin'")
    rounds: Any = Field(None, description="Swiss: the number of rounds (1 to 15)")
    starts_at: Any = Field(None, description="start time, ISO 8601 (no zone: UTC); or give starts_in")
    starts_in: Any = Field(None, description="start in this many seconds")
    max_players: Any = Field(None, description="at most this many players (none: no cap)")
    no_show: Any = Field(None, description="seconds a seated player has to open the table or move before "
                                           "forfeiting (default: 5 minutes real time, a day otherwise)")


@router.get("/api/tournaments", tags=["tournaments"],
            summary="Tournaments open for registration, running and finished (the latest of each)")
async def list_tournaments(tournaments: Tournaments = Depends(get_tournaments)) -> dict[str, Any]:
    return await tournaments.listing()


@router.post("/api/tournaments", tags=["tournaments"], status_code=201,
             summary="Create a tournament (needs an account; rate-limited)",
             responses={429: {"description": "too many tournaments created (see Retry-After)"}})
async def create_tournament(body: CreateTournament, request: Request, identity: Identity = Depends(get_identity),
                            tournaments: Tournaments = Depends(get_tournaments)) -> dict[str, Any]:
    player = await identity.require(request)
    return await tournaments.create(player, body.model_dump())


@router.get("/api/tournaments/{tournament_id}", tags=["tournaments"],
            summary="A tournament: settings, players, rounds with their tables, standings with tiebreaks")
async def tournament(tournament_id: str, request: Request, identity: Identity = Depends(get_identity),
                     tournaments: Tournaments = Depends(get_tournaments)) -> dict[str, Any]:
    return await tournaments.view(tournament_id, await identity.player_id(request))


@router.post("/api/tournaments/{tournament_id}/register", tags=["tournaments"],
             summary="Register for a tournament before its start (needs an account; rate-limited)")
async def register(tournament_id: str, request: Request, identity: Identity = Depends(get_identity),
                   tournaments: Tournaments = Depends(get_tournaments)) -> dict[str, Any]:
    player = await identity.require(request)
    return await tournaments.register(tournament_id, player, True)


@router.post("/api/tournaments/{tournament_id}/unregister", tags=["tournaments"],
             summary="Withdraw from a tournament before its start")
async def unregister(tournament_id: str, request: Request, identity: Identity = Depends(get_identity),
                     tournaments: Tournaments = Depends(get_tournaments)) -> dict[str, Any]:
    player = await identity.require(request)
    return await tournaments.register(tournament_id, player, False)
