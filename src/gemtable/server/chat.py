"""Table chat: what players and spectators type, and system lines naming public facts.

A line is stored in the database before anyone is sent it.  It is text only:
the server cleans it (no control or format characters, no lone surrogates,
1-500 characters) and the client never renders it as HTML.  System lines are
written by the server only and name public facts (a seat name and what
happened: took back a move, ran out of time, a bot plays for them ...), never
an action's hidden content.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections import deque
from typing import Any

from sqlalchemy import select

from .db import ChatRow, Database

MAX_CHAT = 500  # characters of one line
KEEP = 100  # lines a state payload carries (and a live table keeps in memory)
ZWJ = "\u200d"  # kept: emoji sequences are joined with it


class ChatError(ValueError):
    pass


def clean_text(text: Any) -> str:
    """A chat line as stored: NFC, controls and format characters removed, single-spaced, 1-500 chars."""
    if not isinstance(text, str):
        raise ChatError("A chat message must be text: {\"type\": \"chat\", \"text\": \"...\"}.")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise ChatError("A chat message must be valid Unicode text (it holds a lone surrogate).")
    if len(text) > 4 * MAX_CHAT:
        raise ChatError(f"A chat message may be at most {MAX_CHAT} characters long.")
    text = unicodedata.normalize("NFC", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch.isspace() or cat in ("Zl", "Zp"):
            out.append(" ")
        elif cat in ("Cc", "Cf", "Co", "Cn", "Cs") and ch != ZWJ:
            continue
        else:
            out.append(ch)
    text = " ".join("".join(out).split())
    if not text:
        raise ChatError("A chat message cannot be empty.")
    if len(text) > MAX_CHAT:
        raise ChatError(f"A chat message may be at most {MAX_CHAT} characters long (this one has {len(text)}).")
    return text


def line_json(row: ChatRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "seat": row.seat,
        "name": row.name,
        "text": row.text,
        "at": row.at.isoformat(timespec="milliseconds") + "Z",
        "system": bool(row.system),
    }


def add_line(session, table_id: str, seat: int | None, name: str, text: str, system: bool,
             at: dt.datetime) -> ChatRow:
    """Add a line in ``session`` (the caller commits); its id is set once flushed."""
    row = ChatRow(table_id=table_id, seat=seat, name=name[:40], text=text[:2000], system=system, at=at)
    session.add(row)
    session.flush()
    return row


def store_line(db: Database, table_id: str, seat: int | None, name: str, text: str, system: bool,
               at: dt.datetime, publish: Any = None) -> dict[str, Any]:
    """Store one line (a database thread) and return it as sent to clients.

    ``publish``: the bus's (bus.py), to tell other workers in the same transaction.
    """
    with db.session() as s:
        row = add_line(s, table_id, seat, name, text, system, at)
        if publish is not None:
            publish(s, table_id, "chat", c=row.id)
        s.commit()
        return line_json(row)


def load_recent(db: Database, table_id: str, limit: int = KEEP) -> list[dict[str, Any]]:
    with db.session() as s:
        rows = s.scalars(select(ChatRow).where(ChatRow.table_id == table_id)
                         .order_by(ChatRow.id.desc()).limit(limit)).all()
        return [line_json(r) for r in reversed(rows)]


def count_lines(db: Database, table_id: str) -> int:
    from sqlalchemy import func

    with db.session() as s:
        return s.scalar(select(func.count()).select_from(ChatRow).where(ChatRow.table_id == table_id)) or 0


def recent() -> deque:
    return deque(maxlen=KEEP)


# -- system lines (public facts only) ----------------------------------------------------
def took_back(name: str) -> str:
    return f"{name} took back a move."


def took_back_turns(name: str) -> str:
    return f"{name} took back their last turn."


LOBBY_LINES = {
    "join": "{name} sat down.",
    "leave": "{name} left the table.",
    "kick": "{name} was removed from the table by the host.",
    "start": "The host started the game: empty seats are played by bots.",
}


def lobby_line(event: str, name: str | None) -> str | None:
    """The system line for a change of seats before the start (None: nothing to say)."""
    text = LOBBY_LINES.get(event)
    if text is None or ("{name}" in text and not name):
        return None
    return text.format(name=name or "")


def ran_out(name: str, bot: str) -> str:
    return f"{name} ran out of time: a bot ({bot}) plays for them until they take their seat back."


def disconnected(name: str, bot: str) -> str:
    return f"{name} was away too long while to move: a bot ({bot}) plays for them until they take their seat back."


def returned(name: str) -> str:
    return f"{name} took their seat back."


def rematch_offered(name: str) -> str:
    return f"{name} started a rematch: the seats move round one place, new deal."


def rematch_proposed(name: str) -> str:
    return f"{name} proposes a rematch: it starts when everyone accepts."


def rematch_accepted(name: str) -> str:
    return f"{name} accepts the rematch."


def rematch_declined(name: str) -> str:
    return f"{name} declined the rematch."


def rematch_withdrawn(name: str) -> str:
    return f"{name} withdrew the rematch proposal."


def resigned(name: str, bot: str) -> str:
    return f"{name} resigned and takes the last place: a bot ({bot}) plays their seat to the end."


def resigned_end(name: str) -> str:
    return f"{name} resigned: the game is over."


def spectators_muted(on: bool) -> str:
    return "The host muted spectators' chat." if on else "The host let spectators chat again."
