"""Colors: a color-blind-safe score scale, its legend, and WL class colors.

The score scale interpolates ColorBrewer's RdYlBu (a diverging scheme that stays
distinguishable under the common color-vision deficiencies): low scores are red,
perfect ones blue. Every stop is light enough for black text. Colors never carry
meaning alone: the pages also print the score and a status mark.
"""

from __future__ import annotations

import itertools
from html import escape

SCORE_STOPS: tuple[tuple[float, str], ...] = (
    (0.0, "#f46d43"),
    (0.25, "#fdae61"),
    (0.5, "#fee090"),
    (0.75, "#e0f3f8"),
    (1.0, "#abd9e9"),
)

# Plotly colorscale with the same stops (for heat maps and icicles).
PLOTLY_SCORE_SCALE: list[list[float | str]] = [[s, c] for s, c in SCORE_STOPS]

# Okabe-Ito, then Paul Tol's "muted" set: qualitative colors for WL classes.
CLASS_COLORS: tuple[str, ...] = (
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
    "#999999", "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77",
    "#CC6677", "#882255", "#AA4499",
)


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def score_color(score: float | None) -> str:
    """The scale's color of a score in [0, 1] (light gray for no score).

    Parameters
    ----------
    score : float or None
        Clipped to [0, 1].

    Returns
    -------
    str
        ``#rrggbb``.

    Examples
    --------
    >>> score_color(1.0), score_color(0.0), score_color(None)
    ('#abd9e9', '#f46d43', '#eeeeee')
    """
    if score is None:
        return "#eeeeee"
    score = min(1.0, max(0.0, float(score)))
    for (s0, c0), (s1, c1) in itertools.pairwise(SCORE_STOPS):
        if score <= s1:
            t = 0.0 if s1 == s0 else (score - s0) / (s1 - s0)
            mixed = [round(a + (b - a) * t) for a, b in zip(_rgb(c0), _rgb(c1), strict=True)]
            return "#{:02x}{:02x}{:02x}".format(*mixed)
    return SCORE_STOPS[-1][1]


def class_color(index: int) -> str:
    """A color for WL class number ``index``, different for every class number.

    The first :data:`CLASS_COLORS` are the qualitative palette; past it, colors are
    generated (golden-angle hues at alternating lightness and saturation) and never
    repeat an earlier one, so two classes never share a color silently. Beyond a
    few dozen classes colors get close: the views also print the class numbers.

    Examples
    --------
    >>> class_color(0), class_color(17) != class_color(0)
    ('#E69F00', True)
    >>> len({class_color(k) for k in range(500)})
    500
    """
    if index < 0:
        raise ValueError(f"class numbers are non-negative, not {index}")
    while len(_GENERATED) <= index:
        _GENERATED.append(_next_color(len(_GENERATED)))
    return _GENERATED[index]


_GENERATED: list[str] = list(CLASS_COLORS)
_TAKEN: set[str] = {c.lower() for c in CLASS_COLORS}


def _next_color(index: int) -> str:
    k = index - len(CLASS_COLORS)
    hue = (k * 137.508 + 17.0) % 360.0
    levels = ((0.50, 0.65), (0.36, 0.55), (0.66, 0.75), (0.44, 0.40))
    lightness, saturation = levels[k % len(levels)]
    while True:
        color = _hsl(hue, saturation, lightness)
        if color.lower() not in _TAKEN:
            _TAKEN.add(color.lower())
            return color
        hue = (hue + 1.3) % 360.0  # a rounding collision: nudge the hue


def _hsl(hue: float, saturation: float, lightness: float) -> str:
    c = (1 - abs(2 * lightness - 1)) * saturation
    x = c * (1 - abs((hue / 60.0) % 2 - 1))
    m = lightness - c / 2
    r, g, b = [(c, x, 0.0), (x, c, 0.0), (0.0, c, x), (0.0, x, c), (x, 0.0, c),
               (c, 0.0, x)][int(hue // 60) % 6]
    return "#{:02x}{:02x}{:02x}".format(*(round((v + m) * 255) for v in (r, g, b)))


def legend_html(marks: dict[str, str] | None = None) -> str:
    """HTML of the score legend: a gradient bar 0..1, plus status marks.

    Parameters
    ----------
    marks : dict, optional
        Status mark -> meaning, shown after the bar.
    """
    gradient = ", ".join(f"{color} {stop * 100:.0f}%" for stop, color in SCORE_STOPS)
    parts = [
        '<div class="oa-legend" style="display:flex;gap:1em;align-items:center;'
        'flex-wrap:wrap;font-size:0.85em;margin:0.3em 0 0.8em 0">',
        '<span>score</span><span>0</span>',
        f'<span style="display:inline-block;width:180px;height:14px;border:1px solid #999;'
        f'background:linear-gradient(to right, {gradient})"></span><span>1</span>',
    ]
    for mark, meaning in (marks or {}).items():
        parts.append(f"<span><b>{escape(mark)}</b> {escape(meaning)}</span>")
    parts.append("</div>")
    return "".join(parts)


def text_color_on(color: str) -> str:
    """Black or white, whichever reads better on ``color`` (``#rrggbb``).

    Examples
    --------
    >>> text_color_on("#0072B2"), text_color_on("#F0E442")
    ('#ffffff', '#000000')
    """
    r, g, b = (c / 255 for c in _rgb(color))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if luminance > 0.4 else "#ffffff"
