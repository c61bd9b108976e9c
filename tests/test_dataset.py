"""oa_core.runs.dataset: reading pairs, golds + predictions and folders; bad lines; scoring;
oa_core.runs.fields' observations; the bundled datasets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import oa_core
from oa_core.errors import InputError, SchemaError
from oa_core.runs import fields
from oa_core.runs.batch import BatchOptions, iter_batch
from oa_core.runs.dataset import build_run, from_files, join_runs, load_folder, score_run

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "sample_data" / "datasets"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "tags": {"type": "array"}}}


def jsonl(*rows: object) -> str:
    return "\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows)


def test_pairs_file_keeps_its_line_numbers_and_a_bad_line_costs_only_itself() -> None:
    text = jsonl({"id": "a", "gold": {"city": "Paris"}, "candidate": {"city": "Paris"}},
                 "", '{"id": "b", "gold": ', {"id": "c", "gold": {"city": "Rome"},
                                              "prediction": "no json here"})
    data = from_files({"schema.json": json.dumps(SCHEMA), "pairs.jsonl": text})
    run = score_run(data, "pairs")
    frame = run.frame
    assert frame["id"].tolist() == ["a", "#2", "c"]
    assert frame["status"].tolist() == ["ok", "error", "not JSON"]
    assert frame.loc[1, "line"] == 3  # the file's line, blank line counted
    assert "invalid JSON" in frame.loc[1, "problem"]
    assert frame.loc[0, "score"] == 1.0 and frame.loc[2, "score"] == 0.0
    assert np.isnan(frame.loc[1, "score"])
    assert data.pair("pairs", 2)["id"] == "c"


def test_a_pairs_line_holding_unicode_line_separators_is_one_line() -> None:
    # json.dumps(ensure_ascii=False) writes U+2028 and U+0085 as they are
    gold = {"city": "Par\u2028is\u0085"}
    text = jsonl(json.dumps({"id": "a", "gold": gold, "candidate": gold}, ensure_ascii=False),
                 {"id": "b", "gold": gold, "candidate": {"city": "Rome"}})
    frame = score_run(from_files({"schema.json": json.dumps(SCHEMA), "pairs.jsonl": text}),
                      "pairs").frame
    assert frame["id"].tolist() == ["a", "b"]
    assert frame["status"].tolist() == ["ok", "ok"] and frame.loc[0, "score"] == 1.0


def test_join_by_id_reports_unknown_repeated_and_missing_ids() -> None:
    golds = jsonl({"id": 1, "gold": {"city": "Paris"}}, {"id": 2, "gold": {"city": "Rome"}},
                  {"id": 2, "gold": {"city": "Oslo"}})
    run = jsonl({"id": 2, "candidate": {"city": "Rome"}}, {"id": 7, "prediction": "{}"},
                {"id": 2, "prediction": "{}"})
    data = join_runs(SCHEMA, ("g.jsonl", golds), {"r": ("r.jsonl", run)})
    messages = [(bad.file, bad.line, bad.pointer, bad.message) for bad in data.bad_lines]
    assert ("g.jsonl", 3, "/id", "repeated gold id '2' (first on line 2): ignored") in messages
    assert ("r.jsonl", 2, "/id", "no gold has the id '7': ignored") in messages
    assert ("r.jsonl", 3, "/id", "repeated id '2' (first on line 1): ignored") in messages
    assert any(m[3].startswith("no prediction for gold id 1") for m in messages)
    scored = score_run(data, "r")
    assert scored.frame["id"].tolist() == ["1", "2"]
    assert scored.frame["score"].tolist() == [0.0, 1.0]
    assert scored.frame["status"].tolist() == ["empty", "ok"]
    assert data.runs["r"].numbers == [0, 1]


def test_join_by_position_when_there_are_no_ids() -> None:
    golds = jsonl({"city": "Paris"}, {"city": "Rome"})
    run = jsonl('"```json\\n{\\"city\\": \\"Paris\\"}\\n```"', {"city": "Roma"})
    data = join_runs(SCHEMA, ("g.jsonl", golds), {"r": ("r.jsonl", run)})
    assert data.bad_lines == []
    scored = score_run(data, "r")
    assert scored.frame["id"].tolist() == ["#1", "#2"]
    assert scored.frame.loc[0, "score"] == 1.0 and 0 < scored.frame.loc[1, "score"] < 1


def test_position_join_with_a_count_mismatch_says_so() -> None:
    data = join_runs(SCHEMA, ("g.jsonl", jsonl({"city": "A"}, {"city": "B"})),
                     {"r": ("r.jsonl", jsonl({"city": "A"}))})
    assert data.bad_lines[0].message == "1 predictions for 2 golds, joined by position"
    assert score_run(data, "r").frame["status"].tolist() == ["ok", "empty"]


def test_invalid_schema_and_missing_files_are_typed_errors() -> None:
    with pytest.raises(SchemaError):
        join_runs({"type": "object", "properties": {"a": {"threshold": 2}}}, ("g.jsonl", "{}"), {})
    with pytest.raises(InputError, match="no usable gold line"):
        join_runs(SCHEMA, ("g.jsonl", "{oops"), {})
    with pytest.raises(InputError, match="no schema"):
        from_files({"p.jsonl": "{}"})
    with pytest.raises(InputError, match=r"several \.json files"):
        from_files({"a.json": "{}", "b.json": "{}", "p.jsonl": "{}"})
    with pytest.raises(InputError, match="not a folder"):
        load_folder(ROOT / "no-such-folder")


def test_field_observations_and_counting_rule() -> None:
    gold = {"city": "Paris", "tags": ["a", "b"], "extra": {"x": 1, "y": [2]}}
    candidate = {"city": "Pariss", "tags": ["a", "z", "q"], "more": True}
    observed = fields.observe(oa_core.align(gold, candidate, {"type": "object"}))
    outcomes = {(p, o) for p, o, _ in observed}
    assert ("/extra/x", "missing") in outcomes and ("/extra/y/*", "missing") in outcomes
    assert ("/more", "excess") in outcomes
    city = next(s for p, o, s in observed if p == "/city")
    assert 0.5 < city < 1.0
    strict = fields.count(observed, threshold=1.0)
    lenient = fields.count(observed, threshold=0.5)
    assert (strict["/city"].tp, strict["/city"].fp, strict["/city"].fn) == (0, 1, 1)
    assert (lenient["/city"].tp, lenient["/city"].fp, lenient["/city"].fn) == (1, 0, 0)
    assert fields.gold_only([{"a": 1}]) == (("/*/a", "missing", 0.0),)


def test_a_type_mismatch_of_containers_counts_both_sides() -> None:
    observed = fields.observe(oa_core.align({"a": {"b": 1}}, {"a": [1, 2]}, {"type": "object"}))
    # the list's values name no gold field: wrong-shape values at the list's place
    assert sorted(observed) == [("/a", "wrong-shape", 0.0), ("/a", "wrong-shape", 0.0),
                                ("/a/b", "missing", 0.0)]
    rows = fields.table(fields.count(observed))
    assert [(name, c.tp, c.fp, c.fa, c.fn) for name, c in rows] == [
        ("/a/b", 0, 0, 0, 1), ("(wrong shape)", 0, 2, 2, 0), ("(all fields)", 0, 2, 2, 1)]


def test_batch_fields_option_gives_observations_and_the_same_records() -> None:
    lines = [json.dumps({"gold": {"city": "Paris"}, "candidate": {"city": "Rome"}}),
             json.dumps({"gold": {"city": "Paris", "tags": [1]}, "prediction": "none"})]
    plain = list(iter_batch(lines, SCHEMA))
    with_fields = list(iter_batch(lines, SCHEMA, options=BatchOptions(fields=True)))
    assert [r.record for r in plain] == [r.record for r in with_fields]
    assert plain[0].fields == ()
    assert with_fields[0].fields == (("/city", "matched", 0.0),)
    assert with_fields[1].fields == (("/city", "missing", 0.0), ("/tags/*", "missing", 0.0))


def test_scoring_in_two_processes_gives_the_same_tables() -> None:
    data = load_folder(DATASETS / "scierc_runs")
    one = score_run(data, "B")
    two = score_run(data, "B", workers=2)
    assert one.frame.equals(two.frame) and one.ops.equals(two.ops)
    assert one.fields.equals(two.fields)


def test_progress_is_reported_per_pair() -> None:
    data = from_files({"schema.json": json.dumps(SCHEMA), "p.jsonl": jsonl(
        *[{"gold": {"city": str(k)}, "candidate": {"city": "x"}} for k in range(5)])})
    seen: list[tuple[int, int]] = []
    score_run(data, "p", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(k, 5) for k in range(1, 6)]


def test_another_schema_rescores_the_run() -> None:
    data = from_files({"schema.json": json.dumps(SCHEMA), "p.jsonl": jsonl(
        {"gold": {"city": "Paris", "tags": [1]}, "candidate": {"city": "Paris", "tags": [2]}})})
    weighted = {**SCHEMA, "properties": {**SCHEMA["properties"],
                                         "tags": {"type": "array", "valueWeight": 0.0}}}
    assert score_run(data, "p").frame.loc[0, "score"] < 1.0
    assert score_run(data, "p", schema=weighted).frame.loc[0, "score"] == 1.0


def test_build_run_without_results_is_empty_but_typed() -> None:
    run = build_run("x", [])
    assert run.frame.empty and list(run.ops.columns) == ["row", "pattern", "kind", "delta"]


def test_bundled_index_lists_folders_that_load() -> None:
    index = json.loads((DATASETS / "index.json").read_text())
    assert [entry["id"] for entry in index] == ["org2graph_runs", "scierc_runs"]
    total = sum(p.stat().st_size for p in DATASETS.rglob("*") if p.is_file())
    assert total < 4_000_000  # bundled data stays modest
    for entry in index:
        data = load_folder(DATASETS / entry["id"])
        assert list(data.runs) == ["A", "B"]
        assert data.about["script"] == "scripts/make_datasets.py"
        assert isinstance(data.about["seed"], int)


def test_bundled_org2graph_runs_differ_in_quality_and_hold_model_failures() -> None:
    data = load_folder(DATASETS / "org2graph_runs")
    assert len(data.runs["A"]) >= 300
    # the one line the export broke is reported, and its gold scored as empty
    assert [(b.file, b.line) for b in data.bad_lines] == [("runs/b.jsonl", 42),
                                                          ("runs/b.jsonl", 0)]
    raw = (DATASETS / "org2graph_runs" / "runs" / "b.jsonl").read_text()
    assert "```json" in raw and "Here is the extracted graph" in raw
    a, b = score_run(data, "A", workers=2), score_run(data, "B", workers=2)
    assert a.scores.mean() > b.scores.mean() + 0.1
    statuses = b.frame["status"].value_counts()
    # truncated outputs, refusals, the lost line; and prose around the JSON
    assert statuses["cut off"] >= 5 and statuses["refused"] >= 5 and statuses["empty"] == 1
    assert statuses["prose"] >= 5 and b.frame.loc[13, ["id", "status"]].tolist() == [
        "org-0014", "cut off"]
    kinds = set(b.ops["kind"])
    assert {"wrong-reference", "missing-list-item"} <= kinds


def test_batch_output_loads_as_a_scored_run_without_documents(tmp_path: Path) -> None:
    pairs = jsonl({"id": "a", "gold": {"tags": [1, 2]}, "candidate": {"tags": [1]}},
                  {"id": "b", "gold": {"city": "x"}, "prediction": "nope"}, '{"gold": ')
    out = tmp_path / "out.jsonl"
    from oa_core.cli import main

    (tmp_path / "p.jsonl").write_text(pairs)
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    assert main(["batch", str(tmp_path / "p.jsonl"), "-s", str(tmp_path / "s.json"),
                 "-o", str(out)]) == 2
    text = out.read_text() + "\n[1]\n"
    data = from_files({"schema.json": json.dumps(SCHEMA), "out.jsonl": text})
    assert data.runs["out"].results
    run = score_run(data, "out")
    assert run.frame["id"].tolist() == ["a", "b", "#3", "#4"]
    assert run.frame["status"].tolist() == ["ok", "not JSON", "error", "error"]
    assert "not an oa batch output record" in run.frame.loc[3, "problem"]
    assert run.ops["pattern"].tolist() == ["/tags/*"]
    assert run.fields.empty
    with pytest.raises(InputError, match="holds scores, not documents"):
        data.pair("out", 0)


def test_the_bundled_datasets_are_what_the_script_writes(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_datasets",
                                                  ROOT / "scripts" / "make_datasets.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.scierc_runs(out=tmp_path)
    for path in sorted((DATASETS / "scierc_runs").rglob("*.json*")):
        made = tmp_path / "scierc_runs" / path.relative_to(DATASETS / "scierc_runs")
        assert made.read_bytes() == path.read_bytes(), path.name


def test_an_empty_pairs_file_is_no_run() -> None:
    data = from_files({"schema.json": "{}", "empty.jsonl": "\n\n",
                       "p.jsonl": jsonl({"gold": 1, "candidate": 1})})
    assert list(data.runs) == ["p"]
    assert data.bad_lines[0].file == "empty.jsonl"
    with pytest.raises(InputError, match="every JSONL file is empty"):
        from_files({"schema.json": "{}", "empty.jsonl": ""})


def test_a_cut_off_prediction_read_as_an_inner_fragment_says_so() -> None:
    """A truncated object whose first list is complete is read as that list (extract_json
    salvages a value inside an unclosed bracket): the score (0, a type mismatch at the
    root) stays, and the row says the output was cut off and which types clashed."""
    schema = {"type": "object", "properties": {"people": {"type": "array"},
                                               "city": {"type": "string"}}}
    gold = {"people": [{"name": "Ann"}], "city": "Paris"}
    cut = '```json\n{"people": [{"name": "Ann"}], "city": "Par'
    wrapped = 'Here: ["a", "b"] is all.'  # a real array answer, not cut off
    golds = jsonl({"id": "cut", "gold": gold}, {"id": "array", "gold": gold})
    run = jsonl({"id": "cut", "prediction": cut}, {"id": "array", "prediction": wrapped})
    scored = score_run(join_runs(schema, ("g.jsonl", golds), {"r": ("r.jsonl", run)}), "r")
    frame = scored.frame.set_index("id")
    assert frame.loc["cut", "score"] == 0.0 and frame.loc["array", "score"] == 0.0
    assert frame.loc["cut", "status"] == "cut off"
    assert frame.loc["array", "status"] == "prose"
    assert frame.loc["cut", "top_op"] == "type-mismatch at (root): array for object"
    assert frame.loc["cut", "problem"].startswith("the output is cut off")
    assert frame.loc["array", "problem"].startswith("prose around the JSON")


def test_cut_off_counts_brackets_outside_prose_quotes_and_inside_strings() -> None:
    from oa_core.runs.dataset import cut_off

    assert cut_off('{"a": [1, 2')
    assert not cut_off('He said "it\'s done. {"a": "]"}')  # an odd prose quote
    assert cut_off('{"a": "\\"}"')  # an escaped quote keeps the string open
    assert not cut_off("no JSON at all")


def test_workers_do_not_run_the_callers_main_script(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """In the explorer ``__main__`` is the Streamlit app: a spawned worker would run it
    again before scoring (seconds per pool). Here a main script that leaves a mark."""
    import sys
    import types

    mark = tmp_path / "main-ran"
    script = tmp_path / "app_main.py"
    script.write_text(f"open({str(mark)!r}, 'a').write('ran')\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    data = join_runs(SCHEMA, ("g.jsonl", jsonl({"id": "a", "gold": {"city": "Paris"}},
                                               {"id": "b", "gold": {"city": "Rome"}})),
                     {"r": ("r.jsonl", jsonl({"id": "a", "candidate": {"city": "Paris"}},
                                             {"id": "b", "candidate": {"city": "Roma"}}))})
    scored = score_run(data, "r", workers=2, start_method="spawn")
    assert scored.frame["score"].tolist() == score_run(data, "r").frame["score"].tolist()
    assert not mark.exists()
    assert sys.modules["__main__"] is main  # put back


def test_a_stored_run_reads_back_the_same_tables_under_the_same_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oa_core.runs import dataset

    data = load_folder(DATASETS / "scierc_runs")
    scored = score_run(data, "B")
    key = data.run_key("B")
    assert dataset.load_scored(tmp_path, key) is None
    dataset.store_scored(tmp_path, key, scored)
    back = dataset.load_scored(tmp_path, key)
    assert back is not None and back.stored and not scored.stored
    for name in ("frame", "ops", "fields"):
        assert getattr(back, name).equals(getattr(scored, name)), name
    assert back.records == scored.records
    assert dataset.load_scored(tmp_path, data.run_key("A")) is None  # another run
    # another version of the scoring code never reads it
    monkeypatch.setattr(dataset, "code_fingerprint", lambda: "edited")
    assert dataset.load_scored(tmp_path, key) is None


def test_the_run_cache_forgets_damaged_files_and_keeps_the_newest(tmp_path: Path) -> None:
    from oa_core.runs import dataset

    scored = build_run("r", [])
    (tmp_path / dataset.stored_name("k")).write_bytes(b"not a pickle")
    assert dataset.load_scored(tmp_path, "k") is None
    assert not (tmp_path / dataset.stored_name("k")).exists()
    for number in range(4):
        dataset.store_scored(tmp_path, f"k{number}", scored, keep=2)
        # distinct, increasing times (file times are coarser than these writes)
        os.utime(tmp_path / dataset.stored_name(f"k{number}"), (1000 * (number + 1),) * 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        dataset.stored_name(f"k{n}") for n in (2, 3))
