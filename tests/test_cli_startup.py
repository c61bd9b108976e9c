"""What the ``oa`` command imports to start: numpy, rich and pandas only when a command
needs them (numpy costs about 50 ms to import and, through OpenBLAS's threads, about
0.1 s of CPU; rich about 15 ms).

Each case runs Python in a subprocess, some with modules hidden (None in
``sys.modules``, so that importing them fails): a command that imported one would
fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "sample_data" / "running_example"
HIDE = "import sys\nfor name in ('numpy', 'rich', 'pandas'):\n    sys.modules[name] = None\n"


def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_importing_the_command_imports_no_numpy_rich_or_pandas() -> None:
    done = run("import sys\nimport oa_core.cli\n"
               "print(sorted({'numpy', 'rich', 'pandas'} & set(sys.modules)))")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


def test_oa_feedback_runs_without_numpy_rich_or_pandas() -> None:
    args = (str(EXAMPLE / "gold.json"), str(EXAMPLE / "candidate.json"),
            "--schema", str(EXAMPLE / "schema.json"))
    main = "from oa_core.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    hidden = run(HIDE + main, "feedback", *args)
    shown = run("import sys\n" + main, "feedback", *args)
    assert hidden.returncode == shown.returncode == 0, hidden.stderr
    assert hidden.stdout == shown.stdout
    assert hidden.stdout.startswith("The prediction scored 0.77 ")


def test_oa_batch_scores_before_it_imports_numpy(tmp_path: Path) -> None:
    # the lines are scored without numpy; the summary's quantiles import it at the end
    pairs = tmp_path / "pairs.jsonl"
    gold = (EXAMPLE / "gold.json").read_text(encoding="utf-8")
    candidate = (EXAMPLE / "candidate.json").read_text(encoding="utf-8")
    pairs.write_text(f'{{"gold": {gold}, "candidate": {candidate}}}\n'.replace("\n", " ")
                     + "\n", encoding="utf-8")
    code = ("import sys\nfrom oa_core.runs import batch\nimport oa_core.cli\n"
            "seen = []\n"
            "summary = batch.BatchTally.summary\n"
            "def watched(self):\n"
            "    seen.append(sorted({'numpy', 'rich', 'pandas'} & set(sys.modules)))\n"
            "    return summary(self)\n"
            "batch.BatchTally.summary = watched\n"
            "code = oa_core.cli.main(sys.argv[1:])\n"
            "print(seen, code)\n")
    done = run(code, "batch", str(pairs), "--schema", str(EXAMPLE / "schema.json"),
               "-o", str(tmp_path / "out.jsonl"), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("[[]] 0\n")
    assert '"score": 0.7678571428571429' in (tmp_path / "out.jsonl").read_text()



def _threads_after_score(openblas_threads: str | None) -> tuple[str, int]:
    """``OPENBLAS_NUM_THREADS`` and the process's thread count after ``oa score``
    (which imports numpy), run with the variable set to ``openblas_threads`` or unset."""
    code = ("import os, sys\nfrom oa_core.cli import main\n"
            "code = main(sys.argv[1:])\n"
            "threads = [line.split()[1] for line in open('/proc/self/status')\n"
            "           if line.startswith('Threads:')][0]\n"
            "print(code, 'numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], threads)\n")
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if openblas_threads is not None:
        env["OPENBLAS_NUM_THREADS"] = openblas_threads
    done = subprocess.run([sys.executable, "-c", code, "score", str(EXAMPLE / "gold.json"),
                           str(EXAMPLE / "candidate.json"), "--schema",
                           str(EXAMPLE / "schema.json")], cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    code_text, numpy_imported, setting, threads = done.stdout.splitlines()[-1].split()
    assert (code_text, numpy_imported) == ("0", "True")
    return setting, int(threads)


def test_the_command_keeps_numpy_to_one_openblas_thread() -> None:
    # OpenBLAS starts a thread per core, and each spins until the process ends: about
    # 50 ms of CPU a command
    assert _threads_after_score(None) == ("1", 1)


def test_a_users_openblas_setting_is_kept() -> None:
    assert _threads_after_score("2")[0] == "2"
