"""Worker processes that end with the process that started them.

A ``concurrent.futures.ProcessPoolExecutor`` worker waits for its next task on a queue whose
pipe it holds both ends of, so when the process that made the pool dies without shutting it
down (killed, or a crash), the worker finishes its task and then waits forever, holding its
memory and, under ``fork``, the parent's open files.  :func:`follow_parent`, run in the worker
(as the pool's ``initializer``, or from one), ends it as soon as its parent is gone.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading

#: The exit status of a worker ended because its parent was gone.
ORPHANED = 70


def follow_parent() -> bool:
    """In a ``multiprocessing`` child: watch the parent process from a daemon thread and end
    this process (``os._exit``, no clean-up: its results have nobody to go to) once the
    parent is gone.  Returns whether there is a parent to watch (not in the main process)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return False
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()
    return True
