"""Helpers shared by the measuring tools: a free local port, a percentile."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``, nearest rank; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


__all__ = ["free_port", "percentile"]
