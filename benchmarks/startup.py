"""How long the ``oa`` command takes to start and finish small jobs: wall time, CPU
time (the command's process and any it started) and peak memory, per source tree.

Each command runs in a fresh process (``python -c`` calling :func:`oa_core.cli.main`)
with the tree as its working directory, so that the tree's ``oa_core`` is the one
imported: give two checkouts (``--trees OLD NEW``) to put an old version beside a new
one in one run. The trees take turns, command by command and round by round, so that a
change of the machine's load falls on all of them; each figure is the median over the
rounds. The trees share this interpreter and its packages; each needs its engine
built (``oa_core/_engine.abi3.so``). The commands write and use bytecode
(``__pycache__``) as an installed copy does, whatever ``PYTHONDONTWRITEBYTECODE`` says.

The commands, on the paper's running example (``sample_data/running_example``):
``oa --version`` (importing the command), ``oa score``, ``oa feedback``, and
``oa batch`` over 16 copies of the pair with one worker and with two.

Run from the repository root::

    python -m benchmarks.startup                       # this tree, 9 rounds
    python -m benchmarks.startup --trees ../old . --rounds 15 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["command_environment", "commands", "main", "measure", "run_once"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "sample_data" / "running_example"
_MAIN = "import sys\nfrom oa_core.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _pairs_file(folder: Path, copies: int = 16) -> Path:
    """``copies`` lines of the running example's pair, as ``oa batch`` reads them."""
    line = json.dumps({"gold": json.loads((EXAMPLE / "gold.json").read_text("utf-8")),
                       "candidate": json.loads(
                           (EXAMPLE / "candidate.json").read_text("utf-8"))})
    path = folder / "pairs.jsonl"
    path.write_text((line + "\n") * copies, encoding="utf-8")
    return path


def commands(folder: Path) -> dict[str, list[str]]:
    """The timed commands' arguments (after ``oa``) by name, in the order they are run
    and shown; ``folder`` takes the batch files."""
    pair = [str(EXAMPLE / "gold.json"), str(EXAMPLE / "candidate.json"),
            "--schema", str(EXAMPLE / "schema.json")]
    pairs = str(_pairs_file(folder))
    batch = ["batch", pairs, "--schema", str(EXAMPLE / "schema.json"), "-o",
             str(folder / "out.jsonl")]
    return {"oa --version": ["--version"], "oa score": ["score", *pair],
            "oa feedback": ["feedback", *pair],
            "oa batch, 16 pairs, 1 worker": [*batch, "--workers", "1"],
            "oa batch, 16 pairs, 2 workers": [*batch, "--workers", "2"]}


def command_environment(tree: Path) -> dict[str, str]:
    """The environment of a timed ``oa`` process importing ``tree``'s ``oa_core``: this
    one's, but bytecode is written and read as on an installed copy (pip compiles the
    modules it installs), so that a machine setting ``PYTHONDONTWRITEBYTECODE`` does not
    time the compiling of ``oa_core``'s source at every start."""
    kept = {key: value for key, value in os.environ.items()
            if key != "PYTHONDONTWRITEBYTECODE"}
    return {**kept, "PYTHONPATH": str(tree)}


def run_once(tree: Path, args: Sequence[str]) -> dict[str, float]:
    """One run of ``oa ARGS`` from ``tree``: wall seconds, CPU seconds of its process
    and the processes it started, and the peak resident memory of any of them, in MiB.

    Raises
    ------
    RuntimeError
        When the command fails (its standard error is in the message).
    """
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-c", _MAIN, *args], cwd=tree,
                                   env=command_environment(tree),
                                   stdout=subprocess.DEVNULL, stderr=errors)
        # wait4: this child's own usage, its workers' included (they are its children)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"oa {' '.join(args)} in {tree} failed: "
                               f"{errors.read().strip()}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mib": usage.ru_maxrss / 1024}  # KiB on Linux


def measure(trees: Sequence[Path], rounds: int) -> list[dict[str, Any]]:
    """Each command from each tree, ``rounds`` times, the trees taking turns; a row per
    command and tree with the medians."""
    runs: dict[tuple[str, Path], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        timed = commands(Path(folder))
        for tree in trees:  # one untimed run each: the page cache, the bytecode written
            for args in timed.values():
                run_once(tree, args)
        for _ in range(rounds):
            for name in timed:
                for tree in trees:
                    runs.setdefault((name, tree), []).append(run_once(tree, timed[name]))
    return [{"command": name, "tree": str(tree),
             "wall_s": statistics.median(r["wall_s"] for r in runs[name, tree]),
             "cpu_s": statistics.median(r["cpu_s"] for r in runs[name, tree]),
             "peak_mib": statistics.median(r["peak_mib"] for r in runs[name, tree]),
             "rounds": rounds}
            for name in timed for tree in trees]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", type=Path, default=[ROOT],
                        help="source trees to time the command from (default: this one)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    trees = [tree.resolve() for tree in args.trees]
    rows = measure(trees, args.rounds)
    print(f"median of {args.rounds} rounds; CPU includes the processes a command starts; "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"{'command':32s} {'tree':40s} {'wall s':>7s} {'CPU s':>7s} {'peak MiB':>9s}")
    for row in rows:
        print(f"{row['command']:32s} {row['tree'][-40:]:40s} {row['wall_s']:7.3f} "
              f"{row['cpu_s']:7.3f} {row['peak_mib']:9.1f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
