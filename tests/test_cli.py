"""The ``oa`` command line, through ``main(argv)`` and as a subprocess."""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from oa_helpers import SPEC_FEEDBACK

import oa_core
from app import launch
from oa_core import cli, report
from oa_core.build import describe_build
from oa_core.cli import main
from oa_core.jsonio import jsonl_lines
from oa_core.options import AlignOptions, Limits
from oa_core.runs import batch
from oa_core.runs.batch import path_pattern

ROOT = Path(__file__).resolve().parent.parent
RUNNING = ROOT / "sample_data" / "running_example"
GOLD, CANDIDATE, SCHEMA = (str(RUNNING / f"{name}.json")
                           for name in ("gold", "candidate", "schema"))
PAIR = [GOLD, CANDIDATE, "--schema", SCHEMA]
RUNNING_SCORE = "0.7678571428571429"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def set_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


def oa(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "oa_core.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def gold_candidate() -> tuple[Any, Any]:
    return json.loads(Path(GOLD).read_text()), json.loads(Path(CANDIDATE).read_text())


# --------------------------------------------------------------------------- score


def test_score(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["score", *PAIR], capsys)[:2] == (0, RUNNING_SCORE + "\n")


def test_version_names_the_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"oa 0.1.0 ({describe_build()})\n"


def test_score_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", *PAIR, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["score"] == float(RUNNING_SCORE)
    assert data["tree"]["children"] and data["bijections"]["person"][0] == [1, 91]


def test_score_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", *PAIR, "--wl-mode", "none"], capsys)
    assert code == 0 and round(float(out), 4) == 0.6845  # the twins swap without WL


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    set_stdin(monkeypatch, Path(CANDIDATE).read_text())
    assert run(["score", GOLD, "-", "--schema", SCHEMA], capsys)[:2] == (0, RUNNING_SCORE + "\n")


def test_stdin_only_once(monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    set_stdin(monkeypatch, Path(GOLD).read_text())
    code, _, err = run(["score", "-", "-", "--schema", SCHEMA], capsys)
    assert code == 2 and "standard input ('-') can be used for one file only" in err


def test_jsonc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = Path(CANDIDATE).read_text()
    jsonc = tmp_path / "candidate.jsonc"
    jsonc.write_text("// the candidate\n/* block */" + text.rstrip().rstrip("}") + ",}\n")
    assert run(["score", GOLD, str(jsonc), "--schema", SCHEMA], capsys)[:2] == (
        0, RUNNING_SCORE + "\n")


def test_jsonl_scores_pairwise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, candidate = gold_candidate()
    golds, candidates = tmp_path / "g.jsonl", tmp_path / "c.jsonl"
    golds.write_text(f"{json.dumps(gold)}\n\n{json.dumps(gold)}\n")
    candidates.write_text(f"{json.dumps(candidate)}\n{json.dumps(gold)}\n")
    code, out, _ = run(["score", str(golds), str(candidates), "--schema", SCHEMA], capsys)
    assert code == 0 and out.split() == [RUNNING_SCORE, "1.0"]
    code, _, err = run(["feedback", str(golds), str(candidates), "--schema", SCHEMA], capsys)
    assert code == 2 and "use `oa batch`" in err


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("text", "expected"), [
    ('{"agenda": [1, }', "line 1, column 16"),
    ('{"a": 1}\n{"b": ', "line 2"),
    ("", "the text is empty"),
])
def test_bad_json_names_file_and_place(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       text: str, expected: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    code, out, err = run(["score", GOLD, str(bad), "--schema", SCHEMA], capsys)
    assert code == 2 and out == ""
    assert f"{bad} (candidate) at (root):" in err and expected in err
    assert "Traceback" not in err


def test_gold_violation_names_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, _ = gold_candidate()
    gold["people"][2]["name"] = 7
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold))
    code, _, err = run(["score", str(path), CANDIDATE, "--schema", SCHEMA], capsys)
    assert code == 2 and f"{path} (gold) at /people/2/name:" in err and "fix:" in err


