"""Helpers shared by the measuring tools: a free local port, a percentile, stopping a server."""

from __future__ import annotations

import socket
import subprocess


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


def stop_process(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Ask a server process to stop (SIGTERM); kill it if it has not within ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


__all__ = ["free_port", "percentile", "stop_process"]
