"""The HTML report (oa_core.runs.html_report): format failures as their own group, the worst
documents and the regressions by content, field metrics with wrong/spurious values and
the wrong-shape row, the schema's warnings; every user text escaped."""

from __future__ import annotations

import json
import re

from oa_core.runs import html_report
from oa_core.runs.dataset import from_files, score_run

SCHEMA = {"type": "object", "properties": {"people": {"type": "array", "items": {
    "type": "object", "properties": {"name": {"type": "string"}}}}}}
GOLD = {"people": [{"name": "Ann"}, {"name": "Bob"}]}


def dataset(schema: object = SCHEMA) -> object:
    def line(identifier: str, prediction: str) -> str:
        return json.dumps({"id": identifier, "gold": GOLD, "prediction": prediction})

    run_a = [line(i, json.dumps(GOLD)) for i in ("good", "cut", "sorry", "worse", "same")]
    run_b = [line("good", json.dumps(GOLD)),
             line("cut", '{"people": [{"name": "Ann"}, {"name": "B'),  # cut off
             line("sorry", "I'm sorry, I can't do that <script>alert(1)</script>"),
             line("worse", json.dumps({"people": [{"name": "Zed"}]})),  # content error
             line("same", "Here it is: " + json.dumps(GOLD))]  # prose, read whole
    return from_files({"schema.json": json.dumps(schema), "a.jsonl": "\n".join(run_a),
                       "b.jsonl": "\n".join(run_b)})


def worst_ids(page: str, run: str) -> list[str]:
    section = page.split(f"<h2>Run {run} ")[1].split("<h2>")[0]
    worst = section.split("worst documents by content</h3>")[1]
    return re.findall(r'<span class="pill">([^<]*)</span>', worst)


def test_format_failures_are_their_own_group_and_the_worst_list_is_content() -> None:
    data = dataset()
    page = html_report.build(data, [score_run(data, "b")], title="r")
    assert "2 format failures: cut off 1, refused 1" in page
    assert "<script>" not in page and "&lt;script&gt;alert(1)" in page  # the raw text
    assert worst_ids(page, "b") == ["worse", "good", "same"]  # cut and sorry left out
    assert "prose around the JSON" in page  # a readable output's status is said


def test_two_runs_rank_content_regressions_apart_from_new_format_failures() -> None:
    data = dataset()
    page = html_report.build(data, [score_run(data, "a"), score_run(data, "b")], title="r")
    regressed = page.split("content regressed most</h3>")[1].split("<h3>")[0]
    assert re.findall(r"<tr><td>([^<]*)</td>", regressed) == ["worse"]
    failures = page.split("Format failures new in b: 2</h3>")[1].split("<h3>")[0]
    assert "cut off" in failures and "refused" in failures


def test_field_metrics_split_false_positives_and_fold_the_wrong_shape() -> None:
    data = dataset()
    page = html_report.build(data, [score_run(data, "b")], title="r")
    fields = page.split("<h3>Field metrics</h3>")[1].split("<h3>")[0]
    assert "FP: wrong" in fields and "FP: spurious" in fields
    rows = re.findall(r"<tr><td>([^<]*)</td>", fields)
    assert rows[-1] == "(all fields)" and all(r.startswith(("/people/", "(")) for r in rows)
    assert "None" not in fields


def test_a_misspelt_schema_keyword_is_warned_about() -> None:
    schema = json.loads(json.dumps(SCHEMA))
    schema["properties"]["people"]["valueWieght"] = 2
    data = dataset(schema)
    page = html_report.build(data, [score_run(data, "a")], title="r")
    assert "Schema warnings (1)" in page
    assert "unknown keyword &#x27;valueWieght&#x27; is ignored; did you mean" in page
    assert "Schema warnings" not in html_report.build(dataset(), [score_run(dataset(), "a")])
