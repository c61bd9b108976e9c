"""AppTest: the Referential alignment page (WL graph, rounds, bijection, stories, modes).

The round stepper is one offline frame (``app.pair.wl_stepper``): AppTest sees its page, whose
data (every round's colours, key, signatures and the pairs' stories) is read back with
:func:`app.pair.wl_stepper.read_payload`; its script runs in tests/browser/.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

from apptest_helpers import as_numbers, html_body, html_table, open_app
from streamlit.testing.v1 import AppTest

from app.pair.wl_stepper import read_payload
from app.text import WORD_JOINER, md_inline

RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"


def stepper(at: AppTest) -> dict:
    """The data of the round stepper's frame (the only frame of the page)."""
    frames = [f.proto.srcdoc for f in at.get("iframe") if "oa-wl-data" in f.proto.srcdoc]
    assert len(frames) == 1
    return read_payload(frames[0])


def record_colors(at: AppTest, round_index: int | None = None) -> list[str]:
    data = stepper(at)
    index = data["last"] if round_index is None else round_index
    fills = data["colours"][index]["fill"]
    return [fills[i] for i, v in enumerate(data["vertices"]) if v["kind"] == "record"]


def records_drawn(at: AppTest) -> list[dict]:
    return [v for v in stepper(at)["vertices"] if v["kind"] == "record"]


def bijection(at: AppTest) -> dict[str, str]:
    frame = bijection_table(at)
    return dict(zip(frame["gold record"], frame["candidate record"], strict=True))


def test_running_example_bijection_and_twins() -> None:
    at = open_app("referential.py", timeout=60)
    scores = {m.label: m.value for m in at.metric}
    assert scores["Score with tie_break"] == "0.7679"
    assert scores["Score with none"] == "0.6845"
    deltas = {m.label: m.delta for m in at.metric}
    assert deltas["Score with none"] == "-0.0833 vs tie_break"
    assert deltas["Score with blend"] == "same as tie_break"  # equal bits: no green +0.0000
    pairs = bijection(at)
    assert pairs["4 (Dave, Engineer)"] == "92 (Dave, Engineer)"
    assert pairs["5 (Dave, Engineer)"] == "90 (Dave, Engineer)"
    assert pairs["6 (Eve, Intern)"] == "— unmatched —"
    frame = html_table(at, "bijection")  # as printed
    assert list(frame.columns)[:6] == ["gold record", "candidate record", "C (attributes)",
                                       "b (colour)", "a (depth)", "decided by"]
    assert list(frame["C (attributes)"])[3:5] == ["1.000", "1.000"]  # 3 decimals
    assert list(frame["decided by"]) == ["attributes (C)"] * 3 + ["stable colour (b)"] * 2 + [
        "no partner"]
    assert list(frame["with none"])[3:5] == ["90", "92"]  # WL off swaps the twins
    stories = stepper(at)["stories"]
    assert [s["title"] for s in stories] == [
        "gold 4 (Dave, Engineer) → candidate 92 (Dave, Engineer)",
        "gold 5 (Dave, Engineer) → candidate 90 (Dave, Engineer)"]
    steps = stories[0]["steps"]
    assert [step for step, _ in steps] == ["Attributes (C)", "Colours (b)"]
    assert "C = 1.000, the same row of C as 5 (Dave, Engineer)" in steps[0][1]
    assert "mentee of 1 (Alice, Manager)" in steps[1][1] and "round 2" in steps[1][1]
    assert stories[0]["round"] == 2  # the story shows the round that told them apart


