"""The server's limits: sizes, rates, bot budgets and seat names.

Everything a client can make the server spend (memory, CPU, database rows,
lobby space) has a bound here; ``Limits`` gathers them so tests and
``gemtable serve`` can set them.  The numbers are defaults for a home server,
not measurements of any particular machine.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from array import array
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import orjson

MAX_NAME = 24


@dataclass
class Limits:
    # HTTP (see also uvicorn_config in app.py)
    max_body: int = 64 * 1024  # bytes of a request body
    max_headers: int = 16 * 1024  # bytes of all request headers together
    max_target: int = 8 * 1024  # bytes of the request target (path and query string), as nginx's default
    # origins besides the site's own whose pages may change things here (scheme://host[:port]; origins.py)
    allowed_origins: tuple[str, ...] = ()
    # WebSocket
    max_message: int = 64 * 1024  # bytes of one client frame
    max_depth: int = 32  # nesting of one client message
    send_queue: int = 32  # messages waiting for one connection before it is dropped as a slow reader
    send_timeout: float = 10.0  # seconds one frame may take to go out before the reader counts as stalled
    ws_rate: float = 5.0  # client messages per second, per connection (sustained)
    ws_burst: int = 30  # ... and in a burst
    # per client address
    create_rate: float = 1 / 6  # tables created per second (10 a minute)
    create_burst: int = 10
    auth_fail_rate: float = 1.0  # refused tokens per second
    auth_fail_burst: int = 20
    # players (players.py): guest identities created, login/register/password attempts, failed logins
    player_rate: float = 1 / 6
    player_burst: int = 10
    login_rate: float = 1 / 6  # every login, registration or password change (argon2 costs CPU), per address
    login_burst: int = 10
    login_pair_rate: float = 1 / 60  # failed logins of one name from one address
    login_pair_burst: int = 5
    # failed logins of one name from any address: once spent, only the addresses that failed at
    # that name recently are refused (the owner, from an address that has not failed, gets in)
    login_name_rate: float = 1 / 60
    login_name_burst: int = 5
    # lobby and expiry
    lobby_size: int = 100  # tables listed at most
    lobby_per_creator: int = 10  # tables of one creator address in the listing
    expire_after: float = 24 * 3600.0  # seconds: an unfinished table no person ever acted at is removed
    sweep_every: float = 600.0  # seconds between expiry sweeps
    waiting_expire_after: float = 6 * 3600.0  # seconds: a table waiting for players, unchanged that long, is removed
    # bots (per move)
    bot_seconds: float = 5.0
    bot_iterations: int = 5000
    bot_params: dict[str, float] = field(default_factory=lambda: {
        "lookahead": 2, "samples": 64, "rollout": 200, "simulations": 5000,
    })

    @classmethod
    def relaxed(cls) -> "Limits":
        """For tests that create many tables from one address: rates out of the way."""
        return cls(create_rate=1e6, create_burst=10**6, auth_fail_rate=1e6, auth_fail_burst=10**6,
                   ws_rate=1e6, ws_burst=10**6, player_rate=1e6, player_burst=10**6,
                   login_rate=1e6, login_burst=10**6, login_pair_rate=1e6, login_pair_burst=10**6,
                   login_name_rate=1e6, login_name_burst=10**6)


# -- rate limits -------------------------------------------------------------------
class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; ``take`` spends one."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def empty(self) -> bool:
        self._refill()
        return self.tokens < 1.0

    def retry_after(self) -> int:
        """Whole seconds until one token is back (for Retry-After)."""
        self._refill()
        missing = max(0.0, 1.0 - self.tokens)
        return max(1, math.ceil(missing / self.rate)) if self.rate > 0 else 3600


class RateLimiter:
    """One token bucket per key (a client address), forgetting idle keys."""

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.buckets: dict[str, TokenBucket] = {}

    def bucket(self, key: str) -> TokenBucket:
        b = self.buckets.get(key)
        if b is None:
            if len(self.buckets) >= self.max_keys:
                self._forget()
            b = self.buckets[key] = TokenBucket(self.rate, self.burst)
        return b

    def spent(self, key: str) -> bool:
        """Whether ``key`` took tokens that have not all come back yet (creates no bucket)."""
        b = self.buckets.get(key)
        if b is None:
            return False
        b._refill()
        return b.tokens < b.burst

    def _forget(self) -> None:
        # drop the buckets that are full again (their clients have been quiet)
        for key in [k for k, b in self.buckets.items() if (b._refill(), b.tokens >= b.burst)[1]]:
            del self.buckets[key]
        while len(self.buckets) >= self.max_keys:  # all busy: drop the oldest
            self.buckets.pop(next(iter(self.buckets)))


# -- input ---------------------------------------------------------------------------
def shown(value: Any, limit: int = 40) -> str:
    """``repr`` of client input, cut short: errors never echo unbounded input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# a run of 19 digits: where an integer may lie beyond 64 bits, which orjson would read as a float
_LONG_DIGITS = re.compile(r"[0-9]{19}")
_LONG_DIGITS_BYTES = re.compile(rb"[0-9]{19}")


