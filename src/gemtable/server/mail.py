"""Mail: the site's SMTP settings, the mail queue in the database and the worker that sends it.

Nothing is sent where it is decided: a feature queues a row (``MailRow``) in a transaction of its
own, and every server process runs a ``MailSender`` that claims due rows one at a time and sends
them over SMTP.  So a mail server that is down loses nothing (the row waits, tried again with a
growing pause), and a crash loses nothing (the row is still queued).

Exactly once, across workers and kills.  A row is claimed by one UPDATE that sets
``claimed_until`` (a lease) only where the row is queued and unclaimed or its lease ran out; on
PostgreSQL the row lock makes concurrent claims wait and then see the new lease, so one worker
wins.  The winner sends, then marks the row sent.  A worker killed before the SMTP server
accepted the message sends nothing; the lease runs out and another worker (or the same one,
restarted) sends it.  What remains is one window, as in any SMTP client: a worker killed after
the SMTP server answered 250 to the message's data but before the row was marked sent (the
milliseconds of one UPDATE).  That mail is sent again after the lease, with the same
``Message-ID`` (made once when the row was queued), by which mail systems and readers can tell
the copy.  The lease is longer than the SMTP timeout, so a live worker never loses its claim
while it still sends.

Settings (``MailSettings``) come from ``gemtable serve``'s options or the environment; the
password only from the environment (``GEMTABLE_SMTP_PASSWORD``) or a file, never from a URL or
the command line.  No address is written to a log: mails are named by their row id.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import os
import secrets
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any, Callable
from urllib.parse import urlsplit

from sqlalchemy import or_, select, update

from .db import MailRow, utcnow

log = logging.getLogger("gemtable.mail")

TLS_MODES = ("starttls", "ssl", "none")


@dataclass
class MailSettings:
    """Where and how mail is sent.  ``host`` None: no mail is sent (the queue still fills, and is
    sent once a mail server is configured)."""

    host: str | None = None
    port: int = 587
    tls: str = "starttls"  # starttls (port 587) | ssl (port 465) | none (a local relay)
    user: str | None = None
    password_file: str | None = None  # read at start; else GEMTABLE_SMTP_PASSWORD
    sender: str = "gemtable <noreply@localhost>"
    site: str = "http://127.0.0.1:8000"  # the site's public address, for links in mails
    timeout: float = 30.0  # seconds one SMTP step may take
    lease: float = 120.0  # seconds a claimed mail stays claimed (longer than a send can take)
    poll: float = 5.0  # seconds between looks at the queue
    retry: float = 5.0  # seconds before the first retry of an unsent mail (doubling, at most 5 minutes)
    throttle: float = 900.0  # at most one turn mail per player and table in this many seconds
    hourly: int = 30  # turn and invite mails to one player an hour at most

    def __post_init__(self) -> None:
        if self.tls not in TLS_MODES:
            raise ValueError(f"the SMTP TLS mode is one of {', '.join(TLS_MODES)}")
        if not 0 < self.port < 65536:
            raise ValueError("the SMTP port is 1-65535")
        parts = urlsplit(self.site)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.username or parts.password:
            raise ValueError("the site address is http(s)://host[:port] (no credentials)")
        if not self.timeout * 2 < self.lease:
            raise ValueError("the mail lease must be more than twice the SMTP timeout")
        self.site = self.site.rstrip("/")

    @property
    def enabled(self) -> bool:
        return bool(self.host)

    def password(self) -> str | None:
        if self.password_file:
            with open(self.password_file, encoding="utf-8") as f:
                return f.read().strip() or None
        return os.environ.get("GEMTABLE_SMTP_PASSWORD") or None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def domain(settings: MailSettings) -> str:
    return urlsplit(settings.site).hostname or "localhost"


def new_message_id(settings: MailSettings) -> str:
    return make_msgid("gt" + secrets.token_hex(8), domain=domain(settings))


def queue(session: Any, settings: MailSettings, player_id: str, address: str, kind: str, subject: str,
          text: str, html: str, table_id: str | None = None, unsubscribe: str | None = None) -> MailRow:
    """Add a mail to the queue (in the caller's transaction: it is queued when that commits)."""
    row = MailRow(message_id=new_message_id(settings), player_id=player_id, address=address, kind=kind,
                  table_id=table_id, subject=subject, text=text, html=html, unsubscribe=unsubscribe,
                  status="queued", created_at=utcnow(), next_try=utcnow(), attempts=0)
    session.add(row)
    return row


def build(row: MailRow, settings: MailSettings) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = settings.sender
    msg["To"] = row.address
    msg["Subject"] = row.subject
    msg["Date"] = format_datetime(dt.datetime.now(dt.timezone.utc))
    msg["Message-ID"] = row.message_id
    msg["Auto-Submitted"] = "auto-generated"
    if row.unsubscribe:
        msg["List-Unsubscribe"] = f"<{row.unsubscribe}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content(row.text)
    msg.add_alternative(row.html, subtype="html")
    return msg


def backoff(attempts: int, first: float = 5.0) -> float:
    """Seconds before trying a mail again after ``attempts`` failed tries (at most 5 minutes)."""
    return min(300.0, first * 2 ** min(20, max(0, attempts - 1)))


class Permanent(Exception):
    """The SMTP server refused this mail for good (5xx): it is not tried again."""


class MailSender:
    """One process's sender: claims due mails one by one, sends them, marks them sent."""

    def __init__(self, db: Any, settings: MailSettings, extra: Callable[[Any], None] | None = None) -> None:
        self.db = db
        self.settings = settings
        self.worker = secrets.token_hex(8)
        self.extra = extra  # each round, first: e.g. the daily digests (queued in the database)
        self.task: asyncio.Task | None = None
        self._password = settings.password() if settings.enabled else None
        self._wake = asyncio.Event()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        """Look at the queue now (a mail was just queued here)."""
        self._wake.set()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.to_thread(self.round)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (named by its type only: a message could hold an address)
                log.error("the mail round failed (%s), tried again", type(exc).__name__)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.settings.poll)
            except asyncio.TimeoutError:
                pass

    # -- one round (a worker thread) ------------------------------------------------------------
    def round(self) -> int:
        """Queue what ``extra`` queues, then send every due mail; how many were sent."""
        if self.extra is not None:
            self.extra(self.db)
        if not self.settings.enabled:
            return 0
        sent = 0
        conn: smtplib.SMTP | None = None
        try:
            while (row := self.claim()) is not None:
                try:
                    if conn is None:
                        conn = self.connect()
                    try:
                        conn.send_message(build(row, self.settings))
                    except smtplib.SMTPRecipientsRefused as exc:  # (the only recipient)
                        codes = [code for code, _ in exc.recipients.values()]
                        if codes and all(500 <= code < 600 for code in codes):
                            raise Permanent() from None
                        raise smtplib.SMTPResponseException(max(codes or [451]), b"recipient refused") from None
                except Permanent:
                    self.finish(row.id, "failed")
                    log.warning("mail %d refused for good by the SMTP server", row.id)
                    continue
                except smtplib.SMTPResponseException as exc:
                    if 500 <= exc.smtp_code < 600:
                        self.finish(row.id, "failed")
                        log.warning("mail %d refused for good by the SMTP server (%d)", row.id, exc.smtp_code)
                        continue
                    self.release(row)
                    log.warning("mail %d not sent (%d), tried again later", row.id, exc.smtp_code)
                    continue
                except (smtplib.SMTPException, OSError) as exc:
                    self.release(row)
                    log.warning("mail %d not sent (%s), tried again later", row.id, type(exc).__name__)
                    conn = None
                    break
                self.finish(row.id, "sent")
                sent += 1
        finally:
            if conn is not None:
                try:
                    conn.quit()
                except (smtplib.SMTPException, OSError):
                    pass
        return sent

    def connect(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        if s.tls == "ssl":
            conn: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=s.timeout, context=context)
        else:
            conn = smtplib.SMTP(s.host, s.port, timeout=s.timeout)
            if s.tls == "starttls":
                conn.starttls(context=context)
        if s.user:
            conn.login(s.user, self._password or "")
        return conn

    def claim(self) -> MailRow | None:
        """The next due mail, claimed by this worker until its lease runs out (None: nothing due)."""
        now = utcnow()
        free = or_(MailRow.claimed_until.is_(None), MailRow.claimed_until < now)
        with self.db.session() as s:
            for row_id in s.scalars(select(MailRow.id).where(MailRow.status == "queued", MailRow.next_try <= now, free)
                                    .order_by(MailRow.id).limit(5)):
                won = s.execute(update(MailRow).where(MailRow.id == row_id, MailRow.status == "queued", free)
                                .values(claimed_until=now + dt.timedelta(seconds=self.settings.lease),
                                        claimed_by=self.worker, attempts=MailRow.attempts + 1))
                s.commit()
                if won.rowcount == 1:
                    return s.get(MailRow, row_id)
        return None

    def finish(self, row_id: int, status: str) -> None:
        with self.db.session() as s:
            s.execute(update(MailRow).where(MailRow.id == row_id, MailRow.claimed_by == self.worker)
                      .values(status=status, sent_at=utcnow() if status == "sent" else None, claimed_until=None))
            s.commit()

    def release(self, row: MailRow) -> None:
        """Not sent (the server is down or said "later"): tried again after a pause."""
        with self.db.session() as s:
            s.execute(update(MailRow).where(MailRow.id == row.id, MailRow.claimed_by == self.worker)
                      .values(claimed_until=None, claimed_by=None,
                              next_try=utcnow() + dt.timedelta(seconds=backoff(row.attempts, self.settings.retry))))
            s.commit()
