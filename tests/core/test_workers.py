"""Pool workers end when the process that started them is killed (self-play, tournaments,
the server's reviews and hints all run such pools)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gemtable.core.workers import follow_parent

# A process that starts a pool of two workers, prints their process ids and waits.
PARENT = textwrap.dedent("""
    import multiprocessing, os, sys, time
    from concurrent.futures import ProcessPoolExecutor
    from gemtable.core.workers import follow_parent

    def pid(_):
        time.sleep(0.3)  # both workers take a task
        return os.getpid()

    if __name__ == "__main__":
        method, follow = sys.argv[1], sys.argv[2] == "1"
        pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(method),
                                   initializer=follow_parent if follow else None)
        print(*sorted(set(pool.map(pid, range(4)))), flush=True)
        time.sleep(600)
""")


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for a reaper counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def pool_workers(tmp_path: Path, method: str, follow: bool) -> tuple[subprocess.Popen, list[int]]:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    proc = subprocess.Popen([sys.executable, str(script), method, "1" if follow else "0"],
                            stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids and all(alive(p) for p in pids)
    return proc, pids


def wait_gone(pids: list[int], limit: float = 30.0) -> list[int]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_workers_end_when_their_parent_is_killed(tmp_path, method):
    proc, pids = pool_workers(tmp_path, method, follow=True)
    proc.kill()
    proc.wait()
    assert wait_gone(pids) == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_without_it_a_killed_parent_leaves_its_workers_waiting(tmp_path):
    proc, pids = pool_workers(tmp_path, "spawn", follow=False)
    proc.kill()
    proc.wait()
    try:
        assert wait_gone(pids, limit=2.0) == pids  # what follow_parent is for
    finally:
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_main_process_has_no_parent_to_follow():
    assert follow_parent() is False
