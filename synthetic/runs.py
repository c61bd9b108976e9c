"""Seeded evaluation runs: golds and model outputs with realistic failures.

The bundled datasets of ``sample_data/datasets/`` (``scripts/make_datasets.py``) are
made here. A **run** is one raw text per gold, as a model would answer: the JSON,
often with an id numbering of its own, wrapped or broken the way language models
break it:

* content errors, from the Org2Graph edit operations (wrong references, missing
  records and edges, wrong categories, invented edges) or their SciERC counterparts
  (a wrong entity type or predicate, a missing mention, entity or relation, a
  reversed relation);
* formatting failures (:func:`wrap`): a Markdown code fence, prose before and after
  the JSON, output cut off mid-way (truncated: usually no usable JSON), or a refusal
  with no JSON at all.

:class:`RunQuality` sets how often each happens, so two runs of different quality
can be drawn for the same golds. All randomness comes from explicit
:class:`numpy.random.Generator` objects.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> wrap('{"a": 1}', "fence", rng)
'```json\\n{"a": 1}\\n```'
>>> wrap('{"a": 1}', "truncated", np.random.default_rng(1))
'{"a'
>>> gold = scierc_gold(np.random.default_rng(3))
>>> sorted(gold), gold["entities"][0]["id"]
(['entities', 'relations'], 'e0')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import org2graph

__all__ = [
    "SCIERC_PREDICATES",
    "SCIERC_TERMS",
    "WRAPPERS",
    "RunQuality",
    "org2graph_prediction",
    "scierc_gold",
    "scierc_prediction",
    "scierc_schema",
    "wrap",
]

WRAPPERS = ("plain", "fence", "prose", "truncated", "refusal")
"""How a model's JSON reaches the scorer (see :func:`wrap`)."""

_PROSE_BEFORE = ("Here is the extracted graph:", "Sure! Below is the JSON you asked for.",
                 "Based on the paragraph, the structured output is:")
_PROSE_AFTER = ("Let me know if you need anything else.",
                "Note: some roles were inferred from context.", "")
_REFUSALS = ("I'm sorry, but I can't extract a reliable graph from this text.",
             "The paragraph does not contain enough information to answer.")


def wrap(text: str, style: str, rng: np.random.Generator) -> str:
    """The raw answer a model gives around the JSON ``text``.

    Parameters
    ----------
    text : str
        The JSON the model meant to write.
    style : str
        One of :data:`WRAPPERS`: ``plain`` (as is), ``fence`` (a ```json block),
        ``prose`` (sentences before and after), ``truncated`` (cut at 5-90% of its
        length, as when the output budget runs out), ``refusal`` (no JSON).
    rng : numpy.random.Generator
    """
    if style == "plain":
        return text
    if style == "fence":
        return f"```json\n{text}\n```"
    if style == "prose":
        before = _PROSE_BEFORE[int(rng.integers(len(_PROSE_BEFORE)))]
        after = _PROSE_AFTER[int(rng.integers(len(_PROSE_AFTER)))]
        return f"{before}\n\n{text}\n\n{after}".rstrip()
    if style == "truncated":
        return text[: max(1, int(len(text) * float(rng.uniform(0.05, 0.9))))]
    if style == "refusal":
        return _REFUSALS[int(rng.integers(len(_REFUSALS)))]
    raise ValueError(f"unknown style {style!r}; expected one of {WRAPPERS}")


