"""Schema tuning: a widget for every weight, comparator, threshold and order; live rescoring."""

import json
import time

import pandas as pd
import streamlit as st

from app import schema_widgets, session, sidebar, views
from app.pair import scoring
from app.text import md_inline
from oa_core import OAError, Schema

SEARCH = "oa.tune_search"
SENSITIVITY_AT = "oa.sensitivity_at"  # canonical JSON of the schema the slopes were taken at
SENSITIVE_SHOWN = 10
AUTO_SECONDS = 1.0  # compute the slopes unasked when they should take less than this
STARTED = "oa.tune_started"  # when this run began (the page, or a knob's fragment rerun)
# (original, edited) alignments on screen: the edited one is kept while the next aligns,
# if the original is the same object (the same documents and options)
SHOWN = "oa.tune_shown"
ASKED = "oa.tune_asked"  # the key of the edited alignment asked for last
POLL_S = 0.2

st.session_state[STARTED] = time.perf_counter()
st.title("Schema tuning")
trio = session.trio()
if trio is None:
    scoring.current()
    st.stop()
try:
    original_schema = Schema.parse(trio.schema)
except OAError as exc:
    scoring.show_error(exc, "parse the schema")
    st.stop()
st.markdown("Change any scoring setting below: the documents are rescored at once with the "
            "edited schema, which every other page then uses too. A • marks an edited knob.")


@st.cache_data(max_entries=32, show_spinner="Rescoring once per weight…")
def _sensitivity(gold: str, candidate: str, schema: str, wl_mode: str,
                 wl_lambda: float) -> list[dict]:
    return schema_widgets.sensitivity(json.loads(gold), json.loads(candidate),
                                      json.loads(schema),
                                      {"wl_mode": wl_mode, "wl_blend_lambda": wl_lambda})


def sensitive_settings(seconds: float) -> None:
    """The weights that move the score most per unit (taken at the original schema, or at
    the edited one on request)."""
    state = st.session_state
    assert trio is not None
    original_text = session.canonical(trio.schema)
    edited_text = session.canonical(session.edited_schema())
    at = state.get(SENSITIVITY_AT)
    if at not in (original_text, edited_text):
        at = original_text
    st.subheader("Most sensitive settings")
    weights = sum(1 for _, knobs in schema_widgets.grouped_knobs(original_schema)
                  for knob in knobs if knob.kind == "weight")
    estimate = 2 * weights * seconds
    if estimate >= AUTO_SECONDS and not state.get("oa.sensitivity_asked"):
        st.caption(f"Rescoring twice per weight ({weights} weights) takes about "
                   f"{estimate:.0f} s on documents this size.")
        if st.button("Compute the most sensitive settings"):
            state["oa.sensitivity_asked"] = True
            st.rerun()
        return
    rows = _sensitivity(session.canonical(trio.gold),
                        session.canonical(session.current_candidate()), at,
                        state.get(session.WL_MODE, "tie_break"),
                        float(state.get(session.WL_LAMBDA, 0.5)))
    where = "the original schema" if at == original_text and session.schema_edits() \
        else "the current settings"
    st.caption(f"How much the score moves per +1 of each weight, at {where} (finite "
               f"differences of ±{schema_widgets.WEIGHT_STEP}, each a rescoring). Weights "
               "are relative: raising one lowers the share of its siblings.")
    if at != edited_text and st.button("Recompute at the edited settings"):
        state[SENSITIVITY_AT] = edited_text
        st.rerun()
    frame = pd.DataFrame.from_records(rows[:SENSITIVE_SHOWN],
                                      columns=["setting", "value", "score per +1", "pointer"])
    views.table(frame, "sensitive", formats={"value": "%.3f", "score per +1": "%+.4f"})
    if len(rows) > SENSITIVE_SHOWN:
        st.caption(f"The {SENSITIVE_SHOWN} largest of {len(rows)} weights.")