def test_every_round_is_sent_once_and_the_stable_one_shown_first() -> None:
    at = open_app("referential.py", timeout=60)
    data = stepper(at)
    assert (data["start"], data["last"], data["param"]) == (2, 2, "wl_round")
    assert [len(set(record_colors(at, r))) for r in range(3)] == [1, 4, 6]
    assert [r["summary"].split(":")[0] for r in data["rounds"]] == [
        "Round 0 of 2", "Round 1 of 2", "Round 2 of 2"]
    assert data["rounds"][0]["summary"].startswith("Round 0 of 2: 1 class (not yet stable)")
    # the key of every round is sent (shown by default); round 1's signatures
    key = {row[0]: row for row in data["rounds"][1]["key"]}
    assert key["2"][2] == "4 (Dave, Engineer), 5 (Dave, Engineer)"
    assert "(new in this round)" in key["2"][4]
    round1 = data["rounds"][1]
    rows = [dict(zip(round1["signature_columns"], row, strict=True))
            for row in round1["signatures"]]
    dave = next(r for r in rows if r["record"] == "4 (Dave, Engineer)")
    assert dave["class before"] == "0"
    assert dave["references (classes of the round before)"] == "mentee of a class-0 record"
    # the colours of a class survive its split (class of gold 1 keeps its color)
    assert record_colors(at, 1)[0] == record_colors(at, 2)[0]
    assert not at.get("plotly_chart") and not at.slider  # no server-side round control


def test_round_zero_signatures_tell_the_start_not_references() -> None:
    """Round 0 reads no reference: its table must not show signatures that differ for
    vertices of one class (the contradiction of issue 23)."""
    for mode in ("tie_break", "blend"):
        at = open_app("referential.py", timeout=60)
        at.radio(key="w.oa.wl_mode").set_value(mode).run()
        round0 = stepper(at)["rounds"][0]
        assert "class before" not in round0["signature_columns"]
        assert "References are read from round 1 on" in round0["note"]
        column = round0["signature_columns"].index("references (classes of the round before)")
        assert all(row[column].startswith("none read yet") for row in round0["signatures"])
    assert "exact attributes" in round0["note"]  # blend seeds with the attributes


def test_equal_signatures_get_the_same_class_in_every_round() -> None:
    """What the signature table shows is true: from round 1 on, equal (class before,
    references) rows have the same class after (bundled examples, both sides)."""
    for example in ("running_example", "bio_amr", "org2graph"):
        at = open_app("referential.py", query={"example": example}, timeout=60)
        data = stepper(at)
        for view in data["rounds"][1:]:
            columns = view["signature_columns"]
            before = columns.index("class before")
            refs = columns.index("references (classes of the round before)")
            after = columns.index("class after")
            seen: dict[tuple[str, str], str] = {}
            for row in view["signatures"]:
                assert seen.setdefault((row[before], row[refs]), row[after]) == row[after], (
                    example, row)


def test_a_link_reopens_at_its_round() -> None:
    at = open_app("referential.py", query={"wl_round": "1"}, timeout=60)
    data = stepper(at)
    assert (data["start"], data["follow_url"]) == (1, True)
    # out of range or not a number: clipped or ignored
    assert stepper(open_app("referential.py", query={"wl_round": "9"}, timeout=60)
                   )["start"] == 2
    assert stepper(open_app("referential.py", query={"wl_round": "x"}, timeout=60)
                   )["start"] == 2
    # another graph (another scope, mode or documents) opens on its stable round
    at.radio(key="w.oa.wl_mode").set_value("blend").run()
    data = stepper(at)
    assert (data["start"], data["follow_url"]) == (data["last"], False)


def test_switching_wl_off_swaps_the_twins_everywhere() -> None:
    at = open_app("referential.py", timeout=60)
    at.radio(key="w.oa.wl_mode").set_value("none").run()
    assert not at.exception
    pairs = bijection(at)
    assert pairs["4 (Dave, Engineer)"] == "90 (Dave, Engineer)"
    assert "WL is off in this mode" in "\n".join(c.value for c in at.caption)
    stories = stepper(at)["stories"]
    assert len(stories) == 2
    assert stories[0]["steps"][-1][0] == "List position"
    assert "nothing breaks the tie" in stories[0]["steps"][-1][1]
    frame = html_table(at, "bijection")  # as printed
    assert list(frame["decided by"]).count("list position (WL off)") == 2
    assert (frame["b (colour)"] == "—").all() and (frame["a (depth)"] == "—").all()
    at.switch_page("../pages/overview.py").run()
    assert next(m.value for m in at.metric if m.label == "Score") == "0.68"
    at.switch_page("../pages/referential.py").run()
    assert at.radio(key="w.oa.wl_mode").value == "none"
    at.radio(key="w.oa.wl_mode").set_value("blend").run()
    assert at.slider(key="w.oa.wl_lambda").value == 0.5