@dataclass(frozen=True)
class RunQuality:
    """How good a simulated model is.

    Attributes
    ----------
    edits : float
        Mean number of content errors per document (Poisson).
    operations : dict of str to float
        Relative frequency of each content error.
    wrappers : dict of str to float
        Relative frequency of each :data:`WRAPPERS` style.
    renumber : float
        Probability that the model numbers the ids its own way.
    indent : float
        Probability of pretty-printed (rather than compact) JSON.
    """

    edits: float = 0.6
    operations: dict[str, float] = field(default_factory=lambda: {
        "reference_rerouting": 3.0, "record_deletion": 2.0, "categorical_relabel": 2.0,
        "edge_deletion": 2.0, "edge_insertion": 1.0, "record_insertion": 0.5})
    wrappers: dict[str, float] = field(default_factory=lambda: {
        "plain": 85.0, "fence": 10.0, "prose": 5.0})
    renumber: float = 0.9
    indent: float = 0.2

    def draw(self, table: dict[str, float], rng: np.random.Generator) -> str:
        """One key of ``table``, drawn with its relative frequency."""
        names = list(table)
        weights = np.array([table[n] for n in names], dtype=float)
        return names[int(rng.choice(len(names), p=weights / weights.sum()))]

    def render(self, document: Any, rng: np.random.Generator) -> str:
        """The document as this model writes it: JSON text, then wrapped."""
        indent = 2 if rng.uniform() < self.indent else None
        text = json.dumps(document, ensure_ascii=False, indent=indent)
        return wrap(text, self.draw(self.wrappers, rng), rng)


def org2graph_prediction(gold: org2graph.Document, quality: RunQuality,
                         rng: np.random.Generator) -> str:
    """One simulated model answer for an Org2Graph gold.

    >>> inst = org2graph.generate(org2graph.Org2GraphParams(), np.random.default_rng(0))
    >>> text = org2graph_prediction(inst.gold, RunQuality(edits=0.0, renumber=0.0,
    ...                             wrappers={"plain": 1.0}), np.random.default_rng(1))
    >>> json.loads(text) == inst.gold
    True
    """
    document = gold
    if rng.uniform() < quality.renumber:
        document = org2graph.relabel(document, rng, shuffle=bool(rng.uniform() < 0.5))
    for _ in range(int(rng.poisson(quality.edits))):
        name = quality.draw(quality.operations, rng)
        try:
            document = org2graph.EDIT_OPERATIONS[name](document, rng, None)
        except org2graph.InfeasibleEdit:
            continue
    return quality.render(document, rng)


# --------------------------------------------------------------------------- SciERC

SCIERC_TERMS: dict[str, tuple[str, ...]] = {
    "Task": ("machine translation", "speech recognition", "question answering",
             "named entity recognition", "summarization", "parsing", "image captioning",
             "relation extraction", "dialogue generation", "text classification"),
    "Method": ("transformer encoder", "beam search", "conditional random field",
               "graph neural network", "attention mechanism", "lattice decoder",
               "contrastive pre-training", "dependency parser", "LSTM language model",
               "support vector machine", "data augmentation", "knowledge distillation"),
    "Metric": ("BLEU", "F1", "accuracy", "perplexity", "ROUGE-L", "word error rate",
               "latency"),
    "Material": ("Penn Treebank", "WMT14 corpus", "SQuAD", "CoNLL-2003",
                 "LibriSpeech", "a corpus of radio broadcasts", "Wikipedia dumps"),
    "OtherScientificTerm": ("word embeddings", "syntactic features", "hidden states",
                            "recognition lattice", "low-resource languages",
                            "long-range dependencies", "subword units"),
    "Generic": ("approach", "model", "system", "framework"),
}
"""Surface terms per SciERC entity type."""

SCIERC_PREDICATES = ("USED-FOR", "FEATURE-OF", "HYPONYM-OF", "PART-OF", "COMPARE",
                     "CONJUNCTION", "EVALUATE-FOR")
_ANAPHORA = ("it", "this {t}", "the proposed {t}", "our {t}")


def scierc_schema() -> dict[str, Any]:
    """The SciERC-shaped schema (the one of ``sample_data/scierc/schema.json``)."""
    mention = {"type": "object", "properties": {"text": {"type": "string", "score": "exact"}}}
    return {
        "type": "object", "required": ["entities", "relations"],
        "properties": {
            "entities": {"type": "array", "order": "align", "items": {
                "type": "object", "required": ["id", "type", "mentions"],
                "properties": {
                    "id": {"type": "string", "idScope": "entity"},
                    "type": {"type": "string", "score": "exact",
                             "enum": list(SCIERC_TERMS)},
                    "mentions": {"type": "array", "order": "align", "items": mention}}}},
            "relations": {"type": "array", "order": "align", "items": {
                "type": "object", "required": ["subject", "predicate", "object"],
                "properties": {
                    "subject": {"type": "string", "ref": "entity"},
                    "predicate": {"type": "string", "score": "exact",
                                  "enum": list(SCIERC_PREDICATES)},
                    "object": {"type": "string", "ref": "entity"}}}}}}


