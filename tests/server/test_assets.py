"""The web client's files: content-hashed names cached for a year, gzip, the revalidated shell
that names them (import map, preload hints), and what a stale or made-up name gets (404)."""

from __future__ import annotations

import gzip
import re
import shutil

from hypothesis import given
from hypothesis import strategies as st

from gemtable.server.assets import IMMUTABLE, Assets, accepts_gzip
from gemtable.server.routes.pages import WEB_DIR

from .conftest import create
from .test_robustness import SETTINGS

GZ = {"Accept-Encoding": "gzip, deflate, br"}
PLAIN = {"Accept-Encoding": "identity"}


def static_refs(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def import_map(html: str) -> dict[str, str]:
    import json

    return json.loads(re.search(r'<script type="importmap">(.*?)</script>', html, re.DOTALL).group(1))["imports"]


def test_the_shell_names_hashed_files_and_is_revalidated(client):
    r = client.get("/", headers=GZ)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    assert r.headers["content-encoding"] == "gzip" and "accept-encoding" in r.headers["vary"].lower()
    refs = static_refs(r.text)
    assert refs and all(re.search(r"\.[0-9a-f]{12}\.\w+$", ref) for ref in refs), refs
    mapped = import_map(r.text)
    assert set(mapped) == {f"/static/{p.relative_to(WEB_DIR).as_posix()}" for p in WEB_DIR.rglob("*.js")}
    assert all(re.search(r"\.[0-9a-f]{12}\.js$", v) for v in mapped.values())
    # the page's own modules are preloaded at once, app.js and what it imports
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', r.text)
    for name in ("app.js", "svg.js", "online.js", "generic.js", "motion.js"):
        assert mapped[f"/static/{name}"] in preloaded, name
    # the inline import map is allowed by the shell's CSP through its hash, nothing else inline
    csp = r.headers["content-security-policy"]
    assert re.search(r"script-src 'self' 'sha256-[A-Za-z0-9+/=]+';", csp) and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    # revalidation: the same shell is a 304
    again = client.get("/", headers={**GZ, "If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_a_table_page_preloads_its_renderer_and_its_summary(client):
    tid = create(client, "splendor", 2)["table"]["id"]
    html = client.get(f"/table/{tid}").text
    mapped = import_map(html)
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)
    assert mapped["/static/games/splendor.js"] in preloaded and mapped["/static/dialog.js"] in preloaded
    assert f'<link rel="preload" as="fetch" href="/api/tables/{tid}" crossorigin="anonymous">' in html
    assert mapped["/static/games/sintra.js"] not in preloaded  # only the game played here
    # an unknown table: the shell still answers (the page says the table is gone), without a renderer
    html = client.get("/table/nope").text
    assert not any("/games/" in p for p in re.findall(r'rel="modulepreload" href="([^"]+)"', html))


def test_hashed_files_are_immutable_and_compressed(client):
    html = client.get("/").text
    for ref in static_refs(html) + list(import_map(html).values()):
        r = client.get(ref, headers=GZ)
        assert r.status_code == 200, ref
        assert r.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        plain = client.get(ref, headers=PLAIN)
        assert "content-encoding" not in plain.headers and plain.content == r.content  # (httpx decodes gzip)
        if ref.endswith((".js", ".css")):
            assert r.headers["content-encoding"] == "gzip", ref
            assert int(r.headers["content-length"]) < len(plain.content) * 0.5, ref
    big = client.get("/api/games", headers=GZ)
    assert big.headers.get("content-encoding") == "gzip"  # the API's JSON too


def test_stale_unknown_and_plain_names(client):
    app_js = import_map(client.get("/").text)["/static/app.js"]
    stale = re.sub(r"\.[0-9a-f]{12}\.js$", ".0123456789ab.js", app_js)
    for path in (stale, "/static/nope.0123456789ab.js", "/static/app.js.0123456789ab", "/static/__init__.py",
                 "/static/games/README.md", "/static/../pyproject.toml"):
        r = client.get(path)
        assert r.status_code == 404, path
    plain = client.get("/static/app.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    assert client.get("/static/app.js", headers={"If-None-Match": plain.headers["etag"]}).status_code == 304


@SETTINGS
@given(path=st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60)
       | st.sampled_from(["app.0123456789ab.js", "games/x.aaaaaaaaaaaa.js", "a..b", "%00", ".env", "games/"]))
def test_static_paths_never_500(client, path):
    from urllib.parse import quote

    r = client.get("/static/" + quote(path, safe="/."))
    assert r.status_code < 500, (path, r.status_code)


def test_a_changed_file_gets_a_new_name_and_its_old_name_is_gone(tmp_path):
    web = tmp_path / "web"
    shutil.copytree(WEB_DIR, web, ignore=shutil.ignore_patterns("__pycache__"))
    assets = Assets(web)
    before = {a: assets.url(a) for a in ("app.js", "svg.js", "style.css")}
    shell_before = assets.shell()
    (web / "svg.js").write_text((web / "svg.js").read_text() + "\n// changed\n")
    assets.refresh()
    assert assets.url("svg.js") != before["svg.js"]
    assert assets.url("app.js") == before["app.js"] and assets.url("style.css") == before["style.css"]
    assert assets.hashed(before["svg.js"].removeprefix("/static/")) is None  # the old name: 404
    assert assets.hashed(assets.url("svg.js").removeprefix("/static/")).body.endswith(b"// changed\n")
    shell = assets.shell()
    assert assets.url("svg.js") in shell and before["svg.js"] not in shell and shell != shell_before
    assert assets.csp_hash() not in (None, "")


def test_gzip_is_sent_only_to_who_accepts_it():
    assert accepts_gzip("gzip, deflate, br") and accepts_gzip("br;q=1.0, gzip;q=0.8") and accepts_gzip("*")
    assert not accepts_gzip(None) and not accepts_gzip("identity") and not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("br")
    body = b"x" * 5000
    assert gzip.decompress(gzip.compress(body)) == body
