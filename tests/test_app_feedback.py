"""AppTest: the Feedback page (ranked ops, K and min-delta, JSON text, delta vs applied
alone, the chart following the filter, applying a fix)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from apptest_helpers import metric, open_app
from streamlit.testing.v1 import AppTest

import oa_core
from app.views import alone_note

SCORE = 0.7678571428571429
RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"


def apply_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.label == "Apply this fix"]


def ops_markdown(at: AppTest) -> list[str]:
    return [m.value.replace("\\", "") for m in at.markdown if re.match(r"\d+\. ", m.value)]


def numbers(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("delta **")]


def deltas_html(at: AppTest) -> str:
    """The delta chart (static HTML drawn by ``views.delta_chart_html``)."""
    return next(h.proto.body for h in at.get("html") if 'class="oa-deltas"' in h.proto.body)


def deltas_chart(at: AppTest) -> dict:
    """The chart's bars (delta, color, printed value) and diamonds (applied alone)."""
    body = deltas_html(at)
    bars = re.findall(r'<div class="bar" style="[^"]*background:(#[0-9A-Fa-f]{6})" '
                      r'data-delta="([^"]+)"></div><span class="value"[^>]*>([^<]+)</span>',
                      body)
    return {"x": [float(delta) for _, delta, _ in bars],
            "color": [color for color, _, _ in bars],
            "text": [text for _, _, text in bars],
            "alone": [float(v) for v in re.findall(r'data-alone="([^"]+)"', body)]}


def test_feedback_text_and_ranked_ops() -> None:
    at = open_app("feedback.py")
    text = at.code[0].value
    assert text.startswith("The prediction scored 0.77 (deficit 0.23). Top 5 of 5")
    assert "/period/1: expected 2025, got 2026. Fixing this recovers +0.0625." in text
    assert len(apply_buttons(at)) == 5
    bars = deltas_chart(at)
    # ranked by realised gain (the diamonds) by default; the deltas still add up
    assert bars["alone"] == sorted(bars["alone"], reverse=True)
    assert bars["x"] != sorted(bars["x"], reverse=True)
    assert sum(bars["x"]) == pytest.approx(1 - SCORE)
    assert bars["text"][0] == "+0.0625"  # the explorer's 4-decimal format
    at.radio(key="w.oa.fb_rank").set_value("delta").run()
    assert deltas_chart(at)["x"] == sorted(bars["x"], reverse=True)
    assert at.code[0].value == text  # the feedback text keeps the paper's order


def test_the_best_fix_first_by_realised_gain() -> None:
    """On the running example the extraneous "reviews" has the largest delta but
    gains less than the period and agenda fixes (issue 23): it ranks fourth."""
    at = open_app("feedback.py")
    assert at.radio(key="w.oa.fb_rank").value == "gain"
    shown = numbers(at)
    assert shown[:2] == ["delta **+0.0625** · gain **+0.0625**"] * 2
    assert shown[3] == "delta **+0.0625** · gain **+0.0407**"
    assert "Ranked by realised gain" in "\n".join(c.value for c in at.caption)
    assert "by realised gain" in "\n".join(h.value for h in at.subheader)
    text = at.code[0].value.split("\n")
    assert "reviews" in next(line for line in text if line.startswith("1."))


def test_feedback_text_is_json_not_python() -> None:
    at = open_app("feedback.py")
    text = at.code[0].value
    assert '{"id": 6, "name": "Eve", "role": "Intern"}' in text
    assert "{'id'" not in text and "'Eve'" not in text
    assert '"closing", got "closin"' in text


def test_each_op_shows_its_delta_and_what_applying_it_alone_moves() -> None:
    at = open_app("feedback.py")
    at.radio(key="w.oa.fb_rank").set_value("delta").run()
    shown = numbers(at)
    assert len(shown) == 5
    # the extraneous "reviews": a +0.0625 share, but alone the agenda re-pairs: +0.0407
    assert shown[0] == "delta **+0.0625** · gain **+0.0407**"
    assert "delta **+0.0625** · gain **+0.0625**" in shown  # the period fix: exactly
    notes = [c.value for c in at.caption if "its delta" in c.value]
    assert notes[0].startswith("less than its delta") and "re-pair" in notes[0]
    assert "exactly its delta" in notes
    assert any("share of the deficit" in m.value and "aligned again" in m.value
               for m in at.markdown)
    # the figure is what oa_core says when the op alone is applied and rescored
    gold, candidate, schema = (json.loads((RUNNING / f"{d}.json").read_text())
                               for d in ("gold", "candidate", "schema"))
    alignment = oa_core.align(gold, candidate, schema)
    first = oa_core.render_feedback(alignment).shown[0]
    moved = oa_core.score(gold, oa_core.apply_ops(candidate, [first]), schema) - SCORE
    assert f"{moved:+.4f}" == "+0.0407"
    # the chart marks the applied-alone moves with diamonds
    diamonds = deltas_chart(at)["alone"]
    assert len(diamonds) == 5 and diamonds[0] == pytest.approx(moved)
    assert "realised gain (applied alone, rescored)" in deltas_html(at)  # the legend


