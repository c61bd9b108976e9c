"""The interactive (pyvis) reference graph: offline HTML, colors as in the stepper, escaping."""

from __future__ import annotations

import doctest
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from pyvis.network import Network

import oa_core
from app.pair import pyvis_graph, wl_graph, wl_stepper
from app.pair.scope_views import vertex_captions, vertex_names
from app.palette import class_color

EVIL = ("<script>window.__pwned = 1</script>", "<img src=x onerror=alert(1)>")


@pytest.fixture
def drawing(running: tuple[Any, Any, Any]) -> dict[str, Any]:
    """Everything both renderers need for the running example's person scope."""
    gold, candidate, schema = running
    alignment = oa_core.align(gold, candidate, schema)
    trace = alignment.wl["person"]
    bijection = alignment.bijections["person"]
    return {"trace": trace, "positions": wl_graph.layout(trace, bijection),
            "display": wl_graph.stable_classes(trace.rounds), "bijection": bijection,
            "names": vertex_names(alignment, "person", trace),
            "captions": vertex_captions(alignment, "person", trace)}


def html_at(d: dict[str, Any], round_index: int, *, names: dict[int, str] | None = None,
            captions: dict[int, str] | None = None, show_pairs: bool = True) -> str:
    return pyvis_graph.network_html(
        d["trace"], d["positions"], d["display"][round_index], d["bijection"],
        names if names is not None else d["names"],
        captions=captions if captions is not None else d["captions"], show_pairs=show_pairs)


def start_tags(html: str) -> list[str]:
    """The start tags of a page (script bodies are raw text, as in a browser)."""
    tags: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            tags.append(tag)

    Tags().feed(html)
    return tags


def vertex_nodes(html: str) -> dict[int, dict[str, Any]]:
    nodes, _ = pyvis_graph.parse_network(html)
    return {n["id"]: n for n in nodes if isinstance(n["id"], int)}


def stepper_record_colors(d: dict[str, Any], round_index: int) -> list[str]:
    """The record colours the round stepper (app.pair.wl_stepper) draws for a round."""
    data = wl_stepper.payload(d["trace"], d["positions"], d["display"], d["bijection"],
                              d["names"], [], captions=d["captions"])
    fills = data["colours"][round_index]["fill"]
    return [fills[i] for i, v in enumerate(data["vertices"]) if v["kind"] == "record"]


def test_every_record_is_a_node_at_its_layout_place(drawing: dict[str, Any]) -> None:
    html = html_at(drawing, -1)
    nodes = vertex_nodes(html)
    trace = drawing["trace"]
    assert sorted(nodes) == list(range(len(trace.vertices)))
    labels = {(v.side, nodes[i]["label"].split("\n")[0]) for i, v in enumerate(trace.vertices)}
    assert all(nodes[i]["label"].endswith(f"class {drawing['display'][-1][i]}")
               for i in nodes)
    assert labels == {("gold", str(k)) for k in range(1, 7)} | {
        ("candidate", str(k)) for k in range(90, 95)}
    for i in range(len(trace.vertices)):
        assert drawing["names"][i] in nodes[i]["title"]
    # paired records level with each other, gold left of the candidates
    for g, c in wl_graph.bijection_links(trace, drawing["bijection"]):
        assert nodes[g]["y"] == nodes[c]["y"] and nodes[g]["x"] < nodes[c]["x"]
    assert '"physics": {"enabled": false}' in html


@pytest.mark.parametrize("round_index", [0, 1, 2])
def test_node_colors_match_the_stepper(drawing: dict[str, Any], round_index: int) -> None:
    nodes = vertex_nodes(html_at(drawing, round_index))
    records = [i for i, v in enumerate(drawing["trace"].vertices) if v.kind == "record"]
    colors = [nodes[i]["color"]["background"] for i in records]
    assert colors == stepper_record_colors(drawing, round_index)
    assert len(set(colors)) == {0: 1, 1: 4, 2: 6}[round_index]  # the refinement shows
    assert colors == [class_color(drawing["display"][round_index][i]) for i in records]


def test_bijection_edges_follow_the_toggle(drawing: dict[str, Any]) -> None:
    def dashed(html: str) -> set[tuple[int, int]]:
        _, edges = pyvis_graph.parse_network(html)
        return {(e["from"], e["to"]) for e in edges
                if e.get("dashes") and isinstance(e["from"], int)}

    links = set(wl_graph.bijection_links(drawing["trace"], drawing["bijection"]))
    assert len(links) == 5  # gold 6 is unmatched
    assert dashed(html_at(drawing, -1)) == links
    assert dashed(html_at(drawing, -1, show_pairs=False)) == set()
    _, edges = pyvis_graph.parse_network(html_at(drawing, -1, show_pairs=False))
    references = [(e["from"], e["to"]) for e in edges if isinstance(e["from"], int)]
    assert references == [(e.source, e.target) for e in drawing["trace"].edges]


def test_nothing_is_fetched_from_the_network(drawing: dict[str, Any]) -> None:
    names = {**drawing["names"], 0: "see https://cdn.example.org/x.js and http://a.b/c"}
    for html in (html_at(drawing, 0), html_at(drawing, -1, names=names)):
        lowered = html.lower()
        assert "http://" not in lowered and "https://" not in lowered
        assert pyvis_graph.remote_urls(html) == []
        assert "<link" not in lowered
        assert re.search(r"<script[^>]*\ssrc\s*=", lowered) is None
        assert "cdnjs" not in lowered and "jsdelivr" not in lowered
        assert "vis.Network" in html and len(html) > 600_000  # vis-network is in-lined
        assert "default-src 'none'" in html  # and the frame may not load anything
    # a URL in a value survives as data (written as http:\/\/ inside the script)
    assert vertex_nodes(html_at(drawing, -1, names=names))[0]["title"].startswith(
        "gold see https://cdn.example.org/x.js and http://a.b/c")


def test_offline_html_refuses_a_page_that_would_load_something() -> None:
    net = Network(cdn_resources="remote")
    net.add_node(1, label="a")
    net.heading = '<img src="https://tracker.example.org/p.gif">'
    with pytest.raises(RuntimeError, match="network"):
        pyvis_graph.offline_html(net)


@pytest.mark.parametrize("evil", EVIL)
def test_user_text_is_data_never_markup(drawing: dict[str, Any], evil: str) -> None:
    names = {i: f"{name} {evil} href" for i, name in drawing["names"].items()}
    captions = {i: f"{caption} {evil}" for i, caption in drawing["captions"].items()}
    html = html_at(drawing, -1, names=names, captions=captions)
    assert evil not in html
    assert evil.replace("<", r"\u003c").replace(">", r"\u003e") in html  # JSON-escaped
    tags = start_tags(html)  # as a browser's tokenizer sees them
    assert tags.count("script") == 3  # pyvis's helpers, vis-network, the drawing
    assert "img" not in tags
    assert "innerHTML = nodeData" not in html  # "href" did not switch pyvis's template
    nodes = vertex_nodes(html)
    assert all(evil in node["title"] for node in nodes.values())  # shown as text
    _, edges = pyvis_graph.parse_network(html)
    assert any(evil in e.get("title", "") for e in edges)


def test_docstring_examples_run() -> None:
    result = doctest.testmod(pyvis_graph,
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
