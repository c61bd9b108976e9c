"""AppTest: the Dataset page (summary with a bootstrap CI, histogram, bad lines, the pairs
table sorted and filtered from the URL, opening a pair and coming back, downloads,
an uploaded dataset and its errors, escaping of user text)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from apptest_helpers import errors, metric, open_app
from streamlit.testing.v1 import AppTest

from oa_core.runs import runstats
from oa_core.runs.dataset import load_folder, score_run
from oa_core.runs.output_format import FAILURES

ROOT = Path(__file__).resolve().parents[1]
ORG = ROOT / "sample_data" / "datasets" / "org2graph_runs"
TIMEOUT = 180


@pytest.fixture(autouse=True)
def run_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Scored runs are kept on disk in a folder of this test module's own."""
    folder = tmp_path_factory.getbasetemp() / "run-cache"
    monkeypatch.setenv("OA_RUN_CACHE", str(folder))
    return folder


@pytest.fixture(scope="module")
def org_b():
    data = load_folder(ORG)
    return data, score_run(data, "B", workers=2)


def table(at: AppTest) -> pd.DataFrame:
    return next(d for d in at.dataframe if "top op" in d.value.columns).value


def open_dataset(query: dict[str, str]) -> AppTest:
    return open_app("dataset.py", query, timeout=TIMEOUT)


def test_summary_matches_the_library(org_b) -> None:
    _, scored = org_b
    at = open_dataset({"dataset": "org2graph_runs", "run": "B"})
    summary = runstats.summary(scored)
    assert metric(at, "Pairs") == "320"
    assert metric(at, "Mean score") == f"{summary['mean'].estimate:.2f}"
    assert metric(at, "Format failures") == str(summary["format_failures"]) == "43"
    assert metric(at, "Bad lines") == "2"  # the broken export line, and its empty gold
    ci = next(c.value for c in at.caption if c.value.startswith("Mean "))
    assert f"[{summary['mean'].low:.4f}, {summary['mean'].high:.4f}]" in ci
    # the histogram is plain HTML (no plotly on this page): its bars count every document
    chart = next(h.proto.body for h in at.get("html") if "oa-hist" in h.proto.body)
    assert sum(int(c) for c in re.findall(r'data-count="(\d+)"', chart)) == summary["scored"]
    assert not at.get("plotly_chart")
    bad = next(d for d in at.dataframe if "fix" in d.value.columns).value
    assert bad["line"].tolist() == [42, 0]
    # worst content first by default, the format failures after it (their 0 measures the
    # format): 43 outputs of run B tie at 0 and would hide the content errors
    shown = table(at)
    failed = shown["status"].isin(FAILURES).to_numpy()
    assert len(shown) == 320 and failed.sum() == 43 and failed[-43:].all()
    scores = shown["score"].tolist()[:-43]
    assert scores == sorted(scores) and scores[0] > 0.3
    assert shown.set_index("id").loc["org-0014", "status"] == "cut off"


def test_run_a_has_no_bad_lines_of_run_b() -> None:
    at = open_dataset({"dataset": "org2graph_runs"})
    assert metric(at, "Bad lines") == "0"


def test_filters_and_sort_come_from_the_url_and_go_back_into_it(org_b) -> None:
    _, scored = org_b
    query = {"dataset": "org2graph_runs", "run": "B", "ds_kind": "wrong-reference",
             "ds_high": "0.9", "ds_sort": "id", "ds_desc": "true"}
    at = open_dataset(query)
    shown = table(at)
    expected = runstats.filter_pairs(scored, high=0.9, kind="wrong-reference")
    assert sorted(shown["id"]) == sorted(expected["id"]) and len(shown) > 0
    assert shown["id"].tolist() == sorted(shown["id"], reverse=True)
    for key, value in query.items():
        assert at.query_params[key] == value
    at.text_input(key="w.oa.ds_text").set_value(shown["id"].iloc[0]).run()
    assert table(at)["id"].tolist() == [shown["id"].iloc[0]]
    assert at.query_params["ds_text"] == shown["id"].iloc[0]


