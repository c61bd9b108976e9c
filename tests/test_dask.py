"""``oa batch --dask`` and ``score_pairs(client=...)`` on a real LocalCluster
(:mod:`oa_core.runs.cluster`): byte-identical to the local run, in order, with a bad line,
an unparsable prediction, and a worker killed mid-run."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oa_core import cli
from oa_core.runs import batch, cluster
from oa_core.runs.batch import BatchOptions, BatchResult, iter_batch, score_pairs

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parent.parent
RUNNING = ROOT / "sample_data" / "running_example"
SCHEMA = str(RUNNING / "schema.json")


def load(name: str) -> Any:
    return json.loads((RUNNING / f"{name}.json").read_text())


def mixed_lines(copies: int = 1) -> list[str]:
    """Good pairs, raw predictions with prose and fences, bad lines, an unparsable one."""
    gold, candidate, schema = load("gold"), load("candidate"), load("schema")
    del schema
    bad_gold = json.loads(json.dumps(gold))
    bad_gold["people"][0]["name"] = 3
    lines = []
    for copy in range(copies):
        shorter = json.loads(json.dumps(candidate))
        shorter["people"] = shorter["people"][: 1 + copy % 3]
        lines += [
            json.dumps({"id": f"c{copy}", "gold": gold, "candidate": candidate}),
            json.dumps({"id": copy, "gold": gold, "candidate": shorter}),
            "",
            json.dumps({"gold": gold, "prediction": "Sure! Here it is:\n```json\n"
                        f"{json.dumps(shorter)}\n```\nAnything else?"}),
            json.dumps({"gold": gold, "prediction": "Sorry, I cannot help with that."}),
            json.dumps({"gold": bad_gold, "candidate": candidate}),
            '{"gold": ',
            json.dumps({"gold": gold}),
            json.dumps({"id": "é\u2028", "gold": gold, "candidate": gold}),
        ]
    return lines


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None, silence_logs=40) as local, \
            distributed.Client(local) as dask_client:
        yield dask_client


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_output_is_byte_identical(client: Any, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(mixed_lines(4)) + "\n", encoding="utf-8")
    runs = {}
    for label, extra in (("local", []), ("dask", ["--dask", client.scheduler.address])):
        out = tmp_path / f"{label}.jsonl"
        code, summary, err = run(["batch", str(pairs), "--schema", SCHEMA, "-o", str(out),
                                  "--top-k", "3", "--progress", *extra], capsys)
        assert code == 2, err  # bad lines are reported; every other line is scored
        assert "Traceback" not in err and "32/32 pairs" in err
        runs[label] = (out.read_bytes(), summary,
                       [line for line in err.splitlines() if line.startswith("oa: ")])
    assert runs["dask"] == runs["local"]
    records = [json.loads(line) for line in runs["dask"][0].splitlines()]
    assert [r["index"] for r in records] == list(range(32))
    assert records[0]["id"] == "c0" and records[7]["id"] == "é\u2028"
    assert records[3]["parse_error"]["pointer"] == "/prediction"
    assert records[4]["error"]["document"] == "gold" and records[4]["error"]["line"] == 6
    assert "invalid JSON" in records[5]["error"]["message"]
    assert runs["dask"][1].startswith("pairs: 20 scored, 12 failed, 4 unparsable predictions")


def test_cli_json_summary_to_stderr_with_results_on_stdout(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n".join(mixed_lines(1)) + "\n"
    outputs = []
    for extra in ([], ["--dask", client.scheduler.address]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        outputs.append(run(["batch", "-", "--schema", SCHEMA, "--json", *extra], capsys))
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[1][2].splitlines()[0])["count"] == 5


def test_score_pairs_with_client_equals_local(client: Any) -> None:
    lines: list[Any] = mixed_lines(3)
    lines[1] = json.loads(lines[1])  # dicts and lines mixed
    lines.append({"gold": {}, "candidate": {"x": float("nan")}})  # not JSON data
    schema = load("schema")
    options = BatchOptions(top_k=2)
    local = score_pairs(lines, schema, options=options)
    remote = score_pairs(lines, schema, options=options, client=client, chunk_size=2)
    assert list(local.columns) == ["index", "id", "score", "ops", "parse_error", "error"]
    assert local.equals(remote) and local.attrs == remote.attrs
    assert list(remote["index"]) == list(range(25))
    assert remote["score"].isna().sum() == 10 and remote.attrs["summary"]["failed"] == 10
    assert "not JSON data" in remote["error"].iloc[-1]["message"]


def test_lost_worker_is_retried_without_losing_or_duplicating_lines(client: Any) -> None:
    lines = mixed_lines(8)
    schema = load("schema")
    expected = [r.record for r in iter_batch(lines, schema)]
    before = client.run(os.getpid)
    results: list[BatchResult] = []
    for result in iter_batch(lines, schema, client=client, chunk_size=1):
        results.append(result)
        if len(results) == 1:  # tasks are in flight on both workers: kill one
            os.kill(next(iter(before.values())), signal.SIGKILL)
    assert [r.record for r in results] == expected
    deadline = time.monotonic() + 30  # the nanny restarts it for the other tests
    while len(client.nthreads()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert set(client.run(os.getpid).values()) != set(before.values())


def test_schema_is_parsed_once_per_worker(client: Any) -> None:
    def cached() -> int:
        return len(cluster._SCHEMAS)

    schema = {"type": "object", "properties": {"tag": {"type": "string"}}}
    lines = [json.dumps({"gold": {"tag": str(i)}, "candidate": {"tag": "0"}})
             for i in range(12)]
    before = sum(client.run(cached).values())
    list(iter_batch(lines, schema, client=client, chunk_size=1))
    list(iter_batch(lines[:6], schema, client=client, chunk_size=1))
    assert sum(client.run(cached).values()) - before <= 2  # one entry per worker at most


class _Future:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value


class _FlakyClient:
    """Fails every chunk holding line 3, as if that line killed its worker each time."""

    status = "running"

    def __init__(self) -> None:
        self.keys: list[str] = []

    def nthreads(self) -> dict[str, int]:
        return {"w": 1}

    def submit(self, func: Any, *args: Any, key: str, pure: bool, retries: int) -> _Future:
        assert pure and retries == 2
        self.keys.append(key)
        if any(number == 3 for _, number, _ in args[-1]):
            return _Future(RuntimeError("KilledWorker: the task was on 3 lost workers"))
        return _Future(func(*args))


def test_a_line_that_keeps_killing_workers_costs_only_itself() -> None:
    lines = [json.dumps({"id": i, "gold": {"a": i}, "candidate": {"a": i}}) for i in range(7)]
    fake = _FlakyClient()
    results = list(iter_batch(lines, {"type": "object"}, client=fake, chunk_size=3))
    assert [r.record["index"] for r in results] == list(range(7))
    assert [r.internal for r in results] == [False, False, True] + [False] * 4
    assert results[2].record["error"]["line"] == 3
    assert "KilledWorker" in results[2].record["error"]["message"]
    assert results[3].record == {"index": 3, "id": 3, "score": 1.0, "ops": []}
    assert len(fake.keys) == len(set(fake.keys)) == 3 + 3  # 3 chunks, then the first by line


def test_without_dask_the_option_says_how_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if missing
    code, _, err = run(["batch", str(RUNNING / "gold.json"), "--schema", SCHEMA,
                        "--dask", "local"], capsys)
    assert code == 2 and "Traceback" not in err
    assert "Dask is not installed" in err and "object-aligner-explorer[dask]" in err


def test_oa_core_imports_without_dask() -> None:
    code = ("import sys; sys.modules['distributed'] = sys.modules['dask'] = None; "
            "import oa_core, oa_core.cli, oa_core.runs.batch, oa_core.runs.cluster; print('ok')")
    import subprocess
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.stdout.strip() == "ok", proc.stderr


def test_unreachable_scheduler_is_bad_input() -> None:
    with pytest.raises(cluster.ClusterError, match="cannot reach the Dask scheduler"), \
            cluster.dask_client("tcp://127.0.0.1:9", timeout=1):
        pass
    assert batch.COLUMNS[0] == "index"


def test_workers_without_this_oa_core_are_refused(client: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import oa_core

    cluster.check_workers(client)  # same version everywhere
    monkeypatch.setattr(oa_core, "__version__", "9.9.9")
    with pytest.raises(cluster.ClusterError, match=r"2 Dask worker\(s\) cannot run oa_core "
                                                   r"9\.9\.9 .*oa_core 0\.1\.0") as info:
        cluster.check_workers(client)
    assert "object-aligner-explorer[dask]" in str(info.value)
