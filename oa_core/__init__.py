"""Object Aligner: a deterministic, schema-driven similarity score for JSON.

>>> import oa_core
>>> oa_core.score({"a": "x"}, {"a": "x"}, {"type": "object"})
1.0
"""

from .aligner import WL_MODES, Alignment, align, score
from .comparators import register_comparator
from .errors import Diagnostic, InputError, OAError, SchemaError
from .matchtree import MatchNode
from .referential import ScopeAlignment
from .schema import Schema, SchemaNode
from .wl import WLEdge, WLTrace, WLVertex

__all__ = [
    "WL_MODES",
    "Alignment",
    "Diagnostic",
    "InputError",
    "MatchNode",
    "OAError",
    "Schema",
    "SchemaError",
    "SchemaNode",
    "ScopeAlignment",
    "WLEdge",
    "WLTrace",
    "WLVertex",
    "align",
    "register_comparator",
    "score",
]

__version__ = "0.1.0"