def test_bad_schema_names_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"a": {"score": "nope"}}}')
    code, _, err = run(["explain", GOLD, CANDIDATE, "--schema", str(schema)], capsys)
    assert code == 2 and f"{schema} (schema) at /properties/a/score:" in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["feedback", GOLD, "no/such.json", "--schema", SCHEMA], capsys)
    assert code == 2 and "no/such.json (candidate): cannot read the file" in err


def test_unwritable_output(pairs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o", "no/such/dir/out.jsonl"],
                       capsys)
    assert code == 2 and "no/such/dir/out.jsonl (output): cannot write the file" in err


def test_usage_error_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["score", *PAIR, "--wl-lambda", "2"], capsys)[0] == 2
    assert run(["feedback", *PAIR, "--top-k", "-1"], capsys)[0] == 2
    assert run(["frobnicate"], capsys)[0] == 2


def test_internal_error(monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("kaput")

    monkeypatch.setattr(cli, "align", broken)
    code, _, err = run(["score", *PAIR], capsys)
    assert code == 1 and "internal error: RuntimeError: kaput" in err
    assert "Traceback" not in err
    code, _, err = run(["--debug", "score", *PAIR], capsys)
    assert code == 1 and "Traceback" in err


# --------------------------------------------------------------------------- feedback


def test_feedback_is_the_spec_block(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["feedback", *PAIR], capsys)[:2] == (0, SPEC_FEEDBACK + "\n")


def test_feedback_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["feedback", *PAIR, "--top-k", "2", "--style", "compact"], capsys)
    assert code == 0 and out.splitlines() == [
        "score 0.7679", "/agenda/0 extraneous-list-item +0.062",
        "/agenda/1 missing-list-item +0.062"]
    code, out, _ = run(["feedback", *PAIR, "--style", "json", "--min-delta", "0.05"], capsys)
    assert [op["path"] for op in json.loads(out)["shown"]] == ["/agenda/0", "/agenda/1",
                                                               "/period/1"]
    templates = tmp_path / "templates.toml"
    templates.write_text('primitive-value = "{path} should be {gold}"\n')
    code, out, _ = run(["feedback", *PAIR, "--templates", str(templates)], capsys)
    assert code == 0 and "3. /period/1 should be 2025" in out
    templates.write_text('primitive-value = "{path} {nonsense}"\n')
    code, _, err = run(["feedback", *PAIR, "--templates", str(templates)], capsys)
    assert code == 2 and f"{templates} (options) at /primitive-value: template" in err
    templates.write_text('no-such-kind = "x"\n')
    code, _, err = run(["feedback", *PAIR, "--templates", str(templates)], capsys)
    assert code == 2 and f"{templates} (options) at /no-such-kind" in err


# --------------------------------------------------------------------------- explain


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["explain", *PAIR], capsys)
    lines = out.splitlines()
    assert code == 0 and "\033[" not in out  # not a terminal: no colors
    assert lines[0].startswith("score 0.7679  deficit 0.2321")
    assert lines[1].split()[:3] == ["path", "kind", "status"]
    row = next(line for line in lines if line.strip().startswith("/period/1"))
    assert row.split()[:6] == ["/period/1", "leaf", "matched", "0.5000", "0.1250", "0.0625"]
    assert any(line.startswith("    /people/1 ~ /people/4") for line in lines)  # moved record
    assert "scope person: 1→91, 2→94, 3→93, 4→92, 5→90, 6→null" in out


def test_explain_filters(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["explain", *PAIR, "--only-imperfect"], capsys)
    paths = [line.split()[0] for line in out.splitlines()[2:] if line.startswith((" ", "("))]
    assert paths == ["(root)", "/agenda", "/agenda/1", "/agenda/2", "/agenda/0", "/people",
                     "/people/5", "/period", "/period/1"]
    _, out, _ = run(["explain", *PAIR, "--max-depth", "1"], capsys)
    assert "/agenda/0" not in out and "  /mentorships " in out