def _reset_edits() -> None:
    session.schema_edits().clear()
    session.changed()
    st.rerun()  # the sidebar counts the edits: the whole page


def _sidebar_is_behind() -> bool:
    """Whether the sidebar, drawn at the last full run, shows another number of edits."""
    return st.session_state.get(sidebar.EDITS_SHOWN) != len(session.schema_edits())


def _after_knob(knob: schema_widgets.Knob, marked: bool) -> None:
    """A knob changed: rerun only what shows its edit (the knob's widget has its value).

    The page is four keyed fragments; a knob's callback reruns the scores and the
    edited schema, plus the settings when the knob's • mark changed and the sensitive
    settings when they were taken at edited settings (a new edit moves them back to
    the original schema). A change in the number of edits reruns the whole page,
    since the sidebar counts them. A full rerun was most of a weight change's time
    in the browser: the sidebar, every section and two tables redrawn.
    """
    if _sidebar_is_behind():
        st.rerun()
    assert trio is not None
    st.session_state[STARTED] = time.perf_counter()
    targets = [SCORES, EDITED]
    if marked:
        targets.append(SETTINGS)
    if st.session_state.get(SENSITIVITY_AT) not in (None, session.canonical(trio.schema)):
        targets.append(SENSITIVE)
    st.rerun(targets)


SCORES, SENSITIVE, SETTINGS, EDITED = ("tune.scores", "tune.sensitive", "tune.settings",
                                       "tune.edited")


def _keep_step() -> None:
    """In a fragment's own rerun: the whole page when the sidebar's count is stale."""
    if _sidebar_is_behind():
        st.rerun()


def _edited(original: scoring.Scored) -> tuple[scoring.Scored | None, bool]:
    """The edited alignment to show, and whether it is the one asked for: a slow one
    aligns in the background while the previous one stays on screen."""
    assert trio is not None
    state = st.session_state
    if not session.schema_edits():
        state[SHOWN] = (original, original)
        return original, True
    try:
        state[ASKED], result = scoring.align_soon(
            trio.gold, session.current_candidate(), session.edited_schema(),
            wl_mode=state.get(session.WL_MODE, "tie_break"),
            wl_lambda=state.get(session.WL_LAMBDA, 0.5), superseded=state.get(ASKED))
    except OAError as exc:
        scoring.show_error(exc)
        return None, True
    if result == scoring.PENDING:
        before, shown = state.get(SHOWN, (None, None))
        return (shown if before is original else original), False
    state[SHOWN] = (original, result)
    return result, True


@st.fragment(run_every=POLL_S)
def _poll(key: scoring.Key) -> None:
    """While the edited alignment runs: show the new result as soon as it is ready (a
    fragment's body may rerun only itself or the whole page, not named fragments)."""
    if scoring.is_ready(key):
        st.rerun()


@st.fragment(key=SCORES)
def scores() -> None:
    """The scores with both schemas and the nodes whose score moved."""
    _keep_step()
    assert trio is not None
    original = scoring.current(schema=trio.schema)
    if original is None:
        return
    edited, ready = _edited(original)
    if edited is None:
        return
    if not ready:
        st.caption(":material/hourglass_top: Rescoring with the new settings; the figures "
                   "below are the previous ones until it is done.")
        _poll(st.session_state[ASKED])
    columns = st.columns(3)
    columns[0].metric("Score with the edited schema", f"{edited.alignment.score:.4f}",
                      **(views.score_change(edited.alignment.score, original.alignment.score)
                         if session.schema_edits() else {}))
    columns[1].metric("Score with the original schema", f"{original.alignment.score:.4f}")
    columns[2].metric("Edited settings", len(session.schema_edits()))
    moved = schema_widgets.cost_moves(original.alignment.tree, edited.alignment.tree,
                                      session.schema_edits())
    with st.expander(f"Where the score moved ({max(len(moved) - 1, 0)})",
                     expanded=len(moved) > 1):
        if len(moved) > 1:
            st.caption("Each node's **cost** is its weight × (1 − similarity), the weights "
                       "normalised from the root: what it takes off the score. **score Δ** "
                       "is the fall of that cost: the rows one step in add up to the "
                       "score's change (the first row). A row's cost is its indented rows' "
                       "plus what its own nodes cost (a missing or extra item, a misspelt "
                       "key). Raising one weight lowers its siblings' shares, so their "
                       "costs move too, even where no score did.")
            # a static table, not st.dataframe: it changes on every knob, and the data
            # grid redrew its accessibility cells 200 ms after each change
            numbers = schema_widgets.MOVE_COLUMNS[2:]
            st.table(pd.DataFrame.from_records(moved, columns=schema_widgets.MOVE_COLUMNS)
                     .style.hide(axis="index")
                     .format(dict.fromkeys(numbers, views.fmt_score) | {"score Δ": views.fmt_delta},
                             na_rep="—"))
        else:
            st.caption("No node's cost moved.")


