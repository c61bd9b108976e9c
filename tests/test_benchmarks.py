"""Smoke tests of the benchmarks: they run and measure the right thing (never timed here)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import oa_core
from benchmarks import alignment_speed, batch, bits, explorer_speed, startup, throughput
from oa_core.build import describe_build


def test_alignment_speed_pair_is_a_perturbed_relabeling() -> None:
    gold, candidate = alignment_speed.make_pair(40)  # the pair measure() times
    assert len(gold["people"]) == 40 and len(candidate["people"]) == 39
    assert {p["id"] for p in gold["people"]}.isdisjoint(p["id"] for p in candidate["people"])
    row = alignment_speed.measure(40, repeat=1)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    assert row["score"] == oa_core.score(gold, candidate, schema) < 1.0
    assert row["median_s"] > 0 and row["peak_mib"] > 0


def test_explorer_speed_runs_every_scenario() -> None:
    results = explorer_speed.measure(repeat=1)
    assert list(results["running example"]) == [
        "schema weight rescore", "WL mode switch", "apply a fix"]
    assert {"WL round step, interactive (pyvis) graph"} <= set(
        results["200 records"])
    assert {f"open {page}" for page in ("overview", "match_tree", "feedback", "schema_tuning")
            } <= set(results["200 records"])
    for figures in results.values():
        for row in figures.values():
            assert row["runs"] >= 1 and 0 < row["median_ms"] <= row["max_ms"]


def test_bits_dump_compares_equal_to_itself_and_names_a_change(tmp_path, capsys) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    assert bits.main(["--hostile", "3", "--org2graph", "2", "--out", str(before)]) == 0
    data = json.loads(before.read_text())
    assert data["engine"] == describe_build()
    cases = data["cases"]
    assert cases["running_example/schema.json/candidate.json"]["tie_break"]["score"] == (
        0.7678571428571429).hex()
    assert {"hostile/0", "org2graph/1", "graph/60"} <= set(cases)
    after.write_text(before.read_text())
    assert bits.main(["--compare", str(before), str(after)]) == 0
    cases["org2graph/1"]["none"]["score"] = (0.5).hex()  # one changed bit
    after.write_text(json.dumps({"engine": describe_build(), "cases": cases}))
    assert bits.main(["--compare", str(before), str(after)]) == 1
    assert "org2graph/1" in capsys.readouterr().out


def test_batch_compares_two_workers_with_two_processes_at_once(tmp_path) -> None:
    out = tmp_path / "rows.json"
    assert batch.main(["--pairs", "3", "--workers", "2", "--repeat", "1",
                       "--json", str(out)]) == 0
    rows = {row["mode"]: row for row in json.loads(out.read_text())}
    assert list(rows) == ["in-process", "in-process, 2 at once", "local", "command"]
    at_once, local = rows["in-process, 2 at once"], rows["local"]
    assert at_once["workers"] == local["workers"] == 2
    assert at_once["pairs_per_cpu_s"] > 0 and at_once["vs_same_load"] == 1.0
    assert local["vs_same_load"] == local["pairs_per_cpu_s"] / at_once["pairs_per_cpu_s"]
    assert 0.0 < local["command_cpu_share"] < 1.0  # the command's process, then its workers
    median, lowest, highest = local["paired"]  # round by round against the in-process rate
    assert 0.0 < lowest <= median <= highest and rows["in-process"]["paired"] == [1.0] * 3
    command = rows["command"]  # oa batch in a process of its own: its start-up told apart
    assert command["workers"] == 2 and command["startup_cpu_s"] > 0
    assert command["pairs_per_s"] > 0 and command["command_cpu_share"] is None


def test_startup_times_each_command_from_each_tree(tmp_path) -> None:
    out = tmp_path / "rows.json"
    assert startup.main(["--rounds", "1", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [row["command"] for row in rows] == [
        "oa --version", "oa score", "oa feedback", "oa batch, 16 pairs, 1 worker",
        "oa batch, 16 pairs, 2 workers"]
    for row in rows:
        assert row["wall_s"] > 0 and row["cpu_s"] > 0 and row["peak_mib"] > 10


def test_startup_names_a_failing_command(tmp_path) -> None:
    with pytest.raises(RuntimeError, match=r"oa score .*missing.json in .* failed: "):
        startup.run_once(startup.ROOT, ["score", str(tmp_path / "missing.json")])


def test_instruction_counts_are_the_difference_of_two_runs(tmp_path) -> None:
    from benchmarks import instructions

    assert instructions.per_unit((20, 1_000), (220, 3_000)) == 10.0
    with pytest.raises(ValueError, match="more calls"):
        instructions.per_unit((20, 1_000), (20, 3_000))
    # one callgrind file per process (the command and its workers), each summed
    for pid, total in ((11, 700), (12, 300)):
        (tmp_path / f"cg.{pid}").write_text(f"version: 1\ncmd: python\nsummary: {total}\n")
    assert instructions.summed_totals(tmp_path, "cg") == 1_000
    (tmp_path / "cg.13").write_text("version: 1\n")  # a process killed before its end
    with pytest.raises(RuntimeError, match="no summary line"):
        instructions.summed_totals(tmp_path, "cg")


def test_instruction_children_run_the_calls_they_count(tmp_path, monkeypatch) -> None:
    from benchmarks import instructions

    calls: list[tuple[Any, Any]] = []
    monkeypatch.setattr(oa_core, "score", lambda g, c, s, **_: calls.append((g, c)) or 1.0)
    assert instructions.main(["--child-entry", "flat", "score", "5"]) == 0
    pairs, _ = throughput.flat_pairs()
    assert len(calls) == min(20, len(pairs)) + 5  # the warm-up, then the counted calls
    lines, schema = batch.make_pairs(3)
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "s.json").write_text(json.dumps(schema))
    seen: list[Any] = []
    monkeypatch.setattr(batch, "feedback", lambda gold, *_, **__: seen.append(gold))
    assert instructions.main(["--child-batch-feedback", str(tmp_path / "p.jsonl"),
                              str(tmp_path / "s.json"), "2"]) == 0
    assert seen == [json.loads(line)["gold"] for line in lines[:1] + lines[:2]]


def test_instruction_counts_need_valgrind(monkeypatch, capsys) -> None:
    from benchmarks import instructions

    monkeypatch.setattr(instructions.shutil, "which", lambda _: None)
    assert instructions.main(["--workloads", "flat", "--entries", "score"]) == 2
    assert "valgrind is not installed" in capsys.readouterr().err
