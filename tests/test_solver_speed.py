"""Smoke test of benchmarks/solver_speed.py: it runs, the wrappers and the engine agree
on what it times, and it reports a figure per workload (never timed here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import solver_speed


def test_workloads_agree_and_are_reported(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    results = solver_speed.measure(sizes=(8, 30), wl_vertices=60, turns=1, budget=0.0)
    assert list(results) == ["max_weight 8x8", "max_weight 30x30", "monotone 8x8",
                             "monotone 30x30", "wl running example", "wl 60 vertices"]
    for row in results.values():
        assert row["rust_us"] > 0
    out = tmp_path / "speed.json"
    assert solver_speed.main(["--turns", "1", "--budget", "0", "--json", str(out)]) == 0
    assert "wl 4000 vertices" in json.loads(out.read_text())["results"]
    assert "uptime:" in capsys.readouterr().out


def test_the_graphs_are_what_they_claim() -> None:
    vertices, edges, seeds = solver_speed.mentorship_graph(400)
    assert len(vertices) == len(seeds) == 400 and len(edges) == 800
    assert {e.side for e in edges[:400]} == {"gold"}
    assert all(e.source >= 200 and e.target >= 200 for e in edges[400:])
    matrix = solver_speed.similarity_matrix(50)
    assert 0.2 < (matrix == 0).mean() < 0.45 and matrix.max() <= 1.0
    vertices, edges, seeds = solver_speed.running_example_graph()
    assert len(vertices) == len(seeds) == 11 and len(edges) == 6