@st.fragment(key=SENSITIVE)
def sensitive() -> None:
    _keep_step()
    assert trio is not None
    original = scoring.current(schema=trio.schema)
    if original is not None:
        sensitive_settings(original.seconds)


@st.fragment(key=SETTINGS)
def settings() -> None:
    """Search, reset and every knob, in lazy sections."""
    _keep_step()
    st.subheader("Settings")
    groups = schema_widgets.grouped_knobs(original_schema)
    search_column, reset_column = st.columns([3, 1], vertical_alignment="bottom")
    with search_column:
        query = st.text_input("Search settings", placeholder="e.g. agenda threshold",
                              help="words of a path, a keyword or a type, in any order",
                              **session.bind(SEARCH, ""))
    with reset_column:
        st.button("Reset all edits", on_click=_reset_edits,
                  disabled=not session.schema_edits())
    found = schema_widgets.search(groups, query)
    total = sum(len(knobs) for _, knobs in groups)
    if query.strip():
        shown = sum(len(knobs) for _, knobs in found)
        st.caption(f"{shown} of {total} settings match “{md_inline(query)}”."
                   if found else f"No setting matches “{md_inline(query)}”.")
    searching = bool(query.strip())
    for node, knobs in found:
        title = f"{md_inline(schema_widgets.readable(node.pointer))}  ·  {node.type}"
        if searching:  # every match is shown
            section, is_open = st.expander(title, expanded=True), True
        else:
            # Lazy: a closed section sends no widgets (a schema has dozens of sections,
            # and their widgets were most of this page's weight in the browser); opening
            # one reruns this fragment with its widgets. Knob values live in the edits.
            section = st.expander(title, expanded=node.pointer == "",
                                  key=schema_widgets.section_key(node.pointer),
                                  on_change="rerun")
            is_open = bool(section.open)
        with section:
            if is_open:
                columns = st.columns(3)
                for index, knob in enumerate(knobs):
                    with columns[index % 3]:
                        schema_widgets.render_knob(knob, node, after=_after_knob)


@st.fragment(key=EDITED)
def edited_schema() -> None:
    """The edited schema to download or read, and this view's timing."""
    _keep_step()
    # the whole run's time (a full run, or a knob's fragments); this fragment's own when
    # it reruns alone
    started = st.session_state.pop(STARTED, None) or time.perf_counter()
    st.subheader("Edited schema")
    edited_json = json.dumps(session.edited_schema(), ensure_ascii=False, indent=2)
    st.download_button("Download the edited schema", edited_json,
                       file_name="schema.edited.json", mime="application/json",
                       on_click="ignore")
    with st.expander("Show it", key="w.tune_show_schema", on_change="rerun") as shown:
        if shown.open:
            st.code(edited_json, language="json")
    _, edited = st.session_state.get(SHOWN, (None, None))  # never waits for a rescoring
    if edited is not None:
        scoring.timing_caption(edited, started)


scores()
sensitive()
settings()
edited_schema()
