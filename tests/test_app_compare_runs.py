"""AppTest: the Compare runs page (paired bootstrap CI, wins/ties/losses, the scatter,
a document side by side, regressions and the patterns and fields that moved)."""

from __future__ import annotations

import json
from pathlib import Path

from apptest_helpers import metric, open_app

from oa_core.runs import runstats
from oa_core.runs.dataset import load_folder, score_run
from oa_core.runs.output_format import FAILURES

ORG = Path(__file__).resolve().parents[1] / "sample_data" / "datasets" / "org2graph_runs"


def values(array) -> list:
    """A plotly array of the figure JSON (plotly 7 writes numbers as typed base64)."""
    if isinstance(array, dict) and "bdata" in array:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def test_headline_and_scatter_match_the_library() -> None:
    at = open_app("compare_runs.py", {"dataset": "org2graph_runs"}, timeout=180)
    data = load_folder(ORG)
    comparison = runstats.compare(score_run(data, "A"), score_run(data, "B"))
    assert metric(at, "B − A") == f"{comparison.difference.estimate:+.4f}"
    assert metric(at, "Wins / ties / losses of B") == (
        f"{comparison.wins} / {comparison.ties} / {comparison.losses}")
    assert comparison.difference.high < 0  # the sloppy run is worse, significantly
    assert any("B is worse" in c.value for c in at.caption)
    scatter = json.loads(next(c for c in at.get("plotly_chart")
                              if c.key == "w.cmp_chart").proto.spec)["data"][0]
    assert len(values(scatter["x"])) == len(comparison.pairs)
    layout = json.loads(next(c for c in at.get("plotly_chart")
                             if c.key == "w.cmp_chart").proto.spec)["layout"]
    for axis in ("xaxis", "yaxis"):  # [0, 1] and a small margin, never widened
        assert layout[axis]["range"] == [-0.03, 1.03]
        assert layout[axis]["constrain"] == "domain"
    # the content regressions: no format failure among them, though 43 outputs of run B
    # failed their format (most at 0, which would top a plain sort by change)
    regressions = next(d for d in at.dataframe if "change" in d.value.columns).value
    assert regressions["change"].tolist() == sorted(regressions["change"])
    expected = runstats.regressions(comparison, 15)
    assert regressions["id"].tolist() == expected["id"].tolist()
    assert regressions["id"].iloc[0] == "org-0204"
    statuses = comparison.pairs.set_index("id")["status_b"]
    assert not statuses[regressions["id"]].isin(FAILURES).any()
    failed = next(d for d in at.dataframe if "B's output" in d.value.columns).value
    assert len(failed) == len(runstats.new_failures(comparison)) == 43
    assert any(m.value.startswith("**43 format failures new in B**") for m in at.markdown)


def test_a_document_side_by_side_and_open_one_side() -> None:
    at = open_app("compare_runs.py", {"dataset": "org2graph_runs", "cmp_doc": "org-0003"},
                  timeout=180)
    assert any("org-0003" in s.value.replace("\\", "") and "side by side" in s.value
               for s in at.subheader)
    assert len(at.code) >= 2  # both outputs
    cut = open_app("compare_runs.py", {"dataset": "org2graph_runs", "cmp_doc": "org-0014"},
                   timeout=180)
    assert any("(output cut off)" in m.value for m in cut.markdown)  # B's side says why
    assert any(c.value.startswith("the output is cut off") for c in cut.caption)
    next(b for b in at.button if b.label == "Open run B's pair in Overview").click().run()
    assert at.title[0].value == "Overview"
    assert at.query_params["pair"] == '["org2graph_runs","B","org-0003"]'


def test_swapped_runs() -> None:
    at = open_app("compare_runs.py", {"dataset": "org2graph_runs", "run": "B",
                                      "run_b": "A"}, timeout=180)
    assert metric(at, "B − A").startswith("+")


def test_a_report_of_both_runs_can_be_downloaded() -> None:
    at = open_app("compare_runs.py", {"dataset": "scierc_runs"}, timeout=180)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "HTML report of both runs" in labels
    assert all(b.proto.ignore_rerun for b in at.get("download_button"))  # no rerun race
