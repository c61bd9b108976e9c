"""Org2Graph: a seeded generator of small organisation graphs with property twins.

Each instance is a fictional organisation rendered as a templated paragraph, and the
extraction target is the graph it describes, as JSON with five arrays:

``people`` and ``companies``
    records carrying an identifier (``id``, a 6-digit hex string), a ``name`` and one
    categorical property (``title`` / ``industry``);
``employment``
    one edge per person, ``{"person", "company", "role"}``;
``acquaintance``
    directed person-to-person edges ``{"source", "target", "relation"}``;
``partnership``
    directed company-to-company edges ``{"source", "target", "relation"}``.

Three parameters set the difficulty (paper, section "Org2Graph"):

*vocabulary width*
    the codebook sizes of the five categorical fields, ``24/20/20/12/12`` (``"wide"``)
    or ``6/6/6/3/3`` (``"narrow"``);
*twin density*
    the fraction of the ``people`` and of the ``companies`` records that are
    property-twins: within a scope exactly one group of records shares one
    ``(name, category)`` combination, every other record has a distinct one;
*value obfuscation*
    categorical values are opaque codes (``"T07"``) under a fixed legend, while the
    paragraph keeps the readable words.

The module also provides the identifier relabelling and the six edit operations of the
paper's intrinsic study (algorithms "RA invariance" and "RA per-operation sweep"). All
randomness comes from an explicit :class:`numpy.random.Generator`; documents are plain
JSON-compatible dictionaries and are never modified in place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

__all__ = [
    "CODEBOOKS",
    "COMPANY_NAMES",
    "EDIT_OPERATIONS",
    "PERSON_NAMES",
    "WIDTHS",
    "EditOperation",
    "InfeasibleEdit",
    "Org2GraphInstance",
    "Org2GraphParams",
    "Vocabulary",
    "apply_edits",
    "categorical_relabel",
    "delete_edge",
    "delete_record",
    "generate",
    "insert_edge",
    "insert_record",
    "make_org2graph_example",
    "relabel",
    "render_paragraph",
    "reroute_reference",
    "sample_params",
    "schema",
    "vocabulary",
]

Document = dict[str, list[dict[str, Any]]]

#: Readable codebook of each categorical field, widest first; a narrow vocabulary
#: keeps the first entries of each list.
CODEBOOKS: dict[str, tuple[str, ...]] = {
    "title": (
        "scientist", "engineer", "analyst", "designer", "manager", "accountant",
        "lawyer", "nurse", "teacher", "architect", "chemist", "economist",
        "editor", "pharmacist", "surveyor", "translator", "auditor", "curator",
        "geologist", "librarian", "pilot", "statistician", "technician", "veterinarian",
    ),
    "industry": (
        "retail", "media", "energy", "finance", "logistics", "healthcare",
        "aerospace", "agriculture", "biotech", "construction", "education", "gaming",
        "insurance", "mining", "pharmaceuticals", "robotics", "shipping", "telecom",
        "textiles", "tourism",
    ),
    "role": (
        "contractor", "associate", "director", "intern", "consultant", "founder",
        "advisor", "partner", "analyst", "auditor", "coordinator", "developer",
        "researcher", "supervisor", "trainee", "treasurer", "secretary", "lead",
        "specialist", "representative",
    ),
    "acquaintance": (
        "knows", "reports_to", "mentors", "works_with", "manages", "trusts",
        "admires", "advises", "competes_with", "collaborates_with", "recommends",
        "succeeds",
    ),
    "partnership": (
        "competes_with", "supplies", "invests_in", "acquired", "licenses_to",
        "partners_with", "sues", "distributes_for", "audits", "outsources_to",
        "merges_with", "sponsors",
    ),
}

#: Codebook size of each categorical field per vocabulary width.
WIDTHS: dict[str, dict[str, int]] = {
    "wide": {"title": 24, "industry": 20, "role": 20, "acquaintance": 12, "partnership": 12},
    "narrow": {"title": 6, "industry": 6, "role": 6, "acquaintance": 3, "partnership": 3},
}

_CODE_PREFIX = {"title": "T", "industry": "I", "role": "R", "acquaintance": "A",
                "partnership": "P"}

#: Name pools of people and companies (names are never obfuscated).
PERSON_NAMES: tuple[str, ...] = (
    "Milo", "Theo", "Ada", "Ines", "Bruno", "Cleo", "Dara", "Emil", "Fay", "Gus",
    "Hana", "Ivo", "Jade", "Kai", "Lena", "Mara", "Nils", "Omar", "Pia", "Quin",
    "Rosa", "Sami", "Tess", "Uma", "Vik", "Wren", "Xena", "Yuri", "Zoe", "Abel",
    "Bea", "Cyril",
)
COMPANY_NAMES: tuple[str, ...] = (
    "Linton", "Oscorp", "Vantor", "Quillby", "Haverstone", "Corvail", "Brightmoor",
    "Tessaro", "Umbrel", "Kestrel", "Norwick", "Pellham", "Ravensby", "Stoke & Vale",
    "Aldmere", "Fenwright", "Glasshaus", "Marrow Ltd", "Orlen", "Wexford",
)

# (array, categorical field, codebook) of every categorical leaf
_CATEGORICAL = (
    ("people", "title", "title"),
    ("companies", "industry", "industry"),
    ("employment", "role", "role"),
    ("acquaintance", "relation", "acquaintance"),
    ("partnership", "relation", "partnership"),
)
# (array, reference field, referenced record array) of every edge endpoint
_ENDPOINTS = (
    ("employment", "person", "people"),
    ("employment", "company", "companies"),
    ("acquaintance", "source", "people"),
    ("acquaintance", "target", "people"),
    ("partnership", "source", "companies"),
    ("partnership", "target", "companies"),
)
_RECORD_ARRAYS = ("people", "companies")
_EDGE_ARRAYS = ("employment", "acquaintance", "partnership")


class InfeasibleEdit(ValueError):
    """Raised by an edit operation that has no feasible target in the document."""


@dataclass(frozen=True)
class Vocabulary:
    """Codebooks of the five categorical fields of one Org2Graph configuration.

    Attributes
    ----------
    codebooks : Mapping[str, tuple[str, ...]]
        Allowed values of ``title``, ``industry``, ``role``, ``acquaintance`` and
        ``partnership`` as they appear in the gold documents (readable words, or opaque
        codes when obfuscated).
    legend : Mapping[str, str]
        Readable word of every value in `codebooks` (the identity when not obfuscated).
    """

    codebooks: Mapping[str, tuple[str, ...]]
    legend: Mapping[str, str]


def vocabulary(width: Literal["narrow", "wide"] = "narrow", obfuscate: bool = False) -> Vocabulary:
    """Build the vocabulary of a configuration.

    Parameters
    ----------
    width : {"narrow", "wide"}
        Codebook sizes ``6/6/6/3/3`` or ``24/20/20/12/12``.
    obfuscate : bool
        Replace every readable entry by an opaque code: a field prefix (``T`` title,
        ``I`` industry, ``R`` role, ``A`` acquaintance, ``P`` partnership) and the
        entry's 1-based position, e.g. ``"T02"`` for ``"engineer"``.

    Returns
    -------
    Vocabulary
        The codebooks and their legend.

    Examples
    --------
    >>> v = vocabulary("narrow", obfuscate=True)
    >>> v.codebooks["acquaintance"]
    ('A01', 'A02', 'A03')
    >>> v.legend["T02"]
    'engineer'
    """
    if width not in WIDTHS:
        raise ValueError(f"width must be 'narrow' or 'wide', got {width!r}")
    codebooks: dict[str, tuple[str, ...]] = {}
    legend: dict[str, str] = {}
    for field, size in WIDTHS[width].items():
        words = CODEBOOKS[field][:size]
        codes = (
            tuple(f"{_CODE_PREFIX[field]}{i + 1:02d}" for i in range(size)) if obfuscate else words
        )
        codebooks[field] = codes
        legend.update(zip(codes, words, strict=True))
    return Vocabulary(codebooks=codebooks, legend=legend)


@dataclass(frozen=True)
class Org2GraphParams:
    """Parameters of one Org2Graph instance.

    Attributes
    ----------
    n_people, n_companies : int
        Number of ``people`` and ``companies`` records (at least 1 each).
    acquaintance_density : float
        Probability that an unordered pair of people is linked by an acquaintance edge.
    partnership_density : float
        Probability that an unordered pair of companies is linked by a partnership edge.
    twin_density : float
        Fraction in ``[0, 1]`` of each record scope's records that are property-twins
        (``round(t * n)`` records; fewer than two means no twins).
    width : {"narrow", "wide"}
        Vocabulary width.
    obfuscate : bool
        Whether categorical values are opaque codes.
    """

    n_people: int = 6
    n_companies: int = 3
    acquaintance_density: float = 0.35
    partnership_density: float = 0.5
    twin_density: float = 0.0
    width: Literal["narrow", "wide"] = "narrow"
    obfuscate: bool = False


@dataclass(frozen=True)
class Org2GraphInstance:
    """One generated instance.

    Attributes
    ----------
    gold : dict
        The graph as a JSON document (see the module docstring).
    text : str
        The paragraph the graph is extracted from; every edge is one sentence.
    vocabulary : Vocabulary
        The codebooks the categorical values are drawn from, with their legend.
    params : Org2GraphParams
        The parameters the instance was drawn with.
    """

    gold: Document
    text: str
    vocabulary: Vocabulary
    params: Org2GraphParams


def sample_params(rng: np.random.Generator) -> Org2GraphParams:
    """Draw the parameters of one gold as in the paper's intrinsic study.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Org2GraphParams
        People ``n_p ~ U{3..10}``, companies ``n_c ~ U{2..ceil(n_p/2)}``, twin density
        ``t ~ U[0, 1]``, densities ``rho_a ~ U[0.2, 0.5]`` and ``rho_p ~ U[0.3, 0.7]``;
        narrow, readable vocabulary.

    Examples
    --------
    >>> p = sample_params(np.random.default_rng(0))
    >>> 3 <= p.n_people <= 10 and 2 <= p.n_companies <= max(2, -(-p.n_people // 2))
    True
    """
    n_people = int(rng.integers(3, 11))
    n_companies = int(rng.integers(2, max(2, math.ceil(n_people / 2)) + 1))
    return Org2GraphParams(
        n_people=n_people,
        n_companies=n_companies,
        twin_density=float(rng.uniform(0.0, 1.0)),
        acquaintance_density=float(rng.uniform(0.2, 0.5)),
        partnership_density=float(rng.uniform(0.3, 0.7)),
    )


def _copy(doc: Document) -> Document:
    return {key: [dict(item) for item in items] for key, items in doc.items()}


def _all_ids(doc: Document) -> set[str]:
    return {rec["id"] for scope in _RECORD_ARRAYS for rec in doc.get(scope, [])}


def _fresh_ids(count: int, taken: set[str], rng: np.random.Generator) -> list[str]:
    """Draw `count` distinct 6-digit hex identifiers not in `taken`."""
    out: list[str] = []
    seen = set(taken)
    while len(out) < count:
        ident = f"{int(rng.integers(0, 16**6)):06x}"
        if ident not in seen:
            seen.add(ident)
            out.append(ident)
    return out


def _pick(rng: np.random.Generator, seq: tuple[str, ...] | list[Any]) -> Any:
    return seq[int(rng.integers(len(seq)))]


def _draw_attributes(
    n: int, names: tuple[str, ...], codes: tuple[str, ...], twin_density: float,
    rng: np.random.Generator,
) -> list[tuple[str, str]]:
    """Draw `n` ``(name, category)`` pairs: one twin group, all other pairs distinct."""
    n_twins = round(twin_density * n)
    if n_twins < 2:
        n_twins = 0
    if n - n_twins + 1 > len(names) * len(codes):
        raise ValueError(f"{n} records exceed the {len(names) * len(codes)} distinct combinations")
    twin_slots = set(rng.choice(n, size=n_twins, replace=False).tolist()) if n_twins else set()
    used: set[tuple[str, str]] = set()
    twin_combo = (_pick(rng, names), _pick(rng, codes))
    if n_twins:
        used.add(twin_combo)
    out: list[tuple[str, str]] = []
    for i in range(n):
        if i in twin_slots:
            out.append(twin_combo)
            continue
        combo = (_pick(rng, names), _pick(rng, codes))
        while combo in used:
            combo = (_pick(rng, names), _pick(rng, codes))
        used.add(combo)
        out.append(combo)
    return out


def _pair_edges(
    ids: list[str], density: float, codes: tuple[str, ...], rng: np.random.Generator,
) -> list[dict[str, str]]:
    edges = []
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            if rng.random() < density:
                a, b = (ids[i], ids[j]) if rng.random() < 0.5 else (ids[j], ids[i])
                edges.append({"source": a, "target": b, "relation": _pick(rng, codes)})
    return edges


def generate(params: Org2GraphParams, rng: np.random.Generator) -> Org2GraphInstance:
    """Generate one Org2Graph instance (gold graph, paragraph and vocabulary).

    Every person is employed by one random company; each unordered pair of people
    (companies) is linked with probability `acquaintance_density`
    (`partnership_density`), in a random direction. Twins are made per record scope
    as described in :class:`Org2GraphParams`.

    Parameters
    ----------
    params : Org2GraphParams
        Sizes, densities, twin density and vocabulary.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Org2GraphInstance
        The instance.

    Examples
    --------
    >>> inst = generate(Org2GraphParams(n_people=4, n_companies=2, twin_density=1.0),
    ...                 np.random.default_rng(7))
    >>> len(inst.gold["people"]), len(inst.gold["employment"])
    (4, 4)
    >>> len({(p["name"], p["title"]) for p in inst.gold["people"]})  # all four are twins
    1
    """
    if params.n_people < 1 or params.n_companies < 1:
        raise ValueError("an Org2Graph instance needs at least one person and one company")
    vocab = vocabulary(params.width, params.obfuscate)
    cb = vocab.codebooks
    ids = _fresh_ids(params.n_people + params.n_companies, set(), rng)
    person_ids, company_ids = ids[: params.n_people], ids[params.n_people:]
    person_attrs = _draw_attributes(
        params.n_people, PERSON_NAMES, cb["title"], params.twin_density, rng
    )
    company_attrs = _draw_attributes(
        params.n_companies, COMPANY_NAMES, cb["industry"], params.twin_density, rng
    )
    gold: Document = {
        "people": [
            {"id": i, "name": name, "title": title}
            for i, (name, title) in zip(person_ids, person_attrs, strict=True)
        ],
        "companies": [
            {"id": i, "name": name, "industry": industry}
            for i, (name, industry) in zip(company_ids, company_attrs, strict=True)
        ],
        "employment": [
            {"person": p, "company": _pick(rng, company_ids), "role": _pick(rng, cb["role"])}
            for p in person_ids
        ],
        "acquaintance": _pair_edges(
            person_ids, params.acquaintance_density, cb["acquaintance"], rng
        ),
        "partnership": _pair_edges(
            company_ids, params.partnership_density, cb["partnership"], rng
        ),
    }
    return Org2GraphInstance(
        gold=gold, text=render_paragraph(gold, vocab.legend), vocabulary=vocab, params=params
    )


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def render_paragraph(doc: Document, legend: Mapping[str, str] | None = None) -> str:
    """Render a graph as the templated paragraph an extractor reads.

    Records are introduced by their (readable) name and category together with a
    handle ``#k`` in document order (records may share a name), and every edge is one
    sentence. Identifiers never appear in the text.

    Parameters
    ----------
    doc : dict
        An Org2Graph document.
    legend : Mapping[str, str], optional
        Readable word of each categorical value (for obfuscated documents).

    Returns
    -------
    str
        The paragraph.

    Examples
    --------
    >>> doc = {"people": [{"id": "a1", "name": "Ada", "title": "engineer"}],
    ...        "companies": [{"id": "c1", "name": "Orlen", "industry": "energy"}],
    ...        "employment": [{"person": "a1", "company": "c1", "role": "intern"}],
    ...        "acquaintance": [], "partnership": []}
    >>> for sentence in render_paragraph(doc).split(". "):
    ...     print(sentence)
    Orlen (company #1) is an energy company
    Ada (person #1) is an engineer
    Ada (person #1) works at Orlen (company #1) as an intern.
    """
    words = dict(legend or {})

    def word(value: str) -> str:
        return words.get(value, value).replace("_", " ")

    handle: dict[str, str] = {}
    for scope, kind in (("companies", "company"), ("people", "person")):
        for k, rec in enumerate(doc.get(scope, []), start=1):
            handle[rec["id"]] = f"{rec['name']} ({kind} #{k})"
    sentences = []
    for rec in doc.get("companies", []):
        ind = word(rec["industry"])
        sentences.append(f"{handle[rec['id']]} is {_article(ind)} {ind} company.")
    for rec in doc.get("people", []):
        title = word(rec["title"])
        sentences.append(f"{handle[rec['id']]} is {_article(title)} {title}.")
    for e in doc.get("employment", []):
        role = word(e["role"])
        sentences.append(
            f"{handle[e['person']]} works at {handle[e['company']]} as {_article(role)} {role}."
        )
    for scope in ("acquaintance", "partnership"):
        for e in doc.get(scope, []):
            sentences.append(f"{handle[e['source']]} {word(e['relation'])} {handle[e['target']]}.")
    return " ".join(sentences)


def relabel(doc: Document, rng: np.random.Generator, *, shuffle: bool = False) -> Document:
    """Give every record a fresh identifier and rewrite all references through the map.

    The new identifiers are disjoint from the old ones, so no identifier survives. The
    result is graph-isomorphic to `doc`.

    Parameters
    ----------
    doc : dict
        An Org2Graph document.
    rng : numpy.random.Generator
        Source of randomness.
    shuffle : bool, default False
        Also shuffle the order of the records in every array (the paper's relabelling
        keeps the order).

    Returns
    -------
    dict
        The relabelled copy.

    Examples
    --------
    >>> doc = {"people": [{"id": "aaaaaa", "name": "Ada", "title": "nurse"}],
    ...        "companies": [], "employment": [],
    ...        "acquaintance": [{"source": "aaaaaa", "target": "aaaaaa", "relation": "knows"}],
    ...        "partnership": []}
    >>> new = relabel(doc, np.random.default_rng(0))
    >>> new["people"][0]["id"] != "aaaaaa"
    True
    >>> new["acquaintance"][0]["source"] == new["people"][0]["id"]
    True
    """
    old = [rec["id"] for scope in _RECORD_ARRAYS for rec in doc.get(scope, [])]
    mapping = dict(zip(old, _fresh_ids(len(old), set(old), rng), strict=True))
    out = _copy(doc)
    for scope in _RECORD_ARRAYS:
        for rec in out.get(scope, []):
            rec["id"] = mapping[rec["id"]]
    for array, field, _ in _ENDPOINTS:
        for edge in out.get(array, []):
            edge[field] = mapping.get(edge[field], edge[field])
    if shuffle:
        for key, items in out.items():
            out[key] = [items[i] for i in rng.permutation(len(items))]
    return out


def _vocab_or_default(vocab: Vocabulary | None) -> Vocabulary:
    return vocab if vocab is not None else vocabulary()


class EditOperation(Protocol):
    """The signature shared by the six edit operations of :data:`EDIT_OPERATIONS`.

    An edit operation returns an edited copy of an Org2Graph document (the input is
    never modified) and draws all its randomness from `rng`.
    """

    def __call__(
        self, doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
    ) -> Document:
        """Apply the operation once.

        Parameters
        ----------
        doc : dict
            An Org2Graph document.
        rng : numpy.random.Generator
            Source of randomness.
        vocab : Vocabulary, optional
            The document's vocabulary (default: narrow, readable), from which new
            categorical values are drawn; operations that draw none ignore it.

        Returns
        -------
        dict
            The edited copy.

        Raises
        ------
        InfeasibleEdit
            If the document offers the operation no target.
        """


def categorical_relabel(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Set one uniformly random categorical leaf to a different code of its codebook.

    The leaves are every person's ``title``, company's ``industry``, employment
    ``role`` and edge ``relation``.

    Parameters and return value as :class:`EditOperation`.

    Raises
    ------
    InfeasibleEdit
        If the document has no categorical leaf.

    Examples
    --------
    >>> doc = {"people": [{"id": "a", "name": "Ada", "title": "nurse"}], "companies": [],
    ...        "employment": [], "acquaintance": [], "partnership": []}
    >>> categorical_relabel(doc, np.random.default_rng(0))["people"][0]["title"] != "nurse"
    True
    """
    cb = _vocab_or_default(vocab).codebooks
    leaves = [
        (array, i, field, book)
        for array, field, book in _CATEGORICAL
        for i in range(len(doc.get(array, [])))
    ]
    if not leaves:
        raise InfeasibleEdit("no categorical leaf to relabel")
    array, i, field, book = _pick(rng, leaves)
    out = _copy(doc)
    current = out[array][i][field]
    out[array][i][field] = _pick(rng, [c for c in cb[book] if c != current])
    return out


def reroute_reference(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Rewire one random edge endpoint to a different record of the same scope.

    Only endpoints whose scope holds at least two records are eligible. The new target
    may coincide with the edge's other endpoint (a self-loop).

    Parameters and return value as :class:`EditOperation`; `vocab` is unused.

    Raises
    ------
    InfeasibleEdit
        If no endpoint is eligible.

    Examples
    --------
    >>> doc = {"people": [{"id": "a", "name": "Ada", "title": "nurse"},
    ...                   {"id": "b", "name": "Bea", "title": "nurse"}],
    ...        "companies": [{"id": "c", "name": "Orlen", "industry": "energy"}],
    ...        "employment": [{"person": "a", "company": "c", "role": "lead"}],
    ...        "acquaintance": [], "partnership": []}
    >>> reroute_reference(doc, np.random.default_rng(0))["employment"][0]["person"]
    'b'
    """
    del vocab
    targets = [
        (array, i, field, scope)
        for array, field, scope in _ENDPOINTS
        if len(doc.get(scope, [])) >= 2
        for i in range(len(doc.get(array, [])))
    ]
    if not targets:
        raise InfeasibleEdit("no edge endpoint whose scope holds two or more records")
    array, i, field, scope = _pick(rng, targets)
    out = _copy(doc)
    current = out[array][i][field]
    out[array][i][field] = _pick(rng, [r["id"] for r in out[scope] if r["id"] != current])
    return out


def delete_record(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Delete a random record, with every incident edge, from a scope holding two or more.

    Parameters and return value as :class:`EditOperation`; `vocab` is unused.

    Raises
    ------
    InfeasibleEdit
        If neither ``people`` nor ``companies`` holds two or more records.

    Examples
    --------
    >>> doc = {"people": [{"id": "a", "name": "Ada", "title": "nurse"},
    ...                   {"id": "b", "name": "Bea", "title": "nurse"}],
    ...        "companies": [{"id": "c", "name": "Orlen", "industry": "energy"}],
    ...        "employment": [{"person": "a", "company": "c", "role": "lead"}],
    ...        "acquaintance": [], "partnership": []}
    >>> out = delete_record(doc, np.random.default_rng(1))
    >>> len(out["people"]), len(out["employment"]) == sum(p["id"] == "a" for p in out["people"])
    (1, True)
    """
    del vocab
    scopes = [s for s in _RECORD_ARRAYS if len(doc.get(s, [])) >= 2]
    if not scopes:
        raise InfeasibleEdit("no record scope holds two or more records")
    scope = _pick(rng, scopes)
    out = _copy(doc)
    victim = out[scope].pop(int(rng.integers(len(out[scope]))))["id"]
    for array, field, ref_scope in _ENDPOINTS:
        if ref_scope == scope and array in out:
            out[array] = [e for e in out[array] if e[field] != victim]
    return out


def delete_edge(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Delete one uniformly random edge (employment, acquaintance or partnership).

    Parameters and return value as :class:`EditOperation`; `vocab` is unused.

    Raises
    ------
    InfeasibleEdit
        If the document has no edge.

    Examples
    --------
    >>> doc = {"people": [], "companies": [], "employment": [],
    ...        "acquaintance": [{"source": "a", "target": "b", "relation": "knows"}],
    ...        "partnership": []}
    >>> delete_edge(doc, np.random.default_rng(0))["acquaintance"]
    []
    """
    del vocab
    edges = [(array, i) for array in _EDGE_ARRAYS for i in range(len(doc.get(array, [])))]
    if not edges:
        raise InfeasibleEdit("no edge to delete")
    array, i = _pick(rng, edges)
    out = _copy(doc)
    del out[array][i]
    return out


def insert_record(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Insert a fresh person or company with a new id and sampled attributes.

    A new person also receives an employment edge to a random company (when there is
    one). The new record may happen to duplicate an existing record's attributes.

    Parameters and return value as :class:`EditOperation`.

    Examples
    --------
    >>> doc = {"people": [], "companies": [{"id": "c", "name": "Orlen", "industry": "energy"}],
    ...        "employment": [], "acquaintance": [], "partnership": []}
    >>> out = insert_record(doc, np.random.default_rng(3))
    >>> len(out["people"]) + len(out["companies"])
    2
    """
    cb = _vocab_or_default(vocab).codebooks
    out = _copy(doc)
    scope = _pick(rng, _RECORD_ARRAYS)
    (new_id,) = _fresh_ids(1, _all_ids(doc), rng)
    if scope == "people":
        out.setdefault("people", []).append(
            {"id": new_id, "name": _pick(rng, PERSON_NAMES), "title": _pick(rng, cb["title"])}
        )
        if out.get("companies"):
            company = _pick(rng, out["companies"])["id"]
            out.setdefault("employment", []).append(
                {"person": new_id, "company": company, "role": _pick(rng, cb["role"])}
            )
    else:
        out.setdefault("companies", []).append(
            {"id": new_id, "name": _pick(rng, COMPANY_NAMES),
             "industry": _pick(rng, cb["industry"])}
        )
    return out


def insert_edge(
    doc: Document, rng: np.random.Generator, vocab: Vocabulary | None = None
) -> Document:
    """Add an acquaintance or partnership edge between two distinct random records.

    The kind is drawn uniformly among the feasible ones (two or more people for an
    acquaintance, two or more companies for a partnership); the relation is sampled.

    Parameters and return value as :class:`EditOperation`.

    Raises
    ------
    InfeasibleEdit
        If neither scope holds two records.

    Examples
    --------
    >>> doc = {"people": [{"id": "a", "name": "Ada", "title": "nurse"},
    ...                   {"id": "b", "name": "Bea", "title": "nurse"}],
    ...        "companies": [], "employment": [], "acquaintance": [], "partnership": []}
    >>> edge = insert_edge(doc, np.random.default_rng(0))["acquaintance"][0]
    >>> {edge["source"], edge["target"]} == {"a", "b"}
    True
    """
    cb = _vocab_or_default(vocab).codebooks
    kinds = [
        (array, scope)
        for array, scope in (("acquaintance", "people"), ("partnership", "companies"))
        if len(doc.get(scope, [])) >= 2
    ]
    if not kinds:
        raise InfeasibleEdit("no scope holds two records to link")
    array, scope = _pick(rng, kinds)
    ids = [r["id"] for r in doc[scope]]
    i, j = rng.choice(len(ids), size=2, replace=False)
    out = _copy(doc)
    out.setdefault(array, []).append(
        {"source": ids[int(i)], "target": ids[int(j)], "relation": _pick(rng, cb[array])}
    )
    return out


#: The six edit operations of the per-operation sweep, by name, in the paper's order.
EDIT_OPERATIONS: dict[str, EditOperation] = {
    "categorical_relabel": categorical_relabel,
    "reference_rerouting": reroute_reference,
    "record_deletion": delete_record,
    "edge_deletion": delete_edge,
    "record_insertion": insert_record,
    "edge_insertion": insert_edge,
}


def apply_edits(
    doc: Document,
    edits: int | Mapping[str, int],
    rng: np.random.Generator,
    vocab: Vocabulary | None = None,
) -> tuple[Document, list[str]]:
    """Apply a series of edit operations, skipping the infeasible ones.

    Parameters
    ----------
    doc : dict
        An Org2Graph document.
    edits : int or Mapping[str, int]
        Either a number of operations, each drawn uniformly from
        :data:`EDIT_OPERATIONS`, or a count per operation name (applied in the order of
        :data:`EDIT_OPERATIONS`, each until it becomes infeasible, as in the paper's
        sweep).
    rng : numpy.random.Generator
        Source of randomness.
    vocab : Vocabulary, optional
        The document's vocabulary (default: narrow, readable).

    Returns
    -------
    doc : dict
        The edited copy.
    applied : list of str
        The names of the operations actually applied, in order.

    Examples
    --------
    >>> inst = generate(Org2GraphParams(), np.random.default_rng(0))
    >>> _, applied = apply_edits(inst.gold, {"edge_deletion": 2}, np.random.default_rng(1))
    >>> applied
    ['edge_deletion', 'edge_deletion']
    """
    if isinstance(edits, int):
        names = list(EDIT_OPERATIONS)
        plan = [names[int(k)] for k in rng.integers(len(names), size=edits)]
        stop_on_infeasible = False
    else:
        unknown = set(edits) - set(EDIT_OPERATIONS)
        if unknown:
            raise ValueError(f"unknown edit operations: {sorted(unknown)}")
        plan = [name for name in EDIT_OPERATIONS for _ in range(edits.get(name, 0))]
        stop_on_infeasible = True
    applied: list[str] = []
    out = _copy(doc)
    skip: str | None = None
    for name in plan:
        if name == skip:
            continue
        try:
            out = EDIT_OPERATIONS[name](out, rng, vocab)
        except InfeasibleEdit:
            if stop_on_infeasible:
                skip = name
            continue
        applied.append(name)
    return out, applied


def _array(items: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "array",
        "order": "align",
        "items": {"type": "object", "required": required, "properties": items},
    }


def schema(referential: bool = True) -> dict[str, Any]:
    """Return the OA schema of Org2Graph documents.

    Every array is order-agnostic and every categorical or name leaf is compared
    exactly. With `referential` the record ids carry ``idScope`` (``person`` /
    ``company``) and every endpoint a ``ref``; the *plain* ablation omits both
    keywords, so ids and references become ordinary string leaves compared by value
    with the default comparator.

    Parameters
    ----------
    referential : bool, default True
        Referential-alignment schema (True) or the plain ablation (False).

    Returns
    -------
    dict
        The schema.

    Examples
    --------
    >>> schema()["properties"]["employment"]["items"]["properties"]["person"]
    {'type': 'string', 'ref': 'person'}
    >>> schema(referential=False)["properties"]["employment"]["items"]["properties"]["person"]
    {'type': 'string'}
    """

    def ident(scope: str) -> dict[str, str]:
        return {"type": "string", "idScope": scope} if referential else {"type": "string"}

    def ref(scope: str) -> dict[str, str]:
        return {"type": "string", "ref": scope} if referential else {"type": "string"}

    exact = {"type": "string", "score": "exact"}
    return {
        "type": "object",
        "required": ["people", "companies", "employment", "acquaintance", "partnership"],
        "properties": {
            "people": _array(
                {"id": ident("person"), "name": dict(exact), "title": dict(exact)},
                ["id", "name", "title"],
            ),
            "companies": _array(
                {"id": ident("company"), "name": dict(exact), "industry": dict(exact)},
                ["id", "name", "industry"],
            ),
            "employment": _array(
                {"person": ref("person"), "company": ref("company"), "role": dict(exact)},
                ["person", "company", "role"],
            ),
            "acquaintance": _array(
                {"source": ref("person"), "target": ref("person"), "relation": dict(exact)},
                ["source", "target", "relation"],
            ),
            "partnership": _array(
                {"source": ref("company"), "target": ref("company"), "relation": dict(exact)},
                ["source", "target", "relation"],
            ),
        },
    }


def make_org2graph_example(
    n_people: int,
    twin_density: float,
    edits: int | Mapping[str, int],
    seed: int,
    *,
    referential: bool = True,
    width: Literal["narrow", "wide"] = "narrow",
    obfuscate: bool = False,
) -> tuple[Document, Document, dict[str, Any]]:
    """Make a fresh gold/candidate/schema triple for the explorer.

    The gold has `n_people` people and ``U{2..ceil(n_people/2)}`` companies with
    densities drawn as in :func:`sample_params`; the candidate is a relabelled copy of
    the gold (record order shuffled) with `edits` applied on top.

    Parameters
    ----------
    n_people : int
        Number of people (at least 1).
    twin_density : float
        Fraction of property-twins in each record scope, in ``[0, 1]``.
    edits : int or Mapping[str, int]
        Random edits to apply, as in :func:`apply_edits`.
    seed : int
        Seed of the random generator; the same arguments give the same triple.
    referential : bool, default True
        Return the referential schema (True) or the plain ablation (False).
    width : {"narrow", "wide"}
        Vocabulary width.
    obfuscate : bool
        Whether categorical values are opaque codes.

    Returns
    -------
    gold : dict
    candidate : dict
    schema : dict

    Examples
    --------
    >>> g, c, s = make_org2graph_example(5, 0.4, 0, seed=1)
    >>> len(g["people"]) == len(c["people"]) == 5
    True
    >>> {p["id"] for p in g["people"]} & {p["id"] for p in c["people"]}
    set()
    >>> make_org2graph_example(5, 0.4, 2, seed=1) == make_org2graph_example(5, 0.4, 2, seed=1)
    True
    """
    rng = np.random.default_rng(seed)
    params = Org2GraphParams(
        n_people=n_people,
        n_companies=int(rng.integers(2, max(2, math.ceil(n_people / 2)) + 1)),
        acquaintance_density=float(rng.uniform(0.2, 0.5)),
        partnership_density=float(rng.uniform(0.3, 0.7)),
        twin_density=twin_density,
        width=width,
        obfuscate=obfuscate,
    )
    inst = generate(params, rng)
    candidate, _ = apply_edits(
        relabel(inst.gold, rng, shuffle=True), edits, rng, inst.vocabulary
    )
    return inst.gold, candidate, schema(referential)
