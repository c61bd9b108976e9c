"""Seeded synthetic data generators of the paper's intrinsic study.

:mod:`synthetic.org2graph`
    Org2Graph organisation graphs (people, companies and three kinds of edges) with
    property twins, identifier relabelling and the six edit operations used to probe
    referential alignment.
:mod:`synthetic.facts2order`
    Facts2Order sorting tasks, their gold permutations and dosed order corruptions
    tagged with their Kendall distance.

Every function takes an explicit :class:`numpy.random.Generator` (or a seed) and has no
global state, so the same seed always gives the same data.

Not part of the installed package: its users are the tests, the benchmarks and
``scripts/make_datasets.py``, which import it from the repository's root (pytest's
``pythonpath``, ``python -m benchmarks.x``, the script's own path).

Examples
--------
>>> from synthetic import make_org2graph_example
>>> gold, candidate, schema = make_org2graph_example(4, 0.5, 1, seed=3)
>>> sorted(gold)
['acquaintance', 'companies', 'employment', 'partnership', 'people']
"""

from synthetic import facts2order, org2graph
from synthetic.org2graph import make_org2graph_example

__all__ = ["facts2order", "make_org2graph_example", "org2graph"]
