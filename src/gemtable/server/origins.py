"""Where a request comes from: the site's own origin, the ``Host`` header, ``Origin`` and ``Referer``.

The player cookie is sent by the browser with every request to this server,
whichever page made it.  A request that changes something (POST, PUT, PATCH,
DELETE) or opens a table's WebSocket is therefore accepted only from the
site's own pages: its ``Origin`` (or, without one, its ``Referer``) must be the
scheme, host and port the request was addressed to, or an origin the operator
listed (``gemtable serve --allowed-origin``).  A request with neither header
comes from a program (curl, a script, a bot), not from a page a browser shows,
and is accepted: browsers send ``Origin`` with every cross-site POST and every
WebSocket handshake.  ``Guard`` (app.py) refuses what ``OriginCheck`` refuses.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from .limits import shown

# (scheme, host, port): scheme is "http" or "https", host lower-case, port always given
Origin = tuple[str, str, int]

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": 80, "https": 443}
SCOPE_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}

# host [":" port] as RFC 3986 spells an authority without user information
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._~!$&'()*+,;=%-]+))(?::(?P<port>[0-9]{0,5}))?")


def parse_host(value: str) -> tuple[str, int | None] | None:
    """``host[:port]`` of a Host header (or an origin's authority), host lower-cased; None if malformed."""
    m = _HOST.fullmatch(value)
    if m is None:
        return None
    if m["v6"] is not None:
        try:
            host = f"[{ipaddress.IPv6Address(m['v6']).compressed}]"
        except ValueError:
            return None
    else:
        host = m["name"].lower()
    if not m["port"]:  # "host" or "host:" (an empty port is the default one)
        return host, None
    port = int(m["port"])
    return (host, port) if port <= 65535 else None


def parse_origin(value: str, *, url: bool = False) -> Origin | None:
    """The origin named by an ``Origin`` header (``scheme://host[:port]``, nothing after it) or, with
    ``url``, the origin of a URL (a ``Referer``); None when it is not an http(s) origin."""
    scheme, sep, rest = value.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in DEFAULT_PORTS:
        return None
    end = len(rest)
    for stop in "/?#":
        at = rest.find(stop)
        if at >= 0:
            end = min(end, at)
    if end < len(rest) and not url:
        return None
    parsed = parse_host(rest[:end])
    if parsed is None:
        return None
    host, port = parsed
    return scheme, host, DEFAULT_PORTS[scheme] if port is None else port


def shown_origin(origin: Origin) -> str:
    scheme, host, port = origin
    return f"{scheme}://{host}" + ("" if DEFAULT_PORTS[scheme] == port else f":{port}")


def _values(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in headers if k == name]


def _first(value: str) -> str:
    """The first of a comma-separated forwarded value (the one the client's own request carried)."""
    return value.split(",", 1)[0].strip()


class OriginCheck:
    """Which origins may change things here: the site's own, and ``allowed`` (the operator's list).

    ``behind_proxy``: the site's own scheme and host are the ones the proxy forwards
    (``X-Forwarded-Proto``, ``X-Forwarded-Host``) when it sends them.
    """

    def __init__(self, allowed: Iterable[str] = (), behind_proxy: bool = False) -> None:
        self.allowed: set[Origin] = set()
        for entry in allowed:
            origin = parse_origin(entry, url=True)
            if origin is None:
                raise ValueError(f"{entry!r} is not an origin such as https://games.example.org")
            self.allowed.add(origin)
        self.behind_proxy = behind_proxy

    def bad_host(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether the Host header is there but malformed (answered 400, as HTTP/1.1 asks)."""
        hosts = _values(headers, b"host")
        return any(h and parse_host(h) is None for h in hosts)

    def site(self, scope: dict) -> Origin | None:
        """The scheme, host and port this request was addressed to."""
        headers = scope.get("headers") or []
        scheme = SCOPE_SCHEMES.get(str(scope.get("scheme", "http")).lower(), "http")
        host_header = next(iter(_values(headers, b"host")), "")
        if self.behind_proxy:
            proto = next(iter(_values(headers, b"x-forwarded-proto")), "")
            scheme = SCOPE_SCHEMES.get(_first(proto).lower(), scheme)
            forwarded = _first(next(iter(_values(headers, b"x-forwarded-host")), ""))
            if forwarded and parse_host(forwarded) is not None:
                host_header = forwarded
        if host_header:
            parsed = parse_host(host_header)
            if parsed is None:
                return None
            host, port = parsed
        else:  # no Host header (HTTP/1.0): the address the server listens on
            server = scope.get("server")
            if not server:
                return None
            host, port = str(server[0]).lower(), server[1]
            if ":" in host:
                host = f"[{host}]"
        return scheme, host, DEFAULT_PORTS[scheme] if port is None else port

    def refusal(self, scope: dict) -> str | None:
        """Why this request may not go through (a sentence), or None.

        Only requests that can change something are looked at: POST, PUT, PATCH,
        DELETE and WebSocket handshakes.
        """
        if scope["type"] == "http" and scope.get("method", "GET").upper() not in STATE_CHANGING:
            return None
        headers = scope.get("headers") or []
        claimed = _values(headers, b"origin")
        url = False
        if not claimed:
            claimed, url = _values(headers, b"referer"), True
        if not claimed:
            return None  # not sent by a browser's page
        site = self.site(scope)
        for value in claimed:
            if value.strip().lower() == "null":
                return ("The request comes from a page without an origin (Origin: null), which may not change "
                        "anything here.")
            origin = parse_origin(value, url=url)
            if origin is None or (origin != site and origin not in self.allowed):
                here = f" only from {shown_origin(site)}" if site is not None else " only from its own pages"
                return (f"The request comes from another site ({shown(value, 60)}): this server accepts changes"
                        f"{here}.")
        return None
