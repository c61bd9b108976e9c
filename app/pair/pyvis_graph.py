"""An interactive (drag & zoom) view of the WL reference graph, drawn with pyvis, offline.

The view shows what :func:`app.pair.wl_graph.figure` shows, taken from the same pieces
(:func:`~app.pair.wl_graph.layout`, :func:`~app.pair.wl_graph.drawn_vertices`,
:func:`~app.pair.wl_graph.drawn_edges`, :func:`~app.pair.wl_graph.bijection_links`): gold on
the left, candidates on the right at the height of their gold partner, vertices
colored by their WL class in the round shown. Physics is off, so the vertices stay
where the layout put them until the user drags them; the mouse wheel zooms.

Offline: pyvis (0.3.2) always writes ``<script>``/``<link>`` tags that fetch
vis-network and bootstrap from CDNs. :func:`offline_html` removes every external
resource tag, in-lines the vis-network JS and CSS shipped inside the pyvis package,
writes every remaining ``http(s)://`` inside scripts as ``http(s):\\/\\/`` (the same
JavaScript string), and refuses to return a page that still names a remote URL. A
Content-Security-Policy with ``default-src 'none'`` and the hashes of the page's own
scripts backs this up in the browser: the frame can load nothing and runs no other
script (no inline event handler either).

Escaping: every user text (record ids, names, captions, relations) reaches the page
only as JSON data inside a ``<script>`` (pyvis writes it with Jinja's ``tojson``, which
escapes ``<``, ``>``, ``&`` and ``'``). vis-network 9.1.2 draws labels on the canvas
and shows string tooltips with ``innerText``, so markup in a value is shown as text.
pyvis has one HTML path: when a node title contains ``href`` it switches to a template
that assigns titles with ``innerHTML``; titles here are :class:`_Text` strings that
never report containing ``href``, and :func:`offline_html` refuses a page that uses
that template.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyvis
import streamlit as st
from pyvis.network import Network

from oa_core.wl import WLTrace

from .wl_graph import (
    CHANGED_OUTLINE,
    DIVIDER_X,
    bijection_links,
    dense,
    drawn_edges,
    drawn_vertices,
    figure_height,
    side_titles,
)

__all__ = [
    "VIS_DIR",
    "frame_height",
    "network",
    "network_html",
    "offline_html",
    "parse_network",
    "remote_urls",
    "render",
]

VIS_DIR = Path(pyvis.__file__).resolve().parent / "lib" / "vis-9.1.2"
"""The vis-network build bundled with pyvis (in-lined into every page)."""

_SCALE_X = 320.0  # pixels per layout unit, horizontally
_TOP, _BOTTOM = 1.22, -0.12  # the plotly figure's y range (layout units)
_EDGE = {"color": "#555555", "highlight": "#000000", "hover": "#000000"}
_OPTIONS: dict[str, Any] = {
    "physics": {"enabled": False},
    "layout": {"improvedLayout": False},
    "interaction": {"dragNodes": True, "dragView": True, "zoomView": True, "hover": True,
                    "tooltipDelay": 100, "keyboard": False, "navigationButtons": False},
    "edges": {"smooth": False, "selfReference": {"size": 14, "angle": 0.7854}},
    "nodes": {"borderWidth": 1, "font": {"face": "sans-serif"}},
}
_FRAME_STYLE = ("<style>html,body{margin:0;padding:0;background:#ffffff}center{display:none}"
                "#mynetwork{float:none!important;box-sizing:border-box}"
                "div.vis-tooltip{font-family:sans-serif;font-size:13px}</style>")
_URL = re.compile(r"(https?):/{2}", re.IGNORECASE)
_REMOTE = re.compile(r"(?:https?:)?/{2}[a-z0-9.-]+\.[a-z]{2,}", re.IGNORECASE)
_LINK_TAG = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_SRC_SCRIPT = re.compile(r"<script\b[^>]*\bsrc\s*=[^>]*>.*?</script\s*>",
                         re.IGNORECASE | re.DOTALL)
_SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.IGNORECASE | re.DOTALL)


class _Text(str):
    """A title string that never reports containing a substring.

    pyvis 0.3.2 checks ``"href" in title`` for every node and, on a hit, renders a
    template whose tooltip assigns the title with ``innerHTML``. The text itself is
    kept exact (it serializes as a plain JSON string).
    """

    __slots__ = ()

    def __contains__(self, _: object) -> bool:
        return False


def frame_height(trace: WLTrace) -> int:
    """Height in pixels of the frame that shows ``trace`` (the plotly figure's height)."""
    return figure_height(trace)


def network(trace: WLTrace, positions: Sequence[tuple[float, float]], classes: Sequence[int],
            bijection: Mapping[Any, Any], names: Mapping[int, str], *,
            captions: Mapping[int, str] | None = None, show_pairs: bool = True,
            changed: Collection[int] = ()) -> Network:
    """The union graph at one round as a pyvis network (no physics, fixed start positions).

    Parameters
    ----------
    trace : WLTrace
    positions : sequence of (x, y)
        From :func:`app.pair.wl_graph.layout`.
    classes : sequence of int
        Display class per vertex for the round shown (colors from :mod:`app.palette`).
    bijection : mapping gold id -> candidate id or None
        Drawn as dashed gray links when ``show_pairs``.
    names : mapping vertex index -> str
        Display names (raw text: they are shown as text, never as HTML).
    captions : mapping vertex index -> str, optional
        Attribute summaries, shown in the record tooltips.
    show_pairs : bool
        Whether to draw the bijection.
    changed : collection of int
        Vertices the round shown recoloured (outlined, as in the plotly figure).

    Returns
    -------
    pyvis.network.Network
        Node ids are the vertex indices; the side titles and the divider are extra
        fixed nodes with string ids.
    """
    height = frame_height(trace)
    small = dense(trace)
    scale_y = 0.7 * height
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="remote")
    net.options = json.loads(json.dumps(_OPTIONS))

    def place(x: float, y: float) -> dict[str, float]:
        return {"x": round(x * _SCALE_X, 2), "y": round(-y * scale_y, 2)}

    for v in drawn_vertices(trace, positions, classes, names, captions, changed):
        lines = [f"{v.side} {v.name}"]
        if v.caption and v.caption not in v.name:
            lines.append(v.caption)
        lines.append(f"WL class {v.display_class}" + (" (new in this round)" * v.changed))
        border = CHANGED_OUTLINE if v.changed else "#222222"
        color = {"background": v.color, "border": border,
                 "highlight": {"background": v.color, "border": "#000000"},
                 "hover": {"background": v.color, "border": "#000000"}}
        if v.kind == "record" and not small:
            look: dict[str, Any] = {"shape": "circle", "margin": 7,
                                    "borderWidth": 4 if v.changed else 1,
                                    "font": {"color": v.text_color, "size": 14}}
        elif v.kind == "record":
            look = {"shape": "dot", "size": 6}
        else:
            look = {"shape": "square", "size": 3 if small else 6}
        if v.kind == "record" and small:
            look["borderWidth"] = 3 if v.changed else 1
        # the class number under the id: colours alone may be close past 17 classes
        text = f"{v.label}\nclass {v.display_class}" if look["shape"] == "circle" else ""
        _add_node(net, v.index, text,
                  title=_Text("\n".join(lines)), color=color, **look, **place(v.x, v.y))
    for e in drawn_edges(trace, names):
        net.add_edge(e.source, e.target, title=_Text(e.hover), color=_EDGE,
                     width=1 if small else 1.4,
                     arrows={"to": {"enabled": True, "scaleFactor": 0.5 if small else 0.8}})
    if show_pairs:
        for g, c in bijection_links(trace, bijection):
            net.add_edge(g, c, color="#bbbbbb", width=1, dashes=True, chosen=False,
                         arrows={"to": {"enabled": False}})
    for text, x, y in side_titles():
        _add_node(net, f"title:{text}", text, shape="text", fixed=True, chosen=False,
                  font={"size": 16, "color": "#222222", "bold": True}, **place(x, y))
    for end, y in (("top", _TOP), ("bottom", _BOTTOM)):
        _add_node(net, f"divider:{end}", "", shape="dot", size=1, fixed=True, chosen=False,
                  color="#999999", **place(DIVIDER_X, y))
    net.add_edge("divider:top", "divider:bottom", color="#999999", width=1, dashes=True,
                 chosen=False, arrows={"to": {"enabled": False}})
    return net