def _org(size: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    names = [f"P{k % (size // 2)}" for k in range(size)]  # every name twice: twins
    people = [{"id": k + 1, "name": names[k], "role": "Engineer"} for k in range(size)]
    links = [{"mentor": rng.randrange(1, size + 1), "mentee": k + 1} for k in range(size)]
    relabel = list(range(1000, 1000 + size))
    rng.shuffle(relabel)
    new = {k + 1: relabel[k] for k in range(size)}
    cand_people = [{**p, "id": new[p["id"]]} for p in people]
    rng.shuffle(cand_people)
    cand_links = [{"mentor": new[m["mentor"]], "mentee": new[m["mentee"]]} for m in links]
    return ({"people": people, "mentorships": links, "agenda": [], "period": [1, 2]},
            {"people": cand_people, "mentorships": cand_links, "agenda": [], "period": [1, 2]})


def test_two_hundred_record_graph_loads_on_one_neighbourhood() -> None:
    at = open_app("referential.py", timeout=60)
    gold, candidate = _org(200, seed=3)
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.text_area(key="w.paste.candidate").input(json.dumps(candidate))
    at.sidebar.button[0].click().run()  # "Load the pasted documents"
    assert not at.exception and not at.error
    assert 2 < len(records_drawn(at)) < 60  # a big graph opens on one record's neighbourhood
    at.radio(key="w.oa.graph_focus.person").set_value("whole").run()
    data = stepper(at)
    assert len(records_drawn(at)) == 400 and data["dense"] and not data["edge_labels"]
    assert {m.label: m.value for m in at.metric}["Score with tie_break"] == "1.0000"


def test_interactive_view_is_an_offline_iframe_driven_by_its_slider() -> None:
    from app.pair.pyvis_graph import parse_network

    def node_colors(at: AppTest) -> list[str]:
        frames = at.get("iframe")
        assert len(frames) == 1
        html = frames[0].proto.srcdoc
        assert "https://" not in html and "http://" not in html
        nodes, _ = parse_network(html)
        return [n["color"]["background"] for n in nodes if isinstance(n["id"], int)]

    at = open_app("referential.py", timeout=60)
    assert at.radio(key="w.oa.graph_view").value == "steps"  # the round stepper by default
    at.radio(key="w.oa.graph_view").set_value("pyvis").run()
    assert not at.exception
    stable = node_colors(at)
    assert len(stable) == 11 and len(set(stable)) == 6
    at.slider(key="w.oa.wl_round").set_value(0).run()
    assert len(set(node_colors(at))) == 1  # the slider recolors the interactive view
    assert "Round 0 of 2" in "\n".join(m.value for m in at.markdown)
    at.slider(key="w.oa.wl_round").set_value(2).run()
    assert node_colors(at) == stable
    stories = [i.value.replace("\\", "") for i in at.info]  # told here as text
    assert len(stories) == 2 and "1. **Attributes (C)**" in stories[0]

    def pairs(at: AppTest) -> int:
        _, edges = parse_network(at.get("iframe")[0].proto.srcdoc)
        return sum(1 for e in edges if e.get("dashes") and isinstance(e["from"], int))

    assert pairs(at) == 5
    at.toggle(key="w.oa.show_pairs").set_value(False).run()
    assert pairs(at) == 0  # the bijection toggle drives it as well
    at.switch_page("../pages/overview.py").run()
    at.switch_page("../pages/referential.py").run()
    assert at.radio(key="w.oa.graph_view").value == "pyvis"  # the choice survives
    assert len(node_colors(at)) == 11


NAME = "**B** $y$ [L](http://x)"  # bold, maths and a link if it were read as Markdown


def test_defect_25_scope_name_is_shown_literally_in_the_subheader() -> None:
    at = open_app("referential.py", timeout=60)
    schema = json.loads((RUNNING / "schema.json").read_text())
    items = schema["properties"]["people"]["items"]["properties"]
    items["id"]["idScope"] = NAME
    for role in ("mentor", "mentee"):
        schema["properties"]["mentorships"]["items"]["properties"][role]["ref"] = NAME
    at.text_area(key="w.paste.schema").input(json.dumps(schema))
    at.sidebar.button[0].click().run()  # "Load the pasted documents"
    assert not at.exception and not at.error
    assert at.selectbox(key="w.oa.scope").value == NAME
    header = next(h.value for h in at.subheader if h.value.startswith("Reference graph"))
    assert header == f"Reference graph of scope “{md_inline(NAME)}”"
    assert r"\*\*B\*\* \$y\$ \[L\]\(http\:" + WORD_JOINER + r"//x\)" in header
    assert re.sub(r"\\(.)", r"\1", header).replace(WORD_JOINER, "") == (
        f"Reference graph of scope “{NAME}”")


# --- issue 11: C, b, a and the rule per pair; the tie warnings -------------------------

PEOPLE = {"type": "array", "order": "align", "items": {"type": "object", "properties": {
    "id": {"type": "integer", "idScope": "person"},
    "name": {"type": "string", "score": "exact"}}}}
MENTORING = {"type": "object", "properties": {
    "people": PEOPLE,
    "mentorships": {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {"mentor": {"type": "integer", "ref": "person"},
                                         "mentee": {"type": "integer", "ref": "person"}}}}}}
