"""Object Aligner in the optimizers and evaluation frameworks users already run.

One module per framework, each a thin translation of the framework's calling
convention to :class:`~oa_core.adapters.judge.Judge` (the metric: score, feedback
within a budget, per-field sub-scores) and of its result back:

- :mod:`oa_core.adapters.dspy`: ``dspy_metric``, a DSPy / GEPA feedback metric
  (extra ``[dspy]``; it also works without DSPy);
- :mod:`oa_core.adapters.inspect_ai`: ``oa_scorer``, an Inspect AI scorer (``[inspect]``);
- :mod:`oa_core.adapters.pydantic_evals`: ``ObjectAligner``, a pydantic-evals
  ``Evaluator`` (``[pydantic-evals]``);
- :mod:`oa_core.adapters.langsmith`: ``oa_evaluator``, a LangSmith / openevals
  evaluator (needs no framework; ``[langsmith]`` installs LangSmith to run it in);
- :mod:`oa_core.adapters.promptfoo`: ``get_assert``, a promptfoo Python assertion
  (needs no framework).

Importing an adapter whose framework is missing raises
:class:`~oa_core.extras.MissingExtra`, naming the ``pip install`` to run. This package
imports no framework itself. docs/adapters.md has an example for each.
"""

__all__: list[str] = []
