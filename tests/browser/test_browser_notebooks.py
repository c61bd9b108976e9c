"""The teaching notebooks, executed and exported to HTML by nbconvert (JupyterLab's
light and dark themes), opened from file:// in Chromium with every other request
blocked; screenshots go to tests/screenshots/notebook_*.png.

nbconvert's lab template loads MathJax, require.js, mermaid and the widget renderer
from CDNs; the export here uses a template that extends it without those scripts (the
views need none), so a blocked request means one of our views asked for the network.
Widgets cannot run in a static page: the export prefers their static ``text/html``
view (what a notebook viewer shows) to their empty widget view.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from nbconvert import HTMLExporter
from playwright.sync_api import BrowserContext, Page, Route, expect
from traitlets.config import Config

from tests.notebook_kernel import NOTEBOOKS, ROOT, execute

pytestmark = pytest.mark.browser

THEMES = ("light", "dark")
OFFLINE_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""

# nbconvert's HTML priorities without the widget view (a static page cannot run one)
STATIC = Config({"NbConvertBase": {"display_data_priority": [
    "text/html", "text/markdown", "image/svg+xml", "image/png", "image/jpeg", "text/plain"]}})


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Every notebook executed, then exported once per theme: (stem, theme) -> file."""
    folder = tmp_path_factory.mktemp("notebooks")
    template = folder / "templates" / "oa_offline"
    template.mkdir(parents=True)
    (template / "conf.json").write_text(json.dumps({"base_template": "lab"}))
    (template / "index.html.j2").write_text(OFFLINE_TEMPLATE)
    files = {}
    for path in NOTEBOOKS:
        notebook = execute(path)
        for theme in THEMES:
            exporter = HTMLExporter(extra_template_basedirs=[str(folder / "templates")],
                                    template_name="oa_offline", theme=theme, config=STATIC)
            body, _ = exporter.from_notebook_node(notebook)
            assert not re.search(r'(?:src|href)="(?:https?:)?//', body), "the page loads a URL"
            target = folder / f"{path.stem}_{theme}.html"
            target.write_text(body, encoding="utf-8")
            files[path.stem, theme] = target
    return files


@pytest.fixture
def offline_page(browser_context: BrowserContext) -> Iterator[Page]:
    """A tab that may load file:, data:, blob: and about: only; asserts nothing else
    was asked for."""
    blocked: list[str] = []

    def route(route: Route) -> None:
        url = route.request.url
        if url.startswith(("file:", "data:", "blob:", "about:")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    tab = browser_context.new_page()
    tab.route("**/*", route)
    yield tab
    tab.close()
    assert blocked == [], f"requests left the machine: {blocked}"


def _luminance(css_colour: str) -> float:
    """Relative luminance of ``rgb(r, g, b)`` / ``rgba(...)``."""
    parts = css_colour[css_colour.index("(") + 1:css_colour.index(")")].split(",")
    red, green, blue = (float(p) / 255 for p in parts[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem", [p.stem for p in NOTEBOOKS])
def test_notebook_reads_in_theme(exported: dict[tuple[str, str], Path], offline_page: Page,
                                 screenshot: Callable[[Page, str], Path], stem: str,
                                 theme: str) -> None:
    offline_page.goto(exported[stem, theme].as_uri())
    views = offline_page.locator(".oa-nb")
    expect(views.first).to_be_visible()
    # the views take the theme's text colour: light on dark, dark on light
    colour = views.first.evaluate("node => getComputedStyle(node).color")
    background = offline_page.evaluate(
        "() => getComputedStyle(document.body).backgroundColor")
    assert (_luminance(colour) > 0.6) == (theme == "dark"), (colour, background)
    assert (_luminance(background) < 0.3) == (theme == "dark"), background
    screenshot(offline_page, f"notebook_{stem}_{theme}")


def test_folded_parts_open(exported: dict[tuple[str, str], Path], offline_page: Page) -> None:
    """A perfect subtree is folded (closed details) and opens with a click."""
    offline_page.goto(exported["01_referential_alignment", "light"].as_uri())
    diff = offline_page.locator(".oa-nb .diff").first
    folded = diff.locator('details:has(> summary span.where[title="/mentorships"])')
    inner = folded.locator("details.fold > summary").filter(has_text="3 perfect items")
    expect(folded).not_to_have_attribute("open", "")
    expect(inner).to_be_hidden()
    folded.locator("summary").first.click()
    expect(inner).to_be_visible()


@pytest.mark.parametrize(("style", "dark"), [("", False), ("background:#111;color:#eee", True)],
                         ids=["light-page", "dark-page"])
def test_views_take_the_page_colours(tmp_path: Path, offline_page: Page,
                                     screenshot: Callable[[Page, str], Path], style: str,
                                     dark: bool) -> None:
    """Outside JupyterLab (no --jp-* variables) on a dark system, a view's text takes
    the page's colour: dark on a page that stayed light, light on a dark page."""
    import oa_core

    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, schema = (json.loads((folder / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    alignment = oa_core.align(gold, candidate, schema)
    page = tmp_path / "page.html"
    page.write_text(f'<!DOCTYPE html><html><body style="{style}">{alignment._repr_html_()}'
                    f"{oa_core.render_feedback(alignment)._repr_html_()}</body></html>",
                    encoding="utf-8")
    offline_page.emulate_media(color_scheme="dark")
    offline_page.goto(page.as_uri())
    cell = offline_page.locator(".oa-nb table.oa td").first
    expect(cell).to_be_visible()
    assert (_luminance(cell.evaluate("node => getComputedStyle(node).color")) > 0.6) == dark
    screenshot(offline_page, f"notebook_views_{'dark' if dark else 'light'}_page")


def test_widgets_show_their_static_view(exported: dict[tuple[str, str], Path],
                                        offline_page: Page) -> None:
    """The WL stepper's output, exported, shows every round (not an empty output)."""
    offline_page.goto(exported["01_referential_alignment", "light"].as_uri())
    rounds = offline_page.locator('.oa-nb[aria-label="WL rounds"]')
    expect(rounds).to_be_visible()
    expect(rounds.locator("svg")).to_have_count(3)
