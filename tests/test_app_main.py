"""AppTest: the entry script, sidebar loading, errors, query string and state."""

from __future__ import annotations

import json
from pathlib import Path

from apptest_helpers import errors, metric, open_app

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
