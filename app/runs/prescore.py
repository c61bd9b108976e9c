"""Scoring the run ``oa explore --dataset DIR`` opens on while the explorer starts.

Under ``oa explore --dataset DIR`` the run the Dataset page shows first (the folder's
first run) is known before the server starts. :func:`start` scores it in a separate
process, a fork of ``oa explore`` (which has read the folder and imported the scoring
code already), and writes the result into the run cache (:func:`cache_folder`) under
the key the page looks up, through :func:`oa_core.runs.dataset.store_scored` (written whole,
then renamed). Meanwhile a small *progress file* next to the cache entry
(:func:`progress_path`) holds the prescorer's pid and how far it is; the page's scoring
(:func:`app.runs.dataset_state.scored`) finds it, shows its progress and waits for the
result (:func:`wait`) instead of scoring the run a second time. A prescorer that died,
failed or stopped progressing (:data:`STALE_S`) is given up on and the page scores the
run itself, as without it.

A separate process, not a thread of the Streamlit server: the server would import the
scoring code (pandas) in a thread while it starts, which crashed it. Without a run cache
(``OA_RUN_CACHE=off``) the result has no way to the server, so nothing is scored ahead;
``OA_PRESCORE=off`` turns it off as well. This module imports only the standard library
at the top (:mod:`app.runs.dataset_state` imports it in the server).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .workers import START_METHOD, running, workers_for

if TYPE_CHECKING:
    from oa_core.runs.dataset import Dataset, ScoredRun

__all__ = ["CACHE_ENV", "PRESCORE_ENV", "Progress", "cache_folder", "cache_key", "progress_path",
           "read_progress", "start", "stop", "wait"]

CACHE_ENV = "OA_RUN_CACHE"  # the folder of scored runs kept between starts, or "off"
PRESCORE_ENV = "OA_PRESCORE"  # "off": `oa explore --dataset` scores nothing ahead
STALE_S = 60.0  # a progress file not updated for this long belongs to a stuck prescorer
POLL_S = 0.1
_WRITE_EVERY_S = 0.1
# {"pid", "done", "total", "started" (time.time()), "code" (its code_fingerprint())}
Progress = dict[str, Any]


def cache_folder() -> Path | None:
    """Where scored runs are kept between explorer starts (None: nowhere).

    ``OA_RUN_CACHE`` names the folder, or ``off``; by default
    ``$XDG_CACHE_HOME/oa-explorer`` (``~/.cache/oa-explorer``). A stored run is reused
    only by the same scoring code (:func:`oa_core.runs.dataset.code_fingerprint`), so
    restarting the explorer on a dataset it scored before opens it at once.
    """
    value = os.environ.get(CACHE_ENV, "")
    if value.strip().lower() == "off":
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "oa-explorer"


def cache_key(data: Dataset, run: str) -> str:
    """The run cache key of ``run`` scored with the dataset's schema and default options
    (what the Dataset page shows)."""
    return _key(run, data.run_key(run))


def _key(run: str, digest: str) -> str:
    return f"{run}\0{digest}"


def progress_path(folder: Path, key: str) -> Path:
    """The progress file of a prescoring of ``key`` in the run cache ``folder``."""
    return folder / f"prescore-{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def _write(path: Path, state: Progress) -> None:
    """Write ``state`` whole, then rename: a reader never sees half of it."""
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.write_text(json.dumps(state), encoding="utf-8")
    os.replace(partial, path)


def read_progress(path: Path) -> Progress | None:
    """The state in a progress file (None if there is none or it is not one)."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # unreadable: not a live prescoring (see _alive)
    return state if isinstance(state, dict) else {}


def _alive(path: Path, state: Progress) -> bool:
    """Whether the prescorer of a progress file still runs and progresses."""
    pid = state.get("pid")
    if not isinstance(pid, int) or pid <= 0 or not running(pid):
        return False
    try:  # running but silent this long: stuck (or the pid was reused)
        return time.time() - path.stat().st_mtime < STALE_S
    except OSError:
        return False


