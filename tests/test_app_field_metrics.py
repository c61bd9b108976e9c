"""AppTest: the Field metrics page (per-field TP/FP/FN, P/R/F1, the counting rule, the
credit threshold in the URL)."""

from __future__ import annotations

from pathlib import Path

from apptest_helpers import metric, open_app

from oa_core.runs import runstats
from oa_core.runs.dataset import load_folder, score_run

SCIERC = Path(__file__).resolve().parents[1] / "sample_data" / "datasets" / "scierc_runs"


def test_table_matches_the_library_and_follows_the_threshold() -> None:
    at = open_app("field_metrics.py", {"dataset": "scierc_runs", "run": "B"}, timeout=180)
    scored = score_run(load_folder(SCIERC), "B")
    expected = runstats.field_metrics(scored, 0.5)
    table = next(d for d in at.dataframe if "tp" in d.value.columns).value
    assert table["field"].tolist() == expected["field"].tolist()
    assert table[["tp", "fp", "fd", "fa", "fn"]].equals(expected[["tp", "fp", "fd", "fa", "fn"]])
    assert (table["fd"] + table["fa"]).equals(table["fp"])
    assert metric(at, "F1 (all fields)") == f"{expected['f1'].iloc[-1]:.2f}"
    assert any("Counting rule" in m.value and "credit threshold" in m.value
               for m in at.markdown)
    at.slider(key="w.oa.fm_threshold").set_value(1.0).run()
    strict = runstats.field_metrics(scored, 1.0)
    table = next(d for d in at.dataframe if "tp" in d.value.columns).value
    assert table["tp"].tolist() == strict["tp"].tolist()
    assert at.query_params["fm_threshold"] == "1.0"


def test_threshold_from_the_url() -> None:
    at = open_app("field_metrics.py", {"dataset": "scierc_runs", "fm_threshold": "0.95"},
                  timeout=180)
    assert at.slider(key="w.oa.fm_threshold").value == 0.95


def test_no_dataset() -> None:
    at = open_app("field_metrics.py", timeout=60)
    assert "Open an evaluation dataset" in at.info[0].value


ORG = SCIERC.parent / "org2graph_runs"


def test_wrong_shaped_outputs_make_one_row_and_no_none_is_shown() -> None:
    """Run B's cut-off outputs were read as lists and single records: their values do not
    become rows of their own (``/*/id``, ``/title``) but one ``(wrong shape)`` row."""
    at = open_app("field_metrics.py", {"dataset": "org2graph_runs", "run": "B"}, timeout=180)
    grid = next(d for d in at.dataframe if "tp" in d.value.columns)
    table = grid.value
    fields = table["field"].tolist()
    assert fields[-2:] == ["(wrong shape)", "(all fields)"]
    assert all(f.startswith(("/people/", "/companies/", "/employment/", "/acquaintance/",
                             "/partnership/")) for f in fields[:-2])
    shape = table.set_index("field").loc["(wrong shape)"]
    assert shape["fa"] == shape["fp"] > 0 and shape["tp"] == shape["fn"] == 0
    assert shape["recall"] != shape["recall"]  # undefined: NaN, shown as a dash
    assert grid.proto.placeholder == "—"
    assert any("(wrong shape)" in m.value and "spurious" in m.value for m in at.markdown)
