"""The web shell: one page (index.html) for every address a player opens, the API's own docs
page, and the static files (scripts, styles, pictures)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"

router = APIRouter(include_in_schema=False)


def index() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/")
def home():
    return index()


@router.get("/table/{table_id}")
def table_page(table_id: str):
    return index()


@router.get("/replay/{table_id}")
def replay_page(table_id: str):
    return index()


@router.get("/docs")
def api_docs():
    return FileResponse(WEB_DIR / "api.html", headers={"Cache-Control": "no-cache"})


@router.get("/rules/{game_id}")
def rules_page(game_id: str):
    return index()


# the players' pages (players and ratings routes): the shell routes them
@router.get("/me")
def me_page():
    return index()


@router.get("/leaderboard")
def leaderboard_page():
    return index()


@router.get("/leaderboard/{game_id}")
def game_leaderboard_page(game_id: str):
    return index()


@router.get("/players/{name}")
def player_page(name: str):
    return index()
