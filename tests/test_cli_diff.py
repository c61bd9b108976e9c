"""``oa diff``: coloured on a terminal, plain when piped, ``--json``; and the progress
bars of the long commands, checked in a real terminal (a pty)."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from oa_core import align
from oa_core.cli import main
from oa_core.terminal import DIFF_VALUE_WIDTH, diff_data, render_diff

ROOT = Path(__file__).resolve().parent.parent
RUNNING = ROOT / "sample_data" / "running_example"
GOLD, CANDIDATE, SCHEMA = (str(RUNNING / f"{name}.json")
                           for name in ("gold", "candidate", "schema"))
PAIR = [GOLD, CANDIDATE, "--schema", SCHEMA]
ESC = "\x1b["


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class Terminal(io.StringIO):
    """Standard output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def running() -> tuple[Any, Any, Any]:
    return tuple(json.loads((RUNNING / f"{n}.json").read_text())
                 for n in ("gold", "candidate", "schema"))


# --------------------------------------------------------------------------- text


def test_piped_diff_is_plain_text_mismatches_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diff", *PAIR], capsys)
    assert code == 0 and ESC not in out
    lines = out.splitlines()
    assert lines[0].startswith("score 0.7679  deficit 0.2321")
    assert lines[1] == "5 mismatches, costliest first:"
    # costliest first, each with its pointer, mark, both values and the node's score
    table = lines[3:8]
    assert [line.split()[1] for line in table] == [
        "/agenda/0", "/agenda/1", "/period/1", "/people/5", "/agenda/2"]
    assert table[2].split()[2:] == ["≈", "2025", "2026", "0.5000", "0.0625"]
    assert '{"id": 6, "name": "Eve", "role": "Intern"}' in table[3]
    assert table[4].split()[2:] == ["≈", '"closing"', '"closin"', "0.9524", "0.0030"]
    # then the aligned tree, perfect runs folded
    tree = "\n".join(lines[8:])
    assert "aligned diff (perfect parts folded" in tree
    assert "… 5 perfect: 0, 1, 2, 3, …" in tree and "… 1 perfect: mentorships" in tree
    assert '"Alice"' not in out  # a perfect record is folded, not printed


def test_always_colours_and_never_does_not(capsys: pytest.CaptureFixture[str]) -> None:
    _, coloured, _ = run(["diff", *PAIR, "--color", "always"], capsys)
    _, plain, _ = run(["diff", *PAIR, "--color", "never"], capsys)
    assert ESC in coloured and ESC not in plain
    strip = __import__("re").compile(r"\x1b\[[0-9;]*m")
    # the same text once the colour codes are taken out (a terminal wraps to its width;
    # here the width is unknown, so neither is wrapped)
    assert [line.rstrip() for line in strip.sub("", coloured).splitlines()] == \
        plain.splitlines()


def test_auto_colours_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["diff", *PAIR]) == 0
    assert ESC in terminal.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["diff", *PAIR]) == 0
    assert ESC not in terminal.getvalue() and "5 mismatches" in terminal.getvalue()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["diff", *PAIR, "--color", "always"]) == 0  # the flag wins over NO_COLOR
    assert ESC in terminal.getvalue()


def test_a_perfect_candidate_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diff", GOLD, GOLD, "--schema", SCHEMA], capsys)
    assert code == 0
    assert out.splitlines()[:2] == ["score 1.0000  deficit 0.0000  (" + GOLD + " vs " + GOLD
                                    + ")", "no mismatches: the candidate matches the gold"]
    assert "… 4 perfect: agenda, mentorships, people, period" in out