# tests/test_engine_defects.py: twins that no stable colour tells apart, settled by depth
DEPTH_GOLD = {"people": [{"id": 1, "name": "T"}, {"id": 2, "name": "T"}, {"id": 3, "name": "a"},
                         {"id": 4, "name": "b"}, {"id": 5, "name": "c"}, {"id": 6, "name": "d"},
                         {"id": 7, "name": "e"}],
              "mentorships": [{"mentor": 1, "mentee": 3}, {"mentor": 1, "mentee": 4},
                              {"mentor": 1, "mentee": 5}, {"mentor": 2, "mentee": 6},
                              {"mentor": 6, "mentee": 7}]}
DEPTH_CANDIDATE = {"people": [{"id": 12, "name": "T"}, {"id": 11, "name": "T"},
                              {"id": 13, "name": "a"}, {"id": 14, "name": "b"},
                              {"id": 16, "name": "d"}],
                   "mentorships": [{"mentor": 11, "mentee": 13}, {"mentor": 11, "mentee": 14},
                                   {"mentor": 12, "mentee": 16}]}


def load(at: AppTest, gold: object, candidate: object, schema: object) -> AppTest:
    """Make a trio current through the session state (as the sidebar does) and rerun."""
    from app import session

    at.session_state[session.TRIO] = session.Trio("custom", gold, candidate, schema)
    at.session_state[session.SCHEMA_EDITS] = {}
    at.session_state[session.FIXES] = []
    at.run()
    assert not at.exception, at.exception
    return at


def bijection_table(at: AppTest):  # type: ignore[no-untyped-def]
    """The bijection table: HTML when small (as printed), else the data grid's frame."""
    if html_body(at, "bijection") is not None:
        assert not [d for d in at.dataframe if "gold record" in d.value.columns]
        frame = html_table(at, "bijection")
        for name in ("C (attributes)", "b (colour)", "a (depth)"):
            frame[name] = as_numbers(frame[name])
        return frame
    return next(d.value for d in at.dataframe if "gold record" in d.value.columns)


def test_running_example_shows_c_b_a_and_the_rule_of_every_pair() -> None:
    at = open_app("referential.py", timeout=60)
    frame = bijection_table(at).set_index("gold record")
    dave4, dave5 = frame.loc["4 (Dave, Engineer)"], frame.loc["5 (Dave, Engineer)"]
    assert dave4["C (attributes)"] == dave5["C (attributes)"] == 1.0  # twins tie in C
    assert dave4["b (colour)"] == dave5["b (colour)"] == 1.0  # their stable colours agree
    assert dave4["a (depth)"] == dave5["a (depth)"] == 1.0
    assert dave4["decided by"] == dave5["decided by"] == "stable colour (b)"
    assert frame.loc["1 (Alice, Manager)", "decided by"] == "attributes (C)"
    assert frame.loc["6 (Eve, Intern)", "decided by"] == "no partner"
    assert "b: 1 when the stable WL colors agree" in "\n".join(c.value for c in at.caption)
    ties = [s.value.replace("\\", "") for s in at.success]
    assert len(ties) == 1 and "Settled by the stable colour (b)** (2 pairs)" in ties[0]
    assert "4 (Dave, Engineer) → 92 (Dave, Engineer)" in ties[0]
    assert not at.warning  # no tie needed depth or the content rule


