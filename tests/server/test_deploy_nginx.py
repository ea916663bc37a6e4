"""docs/deploy.md's nginx configuration for routing by table, run for real, and the page's files through it.

The ``map`` and ``upstream`` blocks are read from the page itself, pointed at two real
workers on one throw-away PostgreSQL cluster, and put in front of them with Debian's nginx.
Scripted players then play through nginx; every request naming a table (its joins, its
WebSockets) must reach one worker only, while new tables are spread over both.  Skipped
without nginx (a failure in CI, which installs it, with GEMTABLE_STRICT=1).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from gemtable.measure import loadtest as lt
from gemtable.measure.common import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def _routing_snippet() -> str:
    """The nginx block of the section "Routing by table"."""
    text = DEPLOY.read_text()
    section = text.split("### Routing by table", 1)[1]
    return re.search(r"```nginx\n(.*?)```", section, re.S).group(1)


def test_the_routing_snippet_is_what_the_page_says():
    snippet = _routing_snippet()
    assert "hash $gemtable_key consistent;" in snippet and "map $uri $gemtable_key" in snippet
    assert len(re.findall(r"^\s*server \S+;", snippet, re.M)) == 2


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_routing_by_table_sends_each_table_to_one_worker(postgres_url, tmp_path):
    folder = tempfile.mkdtemp(prefix="gt-nginx-")
    workers = [lt.Worker(postgres_url, folder, i, "fast") for i in range(2)]
    for w in workers:
        w.cmd[-1] = "info"  # uvicorn's access log: which worker answered which path
        w.start()
    conf = Path(folder) / "nginx.conf"
    try:
        for w in workers:
            w.wait_ready()
        servers = iter(workers)
        snippet = re.sub(r"^(\s*)server \S+;", lambda m: f"{m.group(1)}server 127.0.0.1:{next(servers).port};",
                         _routing_snippet(), flags=re.M)
        port = free_port()
        conf.write_text(f"""
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  map $http_upgrade $connection_upgrade {{ default upgrade; "" ""; }}
{snippet}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://gemtable;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_read_timeout 120s;
    }}
  }}
}}
""")
        subprocess.run(["nginx", "-c", str(conf)], check=True, capture_output=True, timeout=30)
        try:
            report = lt.run_loadtest(tables=12, seconds=4, warmup=1, think=0.3, urls=[f"http://127.0.0.1:{port}"])
            _static_files_through(f"http://127.0.0.1:{port}")
        finally:
            subprocess.run(["nginx", "-c", str(conf), "-s", "stop"], capture_output=True, timeout=30)
        assert report["setup"]["failures"] == {} and report["setup"]["seats_connected"] == 24
        assert all(row["errors"]["total"] == 0 for row in report["phases"])
        assert report["phases"][-1]["actions_acked"] > 0
    finally:
        for w in workers:
            w.stop()
        logs = [Path(w.log_path).read_text(errors="replace") for w in workers]
        shutil.rmtree(folder, ignore_errors=True)
    played, asked, created = [], [], []
    for log in logs:
        played.append(set(re.findall(r"/ws/tables/([A-Za-z0-9_-]+)", log)))
        asked.append(set(re.findall(r"/api/tables/([A-Za-z0-9_-]+)/", log)) | played[-1])
        created.append(len(re.findall(r'"POST /api/tables HTTP', log)))
    assert len(played[0] | played[1]) == 12  # every table played
    assert not asked[0] & asked[1]  # no table's requests at both workers
    assert played[0] and played[1] and created[0] and created[1]  # both workers used


def _static_files_through(url: str) -> None:
    """Through nginx (the page's files spread over both workers): the shell is revalidated and
    names hashed files, which any worker serves compressed and immutable; a stale name is a 404."""
    import httpx

    gz = {"Accept-Encoding": "gzip"}
    shell = httpx.get(url + "/", headers=gz)
    assert shell.status_code == 200 and shell.headers["cache-control"] == "no-cache"
    assert shell.headers["content-encoding"] == "gzip"
    names = sorted(set(re.findall(r'"(/static/[^"]+\.[0-9a-f]{12}\.(?:js|css))"', shell.text)))
    assert any("/static/app." in n for n in names) and any("/static/style." in n for n in names)
    for name in names:
        for _ in range(3):  # requests naming no table are spread at random: both workers answer
            r = httpx.get(url + name, headers=gz)
            assert r.status_code == 200, name
            assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert r.headers["content-encoding"] == "gzip" and "accept-encoding" in r.headers["vary"].lower()
    stale = re.sub(r"\.[0-9a-f]{12}\.", ".000000000000.", names[0])
    assert httpx.get(url + stale).status_code == 404