def test_explain_colors(monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["explain", *PAIR, "--color", "always"], capsys)
    assert "\033[31m" in out and "\033[0m" in out

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert report.painter("auto", Terminal()).enabled
    monkeypatch.setenv("NO_COLOR", "1")
    assert not report.painter("auto", Terminal()).enabled


# --------------------------------------------------------------------------- batch


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    gold, candidate = gold_candidate()
    bad_gold = json.loads(json.dumps(gold))
    bad_gold["people"][0]["name"] = 3
    lines = [
        json.dumps({"id": "first", "gold": gold, "candidate": candidate}),
        json.dumps({"gold": gold, "candidate": gold}),
        "",
        json.dumps({"gold": gold, "prediction": f"Sure!\n```json\n{json.dumps(candidate)}\n```"}),
        json.dumps({"gold": gold, "prediction": "Sorry, I cannot help."}),
        json.dumps({"gold": bad_gold, "candidate": candidate}),
        '{"gold": ',
        json.dumps({"gold": gold}),
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_batch(pairs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    code, summary, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o", str(out),
                              "--top-k", "2"], capsys)
    assert code == 2  # some lines are bad input; all the others are scored
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in records] == list(range(7))
    assert records[0]["id"] == "first" and records[0]["score"] == float(RUNNING_SCORE)
    assert [op["path"] for op in records[0]["ops"]] == ["/agenda/0", "/agenda/1"]
    assert records[1] == {"index": 1, "score": 1.0, "ops": []}
    assert records[2]["score"] == float(RUNNING_SCORE)
    assert records[3]["score"] == 0.0 and records[3]["parse_error"]["pointer"] == "/prediction"
    assert records[4]["error"]["pointer"] == "/gold/people/0/name"
    assert records[4]["error"]["line"] == 6 and "score" not in records[4]
    assert "line 1, column 10" in records[5]["error"]["message"]
    assert records[6]["error"]["document"] == "pairs"
    assert f"{pairs} line 6 (gold) at /gold/people/0/name:" in err
    assert f"{pairs} line 7 (pairs) at (root): invalid JSON" in err
    lines = summary.splitlines()
    assert lines[0] == "pairs: 4 scored, 3 failed, 1 unparsable predictions"
    assert lines[1] == "score: mean 0.6339  p10 0.2304  p50 0.7679  p90 0.9304"
    assert lines[4].split() == ["/agenda/*", "extraneous-list-item", "2", "0.0312"]
    assert any(line.split()[:3] == ["/people", "missing-list-item", "2"] for line in lines)


def test_batch_workers_give_identical_output(pairs: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        code, summary, _ = run(["batch", str(pairs), "--schema", SCHEMA, "-o", str(out),
                                "--workers", workers, "--json"], capsys)
        assert code == 2
        outputs.append((out.read_bytes(), summary))
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0][1])
    assert data["count"] == 4 and data["mean"] == pytest.approx(0.6339285714285714)


