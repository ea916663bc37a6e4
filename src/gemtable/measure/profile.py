"""Where a server's CPU goes during a load test: py-spy samples sorted into the parts of a move.

``gemtable loadtest --profile DIR`` attaches py-spy (``pip install py-spy``, in the ``dev``
extra) to every worker for the measured phase and writes each worker's folded stacks
(``worker<i>.folded``: one line per distinct stack, its frames root first, and its sample
count; flamegraph.pl and speedscope read them).  Only the threads holding the interpreter lock
are sampled (py-spy ``--gil``): the Python work, leaving out waits (disk flushes, sockets)
and what C code does after letting the lock go (zlib's deflate, SQLite's statements), which
shows in the process CPU and its kernel share that the load test reports beside it.

``summarize`` sorts the samples into the parts of a move (``PARTS``): each sample goes to the
first part, in that order, one of whose markers one of its frames contains.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from gemtable.core import i18n
from gemtable.core.i18n import mark, msg

# (part, markers in a frame "function (file:line)"), the first part that matches a sample wins
PARTS: list[tuple[str, tuple[str, ...]]] = [
    (mark("compression (permessage-deflate)"), ("permessage_deflate",)),
    (mark("database commit"), ("sqlite3", "sqlalchemy/", "psycopg", "Storage.", "GroupCommit.",
                               "gemtable/server/db.py")),
    (mark("JSON encoding and decoding"), ("encode_message (", "orjson", "json/encoder", "json/decoder",
                                          "parse_message (")),
    (mark("log rendering"), ("log_entries (", "format_text (", "event_for (")),
    (mark("legal-move lists"), ("legal_actions (", "LiveTable.legal (", "refresh_decisions (", "action_text (",
                                "Action.to_json (", ".prompt (")),
    (mark("view building"), (".view (", "LiveTable.payload (", "LiveTable.summary (", "gemtable/server/hooks.py",
                             "gemtable/server/inplay.py", "gemtable/server/clock", "gemtable/server/lobby.py")),
    (mark("rules (check, apply, clone)"), ("gemtable/games/", "gemtable/core/")),
    (mark("WebSocket framing"), ("websockets/", "uvicorn/protocols/")),
    (mark("Starlette and FastAPI"), ("starlette/", "fastapi/")),
    (mark("table core (submit, hub)"), ("gemtable/server/",)),
    (mark("event loop and threads"), ("asyncio/", "uvloop", "concurrent/futures", "threading.py",
                                      "selectors.py")),
]
OTHER = mark("other")


def py_spy() -> str | None:
    """The py-spy executable: next to this Python's, else on the PATH."""
    here = Path(sys.executable).with_name("py-spy")
    return str(here) if here.exists() else shutil.which("py-spy")


def start(pids: list[int], seconds: float, folder: str) -> list[tuple[subprocess.Popen, str]]:
    """py-spy recording each of ``pids`` for ``seconds`` (folded stacks into ``folder``)."""
    exe = py_spy()
    if exe is None:
        raise RuntimeError(i18n.render(msg("--profile needs py-spy: pip install py-spy (in the dev extra)")))
    os.makedirs(folder, exist_ok=True)
    out = []
    for i, pid in enumerate(pids):
        path = os.path.join(folder, f"worker{i}.folded")
        proc = subprocess.Popen([exe, "record", "--pid", str(pid), "--duration", str(max(1, round(seconds))),
                                 "--rate", "200", "--gil", "--nonblocking", "--format", "raw", "--output", path],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        out.append((proc, path))
    return out


def finish(running: list[tuple[subprocess.Popen, str]], timeout: float = 60.0) -> dict[str, Any]:
    """Wait for the recorders; the summary of everything they sampled."""
    stacks: collections.Counter = collections.Counter()
    files, problems = [], []
    for proc, path in running:
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        if not os.path.exists(path):
            problems.append((err or b"").decode(errors="replace")[-300:])
            continue
        files.append(path)
        stacks.update(read_folded(Path(path).read_text()))
    out = summarize(stacks)
    out["files"] = files
    if problems:
        out["problems"] = problems
    return out


def read_folded(text: str) -> collections.Counter:
    stacks: collections.Counter = collections.Counter()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks[stack] += int(count)
    return stacks


def part_of(frames: list[str]) -> str:
    for part, markers in PARTS:
        if any(m in f for f in frames for m in markers):
            return part
    return OTHER


def summarize(stacks: collections.Counter, top: int = 15) -> dict[str, Any]:
    """Share of the samples by part (``PARTS``) and the functions most often at the top of a stack."""
    total = sum(stacks.values())
    parts: collections.Counter = collections.Counter()
    leaves: collections.Counter = collections.Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        parts[part_of(frames)] += n
        leaves[frames[-1]] += n
    share = (lambda n: round(100 * n / total, 1)) if total else (lambda n: 0.0)
    return {"samples": total,
            "parts_pct": {p: share(parts[p]) for p in [name for name, _ in PARTS] + [OTHER] if parts[p]},
            "top_functions_pct": [(f, share(n)) for f, n in leaves.most_common(top)]}


def format_profile(prof: dict[str, Any], lang: str = i18n.SOURCE) -> list[str]:
    """The summary as lines of text in ``lang`` (the parts' names translated)."""
    def say(message: i18n.Message) -> str:
        return i18n.render(message, lang)

    files = ", ".join(prof.get("files", [])) or say(msg("none"))
    lines = [say(msg("profile ({samples} samples of the Python work, py-spy --gil; folded stacks: {files}):",
                     samples=prof["samples"], files=files))]
    for part, pct in sorted(prof["parts_pct"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {pct:5.1f} %  {say(msg(part))}")
    lines.append("  " + say(msg("most often on top of the stack:")))
    for f, pct in prof["top_functions_pct"][:10]:
        lines.append(f"  {pct:5.1f} %  {f}")
    for p in prof.get("problems", []):
        lines.append("  " + say(msg("py-spy failed: {error}", error=p)))
    return lines
