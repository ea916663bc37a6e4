"""The HTTP refusals a player reads, in the request's language: every route's refusal is a
message rendered with the reader's language (edge.py's handler), the English staying what it
was; fuzzed requests in German are still answered 4xx; /api/games describes the games in the
reader's language."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gemtable.core import i18n
from gemtable.core.registry import all_games

from .test_lobby import hosted, named
from .test_robustness import SETTINGS

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
ENGLISH = {"Accept-Language": "en-GB"}


def both(client, method: str, path: str, **kw) -> tuple[int, str, str]:
    """The refusal's status and its detail in English and in German."""
    en = client.request(method, path, headers=ENGLISH, **kw)
    de = client.request(method, path, headers=GERMAN, **kw)
    assert en.status_code == de.status_code, (path, en.text, de.text)
    assert 400 <= en.status_code < 500, (path, en.status_code, en.text)
    assert en.json()["error"] == de.json()["error"]
    return en.status_code, en.json()["detail"], de.json()["detail"]


# (method, path, body, English detail, German detail): one refusal of each route module
CASES = [
    ("POST", "/api/account/login", {"name": 1, "password": 2}, "'name' and 'password' must be text.",
     "'name' und 'password' müssen Text sein."),
    ("POST", "/api/account/login", {"name": "nobody-here", "password": "long enough secret"},
     "Wrong name or password.", "Name oder Passwort falsch."),
    ("GET", "/api/stats/players/nobody-here", None, "There is no player of that name.",
     "Einen Spieler mit diesem Namen gibt es nicht."),
    ("GET", "/api/stats/games/nogame", None, "There is no game 'nogame'.", "Ein Spiel 'nogame' gibt es nicht."),
    ("GET", "/api/leaderboard/nogame", None, "There is no game 'nogame'.", "Ein Spiel 'nogame' gibt es nicht."),
    ("GET", "/api/games/nogame", None, "There is no game 'nogame'.", "Ein Spiel 'nogame' gibt es nicht."),
    ("GET", "/api/tournaments/ffff", None, "There is no such tournament.", "Dieses Turnier gibt es nicht."),
    ("GET", "/api/i18n/fr", None, "This site has no texts in the language 'fr'.",
     "Diese Seite hat keine Texte in der Sprache 'fr'."),
    ("GET", "/api/lobby?players=x", None, "'players' must be a whole number of players, not 'x'.",
     "'players' muss eine ganze Spielerzahl sein, nicht 'x'."),
    ("GET", "/api/lobby?open=maybe", None, "'open' must be true or false (1 or 0), not 'maybe'.",
     "'open' muss true oder false (1 oder 0) sein, nicht 'maybe'."),
    ("POST", "/api/tables", {"game": "toy", "players": 2, "seats": [{"kind": "human"}]},
     "'seats' must list exactly 2 seats.", "'seats' muss genau 2 Plätze aufzählen."),
    ("POST", "/api/tables", {"game": "toy", "players": 2, "seed": -1},
     "'seed' must be a whole number in [0, 2**62).", "'seed' muss eine ganze Zahl in [0, 2**62) sein."),
    ("GET", "/api/tables/nosuchtable1", None, "There is no table 'nosuchtable1'.",
     "Einen Tisch 'nosuchtable1' gibt es nicht."),
    ("POST", "/api/admin/nothing", {}, None, "Unbekannte Admin-Aktion"),
]


def test_each_routes_refusal_reads_in_the_request_language(client):
    for method, path, body, english, german in CASES:
        status, en, de = both(client, method, path, json=body)
        if english is not None:
            assert en == english, (path, en)
        assert de.startswith(german) if english is None else de == german, (path, de)