def start(data: Dataset) -> int | None:
    """Start scoring ``data``'s first run in the background; the prescorer's pid, or
    None when nothing is to be done.

    The prescorer is a fork of the caller (``oa explore``, which has read the dataset
    and imported the scoring code already: it starts scoring at once). Nothing is
    started without a run cache or with ``OA_PRESCORE=off``, for a run of ``oa batch``
    results (read, not scored, so never cached), when the run cache holds the run
    already or another prescorer is on it. The progress file is written before this
    returns, so the page, whose server starts afterwards, always finds it. End it with
    :func:`stop`.
    """
    cache = cache_folder()
    if cache is None or os.environ.get(PRESCORE_ENV, "").strip().lower() == "off":
        return None
    run = next(iter(data.runs))
    if data.runs[run].results:
        return None
    from oa_core.runs.dataset import code_fingerprint, stored_name  # imported by the launcher

    key = cache_key(data, run)
    path = progress_path(cache, key)
    state = read_progress(path)
    if (cache / stored_name(key)).is_file() or (state and _alive(path, state)):
        return None  # scored before by this code, or being scored
    try:
        cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    head: Progress = {"total": len(data.runs[run]), "started": time.time(),
                      "code": code_fingerprint()}
    try:
        pid = os.fork()
    except OSError:  # no process to spare: the page scores the run
        return None
    if pid == 0:  # the prescorer: never back into the caller's code
        code = 1
        try:
            code = _prescore(data, run, key, cache, path, head)
        finally:
            os._exit(code)
    try:
        _write(path, {"pid": pid, "done": 0} | head)
    except OSError:  # the page could not find it: no use
        stop(pid)
        return None
    return pid


def stop(pid: int) -> None:
    """End the prescorer ``pid`` (terminated if it runs, killed after 10 s) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.05)
    except ChildProcessError:  # reaped already
        return


def wait(folder: Path, key: str,
         progress: Callable[[int, int, float], None] | None = None) -> ScoredRun | None:
    """The run stored under ``key`` once a prescoring of it under way has ended.

    Parameters
    ----------
    folder : Path
        The run cache.
    key : str
        :func:`cache_key` of the run.
    progress : callable, optional
        ``progress(done, total, seconds)`` with the prescorer's figures (``seconds``
        since it started scoring), each time they are read.

    Returns
    -------
    ScoredRun or None
        None when no prescoring of ``key`` is under way or it ended with no result (it
        failed, died or got stuck: its progress file is then removed), and at once
        when it runs other scoring code (the sources changed since ``oa explore`` read
        them: its result would be stored for that code). Never waits for a prescorer
        that is not running.
    """
    from oa_core.runs.dataset import code_fingerprint, load_scored

    path = progress_path(folder, key)
    while True:
        state = read_progress(path)
        if state is None:  # none, or it has ended: its result is stored or not
            return load_scored(folder, key)
        if not _alive(path, state):
            with contextlib.suppress(OSError):
                path.unlink()
            return load_scored(folder, key)
        if state.get("code") != code_fingerprint():  # its result is not for this code
            return None  # (the sources changed since oa explore read them)
        if progress is not None and isinstance(state.get("total"), int):
            started = state.get("started")
            progress(int(state.get("done", 0)), state["total"],
                     time.time() - started if isinstance(started, (int, float)) else 0.0)
        time.sleep(POLL_S)


def _prescore(data: Dataset, run: str, key: str, cache: Path, path: Path,
              head: Progress) -> int:
    """The prescorer's work: score ``run`` and store it in ``cache`` under ``key``.

    Returns 0 once stored, 1 when it could not be (the page then scores the run itself
    and shows why), and removes the progress file ``path`` in every case.
    """

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)  # so that the worker pool is ended with it

    signal.signal(signal.SIGTERM, terminated)
    # Ctrl-C reaches the whole process group: `oa explore` then stops this process (and
    # so its workers, which inherit this) itself, with no traceback from each of them
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from oa_core.runs.batch import BatchOptions
        from oa_core.runs.dataset import score_run, store_scored

        total = len(data.runs[run])
        state: Progress = {"pid": os.getpid(), "done": 0} | head
        last = [0.0]

        def progress(done: int, count: int) -> None:
            now = time.perf_counter()
            if done < count and now - last[0] < _WRITE_EVERY_S:
                return
            last[0] = now
            with contextlib.suppress(OSError):  # only the progress shown suffers
                _write(path, state | {"done": done, "total": count})

        # the options the page scores with: the same key, the same result. Workers
        # forked from this process (a fork of a process with threads: numpy's) hung at
        # the pool's end once in 8 starts, the last pair scored; the fork server's do not
        result = score_run(data, run, options=BatchOptions(), workers=workers_for(total),
                           progress=progress, start_method=START_METHOD)
        store_scored(cache, key, result)
        return 0
    except Exception as exc:  # the page scores the run again and shows the error there
        from oa_core.errors import OAError

        if not isinstance(exc, OAError):  # a bug: said here too
            traceback.print_exc()
        return 1
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