def test_odd_values_print_as_themselves(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    gold = {"note": "[bold red]not markup[/]", "k\x1b[31mey": "a", "text": "x"}
    candidate = {"note": "[link=http://x]y[/link]", "k\x1b[31mey": "b",
                 "text": "evil\x1b[2J\x07\nnext"}
    (tmp_path / "g.json").write_text(json.dumps(gold))
    (tmp_path / "c.json").write_text(json.dumps(candidate))
    (tmp_path / "s.json").write_text('{"type": "object"}')
    argv = ["diff", str(tmp_path / "g.json"), str(tmp_path / "c.json"), "-s",
            str(tmp_path / "s.json")]
    for colour in ("always", "never"):
        _, out, _ = run([*argv, "--color", colour], capsys)
        assert '"[bold red]not markup[/]"' in out  # as text, not as rich markup
        assert '"[link=http://x]y[/link]"' in out
        assert '"evil\\u001b[2J\\u0007\\nnext"' in out  # escaped, as JSON writes it
        assert "k\\u001b[31mey" in out  # a key's control characters too
        assert "\x1b[2J" not in out and "\x07" not in out and "\x1b[31mey" not in out


def test_values_are_cut_unless_full_values(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    long = "word " * 200
    (tmp_path / "g.json").write_text(json.dumps({"text": long}))
    (tmp_path / "c.json").write_text(json.dumps({"text": long.upper()}))
    (tmp_path / "s.json").write_text('{"type": "object"}')
    argv = ["diff", str(tmp_path / "g.json"), str(tmp_path / "c.json"), "-s",
            str(tmp_path / "s.json")]
    _, out, _ = run(argv, capsys)
    assert "… (1,000 characters)" in out and long not in out
    assert max(len(line) for line in out.splitlines()) < 4 * DIFF_VALUE_WIDTH + 80
    _, out, _ = run([*argv, "--full-values"], capsys)
    assert json.dumps(long) in out and json.dumps(long.upper()) in out


# --------------------------------------------------------------------------- --json


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diff", *PAIR, "--json"], capsys)
    assert code == 0 and ESC not in out
    data = json.loads(out)
    assert set(data) == {"gold", "candidate", "score", "deficit", "marks", "mismatches",
                         "rows"}
    assert data["score"] == 0.7678571428571429 and data["gold"] == GOLD
    first, *_, eve, last = data["mismatches"]
    assert first == {"path": "/agenda/0", "gold_path": None, "candidate_path": "/agenda/0",
                     "mark": "+", "status": "excess", "kind": "leaf", "score": 0.0,
                     "deficit": 0.0625, "candidate": "reviews"}  # no "gold": absent
    assert eve["gold"] == {"id": 6, "name": "Eve", "role": "Intern"} and "candidate" not in eve
    assert (last["gold"], last["candidate"]) == ("closing", "closin")
    assert data["rows"][0] == {"depth": 0, "path": "", "mark": "≈", "status": "matched",
                               "score": 0.7678571428571429, "gold_text": "{4 keys}",
                               "candidate_text": "{4 keys}"}
    assert {"depth": 2, "folded": 5, "labels": "0, 1, 2, 3, …"} in data["rows"]


def test_json_mismatches_hold_whole_values() -> None:
    big = [{"id": i, "name": f"Person {i}"} for i in range(500)]
    data = diff_data(align({"a": big}, {"a": None}, {"type": "object"}))
    (mismatch,) = data["mismatches"]
    assert mismatch["gold"] == big and mismatch["candidate"] is None
    text = data["rows"][1]["gold_text"]
    assert text.endswith("… (500 items)") and len(text) < DIFF_VALUE_WIDTH + 20


def test_render_diff_wraps_to_the_terminal_width() -> None:
    gold, candidate, schema = running()
    text = render_diff(align(gold, candidate, schema), color=False, width=60)
    assert max(len(line) for line in text.splitlines()) <= 60


# --------------------------------------------------------------------------- a real terminal


def _drain(master: int, chunks: list[bytes]) -> None:
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # every end of the terminal closed
            return
        if not data:
            return
        chunks.append(data)


def _in_a_pty(argv: list[str], *, pipe_stdout: bool = False,
              env: dict[str, str] | None = None) -> tuple[str, str]:
    """Run ``oa`` with standard error (and output, unless ``pipe_stdout``) on a
    pseudo-terminal; return what the terminal showed, and the piped standard output."""
    master, slave = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment.update({"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "120",
                        **(env or {})})
    proc = subprocess.Popen([sys.executable, "-m", "oa_core.cli", *argv], stdin=slave,
                            stdout=subprocess.PIPE if pipe_stdout else slave, stderr=slave,
                            cwd=ROOT, env=environment)
    os.close(slave)
    chunks: list[bytes] = []
    reader = threading.Thread(target=_drain, args=(master, chunks), daemon=True)
    reader.start()
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    reader.join(timeout=30)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert code == 0, shown
    return shown, out


def test_a_real_terminal_gets_colour_and_a_pipe_does_not() -> None:
    shown, _ = _in_a_pty(["diff", *PAIR])
    assert ESC in shown and "5 mismatches" in shown
    piped = subprocess.run([sys.executable, "-m", "oa_core.cli", "diff", *PAIR],
                           capture_output=True, text=True, cwd=ROOT, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert piped.returncode == 0 and ESC not in piped.stdout and "5 mismatches" in piped.stdout


def test_progress_bar_on_a_terminal_and_quiet_when_piped(tmp_path: Path) -> None:
    pairs = str(ROOT / "sample_data" / "scierc_pairs.jsonl")
    schema = str(ROOT / "sample_data" / "datasets" / "scierc_runs" / "schema.json")
    out = str(tmp_path / "out.jsonl")
    shown, _ = _in_a_pty(["batch", pairs, "-s", schema, "-o", out])
    assert "50/50" in shown and "pairs/s" in shown and "ETA" in shown
    piped = subprocess.run([sys.executable, "-m", "oa_core.cli", "batch", pairs, "-s", schema,
                            "-o", out], capture_output=True, text=True, cwd=ROOT,
                           timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert piped.returncode == 0
    assert "pairs/s" not in piped.stderr and "ETA" not in piped.stderr and ESC not in (
        piped.stderr + piped.stdout)
    assert "pairs: 50 scored" in piped.stdout  # the summary is still written
    report = str(tmp_path / "r.html")
    shown, _ = _in_a_pty(["report", pairs, "-s", schema, "-o", report])
    assert "50/50" in shown and "pairs/s" in shown and Path(report).is_file()


def test_results_piped_while_the_bar_is_on_a_terminal_stay_on_stdout() -> None:
    pairs = str(ROOT / "sample_data" / "scierc_pairs.jsonl")
    schema = str(ROOT / "sample_data" / "datasets" / "scierc_runs" / "schema.json")
    shown, out = _in_a_pty(["batch", pairs, "-s", schema], pipe_stdout=True)
    lines = out.splitlines()
    assert len(lines) == 50 and [json.loads(line)["index"] for line in lines] == list(range(50))
    assert ESC not in out and "pairs/s" in shown and "pairs: 50 scored" in shown


def test_the_documented_example_is_what_oa_diff_prints(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    docs = (ROOT / "docs" / "cli.md").read_text()
    start = docs.index("$ oa diff sample_data/running_example/")
    example = docs[start:docs.index("\n```", start)].splitlines()[1:]
    monkeypatch.chdir(ROOT)  # the example names files from the repository root
    _, out, _ = run(["diff", "sample_data/running_example/gold.json",
                     "sample_data/running_example/candidate.json", "-s",
                     "sample_data/running_example/schema.json"], capsys)
    assert out.splitlines() == example