def parse_message(text: str | bytes) -> Any:
    """A client's JSON text (or another worker's notice, as UTF-8 bytes), read as the standard
    library reads it.

    orjson reads it where it can.  The standard library reads what orjson refuses (such as NaN)
    and what it would read differently: an integer beyond 64 bits, which orjson turns into a
    float.  Such an integer has at least 19 digits, so text with a run of 19 digits goes to the
    standard library (a long digit run inside a string only costs the slower reader).  Errors
    are the standard library's: ``ValueError``, ``RecursionError`` past its nesting limit."""
    if (_LONG_DIGITS_BYTES if isinstance(text, bytes) else _LONG_DIGITS).search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests deeper than ``limit`` (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if d > limit:
            return True
        stack.extend((c, d + 1) for c in children)
    return False


# a JSON body seen as bytes: escaped characters, strings, then everything but brackets taken out
_ESCAPED = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def body_nests_deeper(body: bytes, limit: int) -> bool:
    """Whether a JSON request body nests deeper than ``limit`` (as ``depth_exceeds`` counts), read
    from its bytes before any parser recurses into it: brackets inside strings do not count.

    Linear in the body's length.  Escapes go first (a backslash and the byte after it), so every
    quote left opens or closes a string, as it does for a JSON parser reading the same bytes; a
    body that is not JSON is refused by the parser at the first place the two readings could differ.
    UTF-16 and UTF-32 bodies (which ``json.loads`` accepts) are read as UTF-8 first.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    encoding = json.detect_encoding(body)
    if encoding not in ("utf-8", "utf-8-sig"):
        try:
            body = body.decode(encoding).encode("utf-8", "surrogatepass")
        except (UnicodeError, LookupError):
            pass  # not text in that encoding either: the parser refuses it
    brackets = _STRING.sub(b"", _ESCAPED.sub(b"", body)).translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False
    return max(accumulate(array("b", brackets.translate(_STEPS)))) > limit


def clean_name(name: Any, default: str) -> str:
    """A seat name as shown to everyone: NFC, printable, single-spaced, at most MAX_NAME characters.

    Raises ValueError for text that is not Unicode (a lone surrogate) or not a string.
    """
    if name is None:
        return default
    if not isinstance(name, str):
        raise ValueError("a seat name must be text")
    if any("\ud800" <= ch <= "\udfff" for ch in name):
        raise ValueError("a seat name must be valid Unicode text (it holds a lone surrogate)")
    name = unicodedata.normalize("NFC", name)
    # control and format characters (newlines, bidi overrides, zero-width ...) become spaces
    name = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp") else ch for ch in name)
    name = " ".join(name.split())[:MAX_NAME].strip()
    return name or default


# -- bots ----------------------------------------------------------------------------
class BotLimitError(ValueError):
    pass


# parameters that read files on the server: never from a request
SERVER_REFUSED_BOT_PARAMS = frozenset({"weights"})


def check_bot_spec(spec: str, limits: Limits, game: Any = None) -> None:
    """Refuse a bot spec whose budget is over the server's limits (BotLimitError) or bad (ValueError);
    a level is judged by ``game``'s spec for it (``gemtable.bots.game_levels``)."""
    from gemtable.bots import BOT_KINDS, LEVELS, level_spec, make_bot, parse_spec

    name, params = parse_spec(spec)
    if name in LEVELS and name not in BOT_KINDS:
        _base, base_params = parse_spec(level_spec(name, game))
        params = {**base_params, **params}
    refused = sorted(set(params) & SERVER_REFUSED_BOT_PARAMS)
    if refused:
        raise ValueError(f"the bot parameter {refused[0]!r} names a file on the server; "
                         "a table's bots use the weights that ship with the game")
    caps = _caps(limits)
    for key, value in params.items():
        cap = caps.get(key)
        if cap is not None and isinstance(value, (int, float)) and value > cap:
            raise BotLimitError(f"{key}={value:g} is over this server's limit of {cap:g} per move")
    make_bot(spec, 0, game=game)  # unknown bot, bad parameters


def _caps(limits: Limits) -> dict[str, float]:
    return {"seconds": limits.bot_seconds, "iterations": limits.bot_iterations, **limits.bot_params}


def clamped_spec(spec: str, limits: Limits) -> str:
    """A spec stored before the limits (or by hand): its numbers brought within them."""
    name, _, rest = spec.strip().partition(":")
    caps = _caps(limits)
    parts = []
    for part in filter(None, rest.split(",")):
        key, eq, val = part.partition("=")
        key = key.strip()
        if eq and key in caps:
            try:
                number = float(val)
            except ValueError:
                number = None
            if number is None or not math.isfinite(number) or number > caps[key]:
                cap = caps[key]
                val = str(int(cap)) if float(cap).is_integer() else str(cap)
        parts.append(f"{key}={val.strip()}" if eq else part)
    return name.strip() + (":" + ",".join(parts) if parts else "")


def clamp_bot(bot: Any, limits: Limits) -> Any:
    """Give every search bot a wall-clock bound per move (the server's ``bot_seconds``)."""
    if hasattr(bot, "seconds"):
        seconds = getattr(bot, "seconds", None)
        if seconds is None or not math.isfinite(seconds) or seconds > limits.bot_seconds:
            bot.seconds = limits.bot_seconds
    iterations = getattr(bot, "iterations", None)
    if isinstance(iterations, int) and iterations > limits.bot_iterations:
        bot.iterations = limits.bot_iterations
    simulations = getattr(bot, "simulations", None)
    cap = limits.bot_params.get("simulations")
    if isinstance(simulations, int) and cap is not None and simulations > cap:
        bot.simulations = int(cap)
    return bot
