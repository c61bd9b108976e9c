"""Whether the editable install in .venv is up to date: ``check`` or ``write`` its stamp.

An editable install picks up Python edits by itself; it needs redoing only when the
build inputs change: ``pyproject.toml`` (dependencies, extras, entry points), the Rust
workspace (``Cargo.toml``, ``Cargo.lock``, ``crates/**``) that maturin compiles into
``oa_core._engine``, or the extra installed. ``scripts/run`` skips its reinstall when
``check`` passes, and ``write``\\s the stamp after installing.

Usage: ``python scripts/install_stamp.py check|write EXTRA [ROOT]`` (exit code 0 when up
to date, 1 when not).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

__all__ = ["STAMP", "fingerprint", "main"]

STAMP = Path(".venv") / ".oa-install-stamp"
INPUTS = ("pyproject.toml", "Cargo.toml", "Cargo.lock")


def fingerprint(root: Path, extra: str) -> str:
    """A hash of the build inputs under ``root`` (paths and contents) and ``extra``."""
    files = [root / name for name in INPUTS if (root / name).is_file()]
    crates = root / "crates"
    if crates.is_dir():
        files += [path for path in crates.rglob("*") if path.is_file()
                  and "target" not in path.relative_to(crates).parts]
    digest = hashlib.sha256(f"extra={extra}\0".encode())
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or argv[0] not in ("check", "write"):
        print("usage: install_stamp.py check|write EXTRA [ROOT]", file=sys.stderr)
        return 2
    action, extra = argv[0], argv[1]
    root = Path(argv[2]) if len(argv) == 3 else Path(__file__).resolve().parent.parent
    stamp = root / STAMP
    current = fingerprint(root, extra)
    if action == "write":
        stamp.write_text(current + "\n")
        return 0
    try:
        return 0 if stamp.read_text().strip() == current else 1
    except OSError:
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
