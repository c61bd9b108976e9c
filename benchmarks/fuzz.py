"""Fuzz the engine with hostile triples and check its invariants on every one.

Each triple comes from :func:`synthetic.hostile.generate` (schema, a gold
that satisfies it, a corrupted candidate; custom comparators from
``hostile.COMPARATORS``) and is checked in a worker process:

a. only :class:`oa_core.OAError` subclasses are raised (anything else is a *raw
   exception*, reported with its type, stage and traceback);
b. every score is in [0, 1] and not NaN;
c. ``score(g, g) == 1.0``;
d. with ``feedback(g, c, s, top_k=10**6)`` the op deltas add up to ``1 - score``
   within 1e-12 (``math.fsum``), also with ``strict=True``;
e. ``score(g, apply_ops(c, fb.ops)) == 1.0``;
f. permuting ``order: "align"`` lists of the gold, the candidate or both never
   changes a bit of the score in ``wl_mode`` ``"tie_break"`` and ``"blend"``;
g. relabelling the ids of the candidate (and, for every fourth seed, of the gold)
   consistently keeps the bits (in every ``wl_mode``: relabelling moves no record),
   wherever structure or references decided every tie (a pair that only the
   records' canonical JSON told apart is a documented limit: counted as skipped);
h. on a sample (every ``--sample-every``-th triple), the same bits under two other
   ``PYTHONHASHSEED`` values (two subprocesses after the run);
n. (c) and (e) in the other modes: ``score(g, g) == 1.0`` with ``wl_mode`` ``"blend"``
   and ``"none"``, and the repairs of ``feedback(..., wl_mode="blend")`` reach 1.0;
o. the repairs of ``feedback(..., wl_mode="none")`` reach 1.0 (the ablation pairs
   look-alike records by list position: the repairs put records in the gold's
   order, ``move-list-item``).

With ``--nested`` the triples also put scope record arrays inside other arrays
(:func:`synthetic.hostile.generate`'s ``nested``; a seed's triple without it
is unchanged).

A triple over ``--timeout`` seconds of CPU time (all its checks together) is a
*hang*: a CPU-time alarm (``ITIMER_PROF``, so that a loaded machine does not make
hangs of slow triples) inside the worker reports the stage it was in, and a
watchdog in the parent kills and replaces a worker that has not answered after
``6 * timeout + 10`` seconds of wall time (a hang in C code, or a worker blocked).
When the first call refuses the triple with an :class:`~oa_core.OAError`
(a sabotaged schema, an invalid candidate, a custom comparator that raised) the
triple counts as *refused* and the other invariants are not checked; when a later
call of a check raises a :class:`~oa_core.errors.ComparatorError` (a misbehaving custom
comparator met a new pair), that check counts as *skipped*; any other ``OAError`` there
(the same documents, permuted, relabelled or repaired, refused) fails the check.

Every failure is a JSON line in ``benchmarks/results/fuzz-failures.jsonl`` (seed,
size, invariant, stage, exception or values, and the variant parameters needed to
rebuild it with :meth:`~synthetic.hostile.HostileTriple.materialize`); the
summary goes to ``benchmarks/results/fuzz.json``. The exit code is 1 when anything
failed.

Run from the repository root::

    python -m benchmarks.fuzz --triples 50000 --workers 2 --seed 0
    python -m benchmarks.fuzz --triples 3000 --size 3
    python -m benchmarks.fuzz --replay 1234         # one seed in this process, verbose
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import multiprocessing as mp
import os
import re
import signal
import struct
import subprocess
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import oa_core
from oa_core import OAError
from oa_core.build import describe_build
from oa_core.errors import ComparatorError
from synthetic import hostile

__all__ = ["INVARIANTS", "check_triple", "digest", "fingerprint", "main", "run", "shrink",
           "shrink_failure"]

INVARIANTS: dict[str, str] = {
    "a": "only OAError subclasses raised",
    "b": "score in [0, 1], not NaN",
    "c": "score(g, g) == 1.0",
    "d": "deltas sum to 1 - score (+strict)",
    "e": "apply_ops reaches 1.0",
    "f": "align permutation keeps bits",
    "g": "id relabelling keeps bits",
    "h": "same bits across PYTHONHASHSEED",
    "n": "(c), (e) in the other wl_modes",
    "o": "apply_ops reaches 1.0, wl_mode=none",
}
PERMUTED_MODES = ("tie_break", "blend")
RELABEL_MODES = ("tie_break", "blend", "none")
RESULTS = Path(__file__).resolve().parent / "results"


class _Timeout(BaseException):
    """Raised by the alarm inside a worker (not an Exception: nothing swallows it)."""


def _bits(value: Any) -> str:
    """The exact bits of a score (``repr`` for anything that is not a float)."""
    if isinstance(value, float):
        return struct.pack("<d", value).hex()
    return repr(value)


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class _Check:
    """Runs the calls of one triple, recording failures, checks and skips."""

    def __init__(self, seed: int, size: int, nested: bool = False) -> None:
        self.seed = seed
        self.size = size
        self.nested = nested
        self.failures: list[dict[str, Any]] = []
        self.checked: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.stage = "generate"

    def fail(self, invariant: str, stage: str, **values: Any) -> None:
        self.failures.append({"seed": self.seed, "size": self.size, "nested": self.nested,
                              "invariant": invariant, "stage": stage, **values})

    def call(self, invariant: str, stage: str, fn: Callable[[], Any]) -> tuple[str, Any]:
        """("ok", value), ("refused", OAError) or ("raw", exception)."""
        self.stage = stage
        try:
            return "ok", fn()
        except OAError as exc:
            return "refused", exc
        except Exception as exc:  # raw exception: invariant (a)
            lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
            self.fail("a", stage, during=invariant, exception=type(exc).__name__,
                      message=str(exc)[:500], traceback="".join(lines[-6:])[-2000:])
            return "raw", exc

    def refused(self, invariant: str, stage: str, exc: BaseException) -> None:
        """An OAError in a later call of a triple that the engine accepted: a custom
        comparator that misbehaves on some pair skips the check; any other refusal of
        the same documents (or of their permutation, relabelling or repair) fails it."""
        if isinstance(exc, ComparatorError):
            self.skipped[invariant] += 1
        else:
            self.fail(invariant, stage, exception=type(exc).__name__, message=str(exc)[:500])

    def bounds(self, stage: str, value: Any) -> None:
        self.checked["b"] += 1
        if not isinstance(value, float) or math.isnan(value) or not 0.0 <= value <= 1.0:
            self.fail("b", stage, score=_short(value))


def _deltas(check: _Check, stage: str, fb: Any) -> None:
    check.checked["d"] += 1
    total = math.fsum(op.delta for op in fb.ops)
    deficit = 1.0 - fb.score
    if not (math.isfinite(total) and abs(total - deficit) <= 1e-12):
        check.fail("d", stage, score=_short(fb.score), deltas_sum=_short(total),
                   deficit=_short(deficit), ops=len(fb.ops),
                   kinds=sorted(Counter(str(op.kind) for op in fb.ops).items()))


def fingerprint(gold: Any, candidate: Any, schema: Any) -> dict[str, Any]:
    """Bits of everything the engine computes for one triple (for invariant h)."""
    out: dict[str, Any] = {}
    for mode in RELABEL_MODES:
        try:
            fb = oa_core.feedback(gold, candidate, schema, top_k=10**6, wl_mode=mode)
        except Exception as exc:
            # no object addresses: they differ from one process to the next
            out[mode] = re.sub(r"0x[0-9a-fA-F]+", "0x?", f"{type(exc).__name__}: {exc}")[:300]
            continue
        out[mode] = {"score": _bits(fb.score), "ops": [
            [str(op.kind), op.gold_path, op.candidate_path, _bits(op.delta)] for op in fb.ops]}
    return out


def check_triple(seed: int, *, size: int = hostile.DEFAULT_SIZE, perms: int = 2,
                 want_fingerprint: bool = False, check: _Check | None = None,
                 nested: bool = False) -> dict[str, Any]:
    """Check every invariant but (h) on the triple of ``seed``.

    Returns
    -------
    dict
        ``seed``, ``outcome`` ("ok" or "refused:<error type>"), ``failures`` (list
        of dicts), ``checked`` and ``skipped`` (counts per invariant), ``features``
        and, if asked, ``fingerprint``.
    """
    check = check or _Check(seed, size, nested)
    result: dict[str, Any] = {"seed": seed, "outcome": "ok", "failures": check.failures}
    try:
        triple = hostile.generate(seed, size=size, nested=nested)
        schema, gold, candidate = triple.materialize()
    except Exception as exc:
        check.fail("generator", "generate", exception=type(exc).__name__, message=str(exc))
        result["outcome"] = "generator-error"
        return _finish(result, check)
    result["features"] = triple.features
    status, parsed = check.call("a", "Schema.parse", lambda: oa_core.Schema.parse(
        schema, comparators=hostile.COMPARATORS))
    if status != "ok":
        result["outcome"] = f"refused:{type(parsed).__name__}" if status == "refused" \
            else "raw"
        return _finish(result, check)

    def score(g: Any, c: Any, **options: Any) -> Callable[[], float]:
        return lambda: oa_core.score(g, c, parsed, **options)

    status, fb = check.call("a", "feedback", lambda: oa_core.feedback(
        gold, candidate, parsed, top_k=10**6))
    if status != "ok":
        result["outcome"] = f"refused:{type(fb).__name__}" if status == "refused" else "raw"
        return _finish(result, check)
    base = fb.score
    check.bounds("feedback", base)
    _deltas(check, "feedback", fb)

    # (c) identity
    status, same = check.call("c", "score(g, g)", score(gold, copy.deepcopy(gold)))
    if status == "ok":
        check.checked["c"] += 1
        check.bounds("score(g, g)", same)
        if same != 1.0:
            check.fail("c", "score(g, g)", score=_short(same))
    elif status == "refused":
        check.refused("c", "score(g, g)", same)

    # (d) strict mode
    status, strict = check.call("d", "feedback strict", lambda: oa_core.feedback(
        gold, candidate, parsed, top_k=10**6, strict=True))
    if status == "ok":
        check.bounds("feedback strict", strict.score)
        _deltas(check, "feedback strict", strict)
    elif status == "refused":
        check.refused("d", "feedback strict", strict)

    # (e) applying every op reaches 1.0
    status, fixed = check.call("e", "apply_ops", lambda: oa_core.apply_ops(candidate, fb.ops))
    if status == "ok":
        status, repaired = check.call("e", "score(g, apply_ops)", score(gold, fixed))
        if status == "ok":
            check.checked["e"] += 1
            if repaired != 1.0:
                check.fail("e", "score(g, apply_ops)", score=_short(base),
                           repaired=_short(repaired), ops=len(fb.ops),
                           kinds=sorted(Counter(str(op.kind) for op in fb.ops).items()))
        elif status == "refused":
            check.refused("e", "score(g, apply_ops)", repaired)
    elif status == "refused":
        check.refused("e", "apply_ops", fixed)

    # (n) identity in the other modes, repairs in blend; (o) repairs in none
    for mode in ("blend", "none"):
        status, same = check.call("n", f"score(g, g) wl_mode={mode}",
                                  score(gold, copy.deepcopy(gold), wl_mode=mode))
        if status == "ok":
            check.checked["n"] += 1
            if same != 1.0:
                check.fail("n", "score(g, g)", wl_mode=mode, score=_short(same))
        elif status == "refused":
            check.refused("n", f"score(g, g) wl_mode={mode}", same)
        invariant = "n" if mode == "blend" else "o"
        status, other = check.call(invariant, f"feedback wl_mode={mode}", lambda mode=mode:
                                   oa_core.feedback(gold, candidate, parsed, top_k=10**6,
                                                    wl_mode=mode))
        if status == "refused":
            check.refused(invariant, f"feedback wl_mode={mode}", other)
        if status != "ok":
            continue
        _deltas(check, f"feedback wl_mode={mode}", other)
        status, repaired = check.call(invariant, f"score(g, apply_ops) wl_mode={mode}",
                                      score(gold, oa_core.apply_ops(candidate, other.ops),
                                            wl_mode=mode))
        if status == "refused":
            check.refused(invariant, f"score(g, apply_ops) wl_mode={mode}", repaired)
        if status != "ok":
            continue
        check.checked[invariant] += 1
        if repaired != 1.0:
            check.fail(invariant, "score(g, apply_ops)", wl_mode=mode,
                       score=_short(other.score), repaired=_short(repaired))

    bases: dict[str, Any] = {"tie_break": base}

    def base_in(mode: str) -> Any:
        if mode not in bases:
            status, value = check.call("f/g", f"score wl_mode={mode}", score(
                gold, candidate, wl_mode=mode))
            bases[mode] = value if status == "ok" else None
            if status == "ok":
                check.bounds(f"score wl_mode={mode}", value)
            elif status == "refused":
                check.refused("f" if mode == "blend" else "g", f"score wl_mode={mode}", value)
        return bases[mode]

    # (f) permutations of align lists
    if triple.has_align:
        for k in range(perms):
            sides = ("candidate", "gold", "both")[(seed + k) % 3]
            permute = seed * 1000 + k
            _, g2, c2 = triple.materialize(permute=permute, sides=sides)
            if g2 == gold and c2 == candidate and _bits_equal_docs(g2, gold, c2, candidate):
                continue
            for mode in PERMUTED_MODES:
                before = base_in(mode)
                if before is None:
                    check.skipped["f"] += 1
                    continue
                status, after = check.call("f", f"permuted {sides} wl_mode={mode}",
                                           score(g2, c2, wl_mode=mode))
                if status == "refused":
                    check.refused("f", f"permuted {sides} wl_mode={mode}", after)
                if status != "ok":
                    continue
                check.checked["f"] += 1
                if _bits(after) != _bits(before):
                    check.fail("f", f"permuted {sides}", wl_mode=mode, before=_short(before),
                               after=_short(after), permute=permute, sides=sides)

    # (g) consistent relabelling of ids
    if triple.has_ids and triple.relabel_safe:
        variants = [("candidate", seed * 1000 + 7)]
        if seed % 4 == 1:
            variants.append(("gold", seed * 1000 + 8))
        for relabel_sides, relabel in variants:
            _, g3, c3 = triple.materialize(relabel=relabel, relabel_sides=relabel_sides)
            for mode in RELABEL_MODES:
                before = base_in(mode)
                if before is None:
                    check.skipped["g"] += 1
                    continue
                status, aligned = check.call(
                    "g", f"relabelled {relabel_sides} wl_mode={mode}",
                    lambda g3=g3, c3=c3, mode=mode: oa_core.align(g3, c3, parsed, wl_mode=mode))
                if status == "refused":
                    check.refused("g", f"relabelled {relabel_sides} wl_mode={mode}", aligned)
                if status != "ok":
                    continue
                status, original = check.call("g", f"original wl_mode={mode}",
                                              lambda mode=mode: oa_core.align(
                                                  gold, candidate, parsed, wl_mode=mode))
                if status != "ok":
                    continue
                if _label_tied(aligned) or _label_tied(original):
                    # documented limit (docs/schema.md): only the ids told twins apart
                    check.skipped["g"] += 1
                    continue
                check.checked["g"] += 1
                after = aligned.score
                if _bits(after) != _bits(before):
                    check.fail("g", f"relabelled {relabel_sides}", wl_mode=mode,
                               before=_short(before), after=_short(after), relabel=relabel,
                               relabel_sides=relabel_sides)
    if want_fingerprint:
        check.stage = "fingerprint"
        result["fingerprint"] = fingerprint(gold, candidate, parsed)
    return _finish(result, check)


def _bits_equal_docs(*docs: Any) -> bool:
    # == calls 0 and 0.0 (and -0.0) equal; a permutation that changed nothing else
    # may still have moved such values, so compare the JSON text too.
    g2, gold, c2, candidate = docs
    return (json.dumps(g2) == json.dumps(gold)) and (json.dumps(c2) == json.dumps(candidate))


def _finish(result: dict[str, Any], check: _Check) -> dict[str, Any]:
    result["failures"] = check.failures
    result["checked"] = dict(check.checked)
    result["skipped"] = dict(check.skipped)
    return result


# -- worker processes ------------------------------------------------------------------

def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _quiet() -> None:
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGPROF, _on_alarm)
    signal.signal(signal.SIGALRM, _on_alarm)


def _one(seed: int, size: int, perms: int, timeout: float, want_fingerprint: bool,
         nested: bool = False) -> dict[str, Any]:
    check = _Check(seed, size, nested)
    started = time.perf_counter()
    signal.setitimer(signal.ITIMER_PROF, timeout)
    try:
        result = check_triple(seed, size=size, perms=perms,
                              want_fingerprint=want_fingerprint, check=check, nested=nested)
    except _Timeout:
        check.fail("hang", check.stage, seconds=round(time.perf_counter() - started, 3))
        result = _finish({"seed": seed, "outcome": "hang"}, check)
    except Exception as exc:  # a defect of this harness: report it, do not die
        check.fail("harness", check.stage, exception=type(exc).__name__,
                   message=str(exc)[:500], traceback=traceback.format_exc()[-2000:])
        result = _finish({"seed": seed, "outcome": "harness-error"}, check)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    result["seconds"] = time.perf_counter() - started
    return result


def _worker(conn: Connection, size: int, perms: int, timeout: float,
            nested: bool = False) -> None:
    _quiet()
    while True:
        message = conn.recv()
        if message is None:
            return
        seed, want_fingerprint = message
        result = _one(seed, size, perms, timeout, want_fingerprint, nested)
        try:
            conn.send(result)
        except Exception as exc:  # an unpicklable value in a failure record
            result = {"seed": seed, "outcome": "harness-error", "failures": [{
                "seed": seed, "size": size, "invariant": "harness", "stage": "send",
                "exception": type(exc).__name__, "message": str(exc)[:500]}],
                "checked": {}, "skipped": {}, "seconds": result.get("seconds", 0.0)}
            conn.send(result)


class _Slot:
    def __init__(self, ctx: Any, size: int, perms: int, timeout: float,
                 nested: bool = False) -> None:
        self.nested = nested
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker, args=(child, size, perms, timeout, nested),
                                   daemon=True)
        self.process.start()
        child.close()
        self.seed: int | None = None
        self.started = 0.0

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            with contextlib.suppress(OSError):
                self.conn.send(None)
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _pool(seeds: Iterable[int], *, workers: int, size: int, perms: int, timeout: float,
          sample_every: int, progress: bool, nested: bool = False
          ) -> Iterable[dict[str, Any]]:
    """Results of every seed, from ``workers`` processes under a watchdog."""
    ctx = mp.get_context("fork")
    slots = [_Slot(ctx, size, perms, timeout, nested) for _ in range(workers)]
    queue = iter(seeds)
    exhausted = False
    try:
        while True:
            for k, slot in enumerate(slots):
                if slot.seed is None and not exhausted:
                    seed = next(queue, None)
                    if seed is None:
                        exhausted = True
                        break
                    slot.seed, slot.started = seed, time.monotonic()
                    slots[k].conn.send((seed, sample_every > 0 and seed % sample_every == 0))
            busy = [s for s in slots if s.seed is not None]
            if not busy:
                return
            ready = wait([s.conn for s in busy], timeout=0.5)
            for slot in busy:
                if slot.conn in ready:
                    try:
                        result = slot.conn.recv()
                    except (EOFError, OSError):
                        code = slot.process.exitcode
                        result = {"seed": slot.seed, "outcome": "crash", "checked": {},
                                  "skipped": {}, "seconds": time.monotonic() - slot.started,
                                  "failures": [{"seed": slot.seed, "size": size,
                                                "invariant": "a", "stage": "worker",
                                                "exception": "WorkerDied",
                                                "message": f"exit code {code}"}]}
                        slots[slots.index(slot)] = _replace(slot, ctx, size, perms, timeout)
                    else:
                        slot.seed = None
                    yield result
                elif time.monotonic() - slot.started > 6 * timeout + 10:
                    seconds = time.monotonic() - slot.started
                    result = {"seed": slot.seed, "outcome": "hang", "checked": {},
                              "skipped": {}, "seconds": seconds, "failures": [{
                                  "seed": slot.seed, "size": size, "invariant": "hang",
                                  "stage": "killed by the watchdog (stuck outside Python)",
                                  "seconds": round(seconds, 3)}]}
                    slots[slots.index(slot)] = _replace(slot, ctx, size, perms, timeout)
                    yield result
    finally:
        for slot in slots:
            slot.stop(kill=slot.seed is not None)


def _replace(slot: _Slot, ctx: Any, size: int, perms: int, timeout: float) -> _Slot:
    slot.stop(kill=True)
    return _Slot(ctx, size, perms, timeout, slot.nested)


# -- PYTHONHASHSEED --------------------------------------------------------------------

def _fingerprints_main(size: int, timeout: float, nested: bool = False) -> None:
    """Subprocess mode: read seeds (JSON list) on stdin, print their fingerprints."""
    _quiet()
    seeds = json.load(sys.stdin)
    out: dict[str, Any] = {}
    for seed in seeds:
        signal.setitimer(signal.ITIMER_PROF, timeout)
        try:
            triple = hostile.generate(seed, size=size, nested=nested)
            schema, gold, candidate = triple.materialize()
            parsed = oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)
            out[str(seed)] = fingerprint(gold, candidate, parsed)
        except _Timeout:
            out[str(seed)] = "hang"
        except Exception as exc:
            out[str(seed)] = f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    json.dump(out, sys.stdout)


def _hashseed_check(fingerprints: dict[int, Any], size: int, timeout: float,
                    nested: bool = False) -> tuple[list[dict[str, Any]], int]:
    """Compare the workers' fingerprints with two subprocesses' (invariant h)."""
    failures: list[dict[str, Any]] = []
    if not fingerprints:
        return failures, 0
    seeds = sorted(fingerprints)
    root = Path(__file__).resolve().parent.parent
    runs: dict[str, dict[str, Any]] = {}
    for hashseed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        try:
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.fuzz", "--fingerprints", "--size", str(size),
                 "--timeout", str(timeout), *(["--nested"] if nested else [])],
                input=json.dumps(seeds), capture_output=True,
                text=True, env=env, cwd=root, timeout=len(seeds) * timeout * 4 + 120)
            runs[hashseed] = json.loads(done.stdout)
        except (subprocess.SubprocessError, ValueError) as exc:
            failures.append({"seed": None, "size": size, "invariant": "h",
                             "stage": f"PYTHONHASHSEED={hashseed} subprocess",
                             "exception": type(exc).__name__, "message": str(exc)[:500]})
            return failures, 0
    for seed in seeds:
        mine = json.dumps(fingerprints[seed], sort_keys=True)
        for hashseed, found in runs.items():
            theirs = json.dumps(found.get(str(seed)), sort_keys=True)
            if theirs != mine:
                failures.append({"seed": seed, "size": size, "invariant": "h",
                                 "stage": f"PYTHONHASHSEED={hashseed}",
                                 "worker": mine[:600], "subprocess": theirs[:600]})
                break
    return failures, len(seeds)


# -- the run ---------------------------------------------------------------------------

def run(*, triples: int, workers: int = 2, seed: int = 0, size: int = hostile.DEFAULT_SIZE,
        perms: int = 2, timeout: float = 5.0, sample_every: int = 500,
        out_dir: Path = RESULTS, progress: bool = True,
        max_seconds: float | None = None, nested: bool = False) -> dict[str, Any]:
    """Fuzz ``triples`` seeds and write the failures and the summary.

    Seeds are ``seed * 10**7 + i`` for ``i < triples``; with ``max_seconds``, no new
    triple starts after that much wall time (the summary counts the triples run).

    Returns
    -------
    dict
        The summary (also written to ``out_dir / "fuzz.json"``).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    failures_path = out_dir / "fuzz-failures.jsonl"
    started = time.perf_counter()
    outcomes: Counter[str] = Counter()
    raw: Counter[str] = Counter()
    violations: Counter[str] = Counter()
    checked: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    features: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    fingerprints: dict[int, Any] = {}
    hangs = 0
    done = 0
    slowest: list[tuple[float, int]] = []
    last_report = time.monotonic()
    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def seeds() -> Iterable[int]:
        for k in range(seed * 10**7, seed * 10**7 + triples):
            if deadline is not None and time.monotonic() > deadline:
                return
            yield k

    with failures_path.open("w", encoding="utf-8") as sink:
        def record(failure: dict[str, Any]) -> None:
            sink.write(json.dumps(failure, default=repr) + "\n")

        for result in _pool(seeds(), workers=workers, size=size, perms=perms, timeout=timeout,
                            sample_every=sample_every, progress=progress, nested=nested):
            done += 1
            outcomes[result["outcome"]] += 1
            checked.update(result.get("checked", {}))
            skipped.update(result.get("skipped", {}))
            features.update(result.get("features", []))
            slowest = sorted([*slowest, (result.get("seconds", 0.0), result["seed"])])[-5:]
            failed: set[str] = set()
            for failure in result["failures"]:
                record(failure)
                invariant = failure["invariant"]
                if invariant == "a":
                    raw[failure.get("exception", "?")] += 1
                    stages[failure.get("stage", "?")] += 1
                elif invariant == "hang":
                    hangs += 1
                failed.add(invariant)
            for invariant in failed:
                violations[invariant] += 1
            if "fingerprint" in result:
                fingerprints[result["seed"]] = result["fingerprint"]
            if progress and time.monotonic() - last_report > 10:
                last_report = time.monotonic()
                print(f"  {done}/{triples} triples, {sum(violations.values())} failing "
                      f"invariants so far, {done / (time.perf_counter() - started):.0f}/s",
                      file=sys.stderr, flush=True)
        hash_failures, hash_checked = _hashseed_check(fingerprints, size, timeout, nested)
        for failure in hash_failures:
            record(failure)
        checked["h"] += hash_checked
        violations["h"] += len({f["seed"] for f in hash_failures})
    wall = time.perf_counter() - started
    summary = {
        "triples": done, "triples_asked": triples, "seed": seed, "size": size,
        "nested": nested,
        "workers": workers, "perms": perms, "engine": describe_build(),
        "timeout_s": timeout, "wall_time_s": round(wall, 2),
        "throughput_per_s": round(done / wall, 1) if wall else None,
        "outcomes": dict(outcomes.most_common()),
        "raw_exceptions": dict(raw.most_common()),
        "raw_exception_stages": dict(stages.most_common()),
        "hangs": hangs,
        "violations": {k: violations.get(k, 0) for k in [*INVARIANTS, "generator", "harness"]},
        "checked": {k: checked.get(k, 0) for k in INVARIANTS},
        "skipped": dict(skipped),
        "features": dict(features.most_common()),
        "slowest": [{"seed": s, "seconds": round(t, 3)} for t, s in reversed(slowest)],
        "failures_file": str(failures_path),
        "failed": bool(sum(violations.values())),
    }
    (out_dir / "fuzz.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _table(summary: dict[str, Any]) -> str:
    raw = summary["raw_exceptions"]
    lines = [
        f"engine: {summary['engine']}",
        f"{'triples run':<42}{summary['triples']:>10}",
        f"{'raw exceptions':<42}{sum(raw.values()):>10}"
        + (("   (" + ", ".join(f"{k} {v}" for k, v in raw.items()) + ")") if raw else ""),
        f"{'hangs (> ' + str(summary['timeout_s']) + ' s)':<42}{summary['hangs']:>10}",
        f"{'refused (an OAError on the first call)':<42}"
        f"{sum(v for k, v in summary['outcomes'].items() if k.startswith('refused')):>10}",
        "",
        f"{'invariant':<42}{'violations':>10}{'checks':>10}",
    ]
    for key, text in INVARIANTS.items():
        checks = summary["checked"][key] if key != "a" else summary["triples"]
        lines.append(f"{key + '. ' + text:<42}{summary['violations'][key]:>10}{checks:>10}")
    for key in ("generator", "harness"):
        if summary["violations"][key]:
            lines.append(f"{key + ' errors':<42}{summary['violations'][key]:>10}")
    lines += ["", f"{'wall time':<42}{summary['wall_time_s']:>9.1f}s",
              f"{'throughput':<42}{summary['throughput_per_s']:>8.1f}/s",
              f"failures: {summary['failures_file']}"]
    return "\n".join(lines)


# -- shrinking -------------------------------------------------------------------------

def _effective(root: Any, schema: Any) -> dict[str, Any]:
    """``schema`` with local ``$ref`` followed and the keywords beside it applied."""
    siblings: dict[str, Any] = {}
    for _ in range(30):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            break
        siblings = {**{k: v for k, v in schema.items() if k != "$ref"}, **siblings}
        target: Any = root
        for token in schema["$ref"].lstrip("#").split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            target = target.get(token) if isinstance(target, dict) else None
        schema = target
    return {**(schema if isinstance(schema, dict) else {}), **siblings}


def _slots(root: Any, schema: Any, doc: Any, path: tuple[Any, ...] = ()
           ) -> Iterable[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """("align", path, schema) for align lists, ("id", path, schema) for id/ref values,
    found by exact property names (what the engine does when no key is renamed)."""
    eff = _effective(root, schema)
    if isinstance(doc, dict):
        props = eff.get("properties") if isinstance(eff.get("properties"), dict) else {}
        for key, value in doc.items():
            if key in props:
                yield from _slots(root, props[key], value, (*path, key))
    elif isinstance(doc, list):
        prefix = eff.get("prefixItems") or []
        if eff.get("order") == "align" and _is_array(eff) and not (
                prefix and "items" not in eff):
            yield "align", path, eff
        for k, value in enumerate(doc):
            sub = prefix[k] if k < len(prefix) else eff.get("items", {})
            yield from _slots(root, sub, value, (*path, k))
    elif "idScope" in eff or "ref" in eff:
        yield "id", path, eff


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for token in path:
        doc = doc[token]
    return doc


def _put(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    doc = copy.deepcopy(doc)
    parent = _get(doc, path[:-1])
    parent[path[-1]] = value
    return doc


def _is_array(eff: dict[str, Any]) -> bool:
    declared = eff.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    if types:
        return "array" in types
    return "items" in eff or "prefixItems" in eff


def _id_pairs(schema: Any, doc: Any, other: Any) -> bool:
    """Whether ``other`` is ``doc`` with its id/ref values relabelled consistently
    (per scope, injectively; every other leaf equal)."""
    slots = {path: eff for kind, path, eff in _slots(schema, schema, doc) if kind == "id"}
    forward: dict[tuple[Any, ...], Any] = {}
    backward: dict[tuple[Any, ...], Any] = {}
    for path in _paths(doc):
        a = _get(doc, path)
        try:
            b = _get(other, path)
        except (KeyError, IndexError, TypeError):
            return False
        if isinstance(a, dict | list) or isinstance(b, dict | list):
            if type(a) is not type(b) or (isinstance(a, dict) and list(a) != list(b)) or (
                    isinstance(a, list) and len(a) != len(b)):
                return False
            continue
        if path not in slots:
            if json.dumps(a) != json.dumps(b):
                return False
            continue
        scope = slots[path].get("idScope", slots[path].get("ref"))
        ka, kb = (scope, type(a).__name__, repr(a)), (scope, type(b).__name__, repr(b))
        if forward.setdefault(ka, kb) != kb or backward.setdefault(kb, ka) != ka:
            return False
    return True


def _relabelled(schema: Any, doc: Any) -> Any:
    """``doc`` with every int/str id and ref value relabelled consistently."""
    out = copy.deepcopy(doc)
    for kind, path, _ in list(_slots(schema, schema, doc)):
        if kind != "id":
            continue
        value = _get(out, path)
        if isinstance(value, bool):
            continue
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
            new: Any = type(value)(int(value) * 7 + 100_003)
        elif isinstance(value, str):
            new = "r:" + value
        else:
            continue
        out = _put(out, path, new)
    return out


def _parse(schema: Any) -> Any:
    return oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)


def _probe(failure: dict[str, Any]) -> Callable[..., bool]:
    """A predicate on (schema, gold, candidate[, variant]): is the failure still there?

    For (g) the fourth document is the relabelled side (gold or candidate); every
    predicate but (c)'s also asks ``score(g, g) == 1`` so that shrinking does not
    drift into an identity failure. ``probe.witness`` keeps the last evidence.
    """
    invariant = failure["invariant"]
    exception = failure.get("exception")
    mode = failure.get("wl_mode")

    def score(g: Any, c: Any, parsed: Any, **options: Any) -> float:
        return oa_core.score(g, c, parsed, **options)

    def shows(schema: Any, gold: Any, candidate: Any, variant: Any = None) -> bool:
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        try:
            parsed = _parse(schema)
            if invariant == "a":
                calls = [lambda: oa_core.feedback(gold, candidate, parsed, top_k=10**6),
                         lambda: score(gold, copy.deepcopy(gold), parsed),
                         lambda: oa_core.feedback(gold, candidate, parsed, top_k=10**6,
                                                  strict=True),
                         lambda: score(gold, oa_core.apply_ops(candidate, oa_core.feedback(
                             gold, candidate, parsed, top_k=10**6).ops), parsed),
                         *[lambda m=m: score(gold, candidate, parsed, wl_mode=m)
                           for m in ("blend", "none")]]
                for call in calls:
                    try:
                        call()
                    except OAError:
                        return False
                    except Exception as exc:
                        if type(exc).__name__ == exception:
                            shows.witness = f"{type(exc).__name__}: {str(exc)[:300]}"
                            return True
                return False
            identity = score(gold, copy.deepcopy(gold), parsed)
            if invariant == "c":
                shows.witness = f"score(gold, gold) = {identity!r}"
                return identity != 1.0
            if identity != 1.0:
                return False
            fb = oa_core.feedback(gold, candidate, parsed, top_k=10**6)
            if invariant == "b":
                shows.witness = f"score = {fb.score!r}"
                return not 0.0 <= fb.score <= 1.0
            if invariant == "d":
                for strict in (False, True):
                    f = oa_core.feedback(gold, candidate, parsed, top_k=10**6, strict=strict)
                    total = math.fsum(op.delta for op in f.ops)
                    if not abs(total - (1 - f.score)) <= 1e-12:
                        shows.witness = (f"strict={strict}: score {f.score!r}, sum of deltas "
                                         f"{total!r}, ops {[str(o.kind) for o in f.ops]}")
                        return True
                return False
            if invariant == "e":
                fixed = oa_core.apply_ops(candidate, fb.ops)
                repaired = score(gold, fixed, parsed)
                shows.witness = (f"score {fb.score!r}; ops "
                                 f"{[(str(o.kind), o.candidate_path, o.gold_path) for o in fb.ops]}"
                                 f"; apply_ops -> {fixed!r} scores {repaired!r}")
                return repaired != 1.0
            if invariant in ("n", "o") and mode is not None:
                if score(gold, copy.deepcopy(gold), parsed, wl_mode=mode) != 1.0:
                    shows.witness = f"wl_mode={mode!r}: score(gold, gold) != 1.0"
                    return invariant == "n"
                other = oa_core.feedback(gold, candidate, parsed, top_k=10**6, wl_mode=mode)
                fixed = oa_core.apply_ops(candidate, other.ops)
                repaired = score(gold, fixed, parsed, wl_mode=mode)
                shows.witness = (f"wl_mode={mode!r}: score {other.score!r}; apply_ops -> "
                                 f"{fixed!r} scores {repaired!r}")
                return repaired != 1.0
            if invariant == "f":
                for m in PERMUTED_MODES if mode is None else (mode,):
                    before = score(gold, candidate, parsed, wl_mode=m)
                    for side in ("gold", "candidate"):
                        doc = gold if side == "gold" else candidate
                        for kind, path, eff in _slots(schema, schema, doc):
                            if kind != "align" or not _is_array(eff):
                                continue
                            items = _get(doc, path)
                            start = len(eff.get("prefixItems") or [])
                            rest = items[start:]
                            for tail in (rest[::-1], rest[1:] + rest[:1]):
                                moved = _put(doc, path, items[:start] + tail)
                                g2, c2 = (moved, candidate) if side == "gold" else (gold, moved)
                                after = score(g2, c2, parsed, wl_mode=m)
                                if _bits(after) != _bits(before):
                                    shows.witness = (f"wl_mode={m!r}: {before!r}; with the "
                                                     f"{side} list at {list(path)} reordered "
                                                     f"to {moved!r}: {after!r}")
                                    return True
                return False
            if invariant == "g":
                side = failure.get("relabel_sides", "candidate")
                if variant is None:
                    variant = _relabelled(schema, gold if side == "gold" else candidate)
                if not _id_pairs(schema, gold if side == "gold" else candidate, variant):
                    return False
                g2, c2 = (variant, candidate) if side == "gold" else (gold, variant)
                for m in RELABEL_MODES if mode is None else (mode,):
                    before = score(gold, candidate, parsed, wl_mode=m)
                    after = score(g2, c2, parsed, wl_mode=m)
                    if _bits(after) != _bits(before):
                        shows.witness = (f"wl_mode={m!r}: {before!r}; relabelled {side} "
                                         f"{variant!r}: {after!r}")
                        return True
                return False
            return False
        except (OAError, _Timeout):
            return False
        except Exception:
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    shows.witness = ""
    return shows


def _paths(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*path, key))
    elif isinstance(doc, list):
        for k, value in enumerate(doc):
            out += _paths(value, (*path, k))
    return out


def _edits(doc: Any, path: tuple[Any, ...]) -> list[Callable[[Any], Any]]:
    """Simplifications at ``path``, as functions of a document (applied to linked
    documents too)."""
    value = _get(doc, path)
    edits: list[Callable[[Any], Any]] = []
    if path:
        def delete(d: Any) -> Any:
            d = copy.deepcopy(d)
            holder = _get(d, path[:-1])
            if isinstance(holder, dict):
                del holder[path[-1]]
            else:
                holder.pop(path[-1])
            return d
        edits.append(delete)
    if isinstance(value, dict | list) and value:
        first = next(iter(value)) if isinstance(value, dict) else 0
        edits.append(lambda d: _put(d, path, copy.deepcopy(_get(d, (*path, first)))))
    if isinstance(value, str) and len(value) > 1:
        edits.append(lambda d: _put(d, path, _get(d, path)[:1]))
    if isinstance(value, int | float) and not isinstance(value, bool) and value not in (0, 1):
        edits.append(lambda d: _put(d, path, 1))
    if isinstance(value, dict):
        for key in value:
            if len(key) > 1 or key != key.strip():
                def rename(d: Any, key: str = key) -> Any:
                    mapping = _get(d, path)
                    renamed = {("k" if k == key else k): v for k, v in mapping.items()}
                    if len(renamed) != len(mapping):
                        raise KeyError(key)
                    return _put(d, path, renamed)
                edits.append(rename)
    return edits


def shrink(docs: list[Any], shows: Callable[..., bool], *, linked: dict[int, int] | None = None,
           budget: float = 60.0) -> list[Any]:
    """Smaller documents that still ``shows`` the failure (greedy, bounded in time).

    ``linked`` maps a document's index to another's: each edit of the first is made
    at the same place of the second (a relabelled copy keeps its structure).
    """
    docs = copy.deepcopy(docs)
    linked = linked or {}
    deadline = time.monotonic() + budget
    changed = True
    order = [1, 2, 0] + [k for k in range(3, len(docs)) if k not in linked.values()]
    while changed and time.monotonic() < deadline:
        changed = False
        for which in order:
            k = 0
            while time.monotonic() < deadline:
                paths = _paths(docs[which])
                if k >= len(paths):
                    break
                for edit in _edits(docs[which], paths[k]):
                    trial = list(docs)
                    try:
                        trial[which] = edit(docs[which])
                        if which in linked:
                            trial[linked[which]] = edit(docs[linked[which]])
                    except (KeyError, IndexError, TypeError):
                        continue
                    if shows(*trial):
                        docs = trial
                        changed = True
                        break
                else:
                    k += 1
    return docs


def shrink_failure(failure: dict[str, Any], *, budget: float = 60.0
                   ) -> tuple[list[Any], str] | None:
    """The minimised documents of one failure record and the evidence (None when the
    probe does not reproduce it): ``[schema, gold, candidate]``, plus the relabelled
    side for (g)."""
    triple = hostile.generate(failure["seed"], size=failure.get("size", hostile.DEFAULT_SIZE),
                              nested=failure.get("nested", False))
    schema, gold, candidate = triple.materialize()
    shows = _probe(failure)
    docs = [schema, gold, candidate]
    linked: dict[int, int] = {}
    if failure["invariant"] == "g" and "relabel" in failure:
        side = failure["relabel_sides"]
        _, g3, c3 = triple.materialize(relabel=failure["relabel"], relabel_sides=side)
        docs.append(g3 if side == "gold" else c3)
        linked = {1 if side == "gold" else 2: 3}
    if not shows(*docs):
        return None
    docs = shrink(docs, shows, linked=linked, budget=budget)
    shows(*docs)
    return docs, shows.witness

_CALLS = {
    "a": "oa_core.feedback(gold, candidate, schema, top_k=10**6)  # and score(gold, gold, ...), "
         "strict=True, apply_ops, wl_mode='blend'/'none'",
    "b": "oa_core.score(gold, candidate, schema)",
    "c": "oa_core.score(gold, gold, schema)",
    "d": "fb = oa_core.feedback(gold, candidate, schema, top_k=10**6)  # also strict=True\n"
         "math.fsum(op.delta for op in fb.ops), 1 - fb.score",
    "e": "fb = oa_core.feedback(gold, candidate, schema, top_k=10**6)\n"
         "oa_core.score(gold, oa_core.apply_ops(candidate, fb.ops), schema)",
    "n": "oa_core.score(gold, gold, schema, wl_mode=m); fb = oa_core.feedback(gold, "
         "candidate, schema, top_k=10**6, wl_mode=m)\noa_core.score(gold, "
         "oa_core.apply_ops(candidate, fb.ops), schema, wl_mode=m)",
    "o": "fb = oa_core.feedback(gold, candidate, schema, top_k=10**6, wl_mode='none')\n"
         "oa_core.score(gold, oa_core.apply_ops(candidate, fb.ops), schema, wl_mode='none')",
    "f": "oa_core.score(gold, candidate, schema, wl_mode=m) for m in ('tie_break', 'blend'), "
         "then with one align list reversed or rotated",
    "g": "oa_core.score(gold, candidate, schema, wl_mode=m), then with the candidate's (or "
         "gold's) ids relabelled consistently",
}


def _category(failure: dict[str, Any]) -> tuple[str, ...]:
    invariant = failure["invariant"]
    if invariant == "a":
        return ("a", failure.get("exception", "?"), failure.get("during", ""))
    if invariant in ("b", "d"):
        return (invariant, failure.get("stage", ""))
    return (invariant,)


def digest(failures: list[dict[str, Any]], *, limit: int = 12, budget: float = 30.0) -> str:
    """Markdown: failure categories with counts and one minimised reproduction each."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for failure in failures:
        groups.setdefault(_category(failure), []).append(failure)
    lines = ["# Fuzz digest", ""]
    for key, members in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:limit]:
        seeds = sorted({m["seed"] for m in members if m.get("seed") is not None})
        first = members[0]
        title = f"{key[0]}. {INVARIANTS.get(key[0], key[0])}" + (
            f" — {' / '.join(k for k in key[1:] if k)}" if len(key) > 1 else "")
        lines += [f"## {title}", "",
                  f"{len(members)} failures, {len(seeds)} seeds (e.g. {seeds[:6]}); replay: "
                  f"`python -m benchmarks.fuzz --replay {first['seed']} --size "
                  f"{first.get('size')}`", ""]
        detail = {k: v for k, v in first.items() if k not in ("seed", "size", "traceback")}
        lines += ["First record: `" + json.dumps(detail, default=repr)[:600] + "`", ""]
        if first.get("traceback"):
            lines += ["```", first["traceback"].strip()[-1200:], "```", ""]
        minimal = None
        if first.get("seed") is not None and key[0] in "abcdefg":
            for candidate_failure in members[:3]:
                minimal = shrink_failure(candidate_failure, budget=budget)
                if minimal is not None:
                    break
        if minimal is None:
            lines += ["(no minimised reproduction: the probe did not reproduce it)", ""]
            continue
        docs, witness = minimal
        names = ["schema", "gold", "candidate",
                 "relabelled_gold" if first.get("relabel_sides") == "gold"
                 else "relabelled_candidate"]
        lines += ["```python", "import math, oa_core",
                  *(["from synthetic.hostile import COMPARATORS  # pass comparators="
                     "COMPARATORS"] if "hx_" in repr(docs[0]) else []),
                  *(f"{name} = {doc!r}" for name, doc in zip(names, docs, strict=False)),
                  _CALLS.get(key[0], ""), f"# observed: {witness}", "```", ""]
    return "\n".join(lines)


def _label_tied(alignment: Any) -> bool:
    """Whether only the records' canonical JSON (ids included) settled some pair, or
    chose the record an id shared by several records designates."""
    return any(scope.label_ties or scope.label_designations
               for scope in alignment.scopes.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=hostile.DEFAULT_SIZE)
    parser.add_argument("--perms", type=int, default=2, help="permutations per triple")
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="CPU seconds per triple (a hang beyond)")
    parser.add_argument("--sample-every", type=int, default=500,
                        help="PYTHONHASHSEED check on every N-th seed (0: never)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="start no new triple after this much wall time")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--replay", type=int, nargs="+", metavar="SEED",
                        help="check these seeds in this process and print the failures")
    parser.add_argument("--digest", type=Path, metavar="PATH",
                        help="after the run, write a Markdown digest: failure categories "
                        "with one minimised reproduction each")
    parser.add_argument("--from-results", action="store_true",
                        help="do not run: print the table (and digest) of the last run")
    parser.add_argument("--shrink-budget", type=float, default=30.0,
                        help="seconds of shrinking per category")
    parser.add_argument("--nested", action="store_true",
                        help="draw scopes whose record arrays sit inside other arrays")
    parser.add_argument("--fingerprints", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.fingerprints:
        _fingerprints_main(args.size, args.timeout, args.nested)
        return 0
    if args.replay:
        _quiet()
        bad = 0
        for seed in args.replay:
            result = _one(seed, args.size, args.perms, args.timeout, False, args.nested)
            print(f"seed {seed}: {result['outcome']}, {len(result['failures'])} failures")
            for failure in result["failures"]:
                bad += 1
                print(json.dumps(failure, indent=1, default=repr))
        return 1 if bad else 0
    if args.from_results:
        summary = json.loads((args.out / "fuzz.json").read_text(encoding="utf-8"))
    else:
        summary = run(triples=args.triples, workers=args.workers, seed=args.seed,
                      size=args.size, perms=args.perms, timeout=args.timeout,
                      sample_every=args.sample_every, out_dir=args.out,
                      progress=not args.quiet, max_seconds=args.max_seconds,
                      nested=args.nested)
    print(_table(summary))
    if args.digest:
        _quiet()
        path = Path(summary["failures_file"])
        failures = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        text = _table(summary) + "\n\n" + digest(failures, budget=args.shrink_budget)
        args.digest.write_text("```\n" + text.replace("# Fuzz digest", "```\n\n# Fuzz digest",
                                                      1), encoding="utf-8")
        print(f"digest: {args.digest}")
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
