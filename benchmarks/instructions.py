"""Instructions per call and per ``oa batch`` pair, counted by callgrind: figures that
repeat whatever the machine's load, where CPU seconds on a shared virtual machine
swing by a third between identical runs.

Each figure is a difference of two runs of one child process under
``valgrind --tool=callgrind``: one making ``low`` calls and one making ``high``
calls after the same set-up (imports, parsing, the warm-up calls), so that
``(total(high) - total(low)) / (high - low)`` is the work of one call alone. The
set-up itself varies by a few million instructions between identical runs (the
allocator returns memory on a timer), so each workload's default ``high`` makes its
extra calls add up to some 400 million instructions: about 1% of error.

Entries (the default): :mod:`benchmarks.throughput`'s workloads and entry points
(``running``, ``org2graph``, ``flat``, ``lists``; ``score``, ``align``,
``feedback``), each call on the workload's pairs in turn with one parsed schema.

``--batch``: ``oa batch`` over the first ``low`` and ``high`` of
:func:`benchmarks.batch.make_pairs`' Org2Graph pairs, with each worker count,
counting the instructions of the command's process and of every worker process
(``--trace-children=yes``). A forked worker starts with a copy of its parent's
counts, so each worker's counts are zeroed as it starts (``--zero-before`` on
CPython's ``PyOS_AfterFork_Child``): without it, the command's reading and splitting
of the lines before the pool forks was counted once more per worker. Beside it,
the same pairs given in one process to :func:`benchmarks.batch.batch_feedback`
(what each line computes, without the command). ``vs in-process`` divides the
in-process instructions per pair by ``oa batch``'s: the share of the in-process rate
``oa batch`` would reach per worker on cores of its own (issue 22 asks for at least
0.80). Instruction counts do not see what sharing the cores costs (caches, memory
bandwidth): ``benchmarks/batch.py``'s "at once" rows measure that in CPU seconds.

Needs ``valgrind`` (Debian's package); a run takes minutes (callgrind runs Python
about 50 times slower). Run from the repository root::

    python -m benchmarks.instructions
    python -m benchmarks.instructions --workloads running --entries score --calls 20 1220
    python -m benchmarks.instructions --batch --pairs 100 400 --workers 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["CALLS", "batch_instructions", "callgrind_total", "entry_instructions", "main",
           "per_unit", "summed_totals"]

ROOT = Path(__file__).resolve().parent.parent


def per_unit(low: tuple[int, int], high: tuple[int, int]) -> float:
    """The instructions of one unit from two ``(units, instructions)`` runs.

    >>> per_unit((20, 1_000_000), (220, 3_000_000))
    10000.0
    """
    (units_low, total_low), (units_high, total_high) = low, high
    if units_high <= units_low:
        raise ValueError(f"the second run must make more calls ({units_high} <= {units_low})")
    return (total_high - total_low) / (units_high - units_low)


def summed_totals(out_dir: Path, prefix: str) -> int:
    """The instructions of every process callgrind wrote a ``prefix.<pid>`` file for
    in ``out_dir`` (the ``summary:`` line of each)."""
    total, files = 0, sorted(out_dir.glob(f"{prefix}.*"))
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("summary:"):
                total += int(line.split()[1])
                break
        else:
            raise RuntimeError(f"{path} has no summary line: did the process end normally?")
    if not files:
        raise RuntimeError(f"callgrind wrote no {prefix}.* file in {out_dir}")
    return total


def callgrind_total(command: Sequence[str], *, cwd: Path = ROOT) -> int:
    """The instructions ``command`` and every process it starts execute (callgrind).

    Raises
    ------
    RuntimeError
        When ``valgrind`` is missing or the command fails.
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("valgrind is not installed: apt-get install valgrind")
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(
               [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp)
        done = subprocess.run(
            [valgrind, "--tool=callgrind", "--trace-children=yes",
             # a forked child would otherwise count its parent's work again
             "--zero-before=PyOS_AfterFork_Child",
             f"--callgrind-out-file={out_dir}/cg.%p", *command],
            cwd=cwd, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}:\n"
                               f"{done.stderr[-2000:]}")
        return summed_totals(out_dir, "cg")


CALLS = {"running": (20, 1_220), "org2graph": (20, 340), "flat": (20, 20_020),
         "lists": (20, 2_520)}
"""Each workload's default calls of the two runs (see the module)."""


def entry_instructions(workload: str, entry: str, calls: tuple[int, int]) -> float:
    """Instructions of one ``entry`` call on ``workload``'s pairs (see the module)."""
    runs = [(count, callgrind_total([sys.executable, "-m", "benchmarks.instructions",
                                     "--child-entry", workload, entry, str(count)]))
            for count in calls]
    return per_unit(*runs)