def test_refusals_that_need_a_player_or_a_table(client):
    # a guest (no player yet) asking for what needs a name
    status, en, de = both(client, "GET", "/api/me/mail")
    assert status == 401 and en.startswith("Pick a name first") and de.startswith("Wähle zuerst einen Namen")
    status, en, de = both(client, "POST", "/api/tournaments", json={"name": "Cup", "game": "toy", "players": 2,
                                                                  "starts_in": 600})
    assert status in (401, 403) and de != en, (en, de)
    # a waiting table whose host this client is not: the lobby's refusal
    ann, res = hosted(client)
    tid = res["table"]["id"]
    other = named(client, "Bea", host="203.0.113.78")
    status, en, de = both(other, "POST", f"/api/tables/{tid}/start", json={})
    assert (status, en, de) == (403, "Only the table's host can do that.", "Das kann nur der Gastgeber des Tisches.")
    # a wrong seat token (deps.seat_of)
    en = client.post(f"/api/tables/{tid}/hint", json={"version": 0}, headers={**ENGLISH, "X-Seat-Token": "nope"})
    de = client.post(f"/api/tables/{tid}/hint", json={"version": 0}, headers={**GERMAN, "X-Seat-Token": "nope"})
    assert en.status_code == de.status_code == 403
    assert en.json()["detail"] == "That seat token is not valid for this table."
    assert de.json()["detail"] == "Dieses Platz-Token gilt nicht für diesen Tisch."


def test_a_rate_limit_reads_as_one_sentence(client):
    app = client.app
    limiter = app.state.create_limiter
    from gemtable.server.deps import NEW_TABLES, too_many

    exc = too_many(limiter, "203.0.113.9", NEW_TABLES)
    assert exc.message.startswith("Too many new tables from your address: try again in ")
    assert exc.text("de").startswith("Zu viele neue Tische von deiner Adresse: versuch es in ")
    assert exc.retry_after is not None and f"{exc.retry_after} s" in exc.text("de")


def test_a_games_name_in_a_refusal_is_the_games_word(client):
    status, en, de = both(client, "GET", "/api/games/splendor/sample?players=9")
    game = all_games()["splendor"]
    assert en == f"{game.title} is played by {', '.join(map(str, game.player_counts))} players, not 9."
    title_de = i18n.render(i18n.msg(game.title), "de", game.domains)
    assert de == f"{title_de} spielt man zu {', '.join(map(str, game.player_counts))}, nicht zu 9."


def test_games_are_described_in_the_readers_language(client):
    en = client.get("/api/games", headers=ENGLISH)
    de = client.get("/api/games", headers=GERMAN)
    assert "accept-language" in de.headers["vary"].lower() and "cookie" in de.headers["vary"].lower()
    english = {g["id"]: g for g in en.json()}
    german = {g["id"]: g for g in de.json()}
    assert english == {g: dict(game.describe(), renderer=english[g]["renderer"]) for g, game in all_games().items()}
    for gid, game in all_games().items():
        assert german[gid] == dict(game.describe("de"), renderer=english[gid]["renderer"])
    assert german["splendor"]["summary"] != english["splendor"]["summary"]
    one = client.get("/api/games/splendor", headers=GERMAN).json()
    assert one["summary"] == all_games()["splendor"].describe("de")["summary"]
    assert one["rules"] == all_games()["splendor"].play_text("de") != all_games()["splendor"].play_text()


ENDPOINTS = [
    ("POST", "/api/account/login"), ("POST", "/api/account/register"), ("POST", "/api/account/password"),
    ("POST", "/api/me"), ("POST", "/api/reports"), ("POST", "/api/admin/mute"), ("POST", "/api/tournaments"),
    ("POST", "/api/me/follows"), ("POST", "/api/me/blocks"), ("PUT", "/api/me/mail"), ("POST", "/api/me/mail/prefs"),
    ("POST", "/api/mail/confirm"), ("POST", "/api/lobby/play"), ("POST", "/api/tables"),
    ("POST", "/api/i18n/choice"), ("GET", "/api/lobby"),
]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12), st.lists(st.integers(), max_size=2))


@SETTINGS
@given(endpoint=st.sampled_from(ENDPOINTS),
       body=st.dictionaries(st.sampled_from(["name", "password", "game", "players", "seats", "mode", "address",
                                             "token", "player", "chat_id", "minutes", "kind", "format", "lang",
                                             "rounds", "starts_in", "clock", "open", "per_page"]), VALUES, max_size=4))
def test_fuzzed_requests_in_german_are_refused_4xx(client, endpoint, body):
    method, path = endpoint
    if method == "GET":
        r = client.get(path, params={k: str(v) for k, v in body.items()}, headers=GERMAN)
    else:
        r = client.request(method, path, json=body, headers=GERMAN)
    assert r.status_code < 500, (endpoint, body, r.status_code, r.text)
    if r.status_code >= 400:
        data = r.json()
        assert isinstance(data["detail"], str) and data["detail"], data
