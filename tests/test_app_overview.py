"""AppTest: the Overview page (score, diagnostics, aligned diff, hiding, escaping)."""

from __future__ import annotations

import json
from pathlib import Path

from apptest_helpers import open_app
from streamlit.testing.v1 import AppTest

RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"


def diff(at: AppTest) -> str:
    return str(at.get("html")[0].proto.body)


def paste(at: AppTest, document: str, value: object) -> None:
    at.text_area(key=f"w.paste.{document}").input(json.dumps(value))
    at.button[0].click().run()
    assert not at.exception, at.exception


def test_score_deficit_and_aligned_rows() -> None:
    at = open_app("overview.py")
    values = {m.label: m.value for m in at.metric}
    assert values == {"Score": "0.77", "Deficit": "0.23", "Warnings": "0",
                      "Schema violations": "0"}
    html = diff(at)
    # the twins are paired across differing list positions, on one row each
    assert "3 ↔ 2" in html and "4 ↔ 0" in html
    assert "(missing)" in html and "(excess)" in html  # Eve and the moved 'reviews'
    assert "&quot;closin&quot;" in html and "0.952" in html
    assert "linear-gradient" in html  # the score legend


def test_hide_perfect_subtrees_leaves_only_the_deficit() -> None:
    at = open_app("overview.py")
    assert "Alice" in diff(at)
    at.toggle(key="w.oa.hide_perfect").set_value(True).run()
    html = diff(at)
    assert "Alice" not in html
    assert html.count("mentorships") == 1  # only in the note that stands for it
    assert "1 perfect key hidden: mentorships" in html
    assert "5 perfect items hidden" in html  # the people Eve is not
    assert "&quot;closin&quot;" in html and "2026" in html


def test_user_text_is_escaped() -> None:
    at = open_app("overview.py")
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["agenda"][2] = "<script>alert(1)</script>"
    paste(at, "candidate", candidate)
    html = diff(at)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_warnings_and_violations_are_listed() -> None:
    at = open_app("overview.py")
    schema = json.loads((RUNNING / "schema.json").read_text())
    schema["properties"]["agenda"]["itemz"] = {}
    paste(at, "schema", schema)
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["people"][0]["role"] = "CEO"
    paste(at, "candidate", candidate)
    values = {m.label: m.value for m in at.metric}
    assert values["Warnings"] != "0" and values["Schema violations"] != "0"
    warnings = "\n".join(w.value for w in at.warning)
    assert "unknown\\-keyword" in warnings and "itemz" in warnings
    assert "/people/0/role" in "\n".join(e.value for e in at.error).replace("\\", "")
