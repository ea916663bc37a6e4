"""Languages: the ones offered, the web client's catalogue of each, and the reader's choice
(language.py explains how a request's language is chosen)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel
from sqlalchemy import update

from gemtable.core import i18n
from .. import language
from ..assets import IMMUTABLE
from ..db import PlayerRow
from ..deps import get_identity
from ..limits import shown
from ..players import Identity
from ..table import Rejected

router = APIRouter()


def offered_code(code: Any) -> str:
    """``code`` when the site offers it; 422 when it is no language code, 404 when not offered."""
    if not language.valid_code(code):
        raise Rejected("bad_lang", i18n.msg("A language is named by its two- or three-letter code, such as de."), 422)
    if code not in language.offered():
        raise Rejected("unknown_lang", i18n.msg("This site has no texts in the language {code}.", code=shown(code)), 404)
    return code


@router.get("/api/i18n", tags=["languages"], summary="The languages offered, and the one this browser reads")
async def languages(request: Request) -> dict[str, Any]:
    return {"languages": language.listing(), "lang": language.of(request)}


@router.get("/api/i18n/{lang}", tags=["languages"],
            summary="The web client's texts in one language (gettext msgid -> translation)",
            responses={404: {"description": "not a language this site offers"},
                       422: {"description": "not a language code"}})
async def catalogue(lang: str, request: Request, v: str | None = None) -> Response:
    code = offered_code(lang)
    cat = language.web_catalogue(code)
    cache = IMMUTABLE if v == cat.version else "no-cache"
    headers = {"ETag": cat.etag, "Cache-Control": cache}
    if cat.etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(cat.body, media_type="application/json", headers=headers)


class LangBody(BaseModel):
    lang: str


@router.post("/api/i18n/choice", tags=["languages"],
             summary="Choose this browser's language (kept in a cookie, and by an account)",
             responses={404: {"description": "not a language this site offers"}})
async def choose(body: LangBody, request: Request, response: Response,
                 identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    code = offered_code(body.lang)
    player = await identity.current(request)
    if player is not None:
        def save() -> None:
            with identity.manager().db.session() as s:
                s.execute(update(PlayerRow).where(PlayerRow.id == player.id).values(lang=code))
                s.commit()

        await identity.db(save)
    language.set_cookie(request, response, code)
    return {"lang": code}
