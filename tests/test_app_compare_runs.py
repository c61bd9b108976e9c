"""AppTest: the Compare runs page (paired bootstrap CI, wins/ties/losses, the scatter,
a document side by side, regressions and the patterns and fields that moved)."""

from __future__ import annotations

import json
from pathlib import Path

from apptest_helpers import metric, open_app

from oa_core import runstats
from oa_core.dataset import load_folder, score_run

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
    regressions = next(d for d in at.dataframe if "change" in d.value.columns).value
    assert regressions["change"].tolist() == sorted(regressions["change"])
    assert regressions["id"].iloc[0] == comparison.pairs.sort_values(
        ["diff", "id"], kind="stable")["id"].iloc[0]


def test_a_document_side_by_side_and_open_one_side() -> None:
    at = open_app("compare_runs.py", {"dataset": "org2graph_runs", "cmp_doc": "org-0003"},
                  timeout=180)
    assert any("org-0003" in s.value.replace("\\", "") and "side by side" in s.value
               for s in at.subheader)
    assert len(at.code) >= 2  # both outputs
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