def test_status_filter_lists_the_refusals(org_b) -> None:
    _, scored = org_b
    at = open_dataset({"dataset": "org2graph_runs", "run": "B", "ds_status": "refused"})
    shown = table(at)
    assert len(shown) == (scored.frame["status"] == "refused").sum() >= 5
    assert set(shown["score"]) == {0.0} and all(shown["problem"])


def test_format_failures_are_a_group_of_their_own() -> None:
    at = open_dataset({"dataset": "org2graph_runs", "run": "B"})
    group = next(e for e in at.expander if e.label.startswith("43 format failures"))
    assert "cut off 30" in group.label and "refused 12" in group.label
    kinds = next(d for d in at.dataframe if "examples" in d.value.columns).value
    assert kinds["kind"].tolist() == ["cut off", "refused", "empty"]
    assert kinds["examples"].iloc[0].startswith("org-0014")
    next(b for b in at.button if b.label == "List them in the table").click().run()
    shown = table(at)
    assert len(shown) == 43 and set(shown["status"]) == {"cut off", "refused", "empty"}
    assert at.query_params["ds_status"] == runstats.FAILED


def test_an_opened_cut_off_pair_says_so_and_shows_what_the_model_wrote() -> None:
    at = open_dataset({"dataset": "org2graph_runs", "run": "B"})
    at.text_input(key="w.ds_pick").input("org-0014").run()
    assert at.title[0].value == "Overview"
    warning = "\n".join(w.value for w in at.sidebar.warning)
    assert "Output cut off" in warning and "never closes" in warning
    raw = load_folder(ORG).pair("B", 13)["prediction"]
    wrote = next(e for e in at.sidebar.expander if e.label.startswith("What the model wrote"))
    assert f"({len(raw):,} characters)" in wrote.label
    assert wrote.code[0].value == raw[:3000] if len(raw) <= 3000 else raw[-1500:] in (
        wrote.code[0].value)


def test_open_a_pair_and_come_back() -> None:
    at = open_dataset({"dataset": "org2graph_runs", "run": "B", "ds_kind": "wrong-reference"})
    grid = next(d for d in at.dataframe if "top op" in d.value.columns)
    assert grid.proto.selection_mode and "open" in table(at).columns  # a pairs run opens
    first = table(at)["id"].iloc[0]
    at.text_input(key="w.ds_pick").input(first).run()  # Enter opens it
    assert not at.exception
    assert at.title[0].value == "Overview"
    assert at.query_params["pair"] == json.dumps(["org2graph_runs", "B", first],
                                                 separators=(",", ":"))
    assert at.query_params["ds_kind"] == "wrong-reference"  # the table's state is kept
    assert any(f"Showing pair “{first}”" in c.value.replace("\\", "") for c in at.caption)
    # the single-pair views score this pair
    data = load_folder(ORG)
    scored = score_run(data, "B")
    score = scored.frame.set_index("id").loc[first, "score"]
    assert metric(at, "Score") == f"{score:.2f}"
    at.switch_page("../pages/dataset.py").run()
    assert at.title[0].value == "Dataset"
    assert at.selectbox(key="w.oa.ds_kind").value == "wrong-reference"


def test_a_link_to_a_pair_reopens_it() -> None:
    at = open_app("feedback.py", {"pair": '["org2graph_runs","B","org-0007"]',
                                  "dataset": "org2graph_runs", "run": "B"}, timeout=TIMEOUT)
    assert at.title[0].value == "Feedback"
    assert not errors(at)
    assert any("org-0007" in c.value.replace("\\", "") for c in at.caption)
    gone = open_app(None, {"pair": '["org2graph_runs","B","no-such-id"]'}, timeout=TIMEOUT)
    assert "pair of an evaluation dataset that is not available" in errors(gone)