def test_by_delta_gains_are_computed_only_for_the_shown_ops() -> None:
    at = open_app("feedback.py")
    at.radio(key="w.oa.fb_rank").set_value("delta").run()
    at.slider(key="w.oa.fb_k").set_value(2).run()
    assert len(numbers(at)) == 2
    assert len(deltas_chart(at)["alone"]) == 2


def test_alone_note_in_words() -> None:
    assert alone_note(0.0625, 0.0625) == "exactly its delta"
    assert alone_note(0.0625, 0.0407).startswith("less than its delta")
    assert alone_note(0.01, 0.02).startswith("more than its delta")
    assert alone_note(0.01, None) == "could not be applied alone"


def test_k_and_min_delta_limit_what_is_shown() -> None:
    at = open_app("feedback.py")
    at.slider(key="w.oa.fb_k").set_value(2).run()
    assert "Top 2 of 5" in at.code[0].value
    assert len(apply_buttons(at)) == 2
    at.slider(key="w.oa.fb_k").set_value(5).run()
    at.number_input(key="w.oa.fb_min_delta").set_value(0.05).run()
    assert len(apply_buttons(at)) == 3
    assert "closin" not in at.code[0].value


def test_the_chart_follows_the_minimum_delta() -> None:
    at = open_app("feedback.py")
    assert len(deltas_chart(at)["x"]) == 5
    at.number_input(key="w.oa.fb_min_delta").set_value(0.05).run()
    bars = deltas_chart(at)
    assert len(bars["x"]) == 3 and min(bars["x"]) >= 0.05
    assert any("2 ops below the minimum delta left out" in c.value for c in at.caption)
    at.slider(key="w.oa.fb_k").set_value(2).run()
    colors = deltas_chart(at)["color"]
    assert colors.count("#bbbbbb") == 1  # the third, ranked below K, in gray
    assert colors[2] == "#bbbbbb"


def test_chart_is_static_with_each_op_message_on_hover() -> None:
    """Drawn as HTML (cheap to redraw): nothing in it takes the keyboard focus before
    the page's actions, and each row's hover text is the op's message."""
    at = open_app("feedback.py")
    body = deltas_html(at)
    assert not at.get("plotly_chart")
    assert not re.search(r"<(button|a|input)\b|tabindex", body)
    assert 'title="/period/1: expected 2025, got 2026. Fixing this recovers +0.0625. ' \
           '(delta +0.0625)"' in body
    assert "score recovered" in body and ">0.0600<" in body  # the axis and a tick


def test_apply_a_fix_moves_the_score_by_its_delta_and_undo() -> None:
    at = open_app("feedback.py")
    ops = ops_markdown(at)
    index = next(i for i, text in enumerate(ops) if "/period/1" in text)
    apply_buttons(at)[index].click().run()
    assert not at.exception
    assert metric(at, "Score") == "0.83"  # 0.768 + 0.0625
    moved = at.success[0].value
    assert "moved +0.0625" in moved and "delta was +0.0625" in moved
    assert "0.7679 → **0.8304**" in moved
    assert "2025, got 2026" not in at.code[0].value
    at.switch_page("../pages/overview.py").run()
    assert metric(at, "Score") == "0.83"
    at.switch_page("../pages/feedback.py").run()
    next(b for b in at.button if b.label == "Undo this fix").click().run()
    assert metric(at, "Score") == "0.77"


def test_a_high_minimum_delta_says_so() -> None:
    at = open_app("feedback.py")
    at.number_input(key="w.oa.fb_min_delta").set_value(0.5).run()
    assert not apply_buttons(at)
    assert "No operation recovers at least 0.5000" in at.info[0].value


def test_a_fix_replacing_the_whole_output_says_it_teaches_nothing() -> None:
    at = open_app("feedback.py")
    at.text_area(key="w.paste.candidate").input(json.dumps(["not", "an", "object"]))
    next(b for b in at.button if b.label == "Load the pasted documents").click().run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning if "teaches nothing" in w.value]
    assert len(warnings) == 1 and "replaces the whole output with the gold" in warnings[0]
    apply_buttons(at)[0].click().run()
    assert metric(at, "Score") == "1.00"
    # the link names the fix by a digest, not the whole gold it wrote
    assert len(at.query_params["fixes"]) == 12