def _add_node(net: Network, node_id: int | str, label: str, **options: Any) -> None:
    """Add a node whose label is exactly ``label`` (pyvis shows the id when it is empty)."""
    net.add_node(node_id, label="-", **options)
    node = net.node_map[node_id]
    if label:
        node["label"] = label
    else:
        del node["label"]


def network_html(trace: WLTrace, positions: Sequence[tuple[float, float]],
                 classes: Sequence[int], bijection: Mapping[Any, Any],
                 names: Mapping[int, str], *, captions: Mapping[int, str] | None = None,
                 show_pairs: bool = True, changed: Collection[int] = ()) -> str:
    """The self-contained, offline HTML page of :func:`network` (see :func:`offline_html`).

    Examples
    --------
    Two records named with markup, paired by the bijection:

    >>> from oa_core.wl import WLTrace, WLVertex
    >>> trace = WLTrace("person", "tie_break",
    ...                 [WLVertex("gold", "/people/0", 0, 1),
    ...                  WLVertex("candidate", "/people/0", 0, 10)], [], [[0, 0]])
    >>> html = network_html(trace, [(0.5, 0.5), (2.1, 0.5)], [0, 0], {1: 10},
    ...                     {0: "1 <img src=x onerror=alert(1)>", 1: "10 <b>Ann</b>"})
    >>> remote_urls(html), "<img src=x" in html, "<b>Ann" in html
    ([], False, False)
    >>> nodes, edges = parse_network(html)
    >>> [(n["label"], n["color"]["background"], n["title"]) for n in nodes
    ...  if isinstance(n["id"], int)]  # doctest: +NORMALIZE_WHITESPACE
    [('1\\nclass 0', '#E69F00', 'gold 1 <img src=x onerror=alert(1)>\\nWL class 0'),
     ('10\\nclass 0', '#E69F00', 'candidate 10 <b>Ann</b>\\nWL class 0')]
    >>> [(e["from"], e["to"], e["dashes"]) for e in edges if isinstance(e["from"], int)]
    [(0, 1, True)]
    """
    return offline_html(network(trace, positions, classes, bijection, names,
                                captions=captions, show_pairs=show_pairs, changed=changed))


