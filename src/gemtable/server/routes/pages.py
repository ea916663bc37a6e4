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


# every address of the shell (the lobby, a table, a replay, a game's rules, the players' pages)
# is the one page; the shell routes them itself
SHELL_PAGES = ("/", "/table/{table_id}", "/replay/{table_id}", "/rules/{game_id}", "/me", "/leaderboard",
               "/leaderboard/{game_id}", "/players/{name}")
for _path in SHELL_PAGES:
    router.add_api_route(_path, index, methods=["GET"])


@router.get("/docs")
def api_docs():
    return FileResponse(WEB_DIR / "api.html", headers={"Cache-Control": "no-cache"})
