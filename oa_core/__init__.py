"""Object Aligner: a deterministic, schema-driven similarity score for JSON.

>>> import oa_core
>>> oa_core.score({"a": "x"}, {"a": "x"}, {"type": "object"})
1.0
"""

from .aligner import WL_MODES, Alignment, PreparedGold, align, prepare_gold, score
from .comparators import register_comparator
from .errors import Diagnostic, InputError, OAError, SchemaError
from .feedback import (
    Feedback,
    RepairOp,
    apply_ops,
    feedback,
    load_templates,
    render_feedback,
    repair_ops,
)
from .kinds import NodeKind, OpKind, Status, TieRule, WLMode
from .matchtree import MatchNode
from .options import AlignOptions, Limits
from .schema import Schema, SchemaNode
from .scopes import ScopeAlignment
from .wl import WLEdge, WLTrace, WLVertex

__all__ = [
    "WL_MODES",
    "AlignOptions",
    "Alignment",
    "Diagnostic",
    "Feedback",
    "InputError",
    "Limits",
    "MatchNode",
    "NodeKind",
    "OAError",
    "OpKind",
    "PreparedGold",
    "RepairOp",
    "Schema",
    "SchemaError",
    "SchemaNode",
    "ScopeAlignment",
    "Status",
    "TieRule",
    "WLEdge",
    "WLMode",
    "WLTrace",
    "WLVertex",
    "align",
    "apply_ops",
    "feedback",
    "load_templates",
    "prepare_gold",
    "register_comparator",
    "render_feedback",
    "repair_ops",
    "score",
]

__version__ = "0.1.0"
