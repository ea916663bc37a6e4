"""The web shell: one page (index.html) for every address a player opens, the API's own docs
page, and the static files (scripts, styles, pictures) under their content-hashed names.

The shell is answered ``no-cache`` (revalidated on every visit, by its ETag) and names the
hashed files (assets.py), which are cached for a year.  For a table's page it also names the
game's renderer and the table's summary, so the browser fetches them while the shell's own
modules load."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from .. import language
from ..assets import IMMUTABLE, Assets, accepts_gzip
from ..db import TableRow
from ..edge import CSP, error_response
from ..table import Rejected

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"

router = APIRouter(include_in_schema=False)

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def assets_of(request: Request) -> Assets:
    assets = request.app.state.assets
    assets.refresh()
    return assets


async def _game_of(request: Request, table_id: str) -> str | None:
    """The game played at a table (None when there is no such table), without loading it."""
    if not _ID.match(table_id):
        return None
    manager = request.app.state.manager
    live = manager.tables.get(table_id)
    if live is not None:
        return live.game.id

    def read() -> str | None:
        with manager.db.session() as s:
            return s.scalar(select(TableRow.game_id).where(TableRow.id == table_id))

    try:
        return await manager.run_db(read)
    except (Rejected, SQLAlchemyError):  # the database is away: the shell never fails for want of a hint
        return None


def _answer(request: Request, body: bytes, media_type: str, headers: dict[str, str], etag: str,
            gzipped: bytes | None = None, vary: str = "Accept-Encoding") -> Response:
    """``body`` (or its gzip form to a client that accepts it), 304 to a client that has it."""
    headers = dict(headers, ETag=etag, Vary=vary)
    if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    if gzipped is not None and accepts_gzip(request.headers.get("accept-encoding")):
        return Response(gzipped, media_type=media_type, headers=dict(headers, **{"Content-Encoding": "gzip"}))
    return Response(body, media_type=media_type, headers=headers)


async def index(request: Request) -> Response:
    assets = assets_of(request)
    path = request.url.path
    modules: list[str] = []
    data = ["/api/games", "/api/me"]
    m = re.match(r"^/(table|replay)/([^/]+)$", path)
    if m:
        game = await _game_of(request, m.group(2))
        if game is not None and assets.get(f"games/{game}.js"):
            modules.append(f"games/{game}.js")
        data.append(f"/api/tables/{m.group(2)}" if m.group(1) == "table" else f"/api/tables/{m.group(2)}/replay")
    m = re.match(r"^/rules/([A-Za-z0-9_-]+)$", path)
    if m and assets.get(f"games/{m.group(1)}.js"):
        modules.append(f"games/{m.group(1)}.js")
    # the page in the reader's language (language.py): ``<html lang>`` names it, and the shell
    # preloads its catalogue under a versioned address (cached for a year)
    lang = language.of(request)
    if lang != "en":
        data.append(f"/api/i18n/{lang}?v={language.web_catalogue(lang).version}")
    shell = assets.shell(modules, data)
    if lang != "en":
        shell = shell.replace('<html lang="en">', f'<html lang="{lang}" data-catalogue="{data[-1]}">', 1)
    text = shell.encode()
    etag = '"' + hashlib.sha256(text).hexdigest()[:16] + '"'
    csp = CSP.replace("script-src 'self'", f"script-src 'self' {assets.csp_hash()}")
    return _answer(request, text, "text/html; charset=utf-8",
                   {"Cache-Control": "no-cache", "Content-Security-Policy": csp}, etag,
                   gzip.compress(text, 6) if len(text) > 512 else None,
                   vary="Accept-Encoding, Accept-Language, Cookie")


# every address of the shell (the lobby, a table, a replay, a game's rules, the players' pages)
# is the one page; the shell routes them itself
SHELL_PAGES = ("/", "/table/{table_id}", "/replay/{table_id}", "/rules/{game_id}", "/me", "/leaderboard",
               "/leaderboard/{game_id}", "/players/{name}")
for _path in SHELL_PAGES:
    router.add_api_route(_path, index, methods=["GET"])


@router.get("/docs")
def api_docs():
    return FileResponse(WEB_DIR / "api.html", headers={"Cache-Control": "no-cache"})


@router.get("/static/{name:path}")
async def static_file(name: str, request: Request) -> Response:
    """A file of the web folder: by its hashed name (cached for a year), or by its plain name
    (revalidated on every use).  Anything else, a stale hashed name included, is a 404."""
    assets = assets_of(request)
    asset = assets.hashed(name)
    if asset is not None:
        return _answer(request, asset.body, asset.media_type, {"Cache-Control": IMMUTABLE}, asset.etag, asset.gzipped)
    asset = assets.get(name)
    if asset is None:
        return error_response("not_found", "No such file (a page older than the site's files: reload it).", 404,
                              {"Cache-Control": "no-cache"})
    return _answer(request, asset.body, asset.media_type, {"Cache-Control": "no-cache"}, asset.etag, asset.gzipped)
