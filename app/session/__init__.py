"""The explorer's session state, one module per job.

- :mod:`.inputs`: reading JSON/JSONL texts into a trio (pure, no Streamlit);
- :mod:`.current`: the current trio and the session keys of the state;
- :mod:`.examples`: loading a bundled example;
- :mod:`.edits`: schema edits and applied fixes (what every page scores);
- :mod:`.url`: the state in the URL, widget binding, restoring a session from a link;
- :mod:`.warnings`: likely mistakes in a trio.

The names below are the package's public face (``from app import session`` then
``session.bind(...)``), so a page needs one import whichever job it uses.
"""

from .current import ERRORS, FIXES, JSONL, SCHEMA_EDITS, TRIO, set_trio, trio
from .edits import (
    apply_edits,
    apply_fix,
    bundle,
    current_candidate,
    edited_schema,
    patch_digest,
    schema_edits,
    undo_fix,
)
from .examples import load_example, select_example
from .inputs import (
    JSONL_SUFFIXES,
    LoadError,
    Trio,
    canonical,
    documents_of,
    error_from,
    is_bundle,
    parse_trio,
    provenance,
    read_values,
)
from .url import (
    BOUND,
    GLOBAL_OPTIONS,
    TRIO_PARAMS,
    URL_PENDING,
    URL_READ,
    WL_LAMBDA,
    WL_MODE,
    WL_MODES,
    bind,
    changed,
    decode,
    encode,
    init,
    remember,
    restore_from_url,
    sync_url,
    url_name,
    url_params,
)
from .warnings import all_keys, trio_warnings, undeclared_keys

__all__ = [
    "BOUND", "ERRORS", "FIXES", "GLOBAL_OPTIONS", "JSONL", "JSONL_SUFFIXES", "SCHEMA_EDITS",
    "TRIO", "TRIO_PARAMS", "URL_PENDING", "URL_READ", "WL_LAMBDA", "WL_MODE", "WL_MODES",
    "LoadError", "Trio", "all_keys", "apply_edits", "apply_fix", "bind", "bundle", "canonical",
    "changed", "current_candidate", "decode", "documents_of", "edited_schema", "encode",
    "error_from", "init", "is_bundle", "load_example", "parse_trio", "patch_digest",
    "provenance",
    "read_values", "remember", "restore_from_url", "schema_edits", "select_example",
    "set_trio", "sync_url", "trio", "trio_warnings", "undeclared_keys", "undo_fix",
    "url_name", "url_params",
]
