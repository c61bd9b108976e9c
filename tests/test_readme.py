"""The README is a newcomer's page: short, self-contained, and its examples run."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from oa_core.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_short_and_standalone() -> None:
    assert len(README.splitlines()) <= 200
    assert "../shared" not in README
    assert "bash scripts/run" in README and "bash scripts/test" in README
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        assert (ROOT / target).exists(), f"README links to a missing {target}"


def test_library_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    (code,) = [block for block in _blocks("python") if "oa_core.align" in block]
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(code, scope)
    result = scope["result"]
    assert repr(result.score) == "0.7678571428571429"  # type: ignore[attr-defined]
    assert result.bijections["person"] == {1: 91, 2: 94, 3: 93, 4: 92, 5: 90,  # type: ignore[attr-defined]
                                           6: None}
    assert "recovers" in printed.getvalue()


def test_command_line_examples_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = [b for b in _blocks("bash") if "oa score" in b]
    cwd = ROOT
    for line in block.splitlines():
        command = shlex.split(line, comments=True)
        if not command:
            continue
        if command[0] == "cd":
            cwd = (cwd / command[1]).resolve()
            continue
        assert command[0] == "oa"
        if command[1] == "explore":
            continue  # a server: the browser tests start it
        monkeypatch.chdir(cwd)
        args = [str(tmp_path / "report.html") if a == "report.html" else a for a in command[1:]]
        assert main(args) == 0, line
        out = capsys.readouterr().out
        if command[1] == "score":
            assert out.strip() == "0.7678571428571429"
    assert (tmp_path / "report.html").stat().st_size > 0
