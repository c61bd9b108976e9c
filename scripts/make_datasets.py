"""Write the bundled evaluation datasets of ``sample_data/datasets/`` (seeded).

    .venv/bin/python scripts/make_datasets.py

Each dataset is a folder with ``schema.json``, ``golds.jsonl``, one predictions
file per run under ``runs/`` and a ``dataset.json`` manifest recording the script,
the seed and the run settings; ``sample_data/datasets/index.json`` lists them. The
same seed writes the same bytes. The model outputs are simulated by
:mod:`synthetic.runs` (see there for the failures they contain).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from synthetic import org2graph  # noqa: E402
from synthetic.runs import (  # noqa: E402
    RunQuality,
    org2graph_prediction,
    scierc_gold,
    scierc_prediction,
    scierc_schema,
)

OUT = ROOT / "sample_data" / "datasets"
SCRIPT = "scripts/make_datasets.py"

CAREFUL = RunQuality(edits=0.5, wrappers={"plain": 80.0, "fence": 15.0, "prose": 5.0})
SLOPPY = RunQuality(edits=1.8, wrappers={"plain": 45.0, "fence": 25.0, "prose": 18.0,
                                         "truncated": 9.0, "refusal": 3.0}, indent=0.5)


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for row in rows)


def _write(folder: Path, schema: dict[str, Any], golds: list[dict[str, Any]],
           runs: dict[str, tuple[str, str]], manifest: dict[str, Any]) -> None:
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    (folder / "schema.json").write_text(json.dumps(schema, indent=1) + "\n")
    (folder / "golds.jsonl").write_text(_jsonl(golds))
    for file, text in runs.values():
        (folder / file).write_text(text)
    manifest = {**manifest, "schema": "schema.json", "golds": "golds.jsonl",
                "runs": {name: file for name, (file, _) in runs.items()}}
    (folder / "dataset.json").write_text(json.dumps(manifest, indent=1) + "\n")


def org2graph_runs(seed: int = 13, count: int = 320, out: Path = OUT) -> dict[str, Any]:
    """Org2Graph golds and two runs (A careful, B sloppy) with one broken line in B."""
    rng = np.random.default_rng(seed)
    golds = []
    for index in range(count):
        instance = org2graph.generate(org2graph.sample_params(rng), rng)
        golds.append({"id": f"org-{index + 1:04d}", "gold": instance.gold})
    runs: dict[str, tuple[str, str]] = {}
    for name, quality, run_seed in (("A", CAREFUL, seed + 1), ("B", SLOPPY, seed + 2)):
        run_rng = np.random.default_rng(run_seed)
        lines = [json.dumps({"id": g["id"], "prediction": org2graph_prediction(
            g["gold"], quality, run_rng)}, ensure_ascii=False) for g in golds]
        if name == "B":  # a line the export itself broke: reported, the rest still load
            lines[41] = lines[41][: len(lines[41]) // 2]
        runs[name] = (f"runs/{name.lower()}.jsonl", "".join(line + "\n" for line in lines))
    _write(out / "org2graph_runs", org2graph.schema(), golds, runs, {
        "title": "Org2Graph: two extraction runs",
        "description": f"{count} synthetic organisation graphs and two simulated model "
                       "runs: A (careful prompt: few content errors, some code fences) "
                       "and B (sloppy: more wrong references and missing records, prose "
                       "around the JSON, truncated outputs, refusals, one broken line).",
        "generated": {"script": SCRIPT, "function": "org2graph_runs", "seed": seed,
                      "golds": "synthetic.org2graph.generate(sample_params(rng))",
                      "runs": {"A": asdict(CAREFUL) | {"seed": seed + 1},
                               "B": asdict(SLOPPY) | {"seed": seed + 2}}}})
    return {"id": "org2graph_runs", "title": "Org2Graph: two extraction runs",
            "description": f"{count} organisation graphs, runs A (careful) and B (sloppy)."}


def scierc_runs(seed: int = 29, count: int = 150, out: Path = OUT) -> dict[str, Any]:
    """SciERC-shaped golds and two runs."""
    rng = np.random.default_rng(seed)
    golds = [{"id": f"abs-{index + 1:03d}", "gold": scierc_gold(rng)} for index in range(count)]
    runs: dict[str, tuple[str, str]] = {}
    for name, quality, run_seed in (("A", RunQuality(edits=0.8), seed + 1),
                                    ("B", SLOPPY, seed + 2)):
        run_rng = np.random.default_rng(run_seed)
        lines = [json.dumps({"id": g["id"], "prediction": scierc_prediction(
            g["gold"], quality, run_rng)}, ensure_ascii=False) for g in golds]
        runs[name] = (f"runs/{name.lower()}.jsonl", "".join(line + "\n" for line in lines))
    _write(out / "scierc_runs", scierc_schema(), golds, runs, {
        "title": "SciERC-shaped: entity and relation extraction",
        "description": f"{count} synthetic scientific-abstract graphs (typed entities "
                       "with mentions, typed relations) and two simulated runs: A with "
                       "few errors, B with wrong types and predicates, missed entities "
                       "and mentions, reversed relations and formatting failures.",
        "generated": {"script": SCRIPT, "function": "scierc_runs", "seed": seed,
                      "golds": "synthetic.runs.scierc_gold",
                      "runs": {"A": asdict(RunQuality(edits=0.8)) | {"seed": seed + 1},
                               "B": asdict(SLOPPY) | {"seed": seed + 2}}}})
    return {"id": "scierc_runs", "title": "SciERC-shaped: entity and relation extraction",
            "description": f"{count} abstracts' entities and relations, runs A and B."}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    index = [org2graph_runs(), scierc_runs()]
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {len(index)} datasets to {OUT.relative_to(ROOT)} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
