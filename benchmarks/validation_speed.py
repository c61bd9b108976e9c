"""Checking documents: CPU microseconds per document, the native path beside jsonschema.

For each workload of :mod:`benchmarks.throughput` (its golds and candidates, its
schema parsed once), four columns:

``check_json``
    :func:`oa_core.validation.check_json` (the Rust conversion's yes, Python's walk
    only for a no);
``is_valid``
    :func:`oa_core.validation.is_valid` (the schema's shape checked in Rust where it
    covers the schema, else ``jsonschema``);
``jsonschema``
    ``Draft202012Validator(raw).is_valid`` alone, the maintained validator;
``native``
    whether the schema has a native shape (else ``is_valid`` is ``jsonschema``).

Times are CPU time of this process (``time.process_time``), so other work on a
shared machine inflates them less than wall-clock figures would.

Run from the repository root::

    python -m benchmarks.validation_speed
    python -m benchmarks.validation_speed --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

import oa_core
from benchmarks.throughput import WORKLOADS
from oa_core._engine import schema_shape
from oa_core.options import Limits
from oa_core.validation import check_json, is_valid

__all__ = ["main", "measure"]


def _per_document(check: Callable[[Any], Any], documents: list[Any], seconds: float) -> float:
    """CPU microseconds per document, over whole passes lasting ``seconds`` at least."""
    passes = 0
    start = time.process_time()
    while True:
        for document in documents:
            check(document)
        passes += 1
        spent = time.process_time() - start
        if spent >= seconds:
            return spent / (passes * len(documents)) * 1e6


def measure(workloads: list[str], seconds: float = 0.5) -> dict[str, dict[str, Any]]:
    """The figures of each workload (see the module).

    >>> row = measure(["flat"], seconds=0.01)["flat"]
    >>> row["native"], sorted(row)
    (True, ['check_json', 'documents', 'is_valid', 'jsonschema', 'native'])
    """
    limits = Limits()
    results: dict[str, dict[str, Any]] = {}
    for name in workloads:
        pairs, raw = WORKLOADS[name]()
        documents = [document for pair in pairs for document in pair]
        parsed = oa_core.Schema.parse(raw)
        validator = Draft202012Validator(raw)
        results[name] = {
            "documents": len(documents),
            "native": schema_shape(raw, frozenset(Draft202012Validator.VALIDATORS))
            is not None,
            "check_json": _per_document(partial(check_json, document="gold", limits=limits),
                                        documents, seconds),
            "is_valid": _per_document(partial(is_valid, schema=parsed), documents, seconds),
            "jsonschema": _per_document(validator.is_valid, documents, seconds),
        }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS),
                        choices=list(WORKLOADS))
    parser.add_argument("--seconds", type=float, default=0.5,
                        help="CPU seconds per figure (whole passes)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU us per document")
    results = measure(args.workloads, args.seconds)
    print(f"{'workload':10} {'docs':>5} {'check_json':>11} {'is_valid':>9} "
          f"{'jsonschema':>11}  native")
    for name, row in results.items():
        print(f"{name:10} {row['documents']:5} {row['check_json']:11.2f} "
              f"{row['is_valid']:9.2f} {row['jsonschema']:11.2f}  {row['native']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