def scierc_gold(rng: np.random.Generator) -> dict[str, Any]:
    """One SciERC-shaped gold: 4-9 entities (1-3 mentions each) and 3-8 relations."""
    types = list(SCIERC_TERMS)
    count = int(rng.integers(4, 10))
    used: set[str] = set()
    entities = []
    for index in range(count):
        kind = types[int(rng.integers(len(types)))]
        pool = [t for t in SCIERC_TERMS[kind] if t not in used] or list(SCIERC_TERMS[kind])
        term = pool[int(rng.integers(len(pool)))]
        used.add(term)
        mentions = [{"text": term}]
        for _ in range(int(rng.integers(0, 3))):
            head = term.split()[-1]
            form = _ANAPHORA[int(rng.integers(len(_ANAPHORA)))].format(t=head)
            if all(m["text"] != form for m in mentions):
                mentions.append({"text": form})
        entities.append({"id": f"e{index}", "type": kind, "mentions": mentions})
    relations = []
    seen: set[tuple[int, int]] = set()
    for _ in range(int(rng.integers(3, 9))):
        i, j = (int(x) for x in rng.choice(count, size=2, replace=False))
        if (i, j) in seen:
            continue
        seen.add((i, j))
        relations.append({"subject": f"e{i}",
                          "predicate": SCIERC_PREDICATES[int(rng.integers(7))],
                          "object": f"e{j}"})
    return {"entities": entities, "relations": relations}


def _scierc_edit(doc: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    entities, relations = out["entities"], out["relations"]
    choice = int(rng.integers(6))
    if choice == 0 and entities:  # a wrong entity type
        entity = entities[int(rng.integers(len(entities)))]
        entity["type"] = [t for t in SCIERC_TERMS if t != entity["type"]][
            int(rng.integers(len(SCIERC_TERMS) - 1))]
    elif choice == 1 and relations:  # a wrong predicate
        relation = relations[int(rng.integers(len(relations)))]
        relation["predicate"] = [p for p in SCIERC_PREDICATES if p != relation["predicate"]][
            int(rng.integers(6))]
    elif choice == 2:  # a missed mention (pronouns first)
        several = [e for e in entities if len(e["mentions"]) > 1]
        if several:
            entity = several[int(rng.integers(len(several)))]
            entity["mentions"].pop()
    elif choice == 3 and len(entities) > 2:  # a missed entity, and its relations
        victim = entities.pop(int(rng.integers(len(entities))))["id"]
        out["relations"] = [r for r in relations if victim not in (r["subject"], r["object"])]
    elif choice == 4 and relations:  # a missed relation
        relations.pop(int(rng.integers(len(relations))))
    elif relations:  # a reversed relation
        relation = relations[int(rng.integers(len(relations)))]
        relation["subject"], relation["object"] = relation["object"], relation["subject"]
    return out


def scierc_prediction(gold: dict[str, Any], quality: RunQuality,
                      rng: np.random.Generator) -> str:
    """One simulated model answer for a SciERC-shaped gold (ids ``E1, E2, ...`` when
    renumbered, entities in the model's own order)."""
    document = gold
    for _ in range(int(rng.poisson(quality.edits))):
        document = _scierc_edit(document, rng)
    if rng.uniform() < quality.renumber:
        order = [int(k) for k in rng.permutation(len(document["entities"]))]
        mapping = {document["entities"][k]["id"]: f"E{n + 1}" for n, k in enumerate(order)}
        document = {
            "entities": [{**document["entities"][k], "id": mapping[document["entities"][k]["id"]]}
                         for k in order],
            "relations": [{**r, "subject": mapping.get(r["subject"], r["subject"]),
                           "object": mapping.get(r["object"], r["object"])}
                          for r in document["relations"]]}
    return quality.render(document, rng)
