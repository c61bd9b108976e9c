"""The explorer's single-pair views: one gold, one candidate, one schema.

- :mod:`app.pair.scoring`: cached calls into :mod:`oa_core` for the pages, errors shown;
- :mod:`app.pair.diff_table`, :mod:`app.pair.tree_views`: the aligned diff, the match
  tree, the deficit icicle and the score matrices;
- :mod:`app.pair.scope_views`, :mod:`app.pair.wl_graph`, :mod:`app.pair.wl_stepper`,
  :mod:`app.pair.pyvis_graph`: referential alignment (records, twins, WL refinement).

What both levels share (session state, text, number format, colours, the sidebar, the
schema's knobs) stays in :mod:`app`; the run level is :mod:`app.runs`.
"""

__all__: list[str] = []
