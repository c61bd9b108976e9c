"""The run level: many gold/candidate pairs scored, measured and reported.

- :mod:`oa_core.runs.batch`: ``oa batch``, scoring the lines of a batch in one
  process, several (:mod:`oa_core.runs.pool`), or on a Dask cluster
  (:mod:`oa_core.runs.cluster`);
- :mod:`oa_core.runs.dataset`: evaluation datasets (golds, runs of predictions, a
  schema) read and scored into tables;
- :mod:`oa_core.runs.output_format`: why a raw model output did or did not give its
  answer as JSON;
- :mod:`oa_core.runs.fields`: field-level outcomes and the counting rule of field
  metrics;
- :mod:`oa_core.runs.runstats`: statistics of scored runs (bootstrap intervals, error
  patterns, run-vs-run comparison);
- :mod:`oa_core.runs.html_report`: ``oa report``, a self-contained HTML report.

The single-pair engine (:func:`oa_core.align` and its modules) knows nothing of this
package.
"""

__all__: list[str] = []
