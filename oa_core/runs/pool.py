"""Processes that do jobs and answer in order: what ``oa batch --workers N`` runs on.

:func:`ordered_answers` starts worker processes, keeps each busy with a few jobs in
flight and yields the answers in the jobs' order. Given ``here``, this process is one of
the workers too: it does a job itself whenever no answer is waiting.

Each worker has one pipe to this process and nothing else. This process sends jobs and
reads answers in its own thread: no helper thread wakes for each answer, which is what
``concurrent.futures.ProcessPoolExecutor`` costs (about 3 us a line of ``oa batch``).

- A worker that ends before answering (killed, out of memory, a crash in native code)
  stops the run with :class:`WorkerLost`, never a hang.
- A run stopped early (an error, Ctrl-C, a closed output, the generator closed) ends
  every worker at once: the jobs in flight are dropped.
- An exception raised by a job is raised here, as the job's caller would see it.
- Workers ignore Ctrl-C (the terminal sends it to the whole process group): this
  process decides, and ends them.

Examples
--------
>>> import multiprocessing
>>> list(ordered_answers(abs, [-1, -2, 3], workers=2,
...                      context=multiprocessing.get_context("fork")))
[1, 2, 3]
>>> list(ordered_answers(abs, range(-3, 3), workers=2, in_flight=2, here=abs,
...                      context=multiprocessing.get_context("fork")))
[3, 2, 1, 0, 1, 2]
"""

from __future__ import annotations

import contextlib
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import parent_process
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

__all__ = ["RunError", "WorkerLost", "ordered_answers"]


class RunError(RuntimeError):
    """A batch run cannot go on (not a problem of its input): what happened and the fix.

    Attributes
    ----------
    message : str
    fix : str
    """

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return self.message + (f"\n  fix: {self.fix}" if self.fix else "")


class WorkerLost(RunError):
    """A worker process of ``oa batch`` ended before answering (killed, out of memory,
    or a crash in native code); the run stops."""


_Job = TypeVar("_Job")
_Answer = TypeVar("_Answer")

_STOP = None
"""Sent to a worker instead of a job (which goes as a 1-tuple): it returns."""

_NO_JOB: Any = object()
"""What the jobs' iterator gives once it is done (a job may be None)."""


@dataclass(slots=True)
class _Worker:
    process: BaseProcess
    pipe: Connection
    jobs: deque[int] = field(default_factory=deque)  # the numbers of its jobs in flight


def ordered_answers(run: Callable[[_Job], _Answer], jobs: Iterable[_Job], *, workers: int,
                    context: BaseContext, initializer: Callable[..., object] | None = None,
                    initargs: tuple[Any, ...] = (), in_flight: int = 1,
                    here: Callable[[_Job], _Answer] | None = None,
                    ) -> Generator[_Answer, None, None]:
    """``run(job)`` of every job, done by ``workers`` processes, yielded in ``jobs``' order.

    Parameters
    ----------
    run : callable
        Called in a worker with each job; a module-level function (it is pickled by
        name for workers that do not fork).
    jobs : iterable
        Taken as workers are free: a job is made only when it is sent.
    workers : int
        Processes doing jobs, this one included when ``here`` is given (at least 1).
    context : multiprocessing context
        How they start (``fork``, ``forkserver`` or ``spawn``).
    initializer, initargs
        Called once in each worker before its first job.
    in_flight : int
        Jobs given to a worker ahead of its answers. More than 1 only for jobs far
        smaller than a pipe's buffer: this process then never waits to write a job
        while the worker waits to write an answer, which would stop both.
    here : callable, optional
        Does a job in this process, whenever no worker's answer is waiting; its
        answers are yielded in order with theirs (as ``run`` would give them).

    Raises
    ------
    WorkerLost
        When a worker ends before answering.
    Exception
        What ``run`` raised for a job, when it raised.
    """
    pending = iter(jobs)
    started: list[_Worker] = []
    try:
        for _ in range(max(1, workers) - (here is not None)):
            ours, theirs = context.Pipe()
            # typeshed gives Process to each concrete context, not to BaseContext
            process: BaseProcess = context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(theirs, run, initializer, initargs))
            process.start()
            theirs.close()  # so that a worker's end shows here as the end of its pipe
            started.append(_Worker(process, ours))
        yield from _collected(pending, started, max(1, in_flight), here)
        for worker in started:
            with contextlib.suppress(OSError):  # one that ended since has nothing left
                worker.pipe.send(_STOP)
        for worker in started:
            worker.process.join()
    finally:  # stopped early, or an error: end the workers now, their jobs dropped
        for worker in started:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in started:
            worker.process.join()
            worker.pipe.close()


