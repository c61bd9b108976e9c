"""One validated options object for every entry point: :class:`AlignOptions`.

:func:`oa_core.align`, ``oa batch``, the DSPy/GEPA metric and the explorer all take
the same frozen object, validated once when it is made; keyword arguments are
turned into it with :meth:`AlignOptions.coerce`. :class:`Limits` bounds the work
one input may ask for, so that hostile input gets a clear :class:`InputError`
instead of a ``MemoryError`` or minutes of work.

Examples
--------
>>> AlignOptions().wl_mode
<WLMode.TIE_BREAK: 'tie_break'>
>>> AlignOptions.coerce(None, wl_mode="blend", wl_blend_lambda=0.25).wl_blend_lambda
0.25
>>> try:
...     AlignOptions(strict="yes")
... except InputError as err:
...     print(err.pointer, err.message)
/strict strict must be true or false, got 'yes'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from .errors import InputError
from .kinds import WLMode

__all__ = ["AlignOptions", "Limits"]


def _positive_int(owner: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"/{name}", f"{owner}.{name} must be a positive integer, got "
                         f"{value!r}", fix=f"pass {name}=<a positive integer>",
                         document="options")


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one comparison's input (each an ``InputError`` when exceeded).

    Attributes
    ----------
    max_depth : int
        Nesting levels of a gold or candidate document.
    max_items : int
        Elements of one array (and members of one object).
    max_matrix_cells : int
        Gold x candidate pairs compared for one list or scope (each pair is a
        float64 in a score matrix: 25 million cells are 200 MB).
    max_string_length : int
        Characters of a string compared with an edit-distance comparator.
    max_input_bytes : int
        Bytes of JSON text read by :func:`oa_core.jsonio.loads` and
        :func:`oa_core.jsonio.extract_json`.
    """

    max_depth: int = 100
    max_items: int = 100_000
    max_matrix_cells: int = 25_000_000
    max_string_length: int = 100_000
    max_input_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        for item in fields(self):
            _positive_int("Limits", item.name, getattr(self, item.name))


@dataclass(frozen=True, slots=True)
class AlignOptions:
    """How :func:`oa_core.align` compares a candidate with the gold.

    Attributes
    ----------
    wl_mode : WLMode or str
        ``"tie_break"`` (default, the paper's), ``"blend"`` or ``"none"`` (the
        paper's ablation; ties there may follow list positions).
    wl_blend_lambda : float
        Weight of structure in blend mode, in [0, 1].
    strict : bool
        Any schema violation of the candidate scores 0.
    limits : Limits
    """

    wl_mode: WLMode = WLMode.TIE_BREAK
    wl_blend_lambda: float = 0.5
    strict: bool = False
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        if not isinstance(self.wl_mode, WLMode):
            try:
                object.__setattr__(self, "wl_mode", WLMode(self.wl_mode))
            except ValueError:
                raise InputError("/wl_mode", f"wl_mode must be one of "
                                 f"{', '.join(m.value for m in WLMode)}, got "
                                 f"{self.wl_mode!r}", fix="pass wl_mode='tie_break', 'blend' "
                                 "or 'none'", document="options") from None
        lam = self.wl_blend_lambda
        if isinstance(lam, bool) or not isinstance(lam, int | float) or not (
                math.isfinite(lam) and 0.0 <= lam <= 1.0):
            raise InputError("/wl_blend_lambda", f"wl_blend_lambda must be in [0, 1], got "
                             f"{lam!r}", fix="pass a number between 0 and 1",
                             document="options")
        object.__setattr__(self, "wl_blend_lambda", float(lam))
        if not isinstance(self.strict, bool):
            raise InputError("/strict", f"strict must be true or false, got "
                             f"{self.strict!r}", fix="pass strict=True or strict=False",
                             document="options")
        if not isinstance(self.limits, Limits):
            raise InputError("/limits", f"limits must be a Limits, got "
                             f"{type(self.limits).__name__}",
                             fix="pass limits=oa_core.Limits(...)", document="options")

    @classmethod
    def coerce(cls, options: AlignOptions | Mapping[str, Any] | None = None,
               **overrides: Any) -> AlignOptions:
        """An :class:`AlignOptions` from an instance, a mapping or keywords.

        Unknown names are an :class:`InputError` listing the known ones.
        """
        if isinstance(options, AlignOptions) and not overrides:
            return options  # validated when it was made: a metric's call, kept cheap
        known = {f.name for f in fields(cls)}
        given = dict(options) if isinstance(options, Mapping) else {}
        given.update(overrides)
        unknown = sorted(set(given) - known)
        if unknown:
            raise InputError(f"/{unknown[0]}", f"unknown option {unknown[0]!r}",
                             fix="known options: " + ", ".join(sorted(known)),
                             document="options")
        if isinstance(options, AlignOptions):
            return replace(options, **given) if given else options
        if options is not None and not isinstance(options, Mapping):
            raise InputError("", f"options must be AlignOptions or a mapping, got "
                             f"{type(options).__name__}", fix="pass AlignOptions(...)",
                             document="options")
        return cls(**given)

    def to_dict(self) -> dict[str, Any]:
        """The options as JSON-ready data."""
        data = asdict(self)
        data["wl_mode"] = self.wl_mode.value
        return data
