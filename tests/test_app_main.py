"""AppTest: the entry script, sidebar loading, errors, query string and state."""

from __future__ import annotations

import json
import re
from pathlib import Path

from apptest_helpers import errors, metric, open_app

from app.text import WORD_JOINER, md_inline

RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"


def test_running_example_is_the_default() -> None:
    at = open_app()
    assert at.title[0].value == "Overview"
    assert metric(at, "Score") == "0.77"
    assert metric(at, "Deficit") == "0.23"
    assert at.selectbox(key="w.example").value == "running_example"
    assert [b.label for b in at.get("download_button")] == [
        "Current trio (JSON)", "Edited schema (JSON)"]


def test_query_string_selects_an_example() -> None:
    at = open_app(query={"example": "facts2order"})
    assert at.session_state["oa.trio"].source == "facts2order"
    assert at.selectbox(key="w.example").value == "facts2order"
    assert metric(at, "Score") != "0.77"


def test_unknown_example_in_query_string_is_reported() -> None:
    at = open_app(query={"example": "no_such_example"})
    assert "no bundled example 'no\\_such\\_example'" in errors(at)
    assert metric(at, "Score") == "0.77"  # the default is still loaded


def test_choosing_an_example_and_a_variant_rescores() -> None:
    at = open_app()
    at.selectbox(key="w.example").select("facts2order").run()
    assert at.query_params["example"] == "facts2order"
    first = metric(at, "Score")
    variants = at.selectbox(key="w.example.candidate")
    variants.select("candidates/fully_reversed.json").run()
    assert not at.exception
    assert at.session_state["oa.trio"].candidate_file == "candidates/fully_reversed.json"
    assert metric(at, "Score") != first


def test_malformed_paste_shows_line_and_column_and_keeps_the_documents() -> None:
    at = open_app()
    at.text_area(key="w.paste.candidate").input('{"people": [\n  {"id": 1,, }\n]}')
    at.button[0].click().run()
    text = errors(at)
    assert "Could not load the candidate" in text
    assert "line 2, column 14" in text
    assert "previously loaded documents are still in use" in text
    assert metric(at, "Score") == "0.77"


def test_schema_error_names_its_pointer() -> None:
    at = open_app()
    schema = json.loads((RUNNING / "schema.json").read_text())
    schema["properties"]["agenda"]["items"]["score"] = "jaro_winklr"
    at.text_area(key="w.paste.schema").input(json.dumps(schema))
    at.button[0].click().run()
    text = errors(at)
    assert "/properties/agenda/items/score" in text.replace("\\", "")
    assert "jaro\\_winkler" in text  # the fix suggests the right name


def test_pasted_jsonc_candidate_replaces_only_the_candidate() -> None:
    at = open_app()
    candidate = json.loads((RUNNING / "gold.json").read_text())
    at.text_area(key="w.paste.candidate").input(
        "// the gold itself\n" + json.dumps(candidate) + "\n")
    at.button[0].click().run()
    assert not at.error
    assert metric(at, "Score") == "1.00"
    assert at.session_state["oa.trio"].source == "custom"


def test_state_survives_page_switches() -> None:
    at = open_app()
    at.toggle(key="w.oa.hide_perfect").set_value(True).run()
    at.switch_page("../pages/match_tree.py").run()
    assert at.title[0].value == "Match tree"
    at.switch_page("../pages/overview.py").run()
    assert at.toggle(key="w.oa.hide_perfect").value is True
    assert at.session_state["oa.hide_perfect"] is True


def test_gold_that_violates_the_schema_is_reported_with_file_and_pointer() -> None:
    at = open_app()
    gold = json.loads((RUNNING / "gold.json").read_text())
    gold["people"][1]["id"] = "two"
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.button[0].click().run()
    assert not at.exception
    text = errors(at).replace("\\", "")
    assert "In the gold (pasted gold) at /people/1/id" in text
    assert "not of type 'integer'" in text
    at.switch_page("../pages/referential.py").run()
    assert not at.exception and at.error  # every page reports it and keeps running


NAME = "**B** $y$ [L](http://x)"  # bold, maths and a link if it were read as Markdown


def shown(markdown: str) -> str:
    """The text a reader sees of escaped Markdown (escapes and word joiners dropped)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def unescaped_markup(markdown: str) -> list[str]:
    """Markdown/LaTeX trigger characters left without their backslash."""
    return re.findall(r"[*$\[\]()_`]", re.sub(r"\\.", "", markdown))


def test_uploading_a_file_loads_it_at_once_and_says_what_is_mixed() -> None:
    at = open_app()
    gold = (RUNNING / "gold.json").read_bytes()
    at.file_uploader(key="w.upload.candidate").set_value(
        ("copy.json", gold, "application/json")).run()  # no Load click
    assert not at.exception and not at.error
    assert metric(at, "Score") == "1.00"
    trio = at.session_state["oa.trio"]
    assert trio.files["candidate"] == "copy.json"
    notice = "\n".join(i.value for i in at.sidebar.info)
    assert "Mixed documents" in notice
    assert "gold and schema: from running_example; candidate: copy.json" in shown(notice)


def test_pasting_only_a_gold_names_where_the_others_come_from() -> None:
    at = open_app()
    at.text_area(key="w.paste.gold").input((RUNNING / "candidate.json").read_text())
    at.button[0].click().run()
    assert metric(at, "Score") == "1.00"
    notice = shown("\n".join(i.value for i in at.sidebar.info))
    assert "gold: pasted; candidate and schema: from running_example" in notice
    for document in ("candidate", "schema"):  # the rest given too: no longer a mix
        text = (RUNNING / f"{document}.json").read_text()
        at.text_area(key=f"w.paste.{document}").input(text)
    at.button[0].click().run()
    assert not [i for i in at.sidebar.info if "Mixed" in i.value]
    assert "Custom input: gold, candidate and schema: pasted" in [
        shown(c.value) for c in at.sidebar.caption]


def test_defect_25_uploaded_file_name_is_shown_literally_in_the_sidebar() -> None:
    at = open_app()
    name = f"{NAME}.json"
    at.file_uploader(key="w.upload.candidate").set_value(
        (name, (RUNNING / "candidate.json").read_bytes(), "application/json")).run()
    assert not at.exception and not at.error
    notice = next(i.value for i in at.sidebar.info if "Mixed" in i.value)
    assert md_inline(name) in notice
    assert f"candidate: {name}" in shown(notice)
    assert r"\*\*B\*\* \$y\$ \[L\]\(http\:" in notice
    assert unescaped_markup(notice.replace("**Mixed documents.**", "")) == []
