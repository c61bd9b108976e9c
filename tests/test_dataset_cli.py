"""`oa report` (a self-contained HTML report of one or two runs) and
`oa batch --field-metrics`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oa_core.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "score": "exact"},
                                           "tags": {"type": "array"}}}


def write_pairs(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    gold = {"name": "Ann", "tags": ["a", "b"]}
    a = write_pairs(tmp_path / "a.jsonl", [
        {"id": "<b>one</b>", "gold": gold, "candidate": {"name": "Ann", "tags": ["a"]}},
        {"id": "two", "gold": gold, "prediction": "```json\n{\"name\": \"Bo\"}\n```"}])
    b = write_pairs(tmp_path / "b.jsonl", [
        {"id": "<b>one</b>", "gold": gold, "candidate": gold},
        {"id": "two", "gold": gold, "prediction": "sorry, no"}])
    (tmp_path / "broken.jsonl").write_text(a.read_text() + '{"gold": \n')
    return {"schema": schema, "a": a, "b": b, "broken": tmp_path / "broken.jsonl"}


def test_report_of_one_run(files: dict[str, Path], tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    code = main(["report", str(files["a"]), "--schema", str(files["schema"]), "-o", str(out)])
    assert code == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<b>one</b>" not in page and "&lt;b&gt;one&lt;/b&gt;" in page
    assert "<script" not in page and "http" not in page  # nothing to fetch
    assert "Error patterns" in page and "Field metrics" in page and "worst documents" in page
    assert "missing-list-item" in page
    assert "run a: 2 pairs" in capsys.readouterr().err


def test_report_compares_two_runs(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code = main(["report", str(files["a"]), "--compare", str(files["b"]), "--schema",
                 str(files["schema"]), "-o", str(out)])
    assert code == 0
    page = out.read_text()
    assert "Run b against run a" in page
    assert "wins / ties / losses of B</td><td>1 / 1 / 0" in page


def test_report_lists_bad_lines_and_still_writes(files: dict[str, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(files["broken"]), "-s", str(files["schema"]), "-o",
                 str(out)]) == 0
    assert "1 bad lines" in capsys.readouterr().err
    assert "invalid JSON" in out.read_text()


def test_report_of_a_dataset_folder_is_deterministic(tmp_path: Path) -> None:
    folder = ROOT / "sample_data" / "datasets" / "scierc_runs"
    first, second = tmp_path / "1.html", tmp_path / "2.html"
    assert main(["report", str(folder), "-o", str(first), "--worst", "3"]) == 0
    assert main(["report", str(folder), "-o", str(second), "--worst", "3", "-j", "2"]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert "Run B against run A" in first.read_text()


def test_report_needs_a_schema_for_a_pairs_file(files: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(files["a"]), "-o", str(tmp_path / "r.html")]) == 2
    assert "needs --schema" in capsys.readouterr().err


def test_batch_field_metrics(files: dict[str, Path], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["batch", str(files["a"]), "-s", str(files["schema"]), "-o",
                 str(tmp_path / "out.jsonl"), "--field-metrics", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    # one: the tag "b" missing; two: the name wrong and both tags missing
    assert summary["fields"]["/name"] == {"tp": 1, "fp": 1, "fp_wrong": 1, "fp_spurious": 0,
                                          "fn": 1, "precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert summary["fields"]["(all fields)"]["tp"] == 2
    assert summary["fields"]["/tags/*"]["fn"] == 3 and summary["fields"]["/tags/*"]["tp"] == 1
    assert main(["batch", str(files["a"]), "-s", str(files["schema"]), "-o",
                 str(tmp_path / "out.jsonl"), "--field-metrics"]) == 0
    assert "field metrics (credit threshold 0.5" in capsys.readouterr().out


def test_report_also_writes_csv_and_parquet(files: dict[str, Path], tmp_path: Path) -> None:
    import pandas as pd

    csv, parquet = tmp_path / "pairs.csv", tmp_path / "pairs.parquet"
    assert main(["report", str(files["a"]), "--compare", str(files["b"]), "-s",
                 str(files["schema"]), "-o", str(tmp_path / "r.html"), "--csv", str(csv),
                 "--parquet", str(parquet)]) == 0
    table = pd.read_csv(csv)
    assert table.columns[:4].tolist() == ["run", "id", "score", "deficit"]
    assert table["run"].tolist() == ["a", "a", "b", "b"]
    assert table["score"].tolist() == pd.read_parquet(parquet)["score"].tolist()
