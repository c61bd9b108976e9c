"""AppTest: the entry script, sidebar loading, errors, query string and state."""

from __future__ import annotations

import json
import re
from pathlib import Path

from apptest_helpers import errors, metric, open_app
from streamlit.testing.v1 import AppTest

from app import session
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
    # a click that reruns the page races its own deferred download (the rerun can drop
    # the data callable's id before the browser asks for the file)
    assert all(b.proto.ignore_rerun for b in at.get("download_button"))


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
    variants = at.radio(key="w.example.candidate")
    variants.set_value("candidates/fully_reversed.json").run()
    assert not at.exception
    assert at.session_state["oa.trio"].candidate_file == "candidates/fully_reversed.json"
    assert metric(at, "Score") != first


def test_malformed_paste_shows_line_and_column_and_keeps_the_documents() -> None:
    at = open_app()
    at.text_area(key="w.paste.candidate").input('{"people": [\n  {"id": 1,, }\n]}')
    at.button(key="w.load_pasted").click().run()
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
    at.button(key="w.load_pasted").click().run()
    text = errors(at)
    assert "/properties/agenda/items/score" in text.replace("\\", "")
    assert "jaro\\_winkler" in text  # the fix suggests the right name


def test_pasted_jsonc_candidate_replaces_only_the_candidate() -> None:
    at = open_app()
    candidate = json.loads((RUNNING / "gold.json").read_text())
    at.text_area(key="w.paste.candidate").input(
        "// the gold itself\n" + json.dumps(candidate) + "\n")
    at.button(key="w.load_pasted").click().run()
    assert not at.error
    assert metric(at, "Score") == "1.00"
    assert at.session_state["oa.trio"].source == "custom"


def test_state_survives_page_switches() -> None:
    at = open_app()
    at.toggle(key="w.oa.hide_perfect").set_value(False).run()
    at.switch_page("../pages/match_tree.py").run()
    assert at.title[0].value == "Match tree"
    at.switch_page("../pages/overview.py").run()
    assert at.toggle(key="w.oa.hide_perfect").value is False
    assert at.session_state["oa.hide_perfect"] is False


def test_gold_that_violates_the_schema_is_reported_with_file_and_pointer() -> None:
    at = open_app()
    gold = json.loads((RUNNING / "gold.json").read_text())
    gold["people"][1]["id"] = "two"
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.button(key="w.load_pasted").click().run()
    assert not at.exception
    text = errors(at).replace("\\", "")
    assert "In the gold (pasted gold) at /people/1/id" in text
    assert 'not of type "integer"' in text  # values as JSON (oa_core.errors.preview_json)
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
    at.button(key="w.load_pasted").click().run()
    assert metric(at, "Score") == "1.00"
    notice = shown("\n".join(i.value for i in at.sidebar.info))
    assert "gold: pasted; candidate and schema: from running_example" in notice
    for document in ("candidate", "schema"):  # the rest given too: no longer a mix
        text = (RUNNING / f"{document}.json").read_text()
        at.text_area(key=f"w.paste.{document}").input(text)
    at.button(key="w.load_pasted").click().run()
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


# ------------------------------------------------------------ state in the URL


def params(at: AppTest) -> dict[str, str]:
    """The URL query parameters after the last run."""
    return {key: at.query_params[key] for key in at.query_params}


def test_url_restores_example_variant_options_edits_and_fixes() -> None:
    fix = [{"op": "replace", "path": "/period/1", "value": 2025}]
    edits = {"/properties/agenda/valueWeight": 3}
    hide = not open_app().session_state["oa.bound"]["oa.hide_perfect"]  # not the default
    query = {"example": "running_example", "wl_mode": "blend", "wl_lambda": "0.25",
             "hide_perfect": str(hide).lower(), "edits": json.dumps(edits),
             "fixes": json.dumps([fix])}
    at = open_app(query=query)
    state = at.session_state
    assert state["oa.wl_mode"] == "blend" and state["oa.wl_lambda"] == 0.25
    assert state["oa.schema_edits"] == edits
    fixes = state["oa.applied_fixes"]
    assert [f["patch"] for f in fixes] == [fix] and fixes[0]["after"]["period"] == [2023, 2025]
    assert at.toggle(key="w.oa.hide_perfect").value is hide
    assert state["oa.hide_perfect"] is hide
    url = params(at)
    assert json.loads(url.pop("edits")) == edits
    assert url.pop("fixes") == session.patch_digest(fix)  # a name, not the patch
    assert url == {"example": "running_example", "wl_mode": "blend", "wl_lambda": "0.25",
                   "hide_perfect": str(hide).lower()}


