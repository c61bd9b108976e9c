"""`oa explore --dataset DIR`: the folder is checked first, then the explorer opens on
its Dataset page (the server finds it through OA_EXPLORE_DATASET)."""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

import pytest
from apptest_helpers import metric, open_app

from app import launch
from app.runs import prescore
from app.runs.workers import PRESCORER_ENV, running
from oa_core.cli import BadInput

ROOT = Path(__file__).resolve().parents[1]
SCIERC = ROOT / "sample_data" / "datasets" / "scierc_runs"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="oa")
    launch.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["explore", *argv])


def test_a_bad_folder_is_refused_before_the_server_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(launch, "run_child", lambda command: started.append(command) or 0)
    with pytest.raises(BadInput, match="not a folder"):
        launch.explore(parse("--dataset", str(tmp_path / "missing")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInput, match="no schema"):
        launch.explore(parse("--dataset", str(tmp_path / "empty")))
    assert started == []


def test_a_folder_opens_on_the_dataset_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "my runs"
    shutil.copytree(SCIERC, folder)
    monkeypatch.setattr(launch, "run_child", lambda command: 0)
    monkeypatch.delenv(launch.DATASET_ENV, raising=False)
    monkeypatch.delenv(PRESCORER_ENV, raising=False)
    assert launch.explore(parse("--dataset", str(folder), "--port", "8999")) == 0
    err = capsys.readouterr().err
    assert "http://127.0.0.1:8999/dataset?dataset=my%20runs" in err
    assert "runs A, B" in err
    assert os.environ[launch.DATASET_ENV] == str(folder.resolve())
    at = open_app("dataset.py", {"dataset": "my runs"}, timeout=180)
    assert metric(at, "Pairs") == "150"


@pytest.mark.parametrize("ahead", ["on", "off"])
def test_the_first_run_is_scored_ahead_while_the_server_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: str) -> None:
    folder = tmp_path / "ahead"
    shutil.copytree(SCIERC, folder)
    monkeypatch.setenv(prescore.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(prescore.PRESCORE_ENV, ahead)
    monkeypatch.delenv(launch.DATASET_ENV, raising=False)
    monkeypatch.delenv(PRESCORER_ENV, raising=False)
    seen: list[str | None] = []

    def server(command: list[str]) -> int:  # what the server finds in its environment
        pid = os.environ.get(PRESCORER_ENV)
        seen.append(pid)
        assert pid is None or running(int(pid))
        return 0

    monkeypatch.setattr(launch, "run_child", server)
    assert launch.explore(parse("--dataset", str(folder))) == 0
    if ahead == "off":
        assert seen == [None]
        return
    assert seen[0] is not None
    with pytest.raises(ProcessLookupError):  # stopped and reaped with the server
        os.kill(int(seen[0]), 0)
