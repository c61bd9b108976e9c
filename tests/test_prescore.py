"""Scoring ahead under ``oa explore --dataset`` (app/runs/prescore.py): the prescorer stores the
run under the page's key, the page waits for a live one and scores itself when it is
dead, stuck or gone."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from apptest_helpers import metric, open_app

from app.runs import dataset_state, prescore, workers
from benchmarks.dataset_speed import make_batch_output
from oa_core.runs.dataset import (
    Dataset,
    ScoredRun,
    code_fingerprint,
    load_folder,
    load_scored,
    score_run,
    store_scored,
)

ROOT = Path(__file__).resolve().parents[1]
SCIERC = ROOT / "sample_data" / "datasets" / "scierc_runs"
# over SMALL_RUN (scored by worker processes, as a real run), and another size for each
# test: a content key no other test scored (the page keeps scored runs in memory)
SIZES = itertools.count(70)
# what `oa explore --dataset` does: read the folder, start the prescorer, and (here) wait
# for it to end instead of serving; prints the prescorer's pid (or None)
LAUNCHER = """import os, sys
from app.runs import prescore
from oa_core.runs.dataset import load_folder
pid = prescore.start(load_folder(sys.argv[1]))
print(pid, flush=True)
if pid is not None:
    os.waitpid(pid, 0)
"""


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A dataset of its own (the first pairs of scierc_runs, see ``SIZES``) and an empty
    run cache."""
    made = tmp_path / "prescore runs"
    shutil.copytree(SCIERC, made)
    pairs = next(SIZES)
    for name in ("golds.jsonl", "runs/a.jsonl", "runs/b.jsonl"):
        lines = (made / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (made / name).write_text("".join(lines[:pairs]), encoding="utf-8")
    monkeypatch.setenv(prescore.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(prescore.PRESCORE_ENV, raising=False)
    return made


def first(data: Dataset) -> str:
    """The run the Dataset page opens on."""
    return next(iter(data.runs))


def key_of(data: Dataset) -> str:
    return prescore.cache_key(data, first(data))


def launch(folder: Path) -> subprocess.Popen[str]:
    """The launcher's part in a process of its own (a fork of pytest could inherit a
    lock held by one of its threads)."""
    return subprocess.Popen([sys.executable, "-c", LAUNCHER, str(folder)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)


def ended_pid() -> int:
    """The pid of a process that has ended (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def write_progress(path: Path, pid: int, done: int = 0, total: int = 70,
                   code: str | None = None) -> None:
    """A prescorer's progress file (by this scoring code unless ``code`` is given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": pid, "done": done, "total": total,
                                "started": time.time() - 1.0,
                                "code": code or code_fingerprint()}), encoding="utf-8")


def assert_same(left: ScoredRun, right: ScoredRun) -> None:
    pd.testing.assert_frame_equal(left.frame, right.frame)
    pd.testing.assert_frame_equal(left.ops, right.ops)
    pd.testing.assert_frame_equal(left.fields, right.fields)
    assert left.records == right.records


def test_the_prescored_run_is_the_one_the_page_would_score(folder: Path) -> None:
    data = load_folder(folder)
    launcher = launch(folder)
    out, _ = launcher.communicate(timeout=300)
    assert launcher.returncode == 0 and out.strip().isdigit(), out
    cache = prescore.cache_folder()
    assert cache is not None
    assert not prescore.progress_path(cache, key_of(data)).exists()  # removed when done
    handed = prescore.wait(cache, key_of(data))
    assert handed is not None
    # what the page gets when it scores the run itself (dataset_state.scored)
    assert_same(handed, score_run(data, first(data), workers=2, start_method=workers.START_METHOD))


