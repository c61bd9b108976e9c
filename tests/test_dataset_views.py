"""app.runs.dataset_views (charts and tables of the run-level pages, no Streamlit) and the
smoke test of benchmarks.dataset_speed (never timed here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from app.runs import dataset_views
from benchmarks import dataset_speed
from oa_core.runs import runstats
from oa_core.runs.dataset import from_files, score_run
from oa_core.runs.html_report import histogram_html

HOSTILE = "<img src=x onerror=alert(1)>&amp;"


def hostile_run():
    schema = {"type": "object"}
    rows = [{"id": f"{HOSTILE}{k}", "gold": {HOSTILE: [1, 2], "b": k},
             "candidate": {HOSTILE: [1], "b": k + k % 2}} for k in range(4)]
    data = from_files({"schema.json": json.dumps(schema),
                       "r.jsonl": "\n".join(json.dumps(r) for r in rows)})
    return score_run(data, "r")


def test_user_text_is_escaped_in_every_chart() -> None:
    run = hostile_run()
    patterns = runstats.error_patterns(run)
    assert any(HOSTILE in p for p in patterns["pattern"])
    figures = [dataset_views.pattern_map(patterns),
               dataset_views.field_bars(runstats.field_metrics(run)),
               dataset_views.compare_scatter(runstats.compare(run, run), (HOSTILE, "b"))]
    chart = histogram_html([(HOSTILE, run.scores), ("x", run.scores)])
    assert "<img" not in chart and "&lt;img" in chart
    for figure in figures:
        shown = figure.to_plotly_json()
        for trace in shown["data"]:
            trace.pop("customdata", None)  # data handed to a click, never drawn
        text = json.dumps(shown, default=str)
        assert "<img" not in text, text[text.index("<img") - 200:text.index("<img") + 50]
    # the raw pattern stays available to a click (customdata), only the labels are escaped
    trace = figures[0].data[0]
    assert any(HOSTILE in str(c[0]) for c in trace.customdata)


def test_sort_keeps_ties_in_input_order_and_unscored_last() -> None:
    frame = pd.DataFrame({"row": [0, 1, 2, 3], "id": ["a", "b", "c", "d"],
                          "score": [0.5, np.nan, 0.5, 0.1], "deficit": [0.5, np.nan, 0.5, 0.9]})
    assert dataset_views.sort_pairs(frame, "score", True)["id"].tolist() == ["a", "c", "d", "b"]
    assert dataset_views.sort_pairs(frame, "nope", False)["id"].tolist() == ["a", "b", "c", "d"]


def test_pattern_map_of_nothing_is_an_empty_figure() -> None:
    empty = runstats.error_patterns(score_run(from_files({
        "schema.json": "{}", "r.jsonl": json.dumps({"gold": 1, "candidate": 1})}), "r"))
    assert empty.empty and dataset_views.pattern_map(empty).data == ()


def test_dataset_speed_benchmark_measures_a_run(tmp_path: Path) -> None:
    folder = dataset_speed.make_org2graph_run(tmp_path / "run", count=6)
    figures = dataset_speed.measure_scoring(folder, repeat=1, workers=1)
    assert figures["pairs"] == 6 and figures["score_s"] > 0 and 0 <= figures["mean"] <= 1
    output = dataset_speed.make_batch_output(tmp_path / "out", count=50)
    assert dataset_speed.measure_scoring(output, repeat=1, workers=1)["pairs"] == 50
