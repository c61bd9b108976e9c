"""The extension's allocator under the threads and forks it meets in the field.

The engine's global allocator lives inside a dlopen()'d extension: threads that exist
before the import (Streamlit runs its scripts in such threads), threads that come and
go, memory freed by another thread than the one that allocated it, and forks made while
other threads are inside the engine. An allocator that mishandles one of these crashes
the process rather than failing an assertion, so each scenario runs in a fresh
interpreter and the test checks its exit status as well as the score bits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter; it must not import oa_core before the early threads start.
CHILD = textwrap.dedent('''
    import json
    import multiprocessing
    import os
    import queue
    import sys
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    assert "oa_core" not in sys.modules
    EXPECTED_BITS = (0.7678571428571429).hex()
    folder = Path("sample_data") / "running_example"
    GOLD, CANDIDATE, SCHEMA_JSON = (json.loads((folder / f"{name}.json").read_text())
                                    for name in ("gold", "candidate", "schema"))
    FLAT_GOLD = {f"s{k}": "alpha beta" for k in range(5)} | {f"n{k}": k for k in range(5)}
    FLAT_CANDIDATE = dict(FLAT_GOLD, s1="alpha betas", n2=3)
    FLAT_SCHEMA = {"type": "object", "properties": {
        **{f"s{k}": {"type": "string"} for k in range(5)},
        **{f"n{k}": {"type": "number"} for k in range(5)}}}

    failures = []
    handed_over = queue.Queue()  # results made in one thread, dropped in another
    go = threading.Event()


    def check(value, what):
        if value.hex() != EXPECTED_BITS:
            failures.append(f"{what}: {value!r}")


    def work(rounds, tag):
        import oa_core

        for _ in range(rounds):
            check(oa_core.score(GOLD, CANDIDATE, SCHEMA), f"{tag} score")
            alignment = oa_core.align(GOLD, CANDIDATE, SCHEMA)
            check(alignment.score, f"{tag} align")
            feedback = oa_core.feedback(GOLD, CANDIDATE, SCHEMA)
            check(feedback.score, f"{tag} feedback")
            if feedback.text != FEEDBACK_TEXT:
                failures.append(f"{tag} feedback text")
            prepared = oa_core.prepare_gold(GOLD, SCHEMA)
            check(oa_core.score(prepared, CANDIDATE, SCHEMA), f"{tag} prepared")
            flat = oa_core.score(FLAT_GOLD, FLAT_CANDIDATE, FLAT_SCHEMA)
            if flat != FLAT_SCORE:
                failures.append(f"{tag} flat: {flat!r}")
            handed_over.put((alignment, feedback, prepared))


    def early(index):
        go.wait()
        work(4, f"early {index}")


    def drop_handed_over():
        while (item := handed_over.get()) is not None:
            alignment, feedback, prepared = item
            # the prepared gold made by another thread is used here, then freed here
            check(oa_core.score(prepared, CANDIDATE, SCHEMA), "handed-over prepared")
            del item, alignment, feedback, prepared


    def score_in_fork():
        check(oa_core.score(GOLD, CANDIDATE, SCHEMA), "forked child")
        check(oa_core.feedback(GOLD, CANDIDATE, SCHEMA).score, "forked child feedback")
        return 0 if not failures else 3


    def pool_score(_):
        return oa_core.score(GOLD, CANDIDATE, SCHEMA).hex()


    # Threads that exist before the extension is loaded, as Streamlit's script threads do.
    early_threads = [threading.Thread(target=early, args=(i,)) for i in range(12)]
    for thread in early_threads:
        thread.start()

    import oa_core

    assert Path(oa_core.__file__).resolve().is_relative_to(Path.cwd().resolve())
    SCHEMA = oa_core.Schema.parse(SCHEMA_JSON)
    FEEDBACK_TEXT = oa_core.feedback(GOLD, CANDIDATE, SCHEMA).text
    FLAT_SCORE = oa_core.score(FLAT_GOLD, FLAT_CANDIDATE, FLAT_SCHEMA)
    dropper = threading.Thread(target=drop_handed_over)
    dropper.start()
    go.set()

    # Forks while the early threads are inside the engine (the allocator's locks held).
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            os._exit(score_in_fork())
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            failures.append(f"forked child exit {os.waitstatus_to_exitcode(status)}")

    # Short-lived threads: each one's allocator state is torn down at its exit while
    # the results it made live on.
    for wave in range(5):
        brief = [threading.Thread(target=work, args=(1, f"brief {wave}.{i}")) for i in range(6)]
        for thread in brief:
            thread.start()
        for thread in brief:
            thread.join()

    # A pool shut down and made again: its worker threads are new each time.
    for attempt in range(3):
        with ThreadPoolExecutor(max_workers=4) as executor:
            list(executor.map(work, [1] * 8, [f"pool {attempt}.{i}" for i in range(8)]))

    with multiprocessing.get_context("fork").Pool(2) as processes:
        for bits in processes.map(pool_score, range(8)):
            if bits != EXPECTED_BITS:
                failures.append(f"fork pool: {bits}")

    for thread in early_threads:
        thread.join()
    handed_over.put(None)
    dropper.join()
    if failures:
        print("\\n".join(failures[:20]), file=sys.stderr)
        sys.exit(2)
    print("allocator ok")
''')


def test_threads_and_forks_keep_the_process_alive_and_the_bits() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1")
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", CHILD],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    # a negative return code is the signal that killed it (a segfault is -11)
    assert done.returncode == 0, (done.returncode, done.stderr[-4000:])
    assert done.stdout.strip() == "allocator ok", done.stdout