def test_a_link_names_fixes_by_digest_and_keeps_big_values_out() -> None:
    gold = json.loads((RUNNING / "gold.json").read_text())
    big = [{"op": "replace", "path": "", "value": gold}]  # a whole-output fix
    names = [session.patch_digest(fix) for fix in (
        [{"op": "replace", "path": "/period/1", "value": 2025}], big)]
    assert all(len(name) == 12 for name in names)
    again = open_app(query={"example": "running_example", "fixes": names[0]})
    fixes = again.session_state["oa.applied_fixes"]
    assert [f["patch"] for f in fixes] == [[{"op": "replace", "path": "/period/1",
                                             "value": 2025}]]
    assert params(again)["fixes"] == names[0]
    ignored = open_app(query={"example": "running_example", "fixes": names[1]})
    assert ignored.session_state["oa.applied_fixes"] == []  # not an op of this trio


def test_url_selects_a_variant_and_a_page_option_waits_for_its_page() -> None:
    at = open_app(query={"example": "facts2order", "schema": "schema_set.json",
                         "candidate": "candidates/fully_reversed.json", "fb_k": "2"})
    trio = at.session_state["oa.trio"]
    assert (trio.schema_file, trio.candidate_file) == (
        "schema_set.json", "candidates/fully_reversed.json")
    assert params(at)["fb_k"] == "2"  # kept while the Feedback page is not open
    at.switch_page("../pages/feedback.py").run()
    assert at.slider(key="w.oa.fb_k").value == 2
    at.switch_page("../pages/match_tree.py").run()  # a page switch keeps every parameter
    assert params(at) == {"example": "facts2order", "schema": "schema_set.json",
                          "candidate": "candidates/fully_reversed.json", "fb_k": "2"}


def test_widget_changes_write_the_url_and_defaults_leave_it() -> None:
    at = open_app()
    assert params(at) == {"example": "running_example"}
    hide = not at.session_state["oa.bound"]["oa.hide_perfect"]
    at.toggle(key="w.oa.hide_perfect").set_value(hide).run()
    assert params(at)["hide_perfect"] == str(hide).lower()
    at.selectbox(key="w.example").select("org2graph").run()
    assert params(at)["example"] == "org2graph"
    at.toggle(key="w.oa.hide_perfect").set_value(not hide).run()
    assert "hide_perfect" not in params(at)
    at.switch_page("../pages/referential.py").run()
    at.radio(key="w.oa.wl_mode").set_value("none").run()
    assert params(at)["wl_mode"] == "none"
    at.switch_page("../pages/overview.py").run()
    assert params(at) == {"example": "org2graph", "wl_mode": "none"}


def test_invalid_url_values_are_ignored() -> None:
    at = open_app(query={"example": "facts2order", "candidate": "../../etc/passwd",
                         "wl_mode": "sideways", "wl_lambda": "nan", "hide_perfect": "maybe",
                         "edits": "{not json", "fixes": '[[{"op": "remove", "path": "/x"}]]'})
    assert not at.error
    state = at.session_state
    assert state["oa.trio"].candidate_file == "candidates/one_adjacent_swap.json"
    assert (state["oa.wl_mode"], state["oa.wl_lambda"]) == ("tie_break", 0.5)
    assert state["oa.schema_edits"] == {} and state["oa.applied_fixes"] == []
    assert state["oa.hide_perfect"] is state["oa.bound"]["oa.hide_perfect"]
    assert params(at) == {"example": "facts2order"}


def test_a_custom_trio_is_named_in_the_url_and_restored_on_refresh() -> None:
    at = open_app()
    gold = (RUNNING / "gold.json").read_bytes()
    at.file_uploader(key="w.upload.candidate").set_value(
        ("copy.json", gold, "application/json")).run()
    url = params(at)
    assert "example" not in url and len(url["trio"]) == 16
    again = open_app(query=url)  # a refresh: a new session on the same URL
    assert again.session_state["oa.trio"].candidate == json.loads(gold)
    assert metric(again, "Score") == "1.00"
    assert any("a link does not carry documents" in c.value for c in again.sidebar.caption)
    lost = open_app(query={"trio": "0123456789abcdef", "wl_mode": "none"})
    assert "a link does not carry documents" in errors(lost)
    assert lost.session_state["oa.wl_mode"] == "none"  # the options still apply
    assert metric(lost, "Score") == "0.68"