def _collected(pending: Iterator[_Job], workers: list[_Worker], in_flight: int,
               here: Callable[[_Job], Any] | None) -> Iterator[Any]:
    """The answers to the ``pending`` jobs, sent to the ``workers`` (and done ``here``
    whenever no answer is waiting), in the jobs' order."""
    by_pipe = {worker.pipe: worker for worker in workers}
    answers: dict[int, Any] = {}  # answered, not yet yielded: a job ahead is still running
    sent = yielded = 0
    for worker in workers:
        for _ in range(in_flight):
            sent = _send_next(pending, worker, sent)
    while True:
        if yielded in answers:
            yield answers.pop(yielded)
            yielded += 1
            continue
        busy = [worker.pipe for worker in workers if worker.jobs]
        ready = wait(busy, timeout=0) if here is not None else []
        if not ready and here is not None:
            job = next(pending, _NO_JOB)
            if job is not _NO_JOB:
                answers[sent] = here(job)
                sent += 1
                continue
            here = None  # no job left for this process: wait for the workers'
        if yielded == sent:
            return
        for pipe in ready or wait(busy):
            assert isinstance(pipe, Connection)
            worker = by_pipe[pipe]
            answers[worker.jobs.popleft()] = _answer(worker)
            sent = _send_next(pending, worker, sent)


def _send_next(pending: Iterator[_Job], worker: _Worker, sent: int) -> int:
    """Give ``worker`` the next job, if there is one; the jobs sent so far."""
    job = next(pending, _NO_JOB)
    if job is _NO_JOB:
        return sent
    try:
        worker.pipe.send((job,))
    except OSError:  # its end of the pipe is closed: it ended
        raise _lost() from None
    worker.jobs.append(sent)
    return sent + 1


def _answer(worker: _Worker) -> Any:
    """The answer ``worker`` sent, or what its job raised, raised here."""
    try:
        succeeded, answer = worker.pipe.recv()
    except (EOFError, OSError):
        raise _lost() from None
    if not succeeded:
        raise answer
    return answer


def _lost() -> WorkerLost:
    return WorkerLost("a worker process ended unexpectedly",
                      fix="the system may have run out of memory: use fewer workers, or a "
                          "machine with more memory")


def _serve(pipe: Connection, run: Callable[[Any], Any],
           initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    """A worker's life: each job read from ``pipe`` is run and answered, until told to
    stop or this process's parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends the run on Ctrl-C
    if initializer is not None:
        initializer(*initargs)
    parent = parent_process()
    watched: list[Connection | int] = [pipe] if parent is None else [pipe, parent.sentinel]
    while True:
        if pipe not in wait(watched):
            return  # the parent ended without a word (killed): nobody reads the answers
        try:
            message = pipe.recv()
        except EOFError:
            return
        if message is _STOP:
            return
        try:
            reply: tuple[bool, Any] = (True, run(message[0]))
        except Exception as exc:  # the parent raises it as the job's own
            reply = (False, exc)
        try:
            pipe.send(reply)
        except Exception as exc:  # an answer or exception that cannot be pickled
            pipe.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
