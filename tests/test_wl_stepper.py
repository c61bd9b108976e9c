"""The round stepper (app.pair.wl_stepper): every round sent once, escaped, themed, offline."""

from __future__ import annotations

import doctest
import re
from typing import Any

import pytest

import oa_core
from app.pair import wl_graph, wl_stepper
from app.pair.scope_views import pair_stories, round_views, vertex_captions, vertex_names

EVIL = "</script><img src=x onerror=alert(1)>&amp;"


@pytest.fixture
def drawing(running: tuple[Any, Any, Any]) -> dict[str, Any]:
    gold, candidate, schema = running
    alignment = oa_core.align(gold, candidate, schema)
    trace = alignment.wl["person"]
    bijection = alignment.bijections["person"]
    names = vertex_names(alignment, "person", trace)
    display = wl_graph.stable_classes(trace.rounds)
    return {"trace": trace, "positions": wl_graph.layout(trace, bijection),
            "display": display, "bijection": bijection, "names": names,
            "captions": vertex_captions(alignment, "person", trace),
            "rounds": round_views(trace, display, names),
            "stories": pair_stories(alignment, "person", trace)}


def page(d: dict[str, Any], **options: Any) -> str:
    return wl_stepper.stepper_html(wl_stepper.payload(
        d["trace"], d["positions"], d["display"], d["bijection"], d["names"], d["rounds"],
        captions=d["captions"], stories=d["stories"], **options))


def test_every_round_is_in_the_page(drawing: dict[str, Any]) -> None:
    data = wl_stepper.read_payload(page(drawing))
    assert data["last"] == 2 and data["start"] == 2
    assert len(data["colours"]) == len(data["rounds"]) == 3
    assert [len(set(c["classes"])) for c in data["colours"]] == [1, 4, 6]
    assert len(data["links"]) == 5 and len(data["edges"]) == len(drawing["trace"].edges)
    assert {e["label"] for e in data["edges"]} == {"mentor → mentee"}  # property names
    assert data["edge_labels"] is True
    stories = data["stories"]
    assert len(stories) == 2 and all(len(s["pair"]) == 2 for s in stories)
    # the start round is clipped into the rounds
    assert wl_stepper.read_payload(page(drawing, start=7))["start"] == 2
    assert wl_stepper.read_payload(page(drawing, start=-3))["start"] == 0
    assert wl_stepper.read_payload(page(drawing, show_pairs=False))["links"] == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_drawing_takes_the_themes_colours(drawing: dict[str, Any], theme: str) -> None:
    data = wl_stepper.read_payload(page(drawing, theme=theme))
    colours = data["theme"]
    assert colours == vars(wl_stepper.THEMES[theme])
    # headings and labels read on the background: a contrast of at least 7:1 (AAA)
    for ink in ("text", "muted"):
        assert contrast(colours[ink], colours["background"]) >= 7.0, ink
    assert contrast(colours["edge"], colours["background"]) >= 4.5
    assert contrast(colours["highlight"], colours["background"]) >= 4.5


def test_light_and_dark_differ_where_the_page_shows_through() -> None:
    light, dark = wl_stepper.THEMES["light"], wl_stepper.THEMES["dark"]
    assert light.background != dark.background and light.text != dark.text
    # the dark theme's text is the explorer's (.streamlit/config.toml)
    assert dark.text.lower() == "#e6e9ef" and dark.background.lower() == "#0f1217"


def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
                  for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_user_text_is_data_never_markup(drawing: dict[str, Any]) -> None:
    names = {k: f"{name} {EVIL}" for k, name in drawing["names"].items()}
    html = page({**drawing, "names": names})
    body = html.split('id="oa-wl-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body  # as \\u escapes
    assert html.count("</script>") == 2  # the data's and the script's own
    data = wl_stepper.read_payload(html)
    assert all(v["name"].endswith(EVIL) for v in data["vertices"])  # exact after parsing
    script = html.rsplit("<script>", 1)[1]
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script


def test_nothing_is_fetched_and_only_the_page_script_runs(drawing: dict[str, Any]) -> None:
    html = page(drawing)
    assert not re.search(r"https?://|<link|src=", html)
    policy = re.search(r'Content-Security-Policy" content="([^"]*)"', html)
    assert policy is not None and "default-src 'none'" in policy[1]
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+';", policy[1])


def test_docstring_examples_run() -> None:
    result = doctest.testmod(wl_stepper, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
