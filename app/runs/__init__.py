"""The explorer's run level: an evaluation dataset's runs scored, measured and compared.

- :mod:`app.runs.dataset_state`: which dataset is open, its runs scored (cached), one
  pair of it opened in the single-pair views;
- :mod:`app.runs.workers`, :mod:`app.runs.prescore`: the scoring workers' fork server,
  and the run ``oa explore --dataset`` scores while the server starts;
- :mod:`app.runs.dataset_sidebar`: the sidebar's dataset section;
- :mod:`app.runs.dataset_views` (no Streamlit), :mod:`app.runs.dataset_page`,
  :mod:`app.runs.compare_page`: the charts, tables and sections of the run-level pages;
- :mod:`app.runs.run_tuning`: a schema edit applied to every pair of a run.

The numbers come from :mod:`oa_core.runs`; the single-pair views stay in :mod:`app`.
"""

__all__: list[str] = []
