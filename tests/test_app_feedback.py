"""AppTest: the Feedback page (ranked ops, K and min-delta, text, applying a fix)."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import open_app
from streamlit.testing.v1 import AppTest


def apply_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.label == "Apply this fix"]


def ops_markdown(at: AppTest) -> list[str]:
    return [m.value.replace("\\", "") for m in at.markdown if m.value[:3] in {"1. ", "2. ",
                                                                           "3. ", "4. ", "5. "}]


def test_feedback_text_and_ranked_ops() -> None:
    at = open_app("feedback.py")
    text = at.code[0].value
    assert text.startswith("The prediction scored 0.77 (deficit 0.23). Top 5 of 5")
    assert "/period/1: expected 2025, got 2026" in text
    assert len(apply_buttons(at)) == 5
    chart = json.loads(next(c for c in at.get("plotly_chart") if c.key == "deltas").proto.spec)
    deltas = chart["data"][0]["x"]
    assert deltas == sorted(deltas, reverse=True)
    assert sum(deltas) == pytest.approx(1 - 0.7678571428571429)


def test_k_and_min_delta_limit_what_is_shown() -> None:
    at = open_app("feedback.py")
    at.slider(key="w.oa.fb_k").set_value(2).run()
    assert "Top 2 of 5" in at.code[0].value
    assert len(apply_buttons(at)) == 2
    at.slider(key="w.oa.fb_k").set_value(5).run()
    at.number_input(key="w.oa.fb_min_delta").set_value(0.05).run()
    assert len(apply_buttons(at)) == 3
    assert "closin" not in at.code[0].value


def test_apply_a_fix_moves_the_score_by_its_delta_and_undo() -> None:
    at = open_app("feedback.py")
    ops = ops_markdown(at)
    index = next(i for i, text in enumerate(ops) if "/period/1" in text)
    apply_buttons(at)[index].click().run()
    assert not at.exception
    score = next(m.value for m in at.metric if m.label == "Score")
    assert score == "0.83"  # 0.768 + 0.0625
    moved = at.success[0].value
    assert "moved +0.0625" in moved and "delta was +0.0625" in moved
    assert "2025, got 2026" not in at.code[0].value
    at.switch_page("../pages/overview.py").run()
    assert next(m.value for m in at.metric if m.label == "Score") == "0.83"
    at.switch_page("../pages/feedback.py").run()
    next(b for b in at.button if b.label == "Undo this fix").click().run()
    assert next(m.value for m in at.metric if m.label == "Score") == "0.77"
