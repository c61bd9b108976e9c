"""Typed errors and structured diagnostics.

Every problem the library reports names *where* it is (a JSON Pointer into the
schema, the gold or the candidate document) and *what to do* about it.

Examples
--------
>>> err = SchemaError("/properties/age/threshold", "threshold must be in [0, 1]",
...                   fix="use a number between 0 and 1")
>>> str(err)
'schema /properties/age/threshold: threshold must be in [0, 1] (fix: use a number between 0 and 1)'
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Literal

__all__ = ["ComparatorError", "Diagnostic", "InputError", "OAError", "SchemaError"]

Document = Literal["schema", "gold", "candidate", "options"]


class OAError(ValueError):
    """Base class of every error raised on bad input.

    Parameters
    ----------
    document : {"schema", "gold", "candidate", "options"}
        Which input the problem is in.
    pointer : str
        RFC 6901 JSON Pointer into that document ("" is the root).
    message : str
        What is wrong.
    fix : str, optional
        What the user should do about it.
    """

    document: Document = "schema"

    def __init__(self, pointer: str, message: str, *, fix: str = "",
                 document: Document | None = None) -> None:
        if document is not None:
            self.document = document
        self.pointer = pointer
        self.message = message
        self.fix = fix
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.document} {self.pointer or '/'}" if self.pointer != "" else (
            f"{self.document} (root)")
        text = f"{where}: {self.message}"
        return f"{text} (fix: {self.fix})" if self.fix else text

    def to_dict(self) -> dict[str, str]:
        """The error as plain data (for JSON output and the explorer)."""
        return {"type": type(self).__name__, "document": self.document,
                "pointer": self.pointer, "message": self.message, "fix": self.fix}


class SchemaError(OAError):
    """The OA schema is invalid; ``pointer`` points into the schema."""

    document: Document = "schema"


class InputError(OAError):
    """Gold, candidate or an option is unusable; ``document`` says which."""

    document: Document = "candidate"


class ComparatorError(InputError):
    """A custom comparator raised or broke its contract (a number in [0, 1]).

    ``pointer`` names the schema keyword that selects the comparator (``.../score`` or
    ``.../keyScore``); the comparator's own exception, if any, is chained as
    ``__cause__``.
    """

    document: Document = "schema"

    def __init__(self, pointer: str, message: str, *, comparator: str, fix: str = "",
                 document: Document | None = None) -> None:
        self.comparator = comparator
        super().__init__(pointer, message, fix=fix, document=document)

    def at(self, pointer: str) -> ComparatorError:
        """The same error, naming the schema keyword at ``pointer``."""
        located = ComparatorError(pointer, self.message, comparator=self.comparator,
                                  fix=self.fix, document=self.document)
        located.__cause__ = self.__cause__
        return located


# An integer no float64 can hold, refused both while reading JSON text (jsonio) and
# when checking documents given as Python values (validation): one wording for both.
INTEGER_OUT_OF_RANGE = "beyond the range of a number (about ±1.8e308)"
INTEGER_OUT_OF_RANGE_FIX = "write it as a string if it is an identifier, or scale it down"
# The largest finite float64 as an exact integer: an integer is out of range when its
# magnitude exceeds it. Compared int with int, so the test is exact in any build (a
# compiled build, see setup.py, compares an int with a float by converting the int,
# which overflows for the very integers this looks for).
LARGEST_FLOAT_INTEGER = int(sys.float_info.max)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning or a schema violation: a code, where, and a message.

    ``document`` is one of "schema", "gold", "candidate".
    """

    code: str
    document: str
    pointer: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    def __str__(self) -> str:
        return f"[{self.code}] {self.document} {self.pointer or '(root)'}: {self.message}"