def test_twins_settled_by_agreement_depth_are_shown_and_warned() -> None:
    at = load(open_app("referential.py", timeout=60), DEPTH_GOLD, DEPTH_CANDIDATE, MENTORING)
    frame = bijection_table(at).set_index("gold record")
    first, second = frame.loc["1 (T)"], frame.loc["2 (T)"]
    assert (first["candidate record"], second["candidate record"]) == ("11 (T)", "12 (T)")
    assert first["decided by"] == second["decided by"] == "agreement depth (a)"
    assert first["b (colour)"] == second["b (colour)"] == 0.0  # no stable colour agrees
    assert second["a (depth)"] > 0 and 0 < first["a (depth)"] < 1
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert len(warnings) == 1
    assert "Settled by agreement depth (a) — warning tie-depth** (2 pairs)" in warnings[0]
    assert "1 (T) → 11 (T); 2 (T) → 12 (T)" in warnings[0]
    stories = stepper(at)["stories"]
    assert len(stories) == 2
    steps = stories[0]["steps"]
    assert [step for step, _ in steps] == ["Attributes (C)", "Colours (b)", "Depth (a)"]
    assert "b = 0" in steps[1][1] and "shares a colour in" in steps[2][1]
    assert "this decided the pair" in steps[2][1]
    # with WL off the list position decides, and says so
    at.radio(key="w.oa.wl_mode").set_value("none").run()
    frame = bijection_table(at).set_index("gold record")
    assert frame.loc["1 (T)", "candidate record"] == "12 (T)"
    assert frame.loc["1 (T)", "decided by"] == "list position (WL off)"


def test_twins_nothing_tells_apart_follow_the_content_rule_and_say_so() -> None:
    gold = {"people": [{"id": 1, "name": "T"}, {"id": 2, "name": "T"}], "mentorships": []}
    candidate = {"people": [{"id": 8, "name": "T"}, {"id": 9, "name": "T"}],
                 "mentorships": []}
    at = load(open_app("referential.py", timeout=60), gold, candidate, MENTORING)
    assert set(bijection_table(at)["decided by"]) == {"content rule"}
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert len(warnings) == 1 and "warning tie-content** (2 pairs)" in warnings[0]
    assert "interchangeable" in warnings[0]
    stories = stepper(at)["stories"]
    assert [step for step, _ in stories[0]["steps"]] == [
        "Attributes (C)", "Colours (b)", "Depth (a)", "Content rule"]
    assert len(stories[0]["pair"]) == 2 and len(stories[0]["rivals"]) == 2  # highlighted


# --- issue 12: palette, words, step/play, what a round changed, neighbourhoods ----------

def test_bio_amr_classes_never_share_a_colour() -> None:
    at = open_app("referential.py", query={"example": "bio_amr"}, timeout=60)
    data = stepper(at)
    assert data["rounds"][-1]["summary"].startswith("Round 6 of 6: 27 classes")
    assert len(set(record_colors(at))) == 27  # 27 classes, 27 colours: none repeats past 17
    classes = [c for c, v in zip(data["colours"][-1]["classes"], data["vertices"], strict=True)
               if v["kind"] == "record"]
    assert len(set(classes)) == 27  # the numbers drawn beside the records


def test_edge_labels_and_signatures_are_in_words() -> None:
    at = open_app("referential.py", query={"example": "bio_amr"}, timeout=60)
    data = stepper(at)
    assert data["edge_labels"]
    labels = {e["label"] for e in data["edges"]}
    assert "source → target" in labels  # the property names on the graph
    assert any("source → target (role :ARG1)" in e["hover"] for e in data["edges"])
    assert not any("[[" in e["hover"] or "\\\"" in e["hover"] for e in data["edges"])
    view = data["rounds"][1]
    joined = "\n".join(row[view["signature_columns"].index(
        "references (classes of the round before)")] for row in view["signatures"])
    assert "[[" not in joined and "->" not in joined
    assert re.search(r"source \(role :ARG\d\) of a class-\d+ record", joined)
    assert re.search(r"target \(role :ARG\d\) of a class-\d+ record", joined)


