"""Smoke test of benchmarks/comparator_speed.py: it runs, checks the bits and reports
every comparator in both forms (never timed here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import comparator_speed
from oa_core.comparators import BUILTIN_COMPARATORS


def test_workloads_are_deterministic_and_cover_every_builtin() -> None:
    assert comparator_speed.workload("string", 5) == comparator_speed.workload("string", 5)
    golds, candidates = comparator_speed.workload("wide", 20)
    assert len(golds) == len(candidates) == 20
    assert all(abs(g) > 2**53 for g in golds)  # beyond exact float integers
    names = {name for _, name, _ in comparator_speed.WORKLOADS}
    assert names == set(BUILTIN_COMPARATORS)


def test_comparator_speed_reports_both_forms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "speed.json"
    assert comparator_speed.main(["--turns", "1", "--pairs", "40", "--json", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    assert list(results) == [label for label, _, _ in comparator_speed.WORKLOADS]
    for forms in results.values():
        assert set(forms) == {"scalar", "matrix"}
        for rates in forms.values():
            assert set(rates) == {"rust"} and min(rates.values()) > 0
    assert "invdiff (wide)" in capsys.readouterr().out
