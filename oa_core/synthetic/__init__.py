"""Seeded synthetic data generators of the paper's intrinsic study.

:mod:`oa_core.synthetic.org2graph`
    Org2Graph organisation graphs (people, companies and three kinds of edges) with
    property twins, identifier relabelling and the six edit operations used to probe
    referential alignment.
:mod:`oa_core.synthetic.facts2order`
    Facts2Order sorting tasks, their gold permutations and dosed order corruptions
    tagged with their Kendall distance.

Every function takes an explicit :class:`numpy.random.Generator` (or a seed) and has no
global state, so the same seed always gives the same data.

Examples
--------
>>> from oa_core.synthetic import make_org2graph_example
>>> gold, candidate, schema = make_org2graph_example(4, 0.5, 1, seed=3)
>>> sorted(gold)
['acquaintance', 'companies', 'employment', 'partnership', 'people']
"""

from oa_core.synthetic import facts2order, org2graph
from oa_core.synthetic.org2graph import make_org2graph_example

__all__ = ["facts2order", "make_org2graph_example", "org2graph"]
