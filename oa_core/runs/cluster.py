"""Scoring a batch on a Dask cluster: the engine of ``oa batch --dask``.

:func:`iter_batch_dask` cuts the numbered lines of a batch into chunks, submits one
task per chunk to a ``distributed.Client`` and yields one
:class:`~oa_core.runs.batch.BatchResult` per line **in input order**, exactly what
:func:`oa_core.runs.batch.iter_batch` yields in one process (the same
:func:`~oa_core.runs.batch.score_line` runs on the workers), so the output of a run is
byte-identical whether it ran here or on a cluster.

* The schema travels with the tasks as JSON text; each worker parses it once and keeps
  it in a small cache keyed by the SHA-256 digest of that text.
* Every task is pure: its key is a digest of the schema, the options, the input's name
  and the chunk's lines (with their indices and line numbers), so a task that Dask
  recomputes after losing a worker, or resubmits (``retries=2``), gives the same
  result under the same key; no line is scored twice into the output or lost.
* At most a window of chunks is in flight (a few per worker thread); results are
  taken in submission order, so memory stays bounded and output streams.
* A chunk that still fails after Dask's retries (say a line that kills its worker
  every time) is rescored line by line; a line that fails alone gets an internal
  error record, like an exception in :func:`~oa_core.runs.batch.score_line`. The run goes on.

Dask is optional (``pip install 'object-aligner-explorer[dask]'``); this module
imports it only when a client is made (:func:`dask_client`), so ``oa_core`` imports
without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

from ..schema import Schema
from .batch import BatchOptions, BatchResult, score_line
from .pool import RunError

__all__ = [
    "INSTALL_HINT",
    "ClusterError",
    "dask_client",
    "iter_batch_dask",
    "require_distributed",
    "score_chunk",
]

INSTALL_HINT = ("pip install 'object-aligner-explorer[dask]' (or pip install "
                "'dask[distributed]'), here and on every worker")

_MAX_CHUNK_LINES = 256
_MAX_CHUNK_BYTES = 1 << 20  # task arguments pass through the scheduler: keep them small
_CHUNKS_PER_THREAD = 4

Task = tuple[int, int, str]  # (pair index, line number, line text)


class ClusterError(RunError):
    """The Dask cluster cannot be used: Dask missing, scheduler unreachable or lost,
    workers without ``oa_core``."""


def require_distributed() -> Any:
    """The ``distributed`` module, or :class:`ClusterError` saying how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(f"Dask is not installed ({exc})", fix=INSTALL_HINT) from None
    return distributed


@contextlib.contextmanager
def dask_client(address: str, workers: int = 1, *, timeout: float = 30.0) -> Iterator[Any]:
    """A ``distributed.Client``: of the scheduler at ``address``, or of a new
    ``LocalCluster`` (``address == "local"``: ``workers`` processes of 1 thread each),
    closed on exit.

    Raises
    ------
    ClusterError
        Dask is missing, the scheduler cannot be reached in ``timeout`` seconds, or a
        worker cannot import this version of ``oa_core``.
    """
    distributed = require_distributed()
    with contextlib.ExitStack() as stack:
        if address == "local":
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=max(1, workers), processes=True, threads_per_worker=1,
                dashboard_address=None, silence_logs=logging.ERROR))
            client = stack.enter_context(distributed.Client(cluster))
        else:
            try:
                client = distributed.Client(address, timeout=timeout)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {address}: {exc}",
                    fix="give the scheduler's address (tcp://HOST:8786), or --dask local"
                ) from None
            stack.enter_context(client)
        check_workers(client)
        yield client


def _version() -> str:
    from .. import __version__
    return __version__


def check_workers(client: Any) -> None:
    """Raise :class:`ClusterError` if a worker cannot import this ``oa_core`` version."""
    from .. import __version__
    bad = {}
    for worker, found in client.run(_version, on_error="return").items():
        if found != __version__:
            bad[worker] = (f"{type(found).__name__}: {found}" if isinstance(found, BaseException)
                           else f"oa_core {found}")
    if bad:
        listed = "; ".join(f"{worker}: {why}" for worker, why in sorted(bad.items())[:3])
        raise ClusterError(f"{len(bad)} Dask worker(s) cannot run oa_core {__version__} "
                           f"({listed})", fix=INSTALL_HINT)


# ------------------------------------------------------------------ worker side

_SCHEMAS: dict[str, Schema] = {}
_SCHEMA_CACHE = 8
_SCHEMAS_LOCK = threading.Lock()  # a worker may run several threads