def test_the_round_shown_outlines_what_it_recoloured() -> None:
    at = open_app("referential.py", timeout=60)
    data = stepper(at)
    view = data["rounds"][1]
    changed = view["signature_columns"].index("changed")
    assert len(view["changed"]) == sum(row[changed] == "yes" for row in view["signatures"]) > 0
    assert data["rounds"][0]["changed"] == []  # round 0 changes nothing


def test_a_big_graph_draws_one_records_neighbourhood() -> None:
    at = open_app("referential.py", timeout=60)
    gold, candidate = _org(200, seed=3)
    at = load(at, gold, candidate, json.loads((RUNNING / "schema.json").read_text()))
    assert at.radio(key="w.oa.graph_focus.person").value == "around"
    centre = at.selectbox(key="w.oa.focus_record.person")
    drawn = len(records_drawn(at))
    assert 2 <= drawn < 60
    assert any(c.value.startswith("Showing ") for c in at.caption)
    assert centre.options[centre.index] in [v["name"] for v in records_drawn(at)]
    at.number_input(key="w.oa.focus_hops").set_value(1).run()
    assert len(records_drawn(at)) <= drawn
    at.radio(key="w.oa.graph_focus.person").set_value("whole").run()
    assert len(records_drawn(at)) == 400


def test_a_reference_cycle_graph_names_each_scope_and_links_its_own_pairs() -> None:
    schema = {"type": "object", "properties": {
        "companies": {"type": "array", "order": "align", "items": {
            "type": "object", "properties": {
                "cid": {"type": "integer", "idScope": "company"}, "name": {"type": "string"},
                "ceo": {"type": "integer", "ref": "person"}}}},
        "people": {"type": "array", "order": "align", "items": {
            "type": "object", "properties": {
                "pid": {"type": "integer", "idScope": "person"}, "name": {"type": "string"},
                "employer": {"type": "integer", "ref": "company"}}}}}}
    gold = {"companies": [{"cid": 1, "name": "Acme", "ceo": 1},
                          {"cid": 2, "name": "Bolt", "ceo": 2}],
            "people": [{"pid": 1, "name": "X", "employer": 1},
                       {"pid": 2, "name": "Y", "employer": 2}]}
    candidate = {"companies": [{"cid": 5, "name": "Bolt", "ceo": 9},
                               {"cid": 6, "name": "Acme", "ceo": 8}],
                 "people": [{"pid": 9, "name": "Y", "employer": 5},
                            {"pid": 8, "name": "X", "employer": 6}]}
    at = load(open_app("referential.py", timeout=60), gold, candidate, schema)
    at.selectbox(key="w.oa.scope").set_value("company").run()
    hovered = sorted(v["name"] for v in records_drawn(at))
    assert hovered == ["1 (Acme, 1)", "2 (Bolt, 2)", "5 (Bolt, 9)", "6 (Acme, 8)",
                       "person 1 (X, 1)", "person 2 (Y, 2)", "person 8 (X, 6)",
                       "person 9 (Y, 5)"]
    assert len(stepper(at)["links"]) == 4  # 2 companies + 2 people


def test_a_blocked_scope_says_its_blocks_are_never_compared_across() -> None:
    from benchmarks.alignment_speed import BLOCKED_SCHEMA, make_pair

    gold, candidate = make_pair(24, seed=1, teams=2)
    schema = copy.deepcopy(BLOCKED_SCHEMA)
    schema["properties"]["people"]["items"]["properties"]["<b>team</b>"] = \
        schema["properties"]["people"]["items"]["properties"].pop("team")
    schema["properties"]["people"]["blockBy"] = "<b>team</b>"
    for person in gold["people"] + candidate["people"]:
        person["<b>team</b>"] = person.pop("team")
    at = load(open_app("referential.py"), gold, candidate, schema)
    said = [c.value for c in at.caption if "blockBy" in c.value]
    assert len(said) == 1 and "never compared" in said[0]
    assert "<b>" not in said[0]  # the property name is escaped
    scope = at.session_state["oa.scope"]
    assert scope == "person"
