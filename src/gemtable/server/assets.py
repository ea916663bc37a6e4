"""The web client's files under content-hashed names, compressed once, and the shell that names them.

Every file of the web folder is served at ``/static/<name>.<hash>.<ext>`` (the hash: the first
12 hex digits of its content's SHA-256) with ``Cache-Control: public, max-age=31536000,
immutable``: a browser keeps it for a year and never asks again, and a changed file has a new
name.  A hashed name that is not the file's current one (an old deploy's, or made up) is a 404.
The plain ``/static/<name>`` stays served as before, revalidated on every use.

The shell (index.html, answered ``no-cache`` for every page's address) names the hashed files:
its stylesheet and icon directly, its scripts through an import map (``/static/svg.js`` ->
``/static/svg.<hash>.js``), so the modules keep their plain relative imports and a game's
renderer, imported by its plain address, arrives under its hashed one too.  The shell also
lists every module the page needs as ``modulepreload`` and the page's first data as
``preload``, so the browser asks for all of them at once instead of discovering each import
only after the module before it arrived.  The import map is an inline script: the shell's
Content-Security-Policy allows exactly it, by its SHA-256.

Text files are kept gzip-compressed too, answered compressed to a client that accepts gzip.
A file changed on disk is picked up at the next request (its size and time are looked at).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import mimetypes
import re
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

IMMUTABLE = "public, max-age=31536000, immutable"
HASH_LEN = 12
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".svg": "image/svg+xml", ".html": "text/html; charset=utf-8", ".json": "application/json",
         ".png": "image/png", ".ico": "image/x-icon", ".woff2": "font/woff2"}
COMPRESSIBLE = {".js", ".css", ".svg", ".html", ".json"}
MIN_COMPRESS = 512  # bytes: below this, gzip's own header costs more than it saves

_IMPORT = re.compile(r"""(?:\bimport\s*(?:[\w*{}\s,]+\s*from\s*)?|\bexport\s*[\w*{}\s,]+\s*from\s*)["'](\.{1,2}/[^"']+)["']""")
_HASHED = re.compile(rf"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_LEN}}})(?P<ext>\.[a-z0-9]+)$")
_STATIC_REF = re.compile(r"""(?P<attr>\b(?:href|src))="/static/(?P<name>[^"?#]+)\"""")


@dataclass(frozen=True)
class Asset:
    name: str  # the path under the web folder, e.g. "games/splendor.js"
    hashed: str  # the same with the content hash, e.g. "games/splendor.0123456789ab.js"
    body: bytes
    gzipped: bytes | None  # None: not worth compressing
    media_type: str
    imports: tuple[str, ...]  # the modules it imports statically (names under the web folder)

    @property
    def etag(self) -> str:
        return '"' + self.hashed.rsplit(".", 2)[-2] + '"'


def _imports_of(name: str, text: str) -> tuple[str, ...]:
    here = PurePosixPath(name).parent
    out = []
    for spec in _IMPORT.findall(text):
        parts: list[str] = list(here.parts)
        for piece in PurePosixPath(spec).parts:
            if piece == "..":
                if parts:
                    parts.pop()
            elif piece != ".":
                parts.append(piece)
        out.append("/".join(parts))
    return tuple(dict.fromkeys(out))


class Assets:
    """The files of ``root`` (the web folder) under their hashed names; see the module."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._stamp: tuple = ()
        self._by_name: dict[str, Asset] = {}
        self._by_hashed: dict[str, Asset] = {}
        self._shell_template = ""
        self._import_map = ""
        self.refresh()

    # -- the files ----------------------------------------------------------------
    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*")
                      if p.is_file() and p.suffix.lower() in TYPES
                      and not any(part.startswith((".", "_")) for part in p.relative_to(self.root).parts))

    def refresh(self) -> None:
        """Read the folder again if any file changed (size, time or the list of files)."""
        files = self._files()
        stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
        if stamp == self._stamp:
            return
        with self._lock:
            by_name: dict[str, Asset] = {}
            for p in files:
                name = p.relative_to(self.root).as_posix()
                body = p.read_bytes()
                digest = hashlib.sha256(body).hexdigest()[:HASH_LEN]
                stem, ext = name.rsplit(".", 1)
                suffix = "." + ext.lower()
                gz = gzip.compress(body, 9, mtime=0) if suffix in COMPRESSIBLE and len(body) >= MIN_COMPRESS else None
                imports = _imports_of(name, body.decode("utf-8", "replace")) if suffix == ".js" else ()
                by_name[name] = Asset(name, f"{stem}.{digest}.{ext}", body, gz,
                                      TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream",
                                      imports)
            self._by_name = by_name
            self._by_hashed = {a.hashed: a for a in by_name.values()}
            self._import_map = json.dumps(
                {"imports": {f"/static/{a.name}": f"/static/{a.hashed}" for a in by_name.values()
                             if a.name.endswith(".js")}}, separators=(",", ":"), sort_keys=True)
            shell = by_name.get("index.html")
            self._shell_template = shell.body.decode("utf-8") if shell else ""
            self._stamp = stamp

    def get(self, name: str) -> Asset | None:
        return self._by_name.get(name)

    def hashed(self, name: str) -> Asset | None:
        """The file whose current hashed name is ``name`` (None for a stale or made-up one)."""
        if not _HASHED.match(name):
            return None
        return self._by_hashed.get(name)

    def url(self, name: str) -> str:
        asset = self._by_name.get(name)
        return f"/static/{asset.hashed}" if asset else f"/static/{name}"

    def closure(self, *names: str) -> list[str]:
        """``names`` and every module they import, directly or not (each once, imports first)."""
        seen: dict[str, None] = {}

        def visit(name: str) -> None:
            if name in seen or name not in self._by_name:
                return
            seen[name] = None
            for dep in self._by_name[name].imports:
                visit(dep)

        for n in names:
            visit(n)
        return list(seen)

    # -- the shell ------------------------------------------------------------------
    def import_map(self) -> str:
        return self._import_map

    def csp_hash(self) -> str:
        """The CSP source that allows the shell's inline import map (and nothing else inline)."""
        digest = hashlib.sha256(self._import_map.encode()).digest()
        return "'sha256-" + base64.b64encode(digest).decode() + "'"

    def shell(self, modules: list[str] = (), data: list[str] = ()) -> str:
        """index.html with hashed names, the import map, and preload hints for ``modules``
        (names under the web folder; the shell's own app.js and its imports always) and for
        ``data`` (API paths the page fetches first)."""
        hints = [f'<script type="importmap">{self._import_map}</script>']
        for name in self.closure("app.js", *modules):
            hints.append(f'<link rel="modulepreload" href="{html.escape(self.url(name))}">')
        for path in data:
            hints.append(f'<link rel="preload" as="fetch" href="{html.escape(path)}" crossorigin="anonymous">')
        text = _STATIC_REF.sub(lambda m: f'{m.group("attr")}="{self.url(m.group("name"))}"', self._shell_template)
        block = "\n  ".join(hints)
        if "<!-- preload -->" in text:
            return text.replace("<!-- preload -->", block, 1)
        return text.replace("</head>", f"  {block}\n</head>", 1)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """The client accepts gzip (``Accept-Encoding``; ``gzip;q=0`` refuses it)."""
    for part in (accept_encoding or "").split(","):
        token, _, params = part.strip().partition(";")
        if token.strip().lower() in ("gzip", "*"):
            q = params.strip()
            return not (q.startswith("q=") and q[2:].strip() in ("0", "0.0", "0.00", "0.000"))
    return False
