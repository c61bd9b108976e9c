"""``bash scripts/run`` installs only when its inputs changed (issue 23: a later start
spent 13.7 s of 15.8 s on an editable reinstall that nothing changed).

The script runs for real in a copy of the project's build inputs whose ``.venv`` holds
stand-ins: a ``python`` that records what it is asked and runs the stamp helper with the
real interpreter (pip and the import check succeed without doing anything), and an
``oa`` that records the start. No network, no install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from install_stamp import fingerprint  # noqa: E402

FAKE_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$OA_TEST_LOG"
case "$1" in
  -m) exit 0 ;;  # pip install: nothing to do here
  -c) exit "${OA_TEST_IMPORTS:-0}" ;;  # the import check: 1 plays a removed package
esac
exec "$REAL_PYTHON" "$@"
"""
FAKE_OA = """#!/usr/bin/env bash
echo "oa $*" >> "$OA_TEST_LOG"
"""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scripts").mkdir(parents=True)
    for name in ("run", "install_stamp.py"):
        shutil.copy2(ROOT / "scripts" / name, root / "scripts" / name)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (root / "Cargo.lock").write_text("# lock\n")
    (root / "crates" / "oa-engine" / "src").mkdir(parents=True)
    (root / "crates" / "oa-engine" / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (root / "oa_core").mkdir()
    (root / "oa_core" / "aligner.py").write_text("x = 1\n")
    venv = root / ".venv" / "bin"
    venv.mkdir(parents=True)
    for name, text in (("python", FAKE_PYTHON), ("oa", FAKE_OA)):
        (venv / name).write_text(text)
        (venv / name).chmod(0o755)
    return root


def start(root: Path, imports: int = 0) -> list[str]:
    """Run ``bash scripts/run``; the commands it ran (stamp checks left out)."""
    log = root / "log"
    log.write_text("")
    env = {**os.environ, "OA_TEST_LOG": str(log), "REAL_PYTHON": sys.executable,
           "PORT": "8777", "OA_TEST_IMPORTS": str(imports)}
    done = subprocess.run(["bash", str(root / "scripts" / "run")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line for line in log.read_text().splitlines() if "install_stamp.py check" not in line]


INSTALL = "python -m pip install --disable-pip-version-check --progress-bar on -e .[explorer]"
STARTED = "oa explore --port 8777"


def test_installs_once_then_only_when_inputs_change(tmp_path: Path) -> None:
    root = project(tmp_path)
    first = start(root)
    assert first[0] == INSTALL and first[-1] == STARTED
    assert any("install_stamp.py write explorer" in line for line in first)
    again = start(root)  # nothing changed: straight to the explorer
    assert INSTALL not in again and again[-1] == STARTED
    (root / "oa_core" / "aligner.py").write_text("x = 2\n")  # the editable install has it
    assert INSTALL not in start(root)
    for changed in ("crates/oa-engine/src/lib.rs", "Cargo.lock", "pyproject.toml"):
        path = root / changed
        path.write_text(path.read_text() + "// changed\n")
        assert start(root)[0] == INSTALL, changed
        assert INSTALL not in start(root), changed
    (root / "crates" / "oa-python" / "src").mkdir(parents=True)  # a new Rust file
    (root / "crates" / "oa-python" / "src" / "lib.rs").write_text("\n")
    assert start(root)[0] == INSTALL
    # the inputs are as installed, but the engine or streamlit went missing
    assert INSTALL in start(root, imports=1)


def test_fingerprint(tmp_path: Path) -> None:
    root = project(tmp_path)
    base = fingerprint(root, "explorer")
    assert fingerprint(root, "explorer") == base
    assert fingerprint(root, "test") != base  # another extra is another install
    (root / "crates" / "target").mkdir()  # build output is not an input
    (root / "crates" / "target" / "x.o").write_text("binary")
    assert fingerprint(root, "explorer") == base
    (root / "crates" / "oa-engine" / "src" / "lib.rs").rename(
        root / "crates" / "oa-engine" / "src" / "mod.rs")  # a rename changes it
    assert fingerprint(root, "explorer") != base
