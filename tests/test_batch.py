"""The batch engine of ``oa batch`` (:mod:`oa_core.runs.batch`), without the command line."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import signal
from typing import Any

import pytest

from oa_core import AlignOptions, InputError, Limits, Schema, WLMode
from oa_core.jsonio import JsonlLines
from oa_core.runs import batch
from oa_core.runs.batch import (
    BatchOptions,
    BatchTally,
    WorkerLost,
    iter_batch,
    iter_batch_blocks,
    record_text,
    score_line,
    summarize,
)

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def line(**item: Any) -> str:
    return json.dumps(item)


def test_batch_options_hold_one_align_options() -> None:
    names = {f.name for f in dataclasses.fields(BatchOptions)}
    # no repeated align options (``fields`` asks for field observations, not an alignment option)
    assert names == {"top_k", "min_delta", "align_options", "fields"}
    options = BatchOptions(align_options={"wl_mode": "blend", "wl_blend_lambda": 0.25})
    assert options.align_options == AlignOptions(wl_mode=WLMode.BLEND, wl_blend_lambda=0.25)
    for bad in ({"top_k": -1}, {"top_k": 1.5}, {"min_delta": 2}, {"min_delta": True}):
        with pytest.raises(InputError) as info:
            BatchOptions(**bad)
        assert info.value.document == "options"
    with pytest.raises(InputError, match="unknown option 'wl_modes'"):
        BatchOptions(align_options={"wl_modes": "none"})


def test_align_options_reach_every_line() -> None:
    gold = {"city": "Paris", "extra": 1}
    text = line(gold=gold, candidate={"city": "Paris", "extra": "1"})
    strict = BatchOptions(align_options=AlignOptions(strict=True))
    (lax_result,) = iter_batch([text], {"type": "object", "properties": {
        "city": {"type": "string"}, "extra": {"type": "integer"}}})
    (strict_result,) = iter_batch([text], {"type": "object", "properties": {
        "city": {"type": "string"}, "extra": {"type": "integer"}}}, options=strict)
    assert lax_result.record["score"] > 0 and strict_result.record["score"] == 0.0


def test_line_depth_leaves_room_for_the_documents() -> None:
    deep: Any = "x"
    for _ in range(100):  # a gold at the depth limit sits one level deeper in its line
        deep = {"a": deep}
    result = score_line(Schema.parse({"type": "object"}), BatchOptions(), "p", 0, 1,
                        line(gold=deep, candidate=deep))
    assert result.error is None and result.record["score"] == 1.0
    result = score_line(Schema.parse({"type": "object"}), BatchOptions(), "p", 0, 1,
                        line(gold={"b": deep}, candidate=deep))
    assert result.record["error"]["document"] == "gold"
    assert result.record["error"]["pointer"] == "/gold/b" + "/a" * 100


def test_defect_02_any_exception_is_one_line_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch.feedback

    def flaky(gold: Any, candidate: Any, *args: Any, **kwargs: Any) -> Any:
        if gold == {"city": "Rome"}:
            raise TypeError("unhashable type: 'dict'")
        return real(gold, candidate, *args, **kwargs)

    monkeypatch.setattr(batch, "feedback", flaky)
    lines = [line(id=1, gold={"city": "Paris"}, candidate={"city": "Paris"}),
             line(id=2, gold={"city": "Rome"}, candidate={"city": "Rome"}),
             "",
             line(id=3, gold={"city": 5}, candidate={}),
             line(id=4, gold={"city": "Oslo"}, candidate={"city": "Oslo"})]
    results = list(iter_batch(lines, SCHEMA, name="p.jsonl"))
    assert [r.record["index"] for r in results] == [0, 1, 2, 3]
    assert results[1].internal and results[1].record == {"index": 1, "id": 2, "error": {
        "line": 2, "internal": True, "message": "TypeError: unhashable type: 'dict'"}}
    assert results[1].error == "p.jsonl line 2: TypeError: unhashable type: 'dict'"
    assert not results[2].internal and results[2].record["error"]["document"] == "gold"
    assert results[3].record["score"] == 1.0  # the lines after it are scored
    summary = summarize(results)
    assert (summary.count, summary.failed, summary.internal) == (2, 2, 1)
    assert summary.to_dict()["internal"] == 1
    assert summary.render().splitlines()[0] == (
        "pairs: 2 scored, 2 failed, 0 unparsable predictions, 1 internal errors")


def test_an_exception_while_recording_a_scored_pair_is_that_line_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # scored pairs are recorded after their phase's scoring: a failure there stays on its line
    real = batch._pattern

    def flaky(pointer: str) -> str:
        if pointer == "/name":
            raise ValueError("no pattern")
        return real(pointer)

    monkeypatch.setattr(batch, "_pattern", flaky)
    lines = [line(id=1, gold={"city": "Paris"}, candidate={"city": "Lyon"}),
             line(id=2, gold={"name": "Ann"}, candidate={"name": "Bob"}),
             line(id=3, gold={"city": "Rome"}, candidate={"city": "Rome"})]
    results = list(iter_batch(lines, {"type": "object"}, name="p.jsonl"))
    assert results[1].internal and results[1].record == {"index": 1, "id": 2, "error": {
        "line": 2, "internal": True, "message": "ValueError: no pattern"}}
    assert results[0].record["score"] < 1.0 and results[0].op_stats
    assert results[2].record["score"] == 1.0 and not results[2].internal


def test_defect_21_prediction_without_usable_json_is_unparsable() -> None:
    schema = Schema.parse({"type": "object"})
    options = BatchOptions(align_options=AlignOptions(limits=Limits(max_depth=5)))
    cases = {"[" * 50 + "]" * 50: "nested deeper than 5 levels",
             "[" * 5000: "nested deeper than 5 levels",
             '{"a": ' + "1" * 4400 + "}": "integer of 4400 digits",
             '{"a": [1e999]}': "not finite",
             '{"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}': "nested deeper than 5 levels"}
    for prediction, reason in cases.items():
        result = score_line(schema, options, "p", 0, 1, line(gold={"a": 1},
                                                             prediction=prediction))
        assert result.error is None, prediction
        assert result.record["score"] == 0.0 and result.record["ops"] == []
        assert reason in result.record["parse_error"]["message"], result.record
    assert summarize([result]).unparsable == 1


def test_candidate_lines_stay_bad_input() -> None:
    # parsed JSON under "candidate" is the data set's fault, not the model's
    deep: Any = 1
    for _ in range(3):
        deep = [deep]
    options = BatchOptions(align_options=AlignOptions(limits=Limits(max_depth=2)))
    result = score_line(Schema.parse({"type": "object"}), options, "p", 0, 7,
                        line(gold={"a": 1}, candidate={"a": deep}))
    assert result.record["error"]["document"] == "candidate"
    assert result.record["error"]["pointer"].startswith("/candidate/a")
    assert "score" not in result.record


def test_reading_problems_inside_a_document_name_that_document() -> None:
    schema = Schema.parse({"type": "object"})
    for text, document, pointer in [
            ('{"gold": {"a": 1, "a": 2}, "candidate": {}}', "gold", "/gold"),
            ('{"gold": {}, "candidate": {"x": [1e400]}}', "candidate", "/candidate/x/0"),
            ('{"gold": {}, "candidate": {}, "gold": {}}', "pairs", "")]:
        error = score_line(schema, BatchOptions(), "p", 0, 1, text).record["error"]
        assert (error["document"], error["pointer"]) == (document, pointer)


def _city_lines() -> list[str]:
    return [line(id=k, gold={"city": "Paris"}, candidate={"city": city})
            for k, city in enumerate(["Paris", "paris", "Lyon", "Pariss"])]


def test_forked_workers_share_the_parsed_schema() -> None:
    # a comparator only the parsed schema knows: the workers can only be using it
    raw = {"type": "object", "properties": {"city": {"type": "string", "score": "first"}}}
    parsed = Schema.parse(raw, comparators={"first": lambda g, c: float(g[:1] == c[:1])})
    records = [[r.record for r in iter_batch(_city_lines(), raw, schema=parsed,
                                             workers=workers, start_method="fork")]
               for workers in (1, 2)]
    assert records[0] == records[1]
    assert [r["score"] for r in records[0]] == [1.0, 0.0, 0.0, 1.0]


def test_spawned_workers_parse_the_raw_schema() -> None:
    expected = [r.record for r in iter_batch(_city_lines(), SCHEMA)]
    spawned = iter_batch(_city_lines(), SCHEMA, schema=Schema.parse(SCHEMA), workers=2,
                         start_method="spawn")
    assert [r.record for r in spawned] == expected
    assert expected[1]["score"] < 1.0 == expected[0]["score"]


def test_written_blocks_are_the_records_text_whatever_the_workers() -> None:
    lines = [*_city_lines(), "", '{"gold": ', line(gold={"city": "Paris"}, prediction="none"),
             line(gold={"city": "Par\u2028is"}, candidate={"city": "Paris"})]
    lines *= 40  # more than one block, and more than one job per worker
    results = list(iter_batch(lines, SCHEMA, name="p.jsonl"))
    for workers, start_method in ((1, "fork"), (2, "fork"), (2, "spawn")):
        blocks = list(iter_batch_blocks(lines, SCHEMA, name="p.jsonl", workers=workers,
                                        start_method=start_method))
        assert len(blocks) > 2
        assert "".join(block.text for block in blocks) == "".join(
            record_text(r.record) + "\n" for r in results)
        outcomes = [outcome for block in blocks for outcome in block.outcomes]
        assert all(block.text.count("\n") == len(block.outcomes) for block in blocks)
        assert outcomes == [r.outcome() for r in results]
        assert summarize(outcomes) == summarize(results)
    assert [json.loads(text)["index"] for text in map(record_text, (
        r.record for r in results))] == list(range(7 * 40))
    assert "Par\u2028is" in record_text(results[6].record)  # UTF-8 text as it is
    assert record_text({"id": "\ud800", "n": {1}}) == '{"id": "\\ud800", "n": "{1}"}'
    assert (results[5].score, results[5].unparsable, results[4].score) == (0.0, True, None)


def test_a_file_held_as_bytes_is_scored_as_its_lines() -> None:
    lines = [*_city_lines(), "", "  ", '{"gold": ', line(gold={"city": "Par\u2028is"},
                                                           candidate={"city": "Paris"})]
    data = ("\r\n".join(lines) + "\n").encode()
    expected = [r.record for r in iter_batch(lines, SCHEMA, name="p.jsonl")]
    for workers, start_method in ((1, "fork"), (2, "fork"), (2, "spawn")):
        held = iter_batch(JsonlLines(data), SCHEMA, name="p.jsonl", workers=workers,
                          start_method=start_method)
        assert [r.record for r in held] == expected
    assert expected[-1]["index"] == 5 and expected[4]["error"]["line"] == 7


def test_a_tally_is_the_summary_of_the_results_so_far() -> None:
    results = list(iter_batch([*_city_lines(), '{"gold": '], SCHEMA))
    tally = BatchTally()
    for count, result in enumerate(results, 1):
        tally.add(result.outcome())
        assert tally.summary() == summarize(results[:count])
    first = tally.summary()
    first.scores.append(0.0)  # a summary is the caller's: the tally goes on unchanged
    assert tally.summary() == summarize(results)


def test_a_killed_worker_stops_the_run_with_worker_lost() -> None:
    # the comparator kills the worker process it runs in (never this one): multiprocessing's
    # Pool used to wait for its answer forever
    parent = os.getpid()

    def fatal(gold: str, candidate: str) -> float:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return 1.0

    raw = {"type": "object", "properties": {"city": {"type": "string", "score": "fatal"}}}
    parsed = Schema.parse(raw, comparators={"fatal": fatal})
    with pytest.raises(WorkerLost) as info:
        list(iter_batch(_city_lines() * 4, raw, schema=parsed, workers=2,
                        start_method="fork"))
    assert "a worker process ended unexpectedly" in str(info.value)
    assert "fix: " in str(info.value)


def test_a_run_stopped_early_leaves_no_worker_behind() -> None:
    lines = _city_lines() * 200
    results = iter_batch(lines, SCHEMA, workers=2, start_method="fork")
    first = next(results)
    children = multiprocessing.active_children()
    assert first.record["index"] == 0 and children
    results.close()  # what a closed output or Ctrl-C does: the jobs not begun are skipped
    assert not any(child.is_alive() for child in children)
