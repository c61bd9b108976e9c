"""oa_core.runs.pool: worker processes answering jobs in order."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from oa_core.runs.pool import WorkerLost, ordered_answers

FORK = multiprocessing.get_context("fork")


def _slow_square(job: int) -> int:
    time.sleep(0.002 * (job % 3))  # later jobs often finish first
    return job * job


def _fails_on_three(job: int) -> int:
    if job == 3:
        raise ValueError(f"job {job} is bad")
    return job


def _unpicklable(job: int) -> object:
    return lambda: job


def _dies_on_two(job: int) -> int:
    if job == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
    return job


def _whose(job: int) -> int:
    return os.getpid()


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("here", [False, True])
def test_answers_come_in_the_jobs_order(workers: int, here: bool) -> None:
    answers = ordered_answers(_slow_square, range(40), workers=workers, context=FORK,
                              in_flight=2, here=_slow_square if here else None)
    assert list(answers) == [job * job for job in range(40)]
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("here", [False, True])
def test_a_job_may_be_none(here: bool) -> None:
    answers = ordered_answers(str, [None, 1, None], workers=2, context=FORK, in_flight=2,
                              here=str if here else None)
    assert list(answers) == ["None", "1", "None"]


def test_this_process_is_one_of_the_workers_when_it_works_here() -> None:
    doers = set(ordered_answers(_whose, range(200), workers=2, context=FORK, in_flight=2,
                                here=_whose))
    assert os.getpid() in doers and len(doers) == 2  # this one and one forked worker


def test_a_job_that_raises_raises_here_and_ends_the_workers() -> None:
    with pytest.raises(ValueError, match="job 3 is bad"):
        list(ordered_answers(_fails_on_three, range(10), workers=2, context=FORK))
    assert not multiprocessing.active_children()


def test_an_answer_that_cannot_be_pickled_is_named() -> None:
    with pytest.raises(RuntimeError, match="pickle"):
        list(ordered_answers(_unpicklable, range(3), workers=2, context=FORK))


def test_a_worker_that_dies_stops_the_run_with_worker_lost() -> None:
    with pytest.raises(WorkerLost) as info:
        list(ordered_answers(_dies_on_two, range(10), workers=2, context=FORK, in_flight=2))
    assert str(info.value).startswith("a worker process ended unexpectedly")
    assert "fix: " in str(info.value)
    assert not multiprocessing.active_children()


def test_a_run_closed_early_ends_its_workers_at_once() -> None:
    answers = ordered_answers(_slow_square, range(1000), workers=2, context=FORK)
    assert next(answers) == 0 and multiprocessing.active_children()
    answers.close()
    assert not multiprocessing.active_children()


def test_big_jobs_to_spawned_workers_do_not_block_both_ends() -> None:
    # each job and answer is far bigger than a pipe's buffer: with one job in flight,
    # this process never writes a job while the worker writes its answer
    jobs = ["x" * (1 << 20)] * 6
    answers = ordered_answers(str.upper, jobs, workers=2,
                              context=multiprocessing.get_context("spawn"))
    assert [len(answer) for answer in answers] == [1 << 20] * 6
