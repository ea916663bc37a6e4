"""Analysis over REST: the review of a finished table (ask for it, then read it) and hints at practice tables."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from .. import language
from ..deps import get_manager, header_token, no_token_in_url, seat_of
from ..hints import Hints
from ..reviews import Reviews
from ..tables import TableManager

router = APIRouter()

DESCRIPTION = ("Each seat's chance of winning after every move, judged from what that seat could see "
               "at the time, and each seat's biggest drops with the move the bot prefers there. "
               "Only for finished games (a running table is answered 409).")


def get_reviews(conn: HTTPConnection) -> Reviews:
    return conn.app.state.reviews


@router.post("/api/tables/{table_id}/review", tags=["replays"], description=DESCRIPTION,
             summary="Ask for the review of a finished game (computed in the background)",
             responses={409: {"description": "the game is not over"},
                        429: {"description": "the review queue is full (see Retry-After)"}})
async def ask_review(table_id: str, request: Request, reviews: Reviews = Depends(get_reviews)) -> dict[str, Any]:
    return await reviews.request(table_id, language.of(request))


@router.get("/api/tables/{table_id}/review", tags=["replays"], description=DESCRIPTION,
            summary="The review of a finished game: status none, queued, working, done (with the review) "
                    "or failed", responses={409: {"description": "the game is not over"}})
async def review(table_id: str, request: Request, reviews: Reviews = Depends(get_reviews)) -> dict[str, Any]:
    return await reviews.status(table_id, lang=language.of(request))


class HintRequest(BaseModel):
    version: int = Field(..., description="the table version ('version' of the state) the hint is for")


def get_hints(conn: HTTPConnection) -> Hints:
    return conn.app.state.hints


@router.post("/api/tables/{table_id}/hint", tags=["tables"], dependencies=[Depends(no_token_in_url)],
             summary="The bot's three best moves for the seat whose token is given (X-Seat-Token), each "
                     "with its chance of winning and short reasons; practice tables only (every other seat "
                     "a bot); a hinted game is not rated",
             responses={403: {"description": "not a seat, or not a practice table"},
                        409: {"description": "not this seat's turn, a stale version, or the game is over"},
                        429: {"description": "a hint for this table is being worked out"}})
async def hint(table_id: str, body: HintRequest, request: Request,
               x_seat_token: str | None = Header(None, description="the seat's secret token"),
               hints: Hints = Depends(get_hints)) -> dict[str, Any]:
    table, seat = await seat_of(request, table_id, header_token(request))
    return await hints.hint(table, seat, body.version, language.of(request))


class LineStep(BaseModel):
    seat: int = Field(..., ge=0, le=16, description="the seat making the move")
    action: dict[str, Any] = Field(..., description="the action's JSON, as offered in 'legal'")


class BoardRequest(BaseModel):
    move: int = Field(..., ge=0, description="the position: after this many moves of the game")
    line: list[LineStep] = Field(default_factory=list, description="moves tried from there, in order")


@router.post("/api/tables/{table_id}/analysis", tags=["replays"],
             summary="The analysis board of a finished game: a position of it, other moves tried from there, "
                     "each seat's chance of winning and the bot's three best moves",
             responses={409: {"description": "the game is not over"},
                        422: {"description": "a move of the line does not fit (the sentence says why)"},
                        429: {"description": "many positions are being analysed (see Retry-After)"}})
async def analysis_board(table_id: str, body: BoardRequest, request: Request,
                         manager: TableManager = Depends(get_manager),
                         hints: Hints = Depends(get_hints)) -> dict[str, Any]:
    table = await manager.get(table_id)
    return await hints.board(table, body.move, [(step.seat, step.action) for step in body.line],
                             language.of(request))