def test_the_view_choice_decides_where_a_pair_opens() -> None:
    at = open_dataset({"dataset": "scierc_runs", "run": "A", "ds_view": "feedback"})
    first = table(at)["id"].iloc[0]
    at.text_input(key="w.ds_pick").input(first)
    next(b for b in at.button if b.label == "Open").click().run()
    assert at.title[0].value == "Feedback"


def test_an_unparsable_pair_says_why_it_cannot_open() -> None:
    at = open_dataset({"dataset": "org2graph_runs", "run": "B", "ds_status": "refused"})
    first = table(at)["id"].iloc[0]
    at.text_input(key="w.ds_pick").input(first).run()
    assert at.title[0].value == "Dataset"
    assert "this pair cannot be opened" in errors(at)
    # what the model wrote is shown instead
    data = load_folder(ORG)
    rows = score_run(data, "B").frame.set_index("id")["row"]
    assert at.code[-1].value == data.pair("B", int(rows[first]))["prediction"][:3000]
    # the gold the broken line left without a prediction
    empty = open_dataset({"dataset": "org2graph_runs", "run": "B", "ds_status": "empty"})
    assert table(empty)["id"].tolist() == ["org-0042"]
    empty.text_input(key="w.ds_pick").input("org-0042").run()
    assert any("gave nothing" in c.value for c in empty.caption)


def test_downloads_csv_parquet_and_a_self_contained_report(org_b) -> None:
    data, scored = org_b
    at = open_dataset({"dataset": "org2graph_runs", "run": "B"})
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"Per-pair results (CSV)", "Per-pair results (Parquet)", "HTML report"} <= set(labels)
    assert all(b.proto.ignore_rerun for b in at.get("download_button"))  # no rerun race
    # what the buttons hold: the per-pair table, and the report the library writes
    frame = scored.frame.drop(columns=["row"])
    csv = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    assert csv["id"].tolist() == scored.frame["id"].tolist()
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    assert pd.read_parquet(io.BytesIO(buffer.getvalue()))["score"].equals(frame["score"])
    from oa_core.runs import html_report

    page = html_report.build(data, [scored], title="B")
    assert "<script" not in page and "src=" not in page and "http" not in page
    worst = scored.frame.sort_values(["score", "row"], kind="stable")["id"].iloc[0]
    assert worst in page and "Field metrics" in page and "Error patterns" in page


def test_upload_a_dataset_with_hostile_names_and_a_bad_schema() -> None:
    at = open_app(None, timeout=TIMEOUT)
    hostile = "<img src=x onerror=alert(1)> **bold**"
    pairs = "\n".join(json.dumps({"id": f"{hostile} {k}", "gold": {"a": k},
                                  "candidate": {"a": k + (k % 2)}}) for k in range(4))
    from app.runs import dataset_state

    name = dataset_state.add_upload({"schema.json": '{"type": "object"}', "run.jsonl": pairs})
    at.session_state[dataset_state.DATASET] = name
    at.switch_page("../pages/dataset.py").run()
    assert not at.exception
    shown = table(at)
    assert shown["id"].iloc[0].startswith("<img")  # shown as text in the table
    assert metric(at, "Pairs") == "4"
    for markdown in at.markdown:
        assert "<img" not in markdown.value
    with pytest.raises(Exception, match="threshold"):
        dataset_state.add_upload({"schema.json": '{"type": "object", "properties": '
                                                 '{"a": {"threshold": 3}}}', "r.jsonl": pairs})


def test_no_dataset_says_what_to_do() -> None:
    at = open_dataset({})
    assert "Open an evaluation dataset in the sidebar" in at.info[0].value


def test_an_unknown_dataset_is_reported() -> None:
    # the run that opens the link says so (the page's own URL parameter is then dropped)
    first = open_app(None, {"dataset": "<nope>"}, timeout=TIMEOUT)
    assert "which this explorer does not have" in errors(first)
    assert "<nope>" not in errors(first)  # escaped
    gone = open_app(None, {"dataset": "upload-0123456789ab"}, timeout=TIMEOUT)
    assert "upload its files again" in errors(gone)
    at = open_dataset({"dataset": "<nope>"})
    assert "Open an evaluation dataset" in at.info[0].value  # the bad value is ignored


