"""AppTest: the Run tuning page (a schema edit rescores the whole run: new mean, rank
correlation, the documents that moved; edits in the URL; invalid edits reported; the
rescoring runs in the background, the previous result on screen; open sections stay
open)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from apptest_helpers import metric, open_app
from streamlit.testing.v1 import AppTest

import app.runs.run_tuning
from app.session import apply_edits
from oa_core.runs import runstats
from oa_core.runs.dataset import load_folder, score_run

SCIERC = Path(__file__).resolve().parents[1] / "sample_data" / "datasets" / "scierc_runs"
WEIGHT = "/properties/relations/items/properties/predicate/valueWeight"
WAIT_S = 300


def rescoring(at: AppTest) -> bool:
    """Whether the page shows a rescoring in progress."""
    return any(str(p.proto.text).startswith("Rescoring") for p in at.get("progress"))


def settle(at: AppTest) -> AppTest:
    """Rerun the page until its rescoring is done (the page never waits for it)."""
    deadline = time.monotonic() + WAIT_S
    while rescoring(at) and time.monotonic() < deadline:
        time.sleep(0.1)
        at.run()
        assert not at.exception, at.exception
    assert not rescoring(at)
    return at


def test_no_edit_shows_the_run_as_is() -> None:
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "B"}, timeout=180)
    assert metric(at, "Rank correlation (Spearman)") == "1.0000"
    assert metric(at, "Documents that moved").startswith("0 of")
    assert "No edit yet" in at.info[0].value


def test_an_edit_from_the_url_rescores_the_run() -> None:
    edits = {"/properties/relations/valueWeight": 0.0}
    at = settle(open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "B",
                                           "run_edits": json.dumps(edits)}, timeout=300))
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
    settle(at)
    assert json.loads(at.query_params["run_edits"]) == {WEIGHT: 3.0}
    assert metric(at, "Documents that moved") != "0 of 150"
    next(b for b in at.button if b.label == "Reset the edits").click().run()
    assert "run_edits" not in at.query_params


@pytest.mark.parametrize("bad", ['{"/properties/relations/items/properties/predicate/'
                                 'threshold": 7}', '{"/nope/x": 1}'])
def test_invalid_edits_are_reported(bad: str) -> None:
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run_edits": bad}, timeout=180)
    assert "do not make a valid schema" in at.error[0].value


def test_the_page_never_waits_for_a_rescoring_and_keeps_the_previous_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rescoring is held until the test lets it go: meanwhile the page has finished
    its run, showing the original scores with a progress bar, and the settings work."""
    release = threading.Event()
    real = app.runs.run_tuning.score_run

    def held(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(WAIT_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(app.runs.run_tuning, "score_run", held)
    at = open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "A"}, timeout=300)
    original = metric(at, "Mean, original schema")
    at.number_input(key=f"rt:tune:{WEIGHT}").set_value(2.75).run()  # an edit of its own
    assert rescoring(at) and not at.exception
    assert metric(at, "Mean, previous edits") == original  # the last result stays
    assert not any(m.label == "Mean, edited schema" for m in at.metric)
    release.set()
    settle(at)
    data = load_folder(SCIERC)
    after = score_run(data, "A", schema=apply_edits(data.schema, {WEIGHT: 2.75}))
    assert metric(at, "Mean, edited schema") == f"{after.scores.mean():.2f}"


def test_settings_sections_are_keyed_so_an_edit_keeps_them_as_they_are() -> None:
    at = settle(open_app("run_tuning.py", {"dataset": "scierc_runs", "run": "A"},
                         timeout=300))
    def sections() -> list[tuple[str, str]]:
        return [(str(e.key), e.label) for e in at.expander
                if str(e.key).startswith("w.rt_open:")]

    keys = [key for key, _ in sections()]
    assert len(keys) > 3
    at.number_input(key=f"rt:tune:{WEIGHT}").set_value(2.5).run()
    settle(at)
    # the same sections by key (the browser keeps their open state by it), though the
    # edited one's label now carries the edit mark
    assert [key for key, _ in sections()] == keys
    assert sum(label.endswith("•") for _, label in sections()) == 1
