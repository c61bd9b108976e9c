"""AppTest: the Referential alignment page (WL graph, rounds, bijection, twins, modes)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from apptest_helpers import open_app
from streamlit.testing.v1 import AppTest

from app.text import WORD_JOINER, md_inline

RUNNING = Path(__file__).resolve().parents[1] / "sample_data" / "running_example"


def graph(at: AppTest) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == "wl_graph")
    return json.loads(chart.proto.spec)


def record_colors(at: AppTest) -> list[str]:
    traces = graph(at)["data"]
    records = next(t for t in traces if t.get("name") == "records")
    return list(records["marker"]["color"])


def bijection(at: AppTest) -> dict[str, str]:
    frame = next(d.value for d in at.dataframe if "gold record" in d.value.columns)
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
    frame = next(d.value for d in at.dataframe if "gold record" in d.value.columns)
    assert list(frame["decided by"]).count("structure (WL)") == 2
    assert list(frame["with none"])[3:5] == ["90", "92"]  # WL off swaps the twins
    twins = [i.value.replace("\\", "") for i in at.info]
    assert len(twins) == 2
    assert "Gold 4 (Dave, Engineer) → candidate 92 (Dave, Engineer)" in twins[0]
    assert "mentee of 1 (Alice, Manager)" in twins[0]
    assert "round 2" in twins[0]


def test_round_slider_steps_through_the_refinement() -> None:
    at = open_app("referential.py", timeout=60)
    slider = at.slider(key="w.oa.wl_round")
    assert (slider.min, slider.max, slider.value) == (0, 2, 2)
    stable = record_colors(at)
    assert len(set(stable)) == 6  # 6 classes in the stable round
    at.slider(key="w.oa.wl_round").set_value(0).run()
    assert len(set(record_colors(at))) == 1  # everyone starts alike
    assert "Round 0 of 2: **1 class**" in "\n".join(m.value for m in at.markdown)
    at.slider(key="w.oa.wl_round").set_value(1).run()
    assert len(set(record_colors(at))) == 4
    signatures = at.dataframe[0].value  # how round 1 was computed
    dave = signatures[signatures["record"] == "4 (Dave, Engineer)"].iloc[0]
    assert dave["class before"] == 0 and "in mentor->mentee ← class 0" in dave[
        "neighbourhood (round before)"]
    # the colors of a class survive its split (class of gold 1 keeps its color)
    at.slider(key="w.oa.wl_round").set_value(2).run()
    assert record_colors(at) == stable


def test_switching_wl_off_swaps_the_twins_everywhere() -> None:
    at = open_app("referential.py", timeout=60)
    at.radio(key="w.oa.wl_mode").set_value("none").run()
    assert not at.exception
    pairs = bijection(at)
    assert pairs["4 (Dave, Engineer)"] == "90 (Dave, Engineer)"
    assert "WL is off in this mode" in "\n".join(c.value for c in at.caption)
    twins = [i.value.replace("\\", "") for i in at.info]
    assert len(twins) == 2 and "with WL off nothing breaks the tie" in twins[0]
    frame = next(d.value for d in at.dataframe if "gold record" in d.value.columns)
    assert list(frame["decided by"]).count("tie (list order)") == 2
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


def test_two_hundred_record_graph_loads_and_steps() -> None:
    at = open_app("referential.py", timeout=60)
    gold, candidate = _org(200, seed=3)
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.text_area(key="w.paste.candidate").input(json.dumps(candidate))
    at.button[0].click().run()
    assert not at.exception and not at.error
    at.slider(key="w.oa.wl_round").set_value(1).run()
    assert not at.exception
    spec = graph(at)
    records = next(t for t in spec["data"] if t.get("name") == "records")
    assert len(records["x"]) == 400
    assert {m.label: m.value for m in at.metric}["Score with tie_break"] == "1.0000"


def test_interactive_view_is_an_offline_iframe_driven_by_the_slider() -> None:
    from app.pyvis_graph import parse_network

    def node_colors(at: AppTest) -> list[str]:
        frames = at.get("iframe")
        assert len(frames) == 1
        html = frames[0].proto.srcdoc
        assert "https://" not in html and "http://" not in html
        nodes, _ = parse_network(html)
        return [n["color"]["background"] for n in nodes if isinstance(n["id"], int)]

    at = open_app("referential.py", timeout=60)
    assert at.radio(key="w.oa.graph_view").value == "plotly"  # the static view by default
    assert not at.get("iframe")
    at.radio(key="w.oa.graph_view").set_value("pyvis").run()
    assert not at.exception
    assert not [c for c in at.get("plotly_chart") if c.key == "wl_graph"]
    stable = node_colors(at)
    assert len(stable) == 11 and len(set(stable)) == 6
    at.slider(key="w.oa.wl_round").set_value(0).run()
    assert len(set(node_colors(at))) == 1  # the slider recolors the interactive view too
    at.slider(key="w.oa.wl_round").set_value(2).run()
    assert node_colors(at) == stable

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
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert at.selectbox(key="w.oa.scope").value == NAME
    header = next(h.value for h in at.subheader if h.value.startswith("Reference graph"))
    assert header == f"Reference graph of scope “{md_inline(NAME)}”"
    assert r"\*\*B\*\* \$y\$ \[L\]\(http\:" + WORD_JOINER + r"//x\)" in header
    assert re.sub(r"\\(.)", r"\1", header).replace(WORD_JOINER, "") == (
        f"Reference graph of scope “{NAME}”")