def test_batch_stdin_to_stdout(monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    gold, candidate = gold_candidate()
    set_stdin(monkeypatch, json.dumps({"gold": gold, "candidate": candidate}) + "\n")
    code, out, err = run(["batch", "-", "--schema", SCHEMA, "--progress"], capsys)
    assert code == 0
    assert json.loads(out)["score"] == float(RUNNING_SCORE)
    assert "1/1 pairs" in err and "pairs: 1 scored, 0 failed" in err  # summary on stderr


def test_batch_subprocess_with_workers(pairs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    proc = oa("batch", str(pairs), "--schema", SCHEMA, "-o", str(out), "-j", "2")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(out.read_text().splitlines()) == 7 and proc.stdout.startswith("pairs: 4 scored")


def test_batch_names_a_killed_worker_and_the_fix(pairs: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    parent, real = os.getpid(), batch.feedback

    def killed_in_a_worker(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() != parent:  # as the system's out-of-memory killer would
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "feedback", killed_in_a_worker)
    code, _, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o",
                        str(tmp_path / "out.jsonl"), "--workers", "2"], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[0] == (
        "oa: error: --workers 2: a worker process ended unexpectedly")
    assert "fix: the system may have run out of memory" in err


def test_batch_reads_a_line_holding_unicode_line_separators_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # json.dumps(ensure_ascii=False) writes U+2028 and U+0085 unescaped in a string
    gold, candidate = gold_candidate()
    gold["people"][0]["name"] = candidate["people"][0]["name"] = "Ann\u2028Lee\u0085"
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"gold": gold, "candidate": candidate},
                                ensure_ascii=False) + "\r\n", encoding="utf-8")
    code, out, err = run(["batch", str(pairs), "--schema", SCHEMA], capsys)
    assert code == 0, err
    # the output holds the names as they are too: one record per line feed
    expected = oa_core.score(gold, candidate, json.loads(Path(SCHEMA).read_text()))
    assert [json.loads(line)["score"] for line in jsonl_lines(out)] == [expected]


def test_path_pattern() -> None:
    assert path_pattern("/people/12/name") == "/people/*/name"
    assert path_pattern("/a~1b/0") == "/a~1b/*"
    assert path_pattern("/x10/3") == "/x10/*"


# --------------------------------------------------------------------------- subprocess


def test_subprocess_score_and_stdin() -> None:
    proc = oa("score", GOLD, "-", "--schema", SCHEMA, stdin=Path(CANDIDATE).read_text())
    assert (proc.returncode, proc.stdout) == (0, RUNNING_SCORE + "\n")


def test_subprocess_bad_input() -> None:
    proc = oa("feedback", GOLD, "-", "--schema", SCHEMA, stdin='{"people": [}')
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("oa: error: <stdin> (candidate) at (root): invalid JSON at "
                                  "line 1, column 13")
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- explore


