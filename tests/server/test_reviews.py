"""Game reviews on the server: finished tables only, computed in the background, stored,
bounded, and never a 5xx."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from gemtable.server import create_app
from gemtable.server.db import ReviewRow
from gemtable.server.limits import Limits

from .conftest import create
from .test_lobby import wait_for
from .test_robustness import SETTINGS

BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


def finished(client, game="splendor"):
    tid = create(client, game=game, players=2, seats=BOTS, seed=3)["table"]["id"]
    assert wait_for(lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished", timeout=60)
    return tid


def reviewed(client, tid, timeout=120):
    got = {}

    def done():
        got.update(client.get(f"/api/tables/{tid}/review").json())
        return got["status"] in ("done", "failed")
    assert wait_for(done, timeout=timeout), got
    return got


def test_a_finished_game_is_reviewed_in_the_background_and_stored(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as client:
        tid = finished(client)
        assert client.get(f"/api/tables/{tid}/review").json()["status"] == "none"
        asked = client.post(f"/api/tables/{tid}/review")
        assert asked.status_code == 200 and asked.json()["status"] in ("queued", "working", "done")
        got = reviewed(client, tid)
        assert got["status"] == "done", got
        review = got["review"]
        moves = len(client.get(f"/api/tables/{tid}/match").json()["actions"])
        assert review["moves"] == moves and [len(c) for c in review["chances"]] == [moves + 1] * 2
        assert review["seconds"] > 0 and "samples" in review["bot"]
        # asking again does not compute it again
        assert client.post(f"/api/tables/{tid}/review").json()["status"] == "done"
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:  # after a restart
        again = client.get(f"/api/tables/{tid}/review").json()
        assert again["status"] == "done" and again["review"] == review


def test_a_running_game_is_never_reviewed(client):
    res = create(client, game="splendor", players=2, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    tid = res["table"]["id"]
    for method in (client.post, client.get):
        r = method(f"/api/tables/{tid}/review")
        assert r.status_code == 409 and r.json()["error"] == "running", r.text
    with client.app.state.manager.db.session() as s:
        assert s.get(ReviewRow, tid) is None


def test_unknown_tables_are_404(client):
    for tid in ("nosuchtable", "x" * 40, "%00"):
        assert client.post(f"/api/tables/{tid}/review").status_code == 404
        assert client.get(f"/api/tables/{tid}/review").status_code == 404


def test_the_queue_is_bounded(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed(), review_queue=1)
    with TestClient(app) as client:
        first, second = finished(client), finished(client)
        app.state.reviews.tasks[0].cancel()  # the worker is busy elsewhere: nothing drains
        time.sleep(0.05)
        assert client.post(f"/api/tables/{first}/review").json()["status"] == "queued"
        full = client.post(f"/api/tables/{second}/review")
        assert full.status_code == 429 and full.headers["retry-after"] and full.json()["error"] == "busy"
        assert client.post(f"/api/tables/{first}/review").status_code == 200  # already queued: fine


def test_a_review_asked_for_before_a_restart_is_computed_after_it(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as client:
        tid = finished(client)
        app.state.reviews.tasks[0].cancel()
        time.sleep(0.05)
        assert client.post(f"/api/tables/{tid}/review").json()["status"] == "queued"
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        assert reviewed(client, tid)["status"] == "done"


def test_only_one_worker_claims_a_review(db_url, toy_registered):
    from gemtable.server import reviews

    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as client:
        db = app.state.manager.db
        tid = finished(client)
        reviews.ask(db, tid)
        assert reviews.claim(db, tid, "w1", 60_000) is True
        assert reviews.claim(db, tid, "w2", 60_000) is False
        assert reviews.claim(db, tid, "w2", -1) is True  # w1's claim went stale: taken over


@SETTINGS
@given(tid=st.text(max_size=60))
def test_review_routes_never_500(client, tid):
    from urllib.parse import quote

    for method in (client.post, client.get):
        r = method(f"/api/tables/{quote(tid, safe='')}/review")
        assert r.status_code < 500, r.text


def test_on_postgresql_exactly_one_worker_computes_a_review(postgres_url):
    """Workers asking and claiming the same review at once: one claim wins."""
    import threading

    from gemtable.server import reviews
    from gemtable.server.db import Database

    workers = [Database(postgres_url) for _ in range(2)]
    try:
        for round_ in range(5):
            tid = f"t{round_}"
            barrier = threading.Barrier(8)
            wins = []

            def worker(k, tid=tid, barrier=barrier, wins=wins):
                db = workers[k % 2]
                barrier.wait()
                reviews.ask(db, tid)
                wins.append(reviews.claim(db, tid, f"w{k}", 60_000))
            threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert wins.count(True) == 1, wins
            assert reviews.read(workers[0], tid)["status"] == "working"
    finally:
        for db in workers:
            db.dispose()


# -- the reader's language --------------------------------------------------------------------
def _catalogue_words(domains):
    """Words of the catalogues' English that their German never uses (so a German text
    holding one of them shows English)."""
    import re

    from babel.messages.pofile import read_po

    english, german = set(), set()
    for domain in domains:
        with (domain / "de.po").open("rb") as f:
            for m in read_po(f, locale="de"):
                if not m.id:
                    continue
                ids = m.id if isinstance(m.id, (list, tuple)) else [m.id]
                strings = m.string if isinstance(m.string, (list, tuple)) else [m.string]
                english.update(w.lower() for text in ids for w in re.findall(r"[A-Za-z]{4,}", re.sub(r"\{\w+\}", "", text)))
                german.update(w.lower() for text in strings for w in re.findall(r"[A-Za-zÄÖÜäöüß]{4,}", text))
    return english - german


def _texts(review):
    out = [review["bot"]]
    for w in review["swings"]:
        out += [w["played"], w["best"], *w["best_reasons"], *w["played_reasons"]]
    return out


def _english_in(texts, words):
    import re

    return {w for text in texts for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() in words}


def test_a_review_reads_in_the_readers_language(db_url, toy_registered):
    """Stored language-neutral; read in English it is what the review of the match gives,
    read in German its moves, reasons and judge are German."""
    from gemtable.analysis.review import review as run_review
    from gemtable.core import Match, get_game, i18n

    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as client:
        app.state.reviews.samples = 2
        tid = finished(client)
        client.post(f"/api/tables/{tid}/review")
        assert reviewed(client, tid)["status"] == "done"
        with app.state.manager.db.session() as s:
            stored = s.get(ReviewRow, tid).data
        assert stored["swings"] and i18n.is_message(stored["bot"])
        assert all("played" not in w and "played_action" in w for w in stored["swings"])
        match = client.get(f"/api/tables/{tid}/match").json()
        english = client.get(f"/api/tables/{tid}/review", headers={"Accept-Language": "en"}).json()["review"]
        expected = run_review(Match.from_json(match), samples=2)
        assert {k: v for k, v in english.items() if k != "seconds"} == expected
        german = client.get(f"/api/tables/{tid}/review", headers={"Accept-Language": "de"}).json()["review"]
        assert german["chances"] == english["chances"] and len(german["swings"]) == len(english["swings"])
        game = get_game("splendor")
        m = Match.from_json(match)
        for w, e in zip(german["swings"], english["swings"]):
            state = m.replay(w["move"] - 1)
            played = game.action_from_json(m.actions[w["move"] - 1][1])
            assert w["played"] == state.action_text(w["seat"], played, "de") != e["played"]
        words = _catalogue_words(game.domains)
        assert _english_in(_texts(english), words)  # the check sees English where there is some
        assert not _english_in(_texts(german), words), _texts(german)
        assert any(w["best_reasons"] or w["played_reasons"] for w in german["swings"])
        # the same again comes from the cache; a POST answers in the reader's language too
        assert client.get(f"/api/tables/{tid}/review", headers={"Accept-Language": "de"}).json()["review"] == german
        assert client.post(f"/api/tables/{tid}/review", headers={"Accept-Language": "de"}).json()["review"] == german


def test_a_review_stored_with_english_texts_still_serves(db_url, toy_registered):
    """A review stored by an older version (texts, not messages) is shown as it is, in any
    language."""
    from gemtable.analysis.review import review as run_review
    from gemtable.core import Match

    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as client:
        tid = finished(client)
        match = client.get(f"/api/tables/{tid}/match").json()
        old = run_review(Match.from_json(match), samples=2)
        old["seconds"] = 1.5
        with app.state.manager.db.session() as s:
            s.add(ReviewRow(table_id=tid, status="done", data=old))
            s.commit()
        for lang in ("en", "de"):
            got = client.get(f"/api/tables/{tid}/review", headers={"Accept-Language": lang})
            assert got.status_code == 200 and got.json()["review"] == old
