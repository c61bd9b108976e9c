"""AppTest: the Schema tuning page (generated widgets, live rescoring, moved nodes)."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

from apptest_helpers import as_numbers, html_table, metric, open_app
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import oa_core
from app import schema_widgets
from app.pair import scoring
from app.session import apply_edits
from app.text import WORD_JOINER, md_inline
from oa_core import Schema

AGENDA = "/properties/agenda"
RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"
WEIGHTS = ("/properties/agenda/valueWeight", "/properties/people/valueWeight",
           "/properties/period/valueWeight", "/properties/mentorships/valueWeight",
           "/properties/people/items/properties/name/valueWeight",
           "/properties/people/items/properties/role/valueWeight")


def depth(where: str) -> int:
    """A "Where the score moved" row's depth below the root."""
    return (len(where) - len(where.lstrip(schema_widgets.INDENT))) // len(schema_widgets.INDENT)


def open_tuning(schema: dict | None = None) -> AppTest:
    """The Schema tuning page with every (lazy) section opened, as by clicks."""
    at = open_app("schema_tuning.py")
    schema = schema or json.loads((RUNNING / "schema.json").read_text())
    for node, _ in schema_widgets.grouped_knobs(Schema.parse(schema)):
        at.session_state[schema_widgets.section_key(node.pointer)] = True
    at.session_state["w.tune_show_schema"] = True
    at.run()
    assert not at.exception, at.exception
    return at


def tuning_keys(at: AppTest) -> set[str]:
    return {w.key for w in [*at.number_input, *at.slider, *at.selectbox, *at.checkbox]
            if w.key and w.key.startswith("tune:")}


def test_closed_sections_send_no_widgets_and_open_on_click() -> None:
    at = open_app("schema_tuning.py")
    closed = tuning_keys(at)
    assert closed and all(key.count("/") <= 3 for key in closed)  # the root's knobs only
    assert "tune:/properties/agenda/items/threshold" not in closed
    at.session_state[schema_widgets.section_key("/properties/agenda/items")] = True
    at.run()
    assert "tune:/properties/agenda/items/threshold" in tuning_keys(at)
    assert not at.code  # the edited schema is shown only on request
    at.session_state["w.tune_show_schema"] = True
    at.run()
    assert '"agenda"' in at.code[0].value


def test_a_widget_for_every_knob_of_the_schema() -> None:
    at = open_tuning()
    keys = {w.key for w in [*at.number_input, *at.slider, *at.selectbox, *at.checkbox]}
    expected = {
        "tune:/properties/people/items/properties/name/valueWeight",
        "tune:/properties/people/items/keyImportance",
        "tune:/properties/people/order",
        "tune:/properties/mentorships/ignoreExcess",
        "tune:/properties/agenda/items/score",
        "tune:/properties/agenda/items/threshold",
        "tune:/properties/period/prefixWeights/0",
        "tune:/properties/period/prefixWeights/1",
        "tune:/properties/period/prefixItems/1/score",
    }
    assert expected <= keys
    # identifiers and references are matched symbolically: no comparator knob
    assert "tune:/properties/people/items/properties/id/score" not in keys
    assert metric(at, "Score with the edited schema") == "0.7679"


def test_changing_the_order_rescores_everywhere() -> None:
    at = open_tuning()
    at.selectbox(key=f"tune:{AGENDA}/order").select("align").run()
    assert not at.exception
    edited = float(metric(at, "Score with the edited schema"))
    assert edited > 0.7679  # 'reviews' is no longer out of place
    delta = next(m.delta for m in at.metric if m.label == "Score with the edited schema")
    assert delta.startswith("+0.")  # a gain, signed
    assert metric(at, "Score with the original schema") == "0.7679"
    moved = at.table[0].value  # a static table (see the page)
    where = [text.strip(schema_widgets.INDENT) for text in moved["where"]]
    assert where[0] == "(root)"  # the total first
    assert "agenda" in where and "agenda[]" in where
    assert '"order": "align"' in at.code[0].value
    at.switch_page("../pages/overview.py").run()
    assert next(m.value for m in at.metric if m.label == "Score") == f"{edited:.2f}"
    at.switch_page("../pages/schema_tuning.py").run()
    # back on the page, its sections start closed
    at.session_state[schema_widgets.section_key(AGENDA)] = True
    at.run()
    assert at.selectbox(key=f"tune:{AGENDA}/order").value == "align"
    next(b for b in at.button if b.label == "Reset all edits").click().run()
    assert metric(at, "Score with the edited schema") == "0.7679"


def test_weights_comparators_and_thresholds_move_the_score() -> None:
    at = open_tuning()
    at.number_input(key="tune:/properties/period/prefixWeights/1").set_value(3.0).run()
    lowered = float(metric(at, "Score with the edited schema"))
    assert lowered < 0.7679
    schema = json.loads(at.code[0].value)
    assert schema["properties"]["period"]["prefixWeights"] == [1.0, 3.0]
    at.selectbox(key="tune:/properties/agenda/items/score").select("exact").run()
    assert float(metric(at, "Score with the edited schema")) < lowered  # closin != closing
    at.slider(key="tune:/properties/agenda/items/threshold").set_value(0.99).run()
    assert not at.exception


