"""Game reviews over REST: ask for the review of a finished table, then read it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from starlette.requests import HTTPConnection

from ..deps import get_manager
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
async def ask_review(table_id: str, manager: TableManager = Depends(get_manager),
                     reviews: Reviews = Depends(get_reviews)) -> dict[str, Any]:
    return await reviews.request(await manager.get(table_id))


@router.get("/api/tables/{table_id}/review", tags=["replays"], description=DESCRIPTION,
            summary="The review of a finished game: status none, queued, working, done (with the review) "
                    "or failed", responses={409: {"description": "the game is not over"}})
async def review(table_id: str, manager: TableManager = Depends(get_manager),
                 reviews: Reviews = Depends(get_reviews)) -> dict[str, Any]:
    return await reviews.status(await manager.get(table_id))
