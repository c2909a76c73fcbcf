/* agenteval viewer: The run view: header, criteria panel, filters, grid and drawer, live while a run goes on. */
import { html, useCallback, useEffect, useMemo, useRef, useState } from "./ui.js";
import { SOURCE } from "./source.js";
import { navigate } from "./route.js";
import { Section } from "./pieces.js";
import { patchedIndex, pendingRows } from "./live_index.js";
import { patchedSummary } from "./live_summary.js";
import { filterRows, readFilters } from "./filters.js";
import { RunHeader } from "./header.js";
import { CriteriaPanel } from "./criteria.js";
import { FilterBar, Grid } from "./grid.js";
import { Drawer } from "./drawer.js";

export function RunView(props) {
  var route = props.route;
  var runId = route.runId;
  var data = useState({ summary: null, index: null, error: null });
  var tick = useState(0);
  // How long the last load of the summary and index took, and whether one is under way:
  // a live run's refreshes are spaced by twice that (never under 250 ms), so a big run's
  // rebuilds never pile up.
  // ``patch``: the next load asks only for the rows changed since the index's cursor and what
  // changed in the summary since its version (after ``rows`` events); ``whole``: the whole
  // index and summary (first load, and after a new state).
  var loading = useRef({ busy: false, ms: 0, load: 0, patch: false, whole: false, index: null, summary: null });
  useEffect(function () {
    var alive = true;
    var began = Date.now();
    var load = ++loading.current.load;
    var patching = loading.current.patch && !loading.current.whole;
    var had = patching && loading.current.index;
    var hadSummary = patching && loading.current.summary;
    loading.current.busy = true;
    loading.current.patch = loading.current.whole = false;
    var index = had && had.cursor !== undefined && SOURCE.indexSince
      ? SOURCE.indexSince(runId, had.cursor).then(function (patch) { return patchedIndex(had, patch) || SOURCE.index(runId); })
      : SOURCE.index(runId);
    var summary = hadSummary && hadSummary.version !== undefined && SOURCE.summarySince
      ? SOURCE.summarySince(runId, hadSummary.version).then(function (patch) {
        return patchedSummary(hadSummary, patch) || SOURCE.summary(runId);
      })
      : SOURCE.summary(runId);
    Promise.all([summary, index]).then(function (r) {
      if (r[1] && r[0]) { r[1].pending = pendingRows(r[1], r[0].verdict === "RUNNING"); }
      if (alive) {
        loading.current.index = r[1];
        loading.current.summary = r[0];
        data[1]({ summary: r[0], index: r[1], error: null });
      }
    }).catch(function (e) { if (alive) { data[1]({ summary: null, index: null, error: String(e.message || e) }); } })
      .then(function () {
        if (load !== loading.current.load) { return; }  // a later load is under way
        loading.current.busy = false;
        loading.current.ms = Date.now() - began;
      });
    return function () { alive = false; };
  }, [runId, tick[0]]);
  useEffect(function () {
    if (SOURCE.mode !== "served") { return; }
    var events = SOURCE.events(runId);
    if (!events) { return; }
    var pending = null;
    function refresh(e) {
      if (e.type === "rows") {
        loading.current.patch = true;
      } else if (JSON.parse(e.data).state !== "running") {
        loading.current.whole = true;
      } else {
        return;  // each stream starts by saying the run is running: the view knows
      }
      if (pending) { return; }
      var wait = Math.max(250, 2 * loading.current.ms);
      pending = setTimeout(function again() {
        if (loading.current.busy) { pending = setTimeout(again, 100); return; }
        pending = null;
        tick[1](function (n) { return n + 1; });
      }, wait);
    }
    events.addEventListener("rows", refresh);
    events.addEventListener("state", refresh);
    events.onerror = function () { /* the browser reconnects by itself */ };
    return function () { events.close(); if (pending) { clearTimeout(pending); } };
  }, [runId]);
  // A big run's first rows (``/head``), read at once while its whole index is built; shown
  // until the summary and the whole index are here.
  var head = useState(null);
  useEffect(function () {
    if (!SOURCE.head) { return; }
    var alive = true;
    head[1](null);
    SOURCE.head(runId).then(function (h) { if (alive && h && h.partial) { head[1](h); } })
      .catch(function () { /* the whole index is on its way anyway */ });
    return function () { alive = false; };
  }, [runId]);
  var summary = data[0].summary, index = data[0].index;
  var filters = readFilters(route.params);
  var rows = useMemo(function () {
    return index ? filterRows(index, filters) : [];
  }, [index, route.params.toString()]);
  var caseParam = route.params.get("case");
  var openRow = caseParam === null || caseParam === "" ? null : Number(caseParam);
  var cursor = useState(null);
  var selected = openRow !== null ? openRow : cursor[0];
  var detail = useState({ row: null, value: null, loading: false });
  var partial = !(summary && index) && head[0] ? head[0] : null;
  useEffect(function () {
    if (openRow === null || !(index || partial)) { return; }
    var alive = true;
    detail[1]({ row: openRow, value: null, loading: true });
    SOURCE.detail(openRow, runId).then(function (value) {
      if (alive) { detail[1]({ row: openRow, value: value, loading: false }); }
    }).catch(function () { if (alive) { detail[1]({ row: openRow, value: null, loading: false }); } });
    return function () { alive = false; };
  }, [openRow, runId, index, partial, tick[0]]);
  var open = useCallback(function (row) { cursor[1](row); navigate(route, { case: row }); }, [route]);
  var close = useCallback(function () { navigate(route, { case: null }); }, [route]);
  // The key handler is registered once and reads the latest state from a ref, which it also
  // updates itself: a key pressed before the next render (or before the effects of the last
  // one ran) acts on the selection the previous key made, not on a stale closure.
  var keys = useRef(null);
  keys.current = { rows: rows, selected: selected, openRow: openRow, open: open, close: close };
  useEffect(function () {
    function onKey(e) {
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
        if (e.key === "Escape") { e.target.blur(); }
        return;
      }
      var k = keys.current;
      if (!k || !k.rows.length) { return; }
      var at = k.selected === null ? -1 : k.rows.indexOf(k.selected);
      var to = null;
      if (e.key === "j" || e.key === "ArrowDown") {
        to = k.rows[Math.min(k.rows.length - 1, at + 1)];
      } else if (e.key === "k" || e.key === "ArrowUp") {
        to = k.rows[Math.max(0, at - 1)];
      }
      if (to !== null) {
        e.preventDefault();
        k.selected = to;
        if (k.openRow !== null) { k.openRow = to; k.open(to); } else { cursor[1](to); }
      } else if (e.key === "Enter" && k.selected !== null && k.openRow === null) {
        e.preventDefault();
        k.openRow = k.selected;
        k.open(k.selected);
      } else if (e.key === "Escape" && k.openRow !== null) {
        e.preventDefault();
        k.openRow = null;
        k.close();
      }
    }
    document.addEventListener("keydown", onKey);
    return function () { document.removeEventListener("keydown", onKey); };
  }, []);
  if (data[0].error) { return html`<p class="banner error" data-testid="load-error">Could not load run ${runId}: ${data[0].error}</p>`; }
  if ((!summary || !index) && partial) {
    var shown = partial.row.filter(function (r) { return partial.status[r] !== null; });
    return html`<div class=${"run" + (openRow !== null ? " with-drawer" : "")}>
      <p class="loading" data-testid="indexing">Reading all ${partial.total} cases of run ${runId}…
        the first ${shown.length} are shown meanwhile; counts, criteria, filters and search come with the rest.</p>
      <${Section} title="Cases" cls="cases">
        <${Grid} index=${partial} rows=${shown} route=${route} filters=${filters} selected=${selected} onOpen=${open} />
      </${Section}>
      ${openRow !== null && openRow >= 0 && openRow < partial.n ? html`<${Drawer} row=${openRow} caseId=${partial.case_id[openRow]}
        detail=${detail[0].row === openRow ? detail[0].value : null} loading=${detail[0].row !== openRow || detail[0].loading} onClose=${close} />` : null}
    </div>`;
  }
  if (!summary || !index) { return html`<p class="loading">Loading run…</p>`; }
  return html`<div class=${"run" + (openRow !== null ? " with-drawer" : "")}>
    <${RunHeader} summary=${summary} route=${route} filters=${filters} />
    <${CriteriaPanel} summary=${summary} route=${route} />
    <${Section} title="Cases" cls="cases">
      <${FilterBar} index=${index} filters=${filters} route=${route} count=${rows.length} />
      <${Grid} index=${index} rows=${rows} route=${route} filters=${filters} selected=${selected} onOpen=${open} />
    </${Section}>
    ${openRow !== null && openRow >= 0 && openRow < index.n ? html`<${Drawer} row=${openRow} caseId=${index.case_id[openRow]}
      runId=${runId} summary=${summary} detail=${detail[0].row === openRow ? detail[0].value : null} loading=${detail[0].row !== openRow || detail[0].loading} onClose=${close} />` : null}
  </div>`;
}