def test_an_invalid_edit_is_reported_and_the_page_keeps_working() -> None:
    at = open_tuning()
    at.number_input(key="tune:/properties/period/prefixWeights/0").set_value(0.0).run()
    at.number_input(key="tune:/properties/period/prefixWeights/1").set_value(0.0).run()
    text = "\n".join(e.value for e in at.error).replace("\\", "")
    assert "/properties/period/prefixWeights" in text and "sum to 0" in text
    at.number_input(key="tune:/properties/period/prefixWeights/1").set_value(1.0).run()
    assert not at.error
    assert float(metric(at, "Score with the edited schema")) < 0.7679  # 2023 weighs 0 now
    at.number_input(key="tune:/properties/period/prefixWeights/0").set_value(1.0).run()
    assert metric(at, "Score with the edited schema") == "0.7679"
    assert metric(at, "Edited settings") == "0"


NAME = "**B** $y$ [L](http://x)"  # bold, maths and a link if it were read as Markdown


def test_defect_25_property_name_is_shown_literally_in_labels() -> None:
    at = open_app("schema_tuning.py")
    for document in ("gold", "candidate", "schema"):  # 'agenda' renamed everywhere
        value = json.loads((RUNNING / f"{document}.json").read_text())
        properties = value["properties"] if document == "schema" else value
        properties[NAME] = properties.pop("agenda")
        at.text_area(key=f"w.paste.{document}").input(json.dumps(value))
    at.sidebar.button[0].click().run()  # "Load the pasted documents"
    assert not at.exception and not at.error
    labels = [e.label for e in at.expander]
    escaped = md_inline(NAME)
    assert escaped == r"\*\*B\*\* \$y\$ \[L\]\(http\:" + WORD_JOINER + r"//x\)"
    assert f"{escaped}  ·  array" in labels
    assert f"{escaped}\\[\\]  ·  string" in labels  # its items
    weight = at.number_input(key="tune:/properties/" + NAME.replace("~", "~0").replace(
        "/", "~1") + "/valueWeight")
    assert weight.label == f"valueWeight of {escaped}"
    assert NAME not in "\n".join([*labels, weight.label, weight.help])  # nothing raw
    assert metric(at, "Score with the edited schema") == "0.7679"


def test_search_narrows_the_sections_to_the_matching_settings() -> None:
    at = open_app("schema_tuning.py")
    everything = len(at.expander)
    at.text_input(key="w.oa.tune_search").input("agenda threshold").run()
    assert not at.exception
    keys = {w.key for w in [*at.number_input, *at.slider, *at.selectbox, *at.checkbox]
            if w.key.startswith("tune:")}
    assert keys == {"tune:/properties/agenda/items/threshold"}
    assert "1 of" in "\n".join(c.value for c in at.caption)
    shown = [e for e in at.expander if "·" in e.label]
    assert len(shown) == 1 and shown[0].label == "agenda\\[\\]  ·  string"
    assert len(at.expander) < everything
    at.text_input(key="w.oa.tune_search").input("no such knob").run()
    assert "No setting matches" in "\n".join(c.value for c in at.caption)
    at.text_input(key="w.oa.tune_search").input("").run()
    assert len(at.expander) == everything


def _asked_when_slow(at: AppTest) -> AppTest:
    """Click "Compute the most sensitive settings" when the page asks for it: it does
    when one alignment took long enough (wall time, so on a busy machine) that rescoring
    every weight is estimated at a second or more."""
    ask = [b for b in at.button if b.label == "Compute the most sensitive settings"]
    if ask:
        ask[0].click().run()
    return at


def test_most_sensitive_settings_are_finite_differences_of_the_score() -> None:
    at = _asked_when_slow(open_app("schema_tuning.py"))
    table = html_table(at, "sensitive")  # a plain table: no data grid on the page
    assert not at.dataframe
    assert list(table.columns) == ["setting", "value", "score per +1", "pointer"]
    assert len(table) == 10
    assert table["score per +1"].str.fullmatch(r"[+-]\d\.\d{4}").all()  # signed, 4 places
    assert table["value"].str.fullmatch(r"\d+\.\d{3}").all()
    slopes = list(as_numbers(table["score per +1"]))
    assert slopes == sorted(slopes, key=lambda s: -abs(s))  # largest moves first
    agenda = table[table["pointer"] == "/properties/agenda/valueWeight"].iloc[0]
    assert agenda["score per +1"].startswith("-")  # the agenda is the worst part: weighing
    # it more hurts
    # check one slope by rescoring by hand
    schema = json.loads((RUNNING / "schema.json").read_text())
    gold = json.loads((RUNNING / "gold.json").read_text())
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    import oa_core

    def at_weight(w: float) -> float:
        schema["properties"]["agenda"]["valueWeight"] = w
        return oa_core.score(gold, candidate, schema)

    assert agenda["score per +1"] == f"{(at_weight(1.1) - at_weight(0.9)) / 0.2:+.4f}"
    # an edit: the table stays at the original schema until asked
    at.number_input(key="tune:/properties/agenda/valueWeight").set_value(3.0).run()
    assert "at the original schema" in "\n".join(c.value for c in at.caption)
    next(b for b in at.button if b.label == "Recompute at the edited settings").click().run()
    assert "at the current settings" in "\n".join(c.value for c in at.caption)
    table = html_table(at, "sensitive")
    assert table[table["pointer"] == "/properties/agenda/valueWeight"].iloc[0]["value"] == "3.000"