def test_explore_command(monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    calls = []
    monkeypatch.setattr(launch, "run_child", lambda cmd: calls.append(cmd) or 0)
    code, _, err = run(["explore", "--port", "8611", "--example", "running_example"], capsys)
    assert code == 0 and "http://127.0.0.1:8611/?example=running_example" in err
    (command,) = calls
    assert command[:4] == [sys.executable, "-m", "app.serve", "run"]  # streamlit run, warmed
    assert Path(command[4]) == ROOT / "app" / "main.py"
    assert command[5:] == ["--server.address", "127.0.0.1", "--server.port", "8611",
                           "--server.headless", "true", "--browser.gatherUsageStats", "false",
                           "--runner.postScriptGC", "false"]


def test_explore_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(launch, "run_child", lambda cmd: pytest.fail("must not start"))
    code, _, err = run(["explore", "--example", "nope"], capsys)
    assert code == 2 and "no bundled example 'nope'" in err and "running_example" in err
    code, _, err = run(["explore", "--example", "datasets"], capsys)  # runs, not an example
    assert code == 2 and "no bundled example 'datasets'" in err
    assert "datasets" not in err.split("pick one of", 1)[1]
    monkeypatch.setattr(launch, "app_entry", lambda: tmp_path / "app" / "main.py")
    code, _, err = run(["explore"], capsys)
    assert code == 1 and "the explorer is not installed" in err


def test_plugins_are_searched_only_for_a_command_oa_lacks(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The installed packages are searched for plug-in commands when the command is
    none of oa's own, or none is given (the help lists every command): not for
    ``oa score``, whose whole run can cost less than the search."""
    searched: list[str] = []
    real = importlib.metadata.entry_points

    def spy(*, group: str) -> Any:
        searched.append(group)
        return real(group=group)

    monkeypatch.setattr(importlib.metadata, "entry_points", spy)
    assert run(["--debug", "score", *PAIR], capsys)[:2] == (0, RUNNING_SCORE + "\n")
    assert searched == []
    code, out, _ = run(["--help"], capsys)  # the help lists every command
    assert code == 0 and searched == [cli.COMMAND_GROUP] and "explore" in out
    monkeypatch.setattr(launch, "app_entry", lambda: Path("/nonexistent/app/main.py"))
    code, _, err = run(["explore"], capsys)  # the plug-in is found and runs
    assert code == 1 and "the explorer is not installed" in err
    assert searched == [cli.COMMAND_GROUP] * 2


def test_explore_unknown_example_as_module() -> None:
    """``python -m oa_core.cli`` runs cli.py as ``__main__``: the plug-in's BadInput must
    still be a typed error (exit 2, the valid examples named), not an internal error."""
    done = subprocess.run([sys.executable, "-m", "oa_core.cli", "explore", "--example",
                           "NOSUCH"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    assert "no bundled example 'NOSUCH'" in done.stderr and "running_example" in done.stderr


# --------------------------------------------------------------------------- defects


def test_defect_02_one_internal_error_costs_one_line(pairs: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    real = batch.feedback
    calls = []

    def flaky(gold: Any, candidate: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # the second pair scored: the line {"gold": g, "candidate": g}
            raise TypeError("unhashable type: 'dict'")
        return real(gold, candidate, *args, **kwargs)

    monkeypatch.setattr(batch, "feedback", flaky)
    out = tmp_path / "out.jsonl"
    code, summary, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o", str(out)], capsys)
    assert code == 1  # an internal error, reported once every other line is scored
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 7 and records[0]["score"] == float(RUNNING_SCORE)
    assert records[1] == {"index": 1, "error": {
        "line": 2, "internal": True, "message": "TypeError: unhashable type: 'dict'"}}
    assert records[2]["score"] == float(RUNNING_SCORE)  # the lines after it are scored
    assert f"oa: internal error: {pairs} line 2: TypeError: unhashable type" in err
    assert f"{pairs} line 6 (gold) at /gold/people/0/name:" in err  # bad lines still listed
    assert summary.splitlines()[0] == ("pairs: 3 scored, 4 failed, 1 unparsable predictions, "
                                       "1 internal errors")
    assert "Traceback" not in err


def test_defect_15_lone_surrogates_are_refused_where_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a lone surrogate is no Unicode text: refused at its pointer, line and column
    gold, cand, schema = (tmp_path / f"{n}.json" for n in ("gold", "cand", "schema"))
    gold.write_text('{"a": "\\ud800", "\\udfff": 1}')
    cand.write_text('{"a": "x", "\\udfff": 1}')
    schema.write_text('{"type": "object"}')
    files = [str(gold), str(cand), "--schema", str(schema)]
    proc = oa("explain", *files)
    assert proc.returncode == 2
    assert "(gold) at /a: a string holds a lone surrogate (U+D800)" in proc.stderr
    for argv in (["score", *files, "--json"], ["feedback", *files]):
        code, _, err = run(argv, capsys)
        assert code == 2 and "lone surrogate (U+D800)" in err, (argv, err)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "\\ud800", "gold": {"a": "\\ud800"}, "candidate": {"a": "y"}}\n')
    out = tmp_path / "out.jsonl"
    code, _, _ = run(["batch", str(pairs), "--schema", str(schema), "-o", str(out)], capsys)
    error = json.loads(out.read_text())["error"]
    assert code == 2 and error["pointer"] == "/id" and "U+D800" in error["message"]


@pytest.mark.parametrize(("target", "reason"), [
    ("/dev/full", "No space left on device (ENOSPC)"),
    ("/proc/version", "(E"),  # EIO as root, EACCES otherwise
])
def test_defect_16_unwritable_output_devices(pairs: Path, target: str, reason: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    if not Path(target).exists():
        pytest.skip(f"{target} does not exist here")
    code, _, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o", target], capsys)
    assert code == 2 and "internal error" not in err
    assert f"oa: error: {target} (output): cannot write the file: " in err and reason in err
    assert "fix:" in err


def test_defect_16_stdout_on_a_full_device() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("/dev/full does not exist here")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "oa_core.cli", "explain", *PAIR],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=ROOT, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("oa: error: <stdout> (output): cannot write the file: No "
                                  "space left on device (ENOSPC)")
    assert "Exception ignored" not in proc.stderr


@pytest.mark.timeout(20)
def test_defect_16_device_inputs_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", "/dev/zero", CANDIDATE, "--schema", SCHEMA], capsys)
    assert code == 2
    assert "/dev/zero (gold): cannot read it: it is a character device, not a regular" in err
    code, _, err = run(["score", GOLD, CANDIDATE, "--schema", str(ROOT)], capsys)
    assert code == 2 and "it is a directory" in err


@pytest.mark.timeout(20)
def test_defect_16_inputs_over_max_input_bytes(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    small = Limits(max_input_bytes=300)
    monkeypatch.setattr(cli, "AlignOptions",
                        lambda **kwargs: AlignOptions(**kwargs, limits=small))
    code, _, err = run(["score", GOLD, CANDIDATE, "--schema", SCHEMA], capsys)
    size = Path(SCHEMA).stat().st_size
    assert code == 2 and f"{SCHEMA} (schema): the file is {size:,} bytes, over the limit " \
                         "of 300 bytes (Limits.max_input_bytes)" in err
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object"}')
    set_stdin(monkeypatch, "[" + "1, " * 200 + "1]")
    code, _, err = run(["score", "-", "-", "--schema", str(schema)], capsys)
    assert code == 2 and "<stdin> (gold): the input is over the limit of 300 bytes" in err
    # a pairs file is bounded per line, not as a whole
    line = json.dumps({"gold": {"a": 1}, "candidate": {"a": 1}})
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text((line + "\n") * 20)
    code, out, _ = run(["batch", str(pairs), "--schema", str(schema)], capsys)
    assert code == 0 and len(out.splitlines()) == 20
    pairs.write_text(line + "\n" + json.dumps({"gold": {"a": "x" * 400}, "candidate": {}}))
    code, _, err = run(["batch", str(pairs), "--schema", str(schema)], capsys)
    assert code == 2 and "a line is over the limit of 300 bytes" in err
    pairs.write_text("\n" * 10 + "x" * 301)  # the last line, with no line feed after it
    code, _, err = run(["batch", str(pairs), "--schema", str(schema)], capsys)
    assert code == 2 and "a line is over the limit of 300 bytes" in err


def test_batch_refuses_a_pairs_file_that_is_not_utf8_naming_the_byte(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, candidate = gold_candidate()
    line = json.dumps({"gold": gold, "candidate": candidate}).encode()
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_bytes(line + b"\n" + b'{"gold": "\xe9"}\n')
    code, out, err = run(["batch", str(pairs), "--schema", SCHEMA], capsys)
    assert (code, out) == (2, "")
    assert err == (f"oa: error: {pairs} (pairs): not UTF-8 text (byte {len(line) + 11})\n"
                   "  fix: save the file as UTF-8\n")


def test_defect_21_unusable_predictions_score_zero(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object"}')
    predictions = ["[" * 150 + "]" * 150,  # nested deeper than 100 levels
                   '{"a": ' + "9" * 5000 + "}",  # too long for int()
                   'Sure: {"a": ' + "9" * 5000 + "}",
                   '{"a": ' + "9" * 400 + "}",  # read, but beyond any float
                   '{"a": 1}']
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"gold": {"a": 1}, "prediction": p}) + "\n"
                             for p in predictions))
    out = tmp_path / "out.jsonl"
    code, summary, err = run(["batch", str(pairs), "--schema", str(schema), "-o", str(out)],
                             capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records[:4]:
        assert record["score"] == 0.0 and record["ops"] == [] and "error" not in record
        assert record["parse_error"]["pointer"] == "/prediction"
    assert "nested deeper than 100 levels" in records[0]["parse_error"]["message"]
    assert "integer of 5000 digits" in records[1]["parse_error"]["message"]
    assert "integer of 5000 digits" in records[2]["parse_error"]["message"]
    assert records[3]["parse_error"]["message"].startswith("at /a: integer beyond the range")
    assert records[4]["score"] == 1.0
    assert summary.splitlines()[0] == "pairs: 5 scored, 0 failed, 4 unparsable predictions"


# --------------------------------------------------------------------------- issue 23: the CLI

SCIERC = ROOT / "sample_data" / "datasets" / "scierc_runs"
BUNDLED_PAIRS = ROOT / "sample_data" / "scierc_pairs.jsonl"


@pytest.fixture
def misspelt(tmp_path: Path) -> dict[str, str]:
    """The running example with ``properties`` misspelt in the schema, as files, a pairs
    file and a dataset folder."""
    schema = json.loads(Path(SCHEMA).read_text())
    schema["propertis"] = schema.pop("properties")
    gold, candidate = gold_candidate()
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "pairs.jsonl").write_text(json.dumps({"id": "x", "gold": gold,
                                                      "candidate": candidate}) + "\n")
    folder = tmp_path / "dataset"
    (folder / "runs").mkdir(parents=True)
    (folder / "schema.json").write_text(json.dumps(schema))
    (folder / "golds.jsonl").write_text(json.dumps({"id": "x", "gold": gold}) + "\n")
    (folder / "runs" / "a.jsonl").write_text(
        json.dumps({"id": "x", "prediction": json.dumps(candidate)}) + "\n")
    return {"schema": str(tmp_path / "schema.json"), "pairs": str(tmp_path / "pairs.jsonl"),
            "folder": str(folder), "out": str(tmp_path / "out")}


def test_every_command_warns_about_a_misspelt_keyword(
        misspelt: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    schema, out = misspelt["schema"], misspelt["out"]
    commands = [[command, GOLD, CANDIDATE, "-s", schema]
                for command in ("score", "feedback", "explain", "diff")]
    commands += [["batch", misspelt["pairs"], "-s", schema, "-o", out],
                 ["report", misspelt["pairs"], "-s", schema, "-o", out + ".html"],
                 ["report", misspelt["folder"], "-o", out + ".html"]]
    for argv in commands:
        code, _, err = run(argv, capsys)
        assert code == 0, (argv, err)
        warnings = [line for line in err.splitlines() if "[unknown-keyword]" in line]
        assert len(warnings) == 1, (argv, err)  # once, even where the alignment has it too
        assert "unknown keyword 'propertis' is ignored; did you mean 'properties'?" in (
            warnings[0]), argv
        assert warnings[0].startswith("oa: warning: ") and "/propertis" in warnings[0]
        code, _, err = run([*argv, "-q"], capsys)
        assert code == 0 and "unknown-keyword" not in err, argv


def test_report_names_a_missing_file_or_folder(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "r.html")
    code, _, err = run(["report", "sample_data/datasets/org2graph_run", "-o", out], capsys)
    assert code == 2
    assert err.startswith("oa: error: no such file or folder: "
                          "sample_data/datasets/org2graph_run\n")
    assert "needs --schema" not in err
    code, _, err = run(["report", str(BUNDLED_PAIRS), "-s", str(SCIERC / "schema.json"),
                        "--compare", str(tmp_path / "nope.jsonl"), "-o", out], capsys)
    assert code == 2 and f"no such file or folder: {tmp_path / 'nope.jsonl'}" in err
    assert not Path(out).exists()


def test_a_truncated_file_says_what_is_unterminated_and_where(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = Path(CANDIDATE).read_text()
    for cut, what in ((300, "an object opened at line 9, column 3 is never closed"),
                      (260, "unterminated string: it opens at line 7, column 39")):
        (tmp_path / "cut.json").write_text(text[:cut])
        code, _, err = run(["score", GOLD, str(tmp_path / "cut.json"), "-s", SCHEMA], capsys)
        first = err.splitlines()[0]
        assert code == 2 and what in first and "(is the file cut off?)" in first
        assert first.endswith("`") and "starting at" not in err


def test_field_metrics_columns_stay_aligned_with_big_counts() -> None:
    from oa_core.runs.fields import FieldCounts

    text = cli.render_field_metrics({"/a": FieldCounts(123_456, 7, 89_012),
                                     "/b/*/name": FieldCounts(5, 10_000, 0, fa=9_000),
                                     "/*/name": FieldCounts(0, 3, 0, fa=3)}, 0.5)
    lines = text.splitlines()[1:]
    assert lines[1].split()[:6] == ["/a", "123,456", "7", "7", "0", "89,012"]
    assert lines[2].split()[:6] == ["/b/*/name", "5", "10,000", "1,000", "9,000", "0"]
    assert lines[3].split()[:6] == ["(wrong", "shape)", "0", "3", "0", "3"]
    assert lines[4].split()[:7] == ["(all", "fields)", "123,461", "10,010", "1,007", "9,003",
                                    "89,012"]
    # every column ends where its header ends
    for header in ("tp", "fp", "wrong", "spurious", "fn", "precision", "recall", "f1"):
        end = lines[0].index(header) + len(header)
        for line in lines[1:]:
            assert line[end - 1] != " " and (end == len(line) or line[end] == " "), (
                header, line)


def test_the_bundled_pairs_file_is_taken_from_the_scierc_dataset() -> None:
    golds = {row["id"]: row["gold"] for row in map(json.loads, (SCIERC / "golds.jsonl")
                                                    .read_text().splitlines())}
    run_b = {row["id"]: row["prediction"] for row in map(
        json.loads, (SCIERC / "runs" / "b.jsonl").read_text().splitlines())}
    rows = [json.loads(line) for line in BUNDLED_PAIRS.read_text().splitlines()]
    assert [row["id"] for row in rows] == list(golds)[:50]
    for row in rows:
        assert row == {"id": row["id"], "gold": golds[row["id"]],
                       "prediction": run_b[row["id"]]}


def test_the_documented_commands_on_the_bundled_pairs_file_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    docs = (ROOT / "docs" / "cli.md").read_text()
    section = docs[docs.index("### Trying it on bundled data"):]
    start = section.index("```bash\n") + 8
    block = section[start:section.index("\n```", start)]
    commands = [line.split("#")[0].split() for line in block.splitlines()]
    assert [argv[:2] for argv in commands] == [["oa", "batch"], ["oa", "report"],
                                               ["oa", "report"]]
    outputs = {"results.jsonl": tmp_path / "results.jsonl", "report.html": tmp_path / "r.html"}
    monkeypatch.chdir(ROOT)  # the commands name files from the repository root
    for argv in commands[:2]:  # the whole dataset (the third) is test_dataset_cli's
        code, _, err = run([str(outputs.get(arg, arg)) for arg in argv[1:]], capsys)
        assert code == 0, err
        assert "pairs/s" not in err  # no progress bar when not on a terminal
    results = [json.loads(line) for line in outputs["results.jsonl"].read_text().splitlines()]
    assert len(results) == 50 and all(0.0 <= r["score"] <= 1.0 for r in results)
    assert "<html" in outputs["report.html"].read_text()[:200]


def test_progress_when_forced_is_a_line_a_second(pairs: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["batch", str(pairs), "-s", SCHEMA, "-o", str(tmp_path / "o.jsonl"),
                        "--progress"], capsys)
    assert code == 2  # the fixture holds bad lines
    (line,) = [line for line in err.splitlines() if "pairs/s" in line]
    assert line.startswith("7/7 pairs (100%) ") and "\x1b[" not in err
    code, _, err = run(["report", str(BUNDLED_PAIRS), "-s", str(SCIERC / "schema.json"),
                        "-o", str(tmp_path / "r.html"), "--progress"], capsys)
    assert code == 0 and "50/50 pairs (100%) " in err