def batch_instructions(pairs: tuple[int, int], workers: Sequence[int],
                       seed: int = 0) -> list[dict[str, Any]]:
    """``oa batch``'s instructions per pair with each worker count, against the same
    pairs' :func:`benchmarks.batch.batch_feedback` in one process (see the module)."""
    from benchmarks.batch import make_pairs

    lines, schema = make_pairs(max(pairs), seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        schema_file = folder / "schema.json"
        schema_file.write_text(json.dumps(schema))
        files = {}
        for count in pairs:
            files[count] = folder / f"pairs{count}.jsonl"
            files[count].write_text("\n".join(lines[:count]) + "\n")
        in_process = per_unit(*[(count, callgrind_total(
            [sys.executable, "-m", "benchmarks.instructions", "--child-batch-feedback",
             str(files[max(pairs)]), str(schema_file), str(count)])) for count in pairs])
        rows = [{"mode": "in-process", "workers": 1, "per_pair": in_process,
                 "vs_in_process": 1.0}]
        for count_workers in workers:
            per_pair = per_unit(*[(count, callgrind_total(
                [sys.executable, "-m", "oa_core.cli", "batch", str(files[count]),
                 "--schema", str(schema_file), "--output", str(folder / "out.jsonl"),
                 "--quiet", "--workers", str(count_workers)])) for count in pairs])
            rows.append({"mode": "oa batch", "workers": count_workers,
                         "per_pair": per_pair, "vs_in_process": in_process / per_pair})
    return rows


def _child_entry(workload: str, entry: str, count: int) -> None:
    """Make ``count`` calls of ``entry`` after the set-up both runs share."""
    import oa_core
    from benchmarks.throughput import ENTRY_POINTS, WORKLOADS

    pairs, raw = WORKLOADS[workload]()
    schema = oa_core.Schema.parse(raw)
    call = ENTRY_POINTS[entry]
    pairs = pairs[:20]
    for gold, candidate in pairs:  # warm-up: imports, caches
        call(gold, candidate, schema)
    for k in range(count):
        gold, candidate = pairs[k % len(pairs)]
        call(gold, candidate, schema)


def _child_batch_feedback(pairs_file: str, schema_file: str, count: int) -> None:
    """Parse every line of ``pairs_file`` (both runs parse the same), then give the
    first ``count`` pairs to :func:`benchmarks.batch.batch_feedback`."""
    from benchmarks.batch import batch_feedback
    from oa_core import Schema

    schema = Schema.parse(json.loads(Path(schema_file).read_text()))
    pairs = [json.loads(line) for line in Path(pairs_file).read_text().splitlines()]
    batch_feedback(pairs[:1], schema)  # warm-up: imports, caches
    batch_feedback(pairs[:count], schema)


def main(argv: Sequence[str] | None = None) -> int:
    """Count and print the instructions per call (or per batch pair)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", choices=sorted(CALLS),
                        default=["running", "org2graph", "flat", "lists"])
    parser.add_argument("--entries", nargs="+", choices=["score", "align", "feedback"],
                        default=["score", "feedback"])
    parser.add_argument("--calls", type=int, nargs=2, metavar=("LOW", "HIGH"),
                        help="calls of the two runs (default: the workload's CALLS)")
    parser.add_argument("--batch", action="store_true",
                        help="count oa batch per pair instead, against in-process")
    parser.add_argument("--pairs", type=int, nargs=2, default=(100, 400),
                        metavar=("LOW", "HIGH"), help="pairs of the two --batch runs")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--child-entry", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--child-batch-feedback", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_entry:
        workload, entry, count = args.child_entry
        _child_entry(workload, entry, int(count))
        return 0
    if args.child_batch_feedback:
        pairs_file, schema_file, count = args.child_batch_feedback
        _child_batch_feedback(pairs_file, schema_file, int(count))
        return 0
    from oa_core.build import describe_build

    print(f"engine: {describe_build()}")
    rows: list[dict[str, Any]]
    try:
        if args.batch:
            rows = batch_instructions((args.pairs[0], args.pairs[1]), args.workers)
            print(f"{'mode':<12} {'workers':>7} {'instructions/pair':>18} {'vs in-process':>14}")
            for row in rows:
                print(f"{row['mode']:<12} {row['workers']:>7} {row['per_pair']:>18,.0f} "
                      f"{row['vs_in_process']:>14.3f}")
        else:
            rows = []
            print(f"{'workload':<10} {'entry':<9} {'instructions/call':>18}")
            for workload in args.workloads:
                for entry in args.entries:
                    calls = (args.calls[0], args.calls[1]) if args.calls else CALLS[workload]
                    count = entry_instructions(workload, entry, calls)
                    rows.append({"workload": workload, "entry": entry, "per_call": count})
                    print(f"{workload:<10} {entry:<9} {count:>18,.0f}", flush=True)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