def test_where_the_score_moved_adds_up_to_the_score_change() -> None:
    at = open_tuning()
    at.number_input(key="tune:/properties/agenda/valueWeight").set_value(3.0).run()
    moved = at.table[0].value  # a static table (see the page)
    indent = schema_widgets.INDENT
    where = list(moved["where"])
    # the agenda's cost rose with its weight; its siblings people and period lost
    # weight share, so their costs fell although no score of theirs moved
    assert [w.strip(indent) for w in where] == [
        "(root)", "agenda", "agenda[]", "people", "people[]", "period", "period[1]"]
    top = [k for k, w in enumerate(where) if depth(w) == 1]
    change = list(moved["score Δ"])
    assert math.isclose(math.fsum(change[k] for k in top), change[0], abs_tol=1e-15)
    assert f"{change[0]:+.4f}" == "-0.0933" and f"{change[1]:+.4f}" == "-0.1280"
    assert change[3] > 0 and change[5] > 0  # the siblings' costs fell
    next(b for b in at.button if b.label == "Reset all edits").click().run()
    at.slider(key="tune:/properties/agenda/items/threshold").set_value(0.99).run()
    moved = at.table[0].value
    moved.index = [w.strip(indent) for w in moved["where"]]
    assert set(moved.index) == {"(root)", "agenda", "agenda[]"}
    items = moved.loc["agenda[]"]
    assert items["paths"] == "/agenda/0, /agenda/1, /agenda/2"  # each path once
    assert items["score after"] < items["score before"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WEIGHTS), st.floats(0.0, 8.0)), max_size=3))
def test_cost_moves_add_up_to_the_score_change(edits: list[tuple[str, float]]) -> None:
    """The rows one step below the root add up (fsum) to the score's change, whatever
    weights are edited."""
    gold, candidate, schema = (json.loads((RUNNING / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    edited = apply_edits(schema, dict(edits))
    before = oa_core.align(gold, candidate, schema)
    after = oa_core.align(gold, candidate, edited)
    rows = schema_widgets.cost_moves(before.tree, after.tree, dict(edits))
    depths = [depth(row["where"]) for row in rows]
    change = after.score - before.score
    if not rows:  # nothing moved
        assert change == 0
        return
    assert math.isclose(rows[0]["score Δ"], change, abs_tol=1e-15)
    top = [row["score Δ"] for row, d in zip(rows, depths, strict=True) if d == 1]
    assert math.isclose(math.fsum(top), change, abs_tol=1e-12)


def _occupy_background_thread() -> threading.Event:
    """Hold the background alignments' one thread until the returned event is set."""
    release = threading.Event()
    executor, _ = scoring._background()
    executor.submit(release.wait, 60)
    return release


def test_align_soon_never_waits_and_align_reuses_its_result() -> None:
    gold, candidate, schema = (json.loads((RUNNING / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    schema["properties"]["agenda"]["valueWeight"] = 7.25  # a key no other test aligned
    release = _occupy_background_thread()
    try:
        key, result = scoring.align_soon(gold, candidate, schema, wait=0.0)
        assert result == scoring.PENDING and not scoring.is_ready(key)
        # a newer edit supersedes it: not started yet, so it is dropped
        schema["properties"]["agenda"]["valueWeight"] = 7.5
        newer, result = scoring.align_soon(gold, candidate, schema, wait=0.0,
                                           superseded=key)
        assert result == scoring.PENDING and key not in scoring._background()[1]
    finally:
        release.set()
    _, result = scoring.align_soon(gold, candidate, schema, wait=60)
    assert isinstance(result, scoring.Scored) and scoring.is_ready(newer)
    assert result.alignment.score == oa_core.score(gold, candidate, schema)
    # a page asking with align() gets the background result, not a second alignment
    assert scoring.align(gold, candidate, schema) is result


def test_a_slow_rescoring_keeps_the_previous_figures_on_screen() -> None:
    at = open_tuning()
    at.number_input(key="tune:/properties/agenda/valueWeight").set_value(3.0).run()
    before = metric(at, "Score with the edited schema")
    release = _occupy_background_thread()
    try:
        at.number_input(key="tune:/properties/agenda/valueWeight").set_value(5.5).run()
        assert not at.exception, [e.value for e in at.exception]
        assert any("Rescoring with the new settings" in c.value for c in at.caption)
        assert metric(at, "Score with the edited schema") == before  # the previous one
    finally:
        release.set()
    at.run()  # what the polling fragment does once the new result is ready
    assert not any("Rescoring" in c.value for c in at.caption)
    assert metric(at, "Score with the edited schema") != before
