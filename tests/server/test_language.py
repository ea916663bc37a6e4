"""Languages: the catalogue endpoint (merged, cached, versioned), the language a request reads
(Accept-Language, the picker's cookie, an account's choice) and the shell in that language."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gemtable.server import language

from .test_robustness import SETTINGS


def test_offered_languages_are_the_web_catalogues_with_their_own_names(client):
    r = client.get("/api/i18n")
    assert r.status_code == 200
    names = {l["code"]: l["name"] for l in r.json()["languages"]}
    assert names["en"] == "English" and names["de"] == "Deutsch"
    assert set(names) == set(language.offered())


def test_catalogue_merges_the_shell_and_every_games_domain(client):
    r = client.get("/api/i18n/de")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["lang"] == "de"
    assert body["messages"]["Leaderboard"] == "Bestenliste"
    for domain in language.domains_for_web()[1:]:  # each game's renderer words, where it has some
        cat = language.i18n.catalogue(domain, "de")
        if cat is not None:
            some = next(iter(cat.entries))
            assert language._key(*some) in body["messages"]
    assert client.get("/api/i18n/en").json() == {"lang": "en", "messages": {}}


def test_catalogue_is_revalidated_by_etag_and_immutable_under_its_version(client):
    r = client.get("/api/i18n/de")
    etag = r.headers["etag"]
    assert r.headers["cache-control"] == "no-cache"
    assert client.get("/api/i18n/de", headers={"If-None-Match": etag}).status_code == 304
    version = etag.strip('"')
    v = client.get(f"/api/i18n/de?v={version}")
    assert v.status_code == 200 and "immutable" in v.headers["cache-control"]
    assert client.get("/api/i18n/de?v=0000").headers["cache-control"] == "no-cache"


def test_unknown_language_is_404_and_malformed_is_422(client):
    assert client.get("/api/i18n/fr").status_code == 404
    assert client.get("/api/i18n/xyz").status_code == 404
    for bad in ("DE", "de-DE", "d", "deutsch", "../en", "%00"):
        r = client.get(f"/api/i18n/{bad}")
        assert r.status_code in (404, 422), (bad, r.status_code)
        assert r.json()["error"] in ("bad_lang", "unknown_lang", "not_found"), r.text
    assert client.get("/api/i18n/DE").status_code == 422


@SETTINGS
@given(st.text(max_size=40))
def test_catalogue_endpoint_fuzzed(client, lang):
    from urllib.parse import quote

    r = client.get("/api/i18n/" + quote(lang, safe=""))
    assert r.status_code in (200, 304, 404, 405, 422), (lang, r.status_code)


@SETTINGS
@given(st.one_of(st.text(max_size=20), st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=3)))
def test_choice_fuzzed(client, value):
    r = client.post("/api/i18n/choice", json={"lang": value})
    assert r.status_code in (200, 404, 422), (value, r.status_code, r.text)
    assert r.status_code < 500


def shell_lang(client, **headers) -> str:
    r = client.get("/", headers=headers)
    assert r.status_code == 200
    return re.search(r'<html lang="(\w+)"', r.text).group(1)


def test_first_visit_reads_accept_language(client):
    assert shell_lang(client) == "en"
    assert shell_lang(client, **{"Accept-Language": "fr-FR,de;q=0.8,en;q=0.5"}) == "de"
    assert shell_lang(client, **{"Accept-Language": "en-GB,de;q=0.8"}) == "en"
    assert shell_lang(client, **{"Accept-Language": "de-AT"}) == "de"
    assert shell_lang(client, **{"Accept-Language": "de;q=0"}) == "en"
    r = client.get("/", headers={"Accept-Language": "de"})
    assert "accept-language" in r.headers["vary"].lower() and "cookie" in r.headers["vary"].lower()
    # the shell preloads its catalogue under the version that may be cached for a year
    m = re.search(r'data-catalogue="(/api/i18n/de\?v=\w+)"', r.text)
    assert m and f'href="{m.group(1)}"' in r.text
    assert "immutable" in client.get(m.group(1)).headers["cache-control"]


def test_english_shell_is_unchanged(client):
    r = client.get("/")
    assert '<html lang="en">' in r.text and "data-catalogue" not in r.text and "/api/i18n/" not in r.text


def test_guest_choice_is_kept_by_cookie(client):
    r = client.post("/api/i18n/choice", json={"lang": "de"})
    assert r.status_code == 200 and r.json() == {"lang": "de"}
    cookie = r.headers["set-cookie"]
    assert "gt_lang=de" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert shell_lang(client, **{"Accept-Language": "en"}) == "de"  # the choice beats the header
    assert client.get("/api/i18n").json()["lang"] == "de"
    client.post("/api/i18n/choice", json={"lang": "en"})
    assert shell_lang(client, **{"Accept-Language": "de"}) == "en"


def test_account_choice_follows_it_to_another_browser(client, db_url, toy_registered):
    from fastapi.testclient import TestClient

    r = client.post("/api/account/register", json={"name": "Greta", "password": "correct horse battery"})
    assert r.status_code in (200, 201), r.text
    assert client.post("/api/i18n/choice", json={"lang": "de"}).status_code == 200
    me = client.get("/api/me").json()
    assert me["lang"] == "de"
    other = TestClient(client.app)  # another browser: no cookies yet
    assert shell_lang(other) == "en"
    r = other.post("/api/account/login", json={"name": "Greta", "password": "correct horse battery"})
    assert r.status_code == 200, r.text
    me = other.get("/api/me")
    assert me.json()["lang"] == "de" and "gt_lang=de" in me.headers.get("set-cookie", "")
    assert shell_lang(other) == "de"


# -- one table, two languages -----------------------------------------------------------------
from gemtable.games.registry import all_games  # noqa: E402

from .conftest import create, seat_socket  # noqa: E402
from .test_chat import until  # noqa: E402
from .toy_words import WORDS  # noqa: E402

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
ENGLISH = {"Accept-Language": "en-GB"}


def socket_in(client, tid, token, headers):
    return client.websocket_connect(f"/ws/tables/{tid}", subprotocols=["gemtable", f"token.{token}"],
                                   headers=dict(headers))  # (a copy: the test client adds to the dict it gets)


def test_a_german_and_an_english_seat_read_one_log_each_in_their_language(client, monkeypatch):
    monkeypatch.setitem(all_games(), "toy_words", WORDS)
    res = create(client, "toy_words", 2, seats=[{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Ben"}])
    tid = res["table"]["id"]
    tokens = [s["token"] for s in res["seats"]]
    with socket_in(client, tid, tokens[0], GERMAN) as de, socket_in(client, tid, tokens[1], ENGLISH) as en:
        first_de = until(de, lambda m: m["type"] == "state")
        first_en = until(en, lambda m: m["type"] == "state")
        assert first_de["prompt"] == "Runde 1: wähle geheim 1, 2 oder 3."
        assert first_en["prompt"] == "Round 1: pick 1, 2 or 3 (secretly)."
        version = first_de["version"]
        de.send_json({"type": "action", "action": {"type": "pick", "n": 2}, "version": version})
        mine = until(de, lambda m: m["type"] == "state" and m["log"])
        theirs = until(en, lambda m: m["type"] == "state" and m["log"])
        assert [e["text"] for e in mine["log"]] == ["Anna nimmt 2 Steine."]
        assert [e["text"] for e in theirs["log"]] == ["Anna has picked."]
        # a refusal in the seat's language (the kernel's own words, from its catalogue)
        de.send_json({"type": "action", "action": {"type": "pick", "n": 1}, "version": mine["version"]})
        refusal = until(de, lambda m: m["type"] == "error")
        assert refusal["code"] == "illegal" and "Zug" in refusal["message"], refusal
        en.send_json({"type": "action", "action": {"type": "pick", "n": 1}, "version": mine["version"]})
        until(de, lambda m: m["type"] == "state" and m["log"])
        until(en, lambda m: m["type"] == "state" and m["log"])
        # a fresh full state (refresh) reads the same stored log, each in its language
        de.send_json({"type": "refresh"})
        en.send_json({"type": "refresh"})
        full_de = until(de, lambda m: m["type"] == "state" and m["log_reset"])
        full_en = until(en, lambda m: m["type"] == "state" and m["log_reset"])
        assert [e["text"] for e in full_de["log"]][:2] == ["Anna nimmt 2 Steine.", "Ben hat gewählt."]
        assert [e["text"] for e in full_en["log"]][:2] == ["Anna has picked.", "Ben picks 1 stone."]
        assert [e["move"] for e in full_de["log"]] == [e["move"] for e in full_en["log"]]
    # the REST state of a seat reads the same way
    r = client.get(f"/api/tables/{tid}/state", headers=dict(GERMAN, **{"X-Seat-Token": tokens[1]}))
    assert r.json()["log"][1]["text"] == "Ben nimmt 1 Stein."
    # the toy game's events carry plain English strings, as games stored before messages did: shown as they are
    res = create(client, "toy", 2, seats=[{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Ben"}])
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    seat0 = dict(GERMAN, **{"X-Seat-Token": tokens[0]})
    r = client.post(f"/api/tables/{tid}/actions", json={"action": {"type": "pick", "n": 3}, "version": 0}, headers=seat0)
    assert r.status_code == 200, r.text
    assert r.json()["log"][0]["text"] == "Anna picks 3."


def test_system_chat_lines_carry_their_message(client):
    from gemtable.server.chat import spectators_muted

    res = create(client, "toy", 2, seats=[{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Ben"}])
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    with socket_in(client, tid, tokens[0], GERMAN) as ws:
        until(ws, lambda m: m["type"] == "state")
        ws.send_json({"type": "mute_spectators", "on": True})
        line = until(ws, lambda m: m["type"] == "chat")["line"]
    assert line["text"] == "The host muted spectators' chat." and line["msg"] == spectators_muted(True)
    assert language.i18n.render(line["msg"], "de", [language.i18n.CORE_DOMAIN]) != line["text"]


def test_refusals_over_http_read_in_the_readers_language(client):
    res = create(client, "toy", 2, seats=[{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Ben"}])
    tid, tok = res["table"]["id"], res["seats"][0]["token"]
    body = {"action": {"type": "pick", "n": 1}, "version": 99}
    en = client.post(f"/api/tables/{tid}/actions", json=body, headers={"X-Seat-Token": tok})
    de = client.post(f"/api/tables/{tid}/actions", json=body, headers=dict(GERMAN, **{"X-Seat-Token": tok}))
    assert en.status_code == de.status_code == 409
    assert en.json()["detail"].startswith("That action was chosen at move 99")
    assert de.json()["detail"] != en.json()["detail"] and "99" in de.json()["detail"]


def test_mails_in_the_recipients_language():
    from gemtable.server import community
    from gemtable.server.mail import MailSettings

    st = MailSettings(site="https://example.test")
    subject, text, page = community.turn_mail(st, "splendor", "t1", ["Ben"], "https://u", "de")
    english = community.turn_mail(st, "splendor", "t1", ["Ben"], "https://u")
    assert subject != english[0] and "Ben" in text and "https://example.test/table/t1" in text
    assert "Stop these mails" not in text and "Stop these mails" not in page
    subject, _text, _page = community.digest_mail(st, [("t1", "splendor")], "https://u", "de")
    assert subject != community.digest_mail(st, [("t1", "splendor")], "https://u")[0]


SERVER_FILES = ["chat.py", "community.py", "table.py", "tables.py", "routes/live.py"]


def test_the_servers_messages_are_translated_to_german():
    from pathlib import Path

    from gemtable.core import i18n

    root = Path(language.__file__).parent
    used = i18n.extract([root / f for f in SERVER_FILES])

    def real(where: list[str]) -> bool:  # the extractor also takes a dict named msg's msg["type"] for a call
        path, line = where[0].rsplit(":", 1)
        return "msg(" in Path(path).read_text().splitlines()[int(line) - 1] or "msgn(" in "".join(
            Path(path).read_text().splitlines()[int(line) - 1:int(line) + 1])

    used = {k: v for k, v in used.items() if real(v)}
    assert len(used) > 40
    # (the kernel's own refusal "The game is over..." is the kernel's entry in the same catalogue)
    problems = [p for p in i18n.audit(i18n.CORE_DOMAIN, used, "de") if "The game is over" not in p]
    assert problems == []


def test_web_catalogue_carries_the_kernel_s_system_chat_lines(client):
    """A system chat line arrives as a message of the kernel's domain; the page renders it
    (online.js) from the web catalogue, which therefore carries the kernel's words too, after
    the shell's own (a word both translate reads as the shell has it)."""
    from gemtable.server.chat import spectators_muted

    domains = language.domains_for_web()
    assert domains[0] == language.WEB_DOMAIN and domains[-1] == language.i18n.CORE_DOMAIN
    message = spectators_muted(True)
    german = language.i18n.render(message, "de", [language.i18n.CORE_DOMAIN])
    assert german != message["m"]
    assert client.get("/api/i18n/de").json()["messages"][message["m"]] == german


def test_games_are_described_in_the_reader_s_language(client):
    """The lobby's game cards, option labels and the how-to-play come in the page's language."""
    from gemtable.core.registry import get_game

    game = get_game("splendor")
    english = client.get("/api/games/splendor", headers={"Accept-Language": "en"}).json()
    german = client.get("/api/games/splendor", headers={"Accept-Language": "de"}).json()
    assert english["rules"] == game.play_text() and german["rules"] == game.play_text("de") != english["rules"]
    assert german["summary"] == game.describe("de")["summary"] != english["summary"]
    listed = {g["id"]: g for g in client.get("/api/games", headers={"Accept-Language": "de"}).json()}
    assert listed["splendor"]["summary"] == german["summary"]
    assert {g["id"]: g["summary"] for g in client.get("/api/games").json()}["splendor"] == game.summary
