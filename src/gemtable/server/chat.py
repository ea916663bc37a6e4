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
import json
import unicodedata
from collections import deque
from typing import Any

from sqlalchemy import select

from gemtable.core.i18n import Message, is_message, msg, render

from .db import ChatRow, Database, SeatRow
from .table import SEAT_LOST_MSG, Rejected, same_token

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


def stored_message(row: ChatRow) -> Message | None:
    """The message a system line was stored as, None for a typed line or a system line
    stored by an older version (its English text alone)."""
    if not row.system or not row.msg:
        return None
    try:
        found = json.loads(row.msg)
    except ValueError:
        return None
    return found if is_message(found) else None


def line_json(row: ChatRow) -> dict[str, Any]:
    """A line as sent: ``text`` in English; a system line also as its ``msg``, which each
    reader's page shows in its own language (web/i18n.js ``render``)."""
    message = stored_message(row)
    out = {
        "id": row.id,
        "seat": row.seat,
        "name": row.name,
        "text": row.text,
        "at": row.at.isoformat(timespec="milliseconds") + "Z",
        "system": bool(row.system),
    }
    if message is not None:
        out["msg"] = message
    return out


def add_line(session, table_id: str, seat: int | None, name: str, text: str | Message, system: bool,
             at: dt.datetime) -> ChatRow:
    """Add a line in ``session`` (the caller commits); its id is set once flushed.  A system
    line may be a message: it is stored as JSON, so every reader reads it in their language."""
    message = None
    if is_message(text):
        message = json.dumps(text, ensure_ascii=False, separators=(",", ":"))
        text = render(text)
    row = ChatRow(table_id=table_id, seat=seat, name=name[:40], text=text[:2000], system=system, at=at, msg=message)
    session.add(row)
    session.flush()
    return row


def store_line(db: Database, table_id: str, seat: int | None, name: str, text: str | Message, system: bool,
               at: dt.datetime, publish: Any = None, token: str | None = None) -> dict[str, Any]:
    """Store one line (a database thread) and return it as sent to clients.

    ``publish``: the bus's (bus.py), to tell other workers in the same transaction.
    ``token``: a seat's line is stored only while the seat still has that token in the
    database (``Rejected`` ``seat_lost`` otherwise).  A worker's cached copy of the table may
    not have heard yet that the seat changed hands at another worker; the database has.  The
    seat's row is read with a shared lock, so a change of hands waits for this line's commit.
    """
    with db.session() as s:
        if seat is not None and token is not None:
            held = s.scalar(select(SeatRow.token).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                            .with_for_update(read=True))
            if held is None or not same_token(held, token):
                raise Rejected("seat_lost", SEAT_LOST_MSG, 403)
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


# -- system lines (public facts only), as messages ------------------------------------------
def took_back(name: str) -> Message:
    return msg("{name} took back a move.", name=name)


def took_back_turns(name: str) -> Message:
    return msg("{name} took back their last turn.", name=name)


def lobby_line(event: str, name: str | None) -> Message | None:
    """The system line for a change of seats before the start (None: nothing to say)."""
    if event == "start":
        return msg("The host started the game: empty seats are played by bots.")
    if not name:
        return None
    if event == "join":
        return msg("{name} sat down.", name=name)
    if event == "leave":
        return msg("{name} left the table.", name=name)
    if event == "kick":
        return msg("{name} was removed from the table by the host.", name=name)
    return None


def ran_out(name: str, bot: str) -> Message:
    return msg("{name} ran out of time: a bot ({bot}) plays for them until they take their seat back.",
               name=name, bot=bot)


def disconnected(name: str, bot: str) -> Message:
    return msg("{name} was away too long while to move: a bot ({bot}) plays for them until they take their "
               "seat back.", name=name, bot=bot)


def returned(name: str) -> Message:
    return msg("{name} took their seat back.", name=name)


def rematch_offered(name: str) -> Message:
    return msg("{name} started a rematch: the seats move round one place, new deal.", name=name)


def rematch_proposed(name: str) -> Message:
    return msg("{name} proposes a rematch: it starts when everyone accepts.", name=name)


def rematch_accepted(name: str) -> Message:
    return msg("{name} accepts the rematch.", name=name)


def rematch_declined(name: str) -> Message:
    return msg("{name} declined the rematch.", name=name)


def rematch_withdrawn(name: str) -> Message:
    return msg("{name} withdrew the rematch proposal.", name=name)


def resigned(name: str, bot: str) -> Message:
    return msg("{name} resigned and takes the last place: a bot ({bot}) plays their seat to the end.",
               name=name, bot=bot)


def resigned_end(name: str) -> Message:
    return msg("{name} resigned: the game is over.", name=name)


def spectators_muted(on: bool) -> Message:
    return msg("The host muted spectators' chat.") if on else msg("The host let spectators chat again.")


def table_closed(note: str) -> Message:
    return msg("A moderator closed this table: {note} The game is not rated.", note=note)