def _worker_schema(text: str, digest: str) -> Schema:
    with _SCHEMAS_LOCK:
        schema = _SCHEMAS.get(digest)
        if schema is None:  # once per worker process (per schema)
            schema = Schema.parse(json.loads(text))
            if len(_SCHEMAS) >= _SCHEMA_CACHE:
                _SCHEMAS.pop(next(iter(_SCHEMAS)))
            _SCHEMAS[digest] = schema
        return schema


def _internal(task: Task, name: str, exc: BaseException) -> BatchResult:
    index, number, _ = task
    message = f"{type(exc).__name__}: {exc}"
    return BatchResult({"index": index, "error": {"line": number, "internal": True,
                                                  "message": message}},
                       error=f"{name} line {number}: {message}", internal=True)


def score_chunk(schema_text: str, digest: str, options: BatchOptions, name: str,
                chunk: Sequence[Task]) -> list[BatchResult]:
    """Score a chunk of lines on a worker (never raises for a line's sake)."""
    try:
        schema = _worker_schema(schema_text, digest)
    except Exception as exc:  # validated by the client already: a broken worker
        return [_internal(task, name, exc) for task in chunk]
    return [score_line(schema, options, name, *task) for task in chunk]


# ------------------------------------------------------------------ client side


def _chunks(tasks: Sequence[Task], size: int) -> Iterator[list[Task]]:
    chunk: list[Task] = []
    nbytes = 0
    for task in tasks:
        if chunk and (len(chunk) >= size or nbytes + len(task[2]) > _MAX_CHUNK_BYTES):
            yield chunk
            chunk, nbytes = [], 0
        chunk.append(task)
        nbytes += len(task[2])
    if chunk:
        yield chunk


def _threads(client: Any) -> int:
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # no worker yet: Dask waits for one
        return 1


def iter_batch_dask(tasks: Iterable[Task], raw_schema: Any, *, client: Any,
                    options: BatchOptions, name: str = "<pairs>",
                    chunk_size: int | None = None) -> Iterator[BatchResult]:
    """Score numbered lines on the cluster of ``client``; one result per line, in order.

    Parameters
    ----------
    tasks : iterable of (index, line number, text)
        Non-blank lines, as :func:`oa_core.runs.batch.iter_batch` numbers them.
    raw_schema : dict
        The schema as JSON data (already validated by the caller).
    client : distributed.Client
    options : BatchOptions
    name : str
        The input's name, for messages.
    chunk_size : int, optional
        Lines per task (default: about four tasks per worker thread, at most 256
        lines and 1 MiB of text).

    Raises
    ------
    ClusterError
        The scheduler went away (the lines already yielded stay valid).
    """
    tasks = list(tasks)
    if not tasks:
        return
    schema_text = json.dumps(raw_schema, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(schema_text.encode("utf-8", "surrogatepass")).hexdigest()
    prefix = hashlib.sha256(f"{digest}\0{options!r}\0{name}\0".encode(
        "utf-8", "surrogatepass")).digest()
    threads = _threads(client)
    size = chunk_size or max(1, min(_MAX_CHUNK_LINES, math.ceil(
        len(tasks) / (threads * _CHUNKS_PER_THREAD))))
    window = max(4, 3 * threads)

    def submit(chunk: list[Task]) -> Any:
        content = hashlib.sha256(prefix)
        content.update(json.dumps(chunk, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        key = f"oa-score-chunk-{content.hexdigest()}"
        return client.submit(score_chunk, schema_text, digest, options, name, chunk,
                             key=key, pure=True, retries=2)

    def collect(chunk: list[Task], future: Any) -> list[BatchResult]:
        try:
            return list(future.result())
        except CancelledError as exc:
            raise _lost(client, exc) from None
        except Exception as exc:
            if client.status not in ("running", "connecting"):
                raise _lost(client, exc) from None
            if len(chunk) == 1:
                return [_internal(chunk[0], name, exc)]
            # rescored line by line, so one line that kills its worker costs only itself
            return [result for task in chunk for result in collect([task], submit([task]))]

    pending: deque[tuple[list[Task], Any]] = deque()
    chunks = _chunks(tasks, size)
    for chunk in chunks:
        pending.append((chunk, submit(chunk)))
        if len(pending) >= window:
            break
    while pending:
        chunk, future = pending.popleft()
        results = collect(chunk, future)
        del future  # released on the cluster once collected
        following = next(chunks, None)
        if following is not None:
            pending.append((following, submit(following)))
        yield from results


def _lost(client: Any, exc: BaseException) -> ClusterError:
    where = getattr(client, "scheduler", None)
    address = getattr(where, "address", "") or "the scheduler"
    return ClusterError(f"lost the Dask cluster ({address}) mid-run: "
                        f"{type(exc).__name__}: {exc}",
                        fix="check the scheduler and rerun; the lines written so far are "
                            "complete and in order")
