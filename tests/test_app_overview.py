"""AppTest: the Overview page (score, diagnostics, aligned diff, hiding, search,
mismatch navigation, document order, number format, escaping)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from apptest_helpers import metric, open_app
from streamlit.testing.v1 import AppTest

import oa_core
from app.pair.diff_table import diff_html, diff_rows, mismatches, ordered_children
from app.views import fmt_delta, fmt_score

DATA = Path(__file__).resolve().parents[1] / "sample_data"
RUNNING = DATA / "running_example"
HIDE = "w.oa.hide_perfect"


def diff(at: AppTest) -> str:
    return str(at.get("html")[0].proto.body)


def unfolded(html: str) -> str:
    """The diff without its closed folds (what shows before any click)."""
    return re.sub(r"<details>.*?</details>", "", html, flags=re.S)


def rows(html: str) -> list[str]:
    return re.findall(r"<tr class=\"[^\"]*\"[^>]*>(.*?)</tr>", html, flags=re.S)


def paste(at: AppTest, document: str, value: object) -> None:
    at.text_area(key=f"w.paste.{document}").input(json.dumps(value))
    next(b for b in at.button if b.label == "Load the pasted documents").click().run()
    assert not at.exception, at.exception


def trio(name: str) -> tuple[object, object, object]:
    folder = DATA / name
    return tuple(json.loads((folder / f"{doc}.json").read_text())  # type: ignore[return-value]
                 for doc in ("gold", "candidate", "schema"))


def test_score_deficit_and_aligned_rows() -> None:
    at = open_app("overview.py")
    values = {m.label: m.value for m in at.metric}
    assert values == {"Score": "0.77", "Deficit": "0.23", "Warnings": "0", "Notes": "0",
                      "Schema violations": "0"}
    at.toggle(key=HIDE).set_value(False).run()
    html = diff(at)
    # the twins are paired across differing list positions, on one row each
    assert "3 ↔ 2" in html and "4 ↔ 0" in html
    assert "(missing)" in html and "(excess)" in html  # Eve and the moved 'reviews'
    assert "&quot;closin&quot;" in html and "0.9524" in html
    assert "linear-gradient" in html  # the score legend


def test_perfect_subtrees_are_hidden_by_default() -> None:
    at = open_app("overview.py")
    assert at.toggle(key=HIDE).value is True
    html = unfolded(diff(at))
    assert "Alice" not in html
    assert html.count("mentorships") == 1  # only in the note that stands for it
    assert "1 perfect key hidden: mentorships" in html
    assert "5 perfect items hidden" in html  # the people Eve is not
    assert "&quot;closin&quot;" in html and "2026" in html
    at.toggle(key=HIDE).set_value(False).run()
    assert "Alice" in diff(at)
    at.switch_page("../pages/feedback.py").run()
    at.switch_page("../pages/overview.py").run()
    assert at.toggle(key=HIDE).value is False  # the choice survives a page switch


def test_scierc_is_short_with_perfect_subtrees_hidden() -> None:
    gold, candidate, schema = trio("scierc")
    tree = oa_core.align(gold, candidate, schema).tree
    assert len(mismatches(tree)) == 6
    short, full = (diff_rows(tree, hide_perfect=hide) for hide in (True, False))
    assert len(short) * 4 < len(full)


def test_perfect_rows_are_neutral_and_wrong_ones_colored() -> None:
    at = open_app("overview.py")
    at.toggle(key=HIDE).set_value(False).run()
    table = rows(unfolded(diff(at)))
    alice = next(r for r in table if "&quot;Alice&quot;" in r)
    closin = next(r for r in table if "&quot;closin&quot;" in r)
    assert "background" not in alice  # perfect: no color at all
    assert "background:#" in closin
    assert "background" not in next(r for r in table if "&quot;Bob&quot;" in r)


def test_items_in_document_order() -> None:
    at = open_app("overview.py")
    at.toggle(key=HIDE).set_value(False).run()
    html = diff(at)
    # gold keys: people, mentorships, agenda, period (sorted would be agenda first)
    gold = json.loads((RUNNING / "gold.json").read_text())
    positions = [html.index(f">{key}<") for key in gold]
    assert positions == sorted(positions)
    # a person's keys in the gold's order too: id, name, role
    keys = [html.index(f'title="/people/0/{key}"') for key in ("id", "name", "role")]
    assert keys == sorted(keys)


def test_ordered_children_follow_the_documents() -> None:
    schema = {"type": "object", "properties": {"xs": {"type": "array", "order": "align",
                                                      "items": {"type": "string"}}}}
    gold = {"zeta": 1, "xs": ["a", "b"], "alpha": 2}
    candidate = {"alpha": 2, "zeta": 1, "extra": 3, "xs": ["b", "new", "a"]}
    tree = oa_core.align(gold, candidate, schema).tree
    assert [c.label for c in ordered_children(tree)] == ["zeta", "extra", "xs", "alpha"]
    items = next(c for c in tree.children if c.label == "xs")
    order = [(c.gold_path, c.candidate_path) for c in ordered_children(items)]
    assert order == [("/xs/0", "/xs/2"), ("/xs/1", "/xs/0"), (None, "/xs/1")]


def test_search_by_path_or_value() -> None:
    at = open_app("overview.py")
    at.text_input(key="w.oa.ov_search").input("Carol").run()
    html = unfolded(diff(at))
    assert "&quot;Carol&quot;" in html  # a perfect value is found too
    assert "&quot;Dave&quot;" not in html and "closin" not in html
    assert "1 node match" in at.caption[0].value
    at.text_input(key="w.oa.ov_search").input("/period").run()
    html = unfolded(diff(at))
    assert "2026" in html and "&quot;Carol&quot;" not in html
    at.text_input(key="w.oa.ov_search").input("no such thing").run()
    assert "Nothing matches" in at.caption[0].value
    at.text_input(key="w.oa.ov_search").input("").run()
    assert "closin" in diff(at)


def test_next_and_previous_mismatch() -> None:
    at = open_app("overview.py")
    assert "**5 mismatches**" in at.markdown[-1].value or any(
        "**5 mismatches**" in m.value for m in at.markdown)
    at.button(key="ov.next").click().run()
    line = next(m.value for m in at.markdown if "Mismatch " in m.value)
    assert "Mismatch 1 of 5" in line and "people/5" in line and "missing" in line
    html = diff(at)
    assert html.count('id="oa-current"') == 1
    current = next(r for r in rows(html) if 'id="oa-current"' in html and "mismatch 1<" in r)
    assert "Eve" in current
    assert len(at.get("html")) == 2  # the scroll script follows the table
    at.button(key="ov.next").click().run()
    at.button(key="ov.next").click().run()
    assert any("Mismatch 3 of 5" in m.value for m in at.markdown)
    at.button(key="ov.prev").click().run()
    assert any("Mismatch 2 of 5" in m.value for m in at.markdown)
    at.button(key="ov.prev").click().run()
    at.button(key="ov.prev").click().run()  # wraps around
    line = next(m.value for m in at.markdown if "Mismatch " in m.value)
    assert "Mismatch 5 of 5" in line and "period/1" in line and "2026" in line


def test_the_current_mismatch_is_shown_even_when_search_hides_it() -> None:
    at = open_app("overview.py")
    at.text_input(key="w.oa.ov_search").input("Carol").run()
    at.button(key="ov.prev").click().run()  # the last mismatch: /period/1
    html = diff(at)
    assert 'id="oa-current"' in html and "2026" in html


def test_one_score_format() -> None:
    assert fmt_score(0.7678571428571429) == "0.7679"
    assert fmt_score(0.7678571428571429, headline=True) == "0.77"
    assert fmt_delta(0.0625) == "+0.0625"
    at = open_app("overview.py")
    html = diff(at)
    numbers = re.findall(r'<td class="num"[^>]*>−?(\d+\.\d+)</td>', html)
    assert numbers and all(len(n.split(".")[1]) == 4 for n in numbers)
    assert "0.7679" in html  # the root's score
    caption = next(m.value for m in at.markdown if "mismatches" in m.value)
    assert caption


def test_diff_html_marks_absent_sides() -> None:
    gold, candidate, schema = trio("running_example")
    html = diff_html(diff_rows(oa_core.align(gold, candidate, schema).tree,
                               hide_perfect=True))
    assert html.count('class="absent"') == 3  # Eve, and 'reviews' moved


def test_user_text_is_escaped() -> None:
    at = open_app("overview.py")
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["agenda"][2] = "<script>alert(1)</script>"
    paste(at, "candidate", candidate)
    html = diff(at)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    at.text_input(key="w.oa.ov_search").input("<script>").run()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in diff(at)
    assert "<script>" not in "".join(c.value for c in at.caption).replace("\\<", "")


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


def test_tie_breaking_notes_are_not_counted_as_warnings() -> None:
    at = open_app("overview.py", query={"example": "bio_amr"})
    values = {m.label: m.value for m in at.metric}
    assert values["Warnings"] == "0" and values["Notes"] == "1"
    assert not at.warning
    assert "tie\\-depth" in "\n".join(i.value for i in at.info)
    assert "No warnings" in "\n".join(s.value for s in at.success)


@pytest.mark.parametrize("name", ["scierc", "bio_amr", "biored"])
def test_largest_examples_open_with_their_mismatches(name: str) -> None:
    at = open_app("overview.py", query={"example": name})
    gold, candidate, schema = trio(name)
    found = mismatches(oa_core.align(gold, candidate, schema).tree)
    assert any(f"**{len(found)} mismatch" in m.value for m in at.markdown)
    html = diff(at)
    assert html.count("<tr class=\"bad") >= len(found)


def test_a_refusal_is_shown_and_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    # A limit met deep in the documents costs as much as an alignment to reach: the
    # refusal is cached like a score, so a page switch does not pay it again.
    calls = []
    real_align = oa_core.align

    def counting_align(*args, **kwargs):
        calls.append(1)
        return real_align(*args, **kwargs)

    monkeypatch.setattr(oa_core, "align", counting_align)
    at = open_app()
    schema = {"type": "object", "properties": {"xs": {"type": "array", "maxItems": 10**6,
                                                      "items": {"type": "integer"}}}}
    at.text_area(key="w.paste.gold").input(json.dumps({"xs": list(range(6000))}))
    at.text_area(key="w.paste.candidate").input(json.dumps({"xs": list(range(1, 6001))}))
    at.text_area(key="w.paste.schema").input(json.dumps(schema))
    at.button(key="w.load_pasted").click().run()
    assert "over the limit" in "\n".join(e.value for e in at.error)
    before = len(calls)
    assert before >= 1
    for page in ("match_tree.py", "overview.py"):
        at.switch_page(f"../pages/{page}").run()
        assert "over the limit" in "\n".join(e.value for e in at.error)
    assert len(calls) == before


EMPLOYMENT = {"type": "object", "properties": {"employment": {
    "type": "array", "items": {"type": "object", "properties": {
        "person": {"type": "string"}, "company": {"type": "string"},
        "role": {"type": "string"}}}}}}


def test_a_missing_record_shows_what_was_expected_folded_and_escaped() -> None:
    """Issue 23: a record over 60 characters no longer reads ``{3 keys}``."""
    record = {"person": "4346f2", "company": "c1d8e7", "role": "<script>x</script>"}
    kept = {"person": "87b4a2", "company": "c1d8e7", "role": "associate"}
    gold = {"employment": [kept, record]}
    candidate = {"employment": [dict(kept, role="associate partner")]}
    tree = oa_core.align(gold, candidate, EMPLOYMENT).tree
    html = diff_html(diff_rows(tree, hide_perfect=True))
    missing = next(r for r in rows(html) if "(missing)" in r)
    assert "<details open>" in missing  # short: shown open, one field a line
    assert "  &quot;person&quot;: &quot;4346f2&quot;,\n" in missing
    assert "&quot;role&quot;: &quot;&lt;script&gt;x&lt;/script&gt;&quot;" in missing
    assert "<script>" not in html
    # the paired record folds closed under its size, its differing field marked
    paired = next(r for r in rows(html) if 'title="/employment/0"' in r)
    assert "<summary>{3 keys}</summary>" in paired
    assert '<span class="chg">&quot;role&quot;: &quot;associate&quot;</span> ≠' in paired
    assert "  &quot;person&quot;: &quot;87b4a2&quot;,\n" in paired  # equal: not marked
    assert "≠ marks a field that differs" in paired


def test_a_huge_value_folds_to_a_few_lines() -> None:
    gold = {"employment": [{"person": f"p{k}", "company": "c" * 500, "role": "r"}
                           for k in range(20_000)]}
    tree = oa_core.align(gold, {"employment": []}, EMPLOYMENT).tree
    rows_ = diff_rows(tree, hide_perfect=True)
    html = diff_html(rows_[:3])
    assert len(html) < 20_000  # 20,000 records of 500 characters each: 10 MB of JSON
    missing = rows_[2]
    assert missing.gold_fold is not None and missing.gold_fold.open
    assert "… (500 characters)" in missing.gold_fold.lines[1][0]
    root = rows_[0].gold_fold
    assert root is not None and "(20,000 items)" in root.lines[0][0]


def test_a_violation_shows_its_value_cut_and_in_full_one_click_away() -> None:
    at = open_app("overview.py")
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["people"] = {"id": 1, "note": "n" * 5_000}  # not a list
    paste(at, "candidate", candidate)
    message = next(e.value for e in at.error if "people" in e.value)
    assert "… \\(2 keys\\)" in message and len(message) < 600
    box = next(x for x in at.expander if x.label == "Show the full value")
    assert not box.proto.expanded and not at.code  # lazy: nothing sent while closed
    at.session_state["w.full.violation.0"] = True  # the click (a lazy expander's state)
    at.run()
    assert json.loads(at.code[0].value) == candidate["people"]


def test_many_violations_are_counted_not_all_printed() -> None:
    at = open_app("overview.py")
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["agenda"] = list(range(50))  # 50 numbers where strings belong
    paste(at, "candidate", candidate)
    violations = [e for e in at.error if "schema\\-violation" in e.value]
    assert len(violations) == 20
    assert any("… and 30 more violations like these." in c.value for c in at.caption)
    assert metric(at, "Schema violations") == "50"