def test_nothing_is_scored_ahead_without_a_run_cache_or_when_stored(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = load_folder(folder)
    monkeypatch.setenv(prescore.CACHE_ENV, "off")
    assert prescore.start(data) is None
    monkeypatch.setenv(prescore.CACHE_ENV, str(folder.parent / "cache"))
    monkeypatch.setenv(prescore.PRESCORE_ENV, "off")
    assert prescore.start(data) is None
    monkeypatch.delenv(prescore.PRESCORE_ENV)
    cache = prescore.cache_folder()
    assert cache is not None
    store_scored(cache, key_of(data), score_run(data, first(data)))
    assert prescore.start(data) is None  # the run cache has it
    assert not prescore.progress_path(cache, key_of(data)).exists()
    results = make_batch_output(folder.parent / "batch output", count=80)
    assert prescore.start(load_folder(results)) is None  # read, not scored
    assert list(cache.glob("prescore-*")) == []


@pytest.mark.parametrize("how", ["ended", "zombie", "silent", "not a progress file"])
def test_a_dead_or_stuck_prescorer_is_not_waited_for(folder: Path, how: str) -> None:
    data = load_folder(folder)
    cache = prescore.cache_folder()
    assert cache is not None
    path = prescore.progress_path(cache, key_of(data))
    zombie = None
    if how == "ended":
        write_progress(path, ended_pid())
    elif how == "zombie":  # ended, not yet reaped by its parent: its pid still answers
        zombie = subprocess.Popen([sys.executable, "-c", "pass"])
        deadline = time.monotonic() + 60
        while workers.running(zombie.pid):
            assert time.monotonic() < deadline, "the process did not end"
            time.sleep(0.05)
        os.kill(zombie.pid, 0)  # still there
        write_progress(path, zombie.pid)
    elif how == "silent":  # alive (this process) but no progress for too long
        write_progress(path, os.getpid())
        old = time.time() - prescore.STALE_S - 5
        os.utime(path, (old, old))
    else:
        path.parent.mkdir(parents=True)
        path.write_text("{half a", encoding="utf-8")
    got: list[ScoredRun | None] = []
    waiter = threading.Thread(target=lambda: got.append(prescore.wait(cache, key_of(data))),
                              daemon=True)  # a wrong answer would wait for ever
    waiter.start()
    waiter.join(60)
    assert got == [None]
    assert not path.exists()  # forgotten: the next page does not look at it again
    if zombie is not None:
        zombie.wait()


def test_a_live_prescorer_is_waited_for_with_its_progress(folder: Path) -> None:
    data = load_folder(folder)
    cache = prescore.cache_folder()
    assert cache is not None
    key = key_of(data)
    path = prescore.progress_path(cache, key)
    stand_in = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        write_progress(path, stand_in.pid, done=20)
        seen: list[tuple[int, int, float]] = []
        shown = threading.Event()
        got: list[ScoredRun | None] = []

        def progress(done: int, total: int, seconds: float) -> None:
            seen.append((done, total, seconds))
            shown.set()

        waiter = threading.Thread(target=lambda: got.append(prescore.wait(cache, key,
                                                                          progress)))
        waiter.start()
        assert shown.wait(60)
        assert seen[0][:2] == (20, 70) and seen[0][2] >= 1.0
        assert waiter.is_alive()  # still waiting: the prescorer runs
        result = score_run(data, first(data))
        store_scored(cache, key, result)  # what the prescorer does when done
        path.unlink()
        waiter.join(60)
        assert not waiter.is_alive()
        assert got[0] is not None
        assert_same(got[0], result)
    finally:
        stand_in.kill()
        stand_in.wait()


def test_the_page_takes_the_prescored_run_instead_of_scoring(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(workers.LOCAL_ENV, str(folder))

    def no_scoring(*args: object, **kwargs: object) -> ScoredRun:
        raise AssertionError("the page scored the run the prescorer scores")

    launcher = launch(folder)  # the page may come while it scores or after: either way
    try:
        assert launcher.stdout is not None and launcher.stdout.readline().strip().isdigit()
        monkeypatch.setattr(dataset_state, "score_run", no_scoring)
        at = open_app("dataset.py", {"dataset": folder.name}, timeout=300)
        assert metric(at, "Pairs") == str(len(load_folder(folder).runs["A"]))
    finally:
        launcher.communicate(timeout=300)


def test_the_page_scores_the_run_itself_when_the_prescorer_died(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(workers.LOCAL_ENV, str(folder))
    data = load_folder(folder)
    cache = prescore.cache_folder()
    assert cache is not None
    path = prescore.progress_path(cache, key_of(data))
    write_progress(path, ended_pid())
    at = open_app("dataset.py", {"dataset": folder.name}, timeout=300)
    assert metric(at, "Pairs") == str(len(data.runs["A"]))
    assert not path.exists()
    stored = load_scored(cache, key_of(data))  # scored by the page, and kept
    assert stored is not None
    assert_same(stored, score_run(data, first(data)))


def test_the_page_shows_a_live_prescorer_s_progress_then_its_run(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(workers.LOCAL_ENV, str(folder))
    data = load_folder(folder)
    cache = prescore.cache_folder()
    assert cache is not None
    key = key_of(data)
    path = prescore.progress_path(cache, key)
    result = score_run(data, first(data))  # what the stand-in prescorer will hand over
    shown = threading.Event()
    texts: list[str] = []
    real_wait = dataset_state.wait_prescored

    def watched(folder: Path, key: str,
                progress: Callable[[int, int, float], None]) -> ScoredRun | None:
        def seen(done: int, total: int, seconds: float) -> None:
            progress(done, total, seconds)  # the page's bar
            texts.append(dataset_state.progress_text(first(data), done, total, seconds))
            shown.set()

        return real_wait(folder, key, seen)

    def no_scoring(*args: object, **kwargs: object) -> ScoredRun:
        raise AssertionError("the page scored the run the prescorer scores")

    def prescorer_ends() -> None:  # once the page showed its progress
        if shown.wait(240):
            store_scored(cache, key, result)
            path.unlink()

    monkeypatch.setattr(dataset_state, "wait_prescored", watched)
    monkeypatch.setattr(dataset_state, "score_run", no_scoring)
    stand_in = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    ending = threading.Thread(target=prescorer_ends, daemon=True)
    try:
        write_progress(path, stand_in.pid, done=30, total=len(data.runs[first(data)]))
        ending.start()
        at = open_app("dataset.py", {"dataset": folder.name}, timeout=300)
        assert metric(at, "Pairs") == str(len(data.runs[first(data)]))
        assert texts[0].startswith(f"Scoring run {first(data)}: 30/")
        assert "pairs/s" in texts[0] and "ETA" in texts[0]
    finally:
        shown.set()
        ending.join(60)
        stand_in.kill()
        stand_in.wait()


def test_a_prescorer_running_other_scoring_code_is_not_waited_for(folder: Path) -> None:
    data = load_folder(folder)
    cache = prescore.cache_folder()
    assert cache is not None
    path = prescore.progress_path(cache, key_of(data))
    write_progress(path, os.getpid(), code="older sources")  # alive and progressing
    got: list[ScoredRun | None] = []
    waiter = threading.Thread(target=lambda: got.append(prescore.wait(cache, key_of(data))),
                              daemon=True)
    waiter.start()
    waiter.join(60)
    assert got == [None]
    assert path.exists()  # its own: it removes it when it ends
