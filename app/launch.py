"""Starting the explorer from the command line: ``oa explore``.

The ``oa`` command of :mod:`oa_core.cli` knows nothing of the explorer: this module
adds its ``explore`` sub-command through the entry point group ``oa_core.commands``
(``explore = "app.launch:register"`` in ``pyproject.toml``). ``oa explore`` runs
``streamlit run app/main.py`` on 127.0.0.1, headless and without usage statistics,
and stops Streamlit when it is stopped itself.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="oa")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["explore", "--port", "8611"])
>>> args.port, args.example, args.dataset, args.run is explore
(8611, None, None, True)
>>> streamlit_command(8611)[3:]  # doctest: +NORMALIZE_WHITESPACE
['run', '.../app/main.py', '--server.address', '127.0.0.1', '--server.port', '8611',
 '--server.headless', 'true', '--browser.gatherUsageStats', 'false',
 '--runner.postScriptGC', 'false']
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from oa_core.extras import MissingExtra, check

__all__ = ["app_entry", "explore", "register", "run_child", "streamlit_command"]

ADDRESS = "127.0.0.1"
EXPLORER_MODULES = ("streamlit", "plotly", "pyvis", "pyarrow")  # the explorer extra
DATASET_ENV = "OA_EXPLORE_DATASET"  # read by app/runs/dataset_state.py in the server


def app_entry() -> Path:
    """The explorer's entry script, ``app/main.py`` (beside this module)."""
    return Path(__file__).resolve().parent / "main.py"


def streamlit_command(port: int, entry: Path | None = None) -> list[str]:
    """The command that serves the explorer on ``127.0.0.1:port``.

    Without Streamlit's full garbage collection after every script run: it holds the
    interpreter for 100-300 ms with the explorer's libraries loaded, after the page
    was sent but before the "run finished" message goes out (the browser shows the
    page as running until then), and between a callback's ``st.rerun()`` and the run
    it asks for (applying a fix). Python's own collector still runs as usual.

    Through :mod:`app.serve`: Streamlit's command line, with the libraries the first
    page needs imported while the server starts.
    """
    return [sys.executable, "-m", "app.serve", "run", str(entry or app_entry()),
            "--server.address", ADDRESS, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--runner.postScriptGC", "false"]


def _port(text: str) -> int:
    port = int(text)
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port must be in 1..65535, got {port}")
    return port


def register(subparsers: Any) -> None:
    """Add ``explore [--port P] [--example NAME]`` to ``oa`` (the entry point)."""
    parser = subparsers.add_parser("explore", help="start the visual explorer (Streamlit)",
                                   description=f"Start the Streamlit explorer on {ADDRESS}.")
    parser.add_argument("--port", "-p", type=_port, default=8501)
    parser.add_argument("--example", metavar="NAME",
                        help="open a bundled example (a folder of sample_data/)")
    parser.add_argument("--dataset", metavar="DIR",
                        help="open an evaluation dataset folder (schema.json with golds.jsonl "
                             "and runs, or pairs files; see docs/datasets.md)")
    parser.set_defaults(run=explore)


def explore(args: argparse.Namespace) -> int:
    """Run the explorer in the foreground; the exit code of Streamlit (1 if it cannot).

    Raises
    ------
    oa_core.cli.BadInput
        For an unknown ``--example`` (exit code 2).
    """
    entry = app_entry()
    if not entry.is_file():
        print(f"oa: error: the explorer is not installed: {entry} does not exist\n"
              "  fix: run `oa explore` from a source checkout of Object Aligner Explorer",
              file=sys.stderr)
        return 1
    try:
        check("explorer", *EXPLORER_MODULES)
    except MissingExtra as exc:
        print(f"oa: error: {exc}", file=sys.stderr)
        return 1
    url = f"http://{ADDRESS}:{args.port}/"
    ahead: int | None = None  # the pid of the prescorer
    if getattr(args, "dataset", None):
        from oa_core.cli import BadInput
        from oa_core.errors import OAError
        from oa_core.runs.dataset import load_folder

        from .runs import prescore
        from .runs.workers import PRESCORER_ENV

        try:  # read it once here, so a bad folder is reported before the server starts
            data = load_folder(args.dataset)
        except OAError as exc:
            raise BadInput(f"--dataset {args.dataset}: {exc.message}"
                           + (f"\n  fix: {exc.fix}" if exc.fix else "")) from None
        folder = Path(args.dataset).resolve()
        os.environ[DATASET_ENV] = str(folder)
        url += f"dataset?dataset={quote(folder.name)}"
        print(f"Dataset {folder.name}: runs {', '.join(data.runs)}; "
              f"{len(data.bad_lines)} bad lines", file=sys.stderr)
        # the run the page opens on scores while the server starts (app/runs/prescore.py)
        ahead = prescore.start(data)
        if ahead is not None:  # the server leaves the cores to it (app/runs/workers.py)
            os.environ[PRESCORER_ENV] = str(ahead)
    elif args.example:
        from .examples import list_examples

        known = [example.name for example in list_examples()]
        if args.example not in known:  # sample_data/datasets holds runs, not an example
            from oa_core.cli import BadInput

            raise BadInput(f"--example: there is no bundled example {args.example!r}"
                           f"\n  fix: pick one of {', '.join(known) or '(none found)'}")
        url += f"?example={quote(args.example)}"
    print(f"Object Aligner Explorer: {url}  (Ctrl-C stops it)", file=sys.stderr)
    try:
        return run_child(streamlit_command(args.port, entry))
    finally:
        if ahead is not None:
            prescore.stop(ahead)


@contextlib.contextmanager
def served(port: int, log: Path, *options: str, timeout: float = 120.0) -> Iterator[str]:
    """``oa explore [options]`` on 127.0.0.1:``port`` until the block ends (tests,
    benchmarks).

    Starts it in its own process group with its output in ``log``, waits for the
    health check to answer ``ok`` (a ``RuntimeError`` with the log after ``timeout``
    seconds or if it exits), yields its URL and stops the whole group afterwards.
    """
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "oa_core.cli", "explore", "--port",
                                 str(port), *options], cwd=app_entry().parent.parent, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as resp:
                    if resp.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the explorer did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc`` (10 s, then killed) unless it has ended; reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_child(command: list[str]) -> int:
    """Run ``command`` in the foreground; stop it too when ``oa`` is terminated."""
    child = subprocess.Popen(command)

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)
        _stop(child)