# ------------------------------------------------------------ trios, JSONL, warnings


def _running() -> dict[str, object]:
    return {d: json.loads((RUNNING / f"{d}.json").read_text())
            for d in ("gold", "candidate", "schema")}


def test_the_downloaded_trio_loads_back_as_a_trio_in_any_uploader() -> None:
    trio = _running()
    trio["candidate"]["period"] = [2023, 2025]  # type: ignore[index]
    for document in ("gold", "candidate", "schema"):
        at = open_app()
        at.file_uploader(key=f"w.upload.{document}").set_value(
            ("running_example-trio.json", json.dumps(trio).encode(), "application/json")).run()
        assert not at.error and not at.warning, document
        loaded = at.session_state["oa.trio"]
        assert (loaded.gold, loaded.candidate, loaded.schema) == (
            trio["gold"], trio["candidate"], trio["schema"])
        assert metric(at, "Score") == "0.83"
        assert "Custom input: gold, candidate and schema: running_example-trio.json" in [
            shown(c.value) for c in at.sidebar.caption]


def test_a_pasted_trio_loads_as_a_trio() -> None:
    at = open_app(query={"example": "facts2order"})
    at.text_area(key="w.paste.gold").input(json.dumps(_running()))
    at.button(key="w.load_pasted").click().run()
    assert metric(at, "Score") == "0.77"


def test_jsonl_loads_the_first_line_and_offers_a_picker() -> None:
    trio = _running()
    pair = {"id": "doc-2", "gold": trio["gold"], "candidate": trio["gold"]}
    lines = "\n".join([json.dumps(trio["candidate"]), "", json.dumps(pair)]) + "\n"
    at = open_app()
    at.file_uploader(key="w.upload.candidate").set_value(
        ("runs.jsonl", lines.encode(), "application/jsonl")).run()
    assert not at.error
    assert metric(at, "Score") == "0.77"
    picker = at.selectbox(key="w.jsonl_line")
    assert picker.options == ["line 1: candidate", "line 3: pair “doc-2”"]
    picker.set_value(1).run()
    assert metric(at, "Score") == "1.00"
    assert at.session_state["oa.trio"].files["gold"] == "runs.jsonl line 3"


def test_a_broken_jsonl_line_is_named() -> None:
    at = open_app()
    at.file_uploader(key="w.upload.gold").set_value(
        ("runs.jsonl", b'{"a": 1}\n{"b" 2}\n', "application/jsonl")).run()
    assert "runs.jsonl line 2" in errors(at).replace("\\", "")
    assert metric(at, "Score") == "0.77"


def test_warns_about_undeclared_gold_keys_and_documents_sharing_no_keys() -> None:
    at = open_app()
    assert not at.warning
    gold = _running()["gold"]
    gold["people"][0]["nickname"] = "Al"  # type: ignore[index]
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.button(key="w.load_pasted").click().run()
    text = "\n".join(w.value for w in at.warning).replace("\\", "")
    assert "keys the schema does not declare: “nickname” (at /people/0/nickname)" in text
    assert "share no keys" not in text
    at.text_area(key="w.paste.gold").input("")
    at.text_area(key="w.paste.candidate").input('{"title": "x", "rows": [1, 2]}')
    at.button(key="w.load_pasted").click().run()
    text = "\n".join(w.value for w in at.warning)
    assert "share no keys at all" in text


def test_chunks_are_preloaded_once_per_session() -> None:
    """The first run asks the browser to import Streamlit's chunks ahead (a fixed script
    naming their files): the small ones when idle, plotly's only after a quiet while;
    later runs of the session do not."""
    at = open_app()
    scripts = [h.proto.body for h in at.sidebar.get("html") if "PlotlyChart." in h.proto.body]
    assert len(scripts) == 1 and "import(url(name))" in scripts[0]
    small, big = scripts[0].split("const big = ")
    assert re.search(r'\["PageLink\.[\w-]+\.js", "Slider\.', small)
    assert big.startswith('["PlotlyChart.') and "performance.now() - last >= 3000" in big
    assert at.sidebar.get("html")[0].proto.unsafe_allow_javascript
    at.run()
    assert not [h for h in at.sidebar.get("html") if "PlotlyChart." in h.proto.body]
