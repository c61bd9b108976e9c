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

__all__ = ["LOCAL_ENV", "PRESCORER_ENV", "SMALL_RUN", "START_METHOD", "WORKERS", "running",
           "warm_if_local_dataset", "warm_workers", "workers_for"]

LOCAL_ENV = "OA_EXPLORE_DATASET"  # set by `oa explore --dataset DIR`
PRESCORER_ENV = "OA_PRESCORER"  # the pid of the run's prescorer it started (app/runs/prescore.py)
WORKERS = max(1, min(2, os.cpu_count() or 1))
START_METHOD = "forkserver"
SMALL_RUN = 64  # pairs below which a run is scored in this process
multiprocessing.set_forkserver_preload(["oa_core.runs.batch", "oa_core.runs.dataset"])
_WARMED = threading.Event()


def workers_for(pairs: int) -> int:
    """The worker processes a run of ``pairs`` pairs is scored with: a small run scores
    faster in the scoring process than worker processes start."""
    return WORKERS if pairs >= SMALL_RUN else 1


def running(pid: int) -> bool:
    """Whether the process ``pid`` of this user runs (a zombie, ended but not yet
    reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # none, or another user's
        return False
    try:  # Linux: the state after the command's closing parenthesis
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):  # no /proc here
        return True


def _prescoring() -> bool:
    pid = os.environ.get(PRESCORER_ENV, "")
    return pid.isdigit() and running(int(pid))


def warm_workers() -> None:
    """Start the fork server now, in the background, if it is not running.

    Started as soon as a dataset is in view, it has imported the scoring code while
    the page reads the dataset and draws its first elements. Returns at once (the
    thread only starts the process, which does the imports), and does nothing after
    its first call (a fork server that died is started again by the next pool).

    Nothing either while the prescorer of ``oa explore --dataset`` runs: it scores the
    run this server would, on the cores the fork server's imports would slow down (a
    later call, on the next run of a dataset page, starts it).
    """
    # never from a child process (a pool worker imports this module while it starts)
    if (WORKERS > 1 and not _WARMED.is_set() and multiprocessing.parent_process() is None
            and not _prescoring()):
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