def offline_html(net: Network) -> str:
    """The page of a pyvis network with vis-network in-lined and nothing to fetch.

    Parameters
    ----------
    net : pyvis.network.Network
        Built with ``cdn_resources="remote"`` (its CDN tags are removed here).

    Returns
    -------
    str
        A complete HTML document, about 0.7 MB (vis-network's JS and CSS).

    Raises
    ------
    RuntimeError
        If the page would still reach the network (a remote URL, a ``<link>`` or a
        ``<script src>``), or if pyvis chose its ``innerHTML`` tooltip template.
    """
    html = net.generate_html()
    html = _SRC_SCRIPT.sub("", _LINK_TAG.sub("", html))
    html = _SCRIPT.sub(lambda m: m[1] + _script_text(m[2]) + m[3], html)
    if html.count("</head>") != 1:
        raise RuntimeError("unexpected pyvis template: no single </head>")
    head = _vis_assets() + _FRAME_STYLE
    html = html.replace("</head>", head + "</head>", 1)
    html = html.replace("<head>", "<head>" + _policy(html), 1)
    if "innerHTML = nodeData" in html:
        raise RuntimeError("pyvis chose its innerHTML tooltip template; refusing the page")
    leaks = remote_urls(html) + _LINK_TAG.findall(html) + _SRC_SCRIPT.findall(html)
    if leaks:
        raise RuntimeError(f"the graph page would load from the network: {leaks[:3]}")
    return html


def remote_urls(html: str) -> list[str]:
    """Every ``http(s)://host`` or protocol-relative ``//host`` left in ``html``.

    Examples
    --------
    >>> remote_urls('<script src="https://cdn.example.org/x.js"></script>')
    ['https://cdn.example.org']
    >>> remote_urls('<script>var ns = "http:\\\\/\\\\/www.w3.org/2000/svg";</script>')
    []
    """
    return [m[0] for m in _REMOTE.finditer(html)]


def parse_network(html: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The nodes and edges a page built here hands to vis-network (for tests and checks).

    Parameters
    ----------
    html : str
        From :func:`network_html` or :func:`offline_html`.

    Returns
    -------
    nodes, edges : list of dict
        vis-network's node and edge objects.
    """
    decoder = json.JSONDecoder()
    found = []
    for marker in ("nodes = new vis.DataSet(", "edges = new vis.DataSet("):
        start = html.index(marker) + len(marker)
        value, _ = decoder.raw_decode(html, start)
        found.append(value)
    return found[0], found[1]


def render(trace: WLTrace, positions: Sequence[tuple[float, float]], classes: Sequence[int],
           bijection: Mapping[Any, Any], names: Mapping[int, str], *,
           captions: Mapping[int, str] | None = None, show_pairs: bool = True,
           changed: Collection[int] = ()) -> None:
    """Show the interactive graph in the page (``st.iframe``; arguments as :func:`network`)."""
    st.iframe(network_html(trace, positions, classes, bijection, names, captions=captions,
                           show_pairs=show_pairs, changed=changed),
              height=frame_height(trace) + 4,
              alt="Interactive reference graph: drag the vertices, scroll to zoom")


def _script_text(text: str) -> str:
    """Script text with ``http(s)://`` as ``http(s):\\/\\/`` (the same JS/JSON string)."""
    if re.search(r"</script", text, re.IGNORECASE):
        raise RuntimeError("a script contains </script>")
    return _URL.sub(r"\1:\\/\\/", text)


@functools.cache
def _vis_assets() -> str:
    """vis-network's CSS and JS from the pyvis package, ready to in-line."""
    css = (VIS_DIR / "vis-network.css").read_text(encoding="utf-8")
    js = (VIS_DIR / "vis-network.min.js").read_text(encoding="utf-8")
    if re.search(r"</style", css, re.IGNORECASE):
        raise RuntimeError("vis-network.css contains </style>")
    return f"<style>{css}</style>\n<script>{_script_text(js)}</script>\n"


def _policy(html: str) -> str:
    """A CSP meta tag: no network at all; only the page's own scripts run."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m[2].encode("utf-8")).digest()).decode()
        + "'" for m in _SCRIPT.finditer(html))
    policy = (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; "
              "img-src data:; font-src data:")
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
