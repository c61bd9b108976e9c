"""The scoring workers' fork server, started as early as the explorer knows it will
score a run (standard library only, so the entry script can import it first).

Scoring a run uses worker processes from a fork server (the server is multi-threaded:
forking it can leave a worker pool hanging at its end). The fork server imports the
scoring code (numpy, scipy, pandas, ``oa_core``) once for all the workers, 1-3 s.
"""

from __future__ import annotations

import multiprocessing
import os
import threading

__all__ = ["LOCAL_ENV", "START_METHOD", "WORKERS", "warm_if_local_dataset", "warm_workers"]

LOCAL_ENV = "OA_EXPLORE_DATASET"  # set by `oa explore --dataset DIR`
WORKERS = max(1, min(2, os.cpu_count() or 1))
START_METHOD = "forkserver"
multiprocessing.set_forkserver_preload(["oa_core.batch", "oa_core.dataset"])
_WARMED = threading.Event()


def warm_workers() -> None:
    """Start the fork server now, in the background, if it is not running.

    Started as soon as a dataset is in view, it has imported the scoring code while
    the page reads the dataset and draws its first elements. Returns at once (the
    thread only starts the process, which does the imports), and does nothing after
    its first call (a fork server that died is started again by the next pool).
    """
    # never from a child process (a pool worker imports this module while it starts)
    if WORKERS > 1 and not _WARMED.is_set() and multiprocessing.parent_process() is None:
        from multiprocessing import forkserver

        _WARMED.set()
        threading.Thread(target=forkserver.ensure_running, name="oa-forkserver",
                         daemon=True).start()


def warm_if_local_dataset() -> None:
    """Under ``oa explore --dataset DIR`` a run will be scored soon: start the fork
    server at the very start of the session's first run, so that its imports run on
    the other core while this process imports the explorer (about 1 s earlier than
    when the dataset code is imported)."""
    if os.environ.get(LOCAL_ENV):
        warm_workers()
