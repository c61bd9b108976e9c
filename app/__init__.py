"""Shared UI code of the Object Aligner explorer (a Streamlit app).

The entry script is ``app/main.py``; the views live in ``pages/`` and stay thin:
they read the session state (:mod:`app.session`), call :mod:`oa_core` through the
cached wrappers in :mod:`app.pair.scoring`, and render with the helpers of this package.
"""