def test_a_big_batch_output_opens_with_the_table_capped() -> None:
    from app.runs import dataset_page, dataset_state

    records = "\n".join(json.dumps({"index": k, "id": f"d{k}", "score": (k % 100) / 100,
                                     "ops": [{"kind": "primitive-value", "path": f"/a/{k % 7}",
                                              "delta": 1 - (k % 100) / 100}]})
                         for k in range(5000))
    name = dataset_state.add_upload({"schema.json": '{"type": "object"}',
                                     "out.jsonl": records})
    at = open_app(None, timeout=TIMEOUT)
    at.session_state[dataset_state.DATASET] = name
    at.switch_page("../pages/dataset.py").run()
    assert not at.exception
    assert metric(at, "Pairs") == "5,000"
    assert len(table(at)) == dataset_page.MAX_ROWS
    assert any("the first 2,000 shown" in c.value for c in at.caption)
    # scores without documents: no Open buttons, no row selection, and the caption says why
    grid = next(d for d in at.dataframe if "top op" in d.value.columns)
    assert dataset_page.OPEN_COLUMN not in table(at).columns
    assert not grid.proto.selection_mode
    assert any("cannot be opened" in c.value for c in at.caption)
    at.selectbox(key="w.oa.ds_pattern").set_value("/a/*").run()
    assert len(table(at)) == dataset_page.MAX_ROWS  # every pair has an op at /a/*
    at.text_input(key="w.oa.ds_text").set_value("d4999").run()
    assert table(at)["id"].tolist() == ["d4999"]
    at.text_input(key="w.ds_pick").input("d4999").run()
    assert "holds scores, not documents" in errors(at)
    at.switch_page("../pages/field_metrics.py").run()
    assert "holds scores, not documents" in at.info[0].value


def test_a_page_switch_or_rerun_never_rescores(monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_dataset({"dataset": "scierc_runs", "run": "A"})  # scored (or cached) here
    from app.runs import dataset_state

    def refuse(*args, **kwargs):
        raise AssertionError("rescored")

    monkeypatch.setattr(dataset_state, "score_run", refuse)
    at.run()
    for page in ("error_patterns.py", "field_metrics.py", "dataset.py"):
        at.switch_page(f"../pages/{page}").run()
        assert not at.exception, at.exception
    assert metric(at, "Pairs") == "150"


def test_a_restarted_explorer_reads_a_scored_run_from_disk(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from app.runs import dataset_state

    monkeypatch.setenv("OA_RUN_CACHE", str(tmp_path))
    dataset_state._scored().clear()  # as after a restart: nothing scored in memory
    first = open_dataset({"dataset": "scierc_runs", "run": "B"})
    assert any("scored in" in c.value for c in first.caption)
    assert list(tmp_path.glob("run-*.pickle"))
    dataset_state._scored().clear()

    def refuse(*args, **kwargs):
        raise AssertionError("rescored")

    monkeypatch.setattr(dataset_state, "score_run", refuse)
    again = open_dataset({"dataset": "scierc_runs", "run": "B"})
    assert any("read from the run cache" in c.value for c in again.caption)
    assert table(again).equals(table(first))
    assert metric(again, "Mean score") == metric(first, "Mean score")
    monkeypatch.setenv("OA_RUN_CACHE", "off")  # off: scored again
    dataset_state._scored().clear()
    with pytest.raises(AssertionError):
        open_dataset({"dataset": "scierc_runs", "run": "B"})


def test_an_unknown_id_in_the_id_box_is_said() -> None:
    at = open_dataset({"dataset": "scierc_runs", "run": "A"})
    at.text_input(key="w.ds_pick").input("<no such id>").run()
    assert at.title[0].value == "Dataset"
    assert any("has no pair with the id" in c.value and "no such id" in c.value
               for c in at.caption)
