"""AppTest: the Run tuning page (a schema edit rescores the whole run: new mean, rank
correlation, the documents that moved; edits in the URL; invalid edits reported)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_helpers import metric, open_app

from app.session import apply_edits
from oa_core import runstats
from oa_core.dataset import load_folder, score_run

SCIERC = Path(__file__).resolve().parents[1] / "sample_data" / "datasets" / "scierc_runs"
WEIGHT = "/properties/relations/items/properties/predicate/valueWeight"


def test_no_edit_shows_the_run_as_is() -> None:
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "B"}, timeout=180)
    assert metric(at, "Rank correlation (Spearman)") == "1.0000"
    assert metric(at, "Documents that moved").startswith("0 of")
    assert "No edit yet" in at.info[0].value


def test_an_edit_from_the_url_rescores_the_run() -> None:
    edits = {"/properties/relations/valueWeight": 0.0}
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "B",
                                    "run_edits": json.dumps(edits)}, timeout=300)
    data = load_folder(SCIERC)
    before = score_run(data, "B", workers=2)
    after = score_run(data, "B", workers=2, schema=apply_edits(data.schema, edits))
    rho, moves = runstats.rank_change(before, after)
    assert metric(at, "Mean, edited schema") == f"{after.scores.mean():.2f}"
    assert metric(at, "Rank correlation (Spearman)") == f"{rho:.4f}"
    shown = next(d for d in at.dataframe if "change" in d.value.columns).value
    assert shown["id"].tolist() == moves["id"].head(15).tolist()
    assert rho < 1.0


def test_a_widget_edit_goes_into_the_url_and_reset_clears_it() -> None:
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "A"}, timeout=300)
    at.number_input(key=f"rt:tune:{WEIGHT}").set_value(3.0).run()
    assert not at.exception
    assert json.loads(at.query_params["run_edits"]) == {WEIGHT: 3.0}
    assert metric(at, "Documents that moved") != "0 of 150"
    next(b for b in at.button if b.label == "Reset the edits").click().run()
    assert "run_edits" not in at.query_params


@pytest.mark.parametrize("bad", ['{"/properties/relations/items/properties/predicate/'
                                 'threshold": 7}', '{"/nope/x": 1}'])
def test_invalid_edits_are_reported(bad: str) -> None:
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run_edits": bad}, timeout=180)
    assert "do not make a valid schema" in at.error[0].value
