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
