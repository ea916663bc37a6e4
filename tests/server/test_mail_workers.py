"""The mail queue with several `gemtable serve` workers on one PostgreSQL database, and workers
killed with SIGKILL while they send.  The SMTP server runs in the test process (aiosmtpd)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from gemtable.server import mail
from gemtable.server.db import Database, MailRow

from .conftest import GEMTABLE, free_port, wait_serving
from .test_community import Inbox, SmtpServer, mail_settings, token_of, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
pytest.importorskip("aiosmtpd")

LEASE = 4.0


def spawn(db_url: str, smtp_port: int, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [str(GEMTABLE), "serve", "--port", str(port), "--db", db_url, "--bot-delay", "0",
           "--smtp-host", "127.0.0.1", "--smtp-port", str(smtp_port), "--smtp-tls", "none",
           "--smtp-timeout", "1.5", "--mail-lease", str(LEASE), "--mail-poll", "0.2", "--site-url", "http://gt.test"]
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
    return proc, port


def start(db_url: str, smtp_port: int, log: Path) -> subprocess.Popen:
    proc, port = spawn(db_url, smtp_port, log)
    wait_serving(proc, port, log)
    proc.port = port
    return proc


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def queue_mails(db_url: str, count: int) -> list[str]:
    """``count`` mails queued as a feature queues them (the queue emptied first); their Message-IDs."""
    from sqlalchemy import delete

    db = Database(db_url)
    settings = mail_settings(1)
    ids = []
    try:
        with db.session() as s:
            s.execute(delete(MailRow))
            for i in range(count):
                row = mail.queue(s, settings, f"p{i}", f"player{i}@example.org", "turn", f"Your turn {i}",
                                 f"text {i}", f"<p>html {i}</p>", None, None)
                ids.append(row.message_id)
            s.commit()
    finally:
        db.dispose()
    return ids


def rows(db_url: str) -> list[MailRow]:
    db = Database(db_url)
    try:
        with db.session() as s:
            return list(s.scalars(select(MailRow).order_by(MailRow.id)))
    finally:
        db.dispose()


def delivered(inbox: Inbox) -> Counter:
    with inbox.lock:
        return Counter(m["Message-ID"].strip() for m in inbox.messages)


class HoldAtRecipient(Inbox):
    """Holds the first recipient command (the sending worker is killed meanwhile): its message
    never reaches DATA, so the server has not accepted it."""

    def __init__(self, hold: float) -> None:
        super().__init__()
        self.first = True
        self.recipient_hold = hold
        self.held = threading.Event()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.first:
            self.first = False
            self.held.set()
            await asyncio.sleep(self.recipient_hold)
        envelope.rcpt_tos.append(address)
        return "250 OK"


class AcceptThenHold(Inbox):
    """Takes the first message in (as a mail server that stored it) and holds back its 250."""

    def __init__(self, hold: float) -> None:
        super().__init__()
        self.first_hold = hold
        self.held = threading.Event()

    async def handle_DATA(self, server, session, envelope):
        import email
        import email.policy

        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
            first = len(self.messages) == 1
        if first:
            self.held.set()
            await asyncio.sleep(self.first_hold)
        return "250 OK"


def test_two_workers_send_every_queued_mail_exactly_once(postgres_url, tmp_path):
    inbox = Inbox()
    inbox.hold = 0.02  # each mail takes a moment: both workers are sending at the same time
    smtp = SmtpServer(inbox)
    smtp.start()
    workers = []
    try:
        queue_mails(postgres_url, 0)  # (the schema, and an empty queue)
        workers = [start(postgres_url, smtp.port, tmp_path / f"w{i}.log") for i in range(2)]
        ids = queue_mails(postgres_url, 60)  # both workers are polling
        assert wait_for(lambda: sum(delivered(inbox).values()) >= 60, 90)
        time.sleep(2 * LEASE)  # nothing more comes
        got = delivered(inbox)
        assert sorted(got) == sorted(ids) and set(got.values()) == {1}
        stored = rows(postgres_url)
        assert {r.status for r in stored} == {"sent"} and {r.attempts for r in stored} == {1}
        assert len({r.claimed_by for r in stored}) == 2  # both workers sent some
        assert all("player" not in line for w in range(2) for line in (tmp_path / f"w{w}.log").read_text().splitlines()
                   if "@" in line), "an address was logged"
    finally:
        for w in workers:
            kill(w)
        smtp.stop()


def test_a_worker_killed_while_it_sends_loses_no_mail_and_sends_none_twice(postgres_url, tmp_path):
    inbox = HoldAtRecipient(hold=30.0)
    smtp = SmtpServer(inbox)
    smtp.start()
    workers = []
    try:
        ids = queue_mails(postgres_url, 30)
        first = start(postgres_url, smtp.port, tmp_path / "first.log")
        workers.append(first)
        assert inbox.held.wait(60)  # the worker is sending its first mail
        kill(first)  # SIGKILL mid-transaction
        claimed = [r for r in rows(postgres_url) if r.claimed_until is not None and r.status == "queued"]
        assert len(claimed) == 1  # its claim stays until the lease runs out
        # two workers (one of them the killed worker, started again) send the rest
        workers += [start(postgres_url, smtp.port, tmp_path / f"w{i}.log") for i in range(2)]
        assert wait_for(lambda: sum(delivered(inbox).values()) >= 30, 90)
        time.sleep(2 * LEASE)
        got = delivered(inbox)
        assert sorted(got) == sorted(ids) and set(got.values()) == {1}
        assert {r.status for r in rows(postgres_url)} == {"sent"}
        killed = next(r for r in rows(postgres_url) if r.id == claimed[0].id)
        assert killed.attempts == 2  # claimed by the killed worker, then sent by another
    finally:
        for w in workers:
            kill(w)
        smtp.stop()


def test_a_worker_killed_after_the_server_took_a_mail_in_sends_it_again_with_the_same_message_id(
        postgres_url, tmp_path):
    """The one window no SMTP client can close: the server has the mail, the worker dies before
    it hears so.  The mail is sent again after the lease, as the same message (Message-ID)."""
    inbox = AcceptThenHold(hold=30.0)
    smtp = SmtpServer(inbox)
    smtp.start()
    workers = []
    try:
        ids = queue_mails(postgres_url, 5)
        first = start(postgres_url, smtp.port, tmp_path / "first.log")
        workers.append(first)
        assert inbox.held.wait(60)
        kill(first)
        workers.append(start(postgres_url, smtp.port, tmp_path / "second.log"))
        assert wait_for(lambda: sum(delivered(inbox).values()) >= 6, 90)
        time.sleep(2 * LEASE)
        got = delivered(inbox)
        assert sorted(got) == sorted(ids)  # none lost
        assert sorted(got.values()) == [1, 1, 1, 1, 2]  # the one in the window: twice, one Message-ID
        assert {r.status for r in rows(postgres_url)} == {"sent"}
    finally:
        for w in workers:
            kill(w)
        smtp.stop()


def test_serve_mails_a_confirm_link_that_confirms_at_another_worker(postgres_url, tmp_path):
    inbox = Inbox()
    smtp = SmtpServer(inbox)
    smtp.start()
    workers = []
    try:
        workers = [start(postgres_url, smtp.port, tmp_path / f"w{i}.log") for i in range(2)]
        a, b = (f"http://127.0.0.1:{w.port}" for w in workers)
        with httpx.Client(base_url=a, timeout=30) as ann:
            assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
            assert ann.put("/api/me/mail", json={"address": "ann@example.org"}).status_code == 200
            msg = inbox.wait("Confirm your e-mail", timeout=60)[0]
            token = token_of(msg, "/mail/confirm")
            assert httpx.post(f"{b}/api/mail/confirm", json={"token": token}, timeout=30).json() == {"confirmed": True}
            assert ann.get("/api/me/mail").json()["confirmed"] is True
        time.sleep(1.0)
        assert len(inbox.messages) == 1
    finally:
        for w in workers:
            kill(w)
        smtp.stop()


def test_a_turn_at_one_worker_is_mailed_once_and_listed_at_the_other(postgres_url, tmp_path):
    inbox = Inbox()
    smtp = SmtpServer(inbox)
    smtp.start()
    workers = []
    try:
        workers = [start(postgres_url, smtp.port, tmp_path / f"w{i}.log") for i in range(2)]
        a, b = (f"http://127.0.0.1:{w.port}" for w in workers)
        with httpx.Client(base_url=a, timeout=30) as ann, httpx.Client(base_url=b, timeout=30) as bob:
            assert ann.post("/api/me", json={"name": "Tam"}).status_code == 200
            assert bob.post("/api/me", json={"name": "Uli"}).status_code == 200
            assert bob.put("/api/me/mail", json={"address": "bob@example.org"}).status_code == 200
            token = token_of(inbox.wait("Confirm your e-mail", timeout=60)[0], "/mail/confirm")
            assert ann.post("/api/mail/confirm", json={"token": token}).status_code == 200
            r = ann.post("/api/tables", json={"game": "splendor", "players": 2,
                                              "seats": [{"kind": "me"}, {"kind": "open"}]})
            tid, ann_token = r.json()["table"]["id"], r.json()["seats"][0]["token"]
            assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200  # at worker b: Ann moves
            assert wait_for(lambda: [t["table"] for t in ann.get("/api/me/turns").json()["turns"]] == [tid], 30)
            state = ann.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": ann_token}).json()
            r = ann.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": ann_token},
                         json={"version": state["version"], "action": state["legal"][0]["json"]})
            assert r.status_code == 200, r.text
            msg = inbox.wait("Your turn", timeout=60)[0]
            assert msg["To"] == "bob@example.org"
            # Bob's list at the other worker; Ann's is empty now
            assert wait_for(lambda: [t["table"] for t in bob.get("/api/me/turns").json()["turns"]] == [tid], 30)
            assert wait_for(lambda: ann.get("/api/me/turns").json()["turns"] == [], 30)
        time.sleep(2.0)
        assert len(inbox.of_kind("Your turn")) == 1
        assert not [line for w in range(2) for line in (tmp_path / f"w{w}.log").read_text().splitlines()
                    if "Traceback" in line or "bob@example.org" in line]
    finally:
        for w in workers:
            kill(w)
        smtp.stop()
