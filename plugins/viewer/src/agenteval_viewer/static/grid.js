/* agenteval viewer: The filter bar and the virtualised grid of cases. */
import { h, html, useEffect, useRef, useState } from "./ui.js";
import { Chip, MAIN_STATUSES, SHORT_LABEL } from "./status.js";
import { navigate } from "./route.js";
import { fmt } from "./pieces.js";

const ROW_HEIGHT = 30;

const OVERSCAN = 8;

export function FilterBar(props) {
  var index = props.index, f = props.filters, route = props.route;
  var searchRef = useRef(null);
  useEffect(function () {
    function onKey(e) {
      if (e.key === "/" && document.activeElement !== searchRef.current) {
        e.preventDefault();
        if (searchRef.current) { searchRef.current.focus(); }
      }
    }
    document.addEventListener("keydown", onKey);
    return function () { document.removeEventListener("keydown", onKey); };
  }, []);
  var critOptions = [];
  index.criteria.forEach(function (name) {
    MAIN_STATUSES.forEach(function (s) { critOptions.push(name + ":" + s); });
  });
  var any = f.statuses.length || f.critName || f.scoreCrit || f.reason || f.rubric || f.q;
  return html`<div class="filters" role="search">
    <input type="search" ref=${searchRef} placeholder="Search case, user text, reply  ( / )" value=${route.params.get("q") || ""}
      data-testid="search" aria-label="search cases"
      onInput=${function (e) { navigate(route, { q: e.target.value || null, case: null }, true); }} />
    <select aria-label="criterion and status" data-testid="crit-filter" value=${f.critName ? f.critName + ":" + f.critStatus : ""}
      onChange=${function (e) { navigate(route, { crit: e.target.value || null, case: null }); }}>
      <option value="">any criterion</option>
      ${critOptions.map(function (o) { return html`<option value=${o}>${o.replace(":", " is ")}</option>`; })}
    </select>
    <select aria-label="reason code" data-testid="reason-filter" value=${f.reason}
      onChange=${function (e) { navigate(route, { reason: e.target.value || null, case: null }); }}>
      <option value="">any reason</option>
      ${index.reason_codes.map(function (o) { return html`<option value=${o}>${o}</option>`; })}
    </select>
    ${index.rubrics.length ? html`<select aria-label="failed rubric" data-testid="rubric-filter" value=${f.rubric}
      onChange=${function (e) { navigate(route, { rubric: e.target.value || null, case: null }); }}>
      <option value="">any rubric</option>
      ${index.rubrics.map(function (o) { return html`<option value=${o}>failed: ${o}</option>`; })}
    </select>` : null}
    <span class="score-range">
      <select aria-label="score of" data-testid="score-crit" value=${f.scoreCrit}
        onChange=${function (e) { navigate(route, { scrit: e.target.value || null, case: null }); }}>
        <option value="">score of…</option>
        ${index.criteria.map(function (o) { return html`<option value=${o}>${o}</option>`; })}
      </select>
      <input type="number" step="0.05" placeholder="min" aria-label="minimum score" data-testid="score-min" value=${f.scoreMin || ""}
        onChange=${function (e) { navigate(route, { smin: e.target.value || null, case: null }); }} />
      <input type="number" step="0.05" placeholder="max" aria-label="maximum score" data-testid="score-max" value=${f.scoreMax || ""}
        onChange=${function (e) { navigate(route, { smax: e.target.value || null, case: null }); }} />
    </span>
    ${any ? html`<button type="button" class="link" data-testid="clear-filters" onClick=${function () {
      navigate(route, { status: null, crit: null, scrit: null, smin: null, smax: null, reason: null, rubric: null, q: null, case: null });
    }}>clear filters</button>` : null}
    <span class="visible" data-testid="visible-count">${props.count} of ${index.n} cases</span>
  </div>`;
}

/* A criterion's whole name for a narrow column header: it wraps after each "_" (a <wbr>),
 * never cut inside a word ("tool_trajec_a…" was); the title attribute carries it too. */
function wrappingName(name) {
  var parts = name.split("_");
  return parts.map(function (part, i) { return i < parts.length - 1 ? [part + "_", h("wbr", null)] : part; });
}

export function Grid(props) {
  var index = props.index, rows = props.rows, route = props.route, f = props.filters;
  var selected = props.selected;
  var box = useRef(null);
  var scroll = useState(0);
  var height = useState(480);
  useEffect(function () {
    function measure() { if (box.current) { height[1](box.current.clientHeight); } }
    measure();
    window.addEventListener("resize", measure);
    return function () { window.removeEventListener("resize", measure); };
  }, []);
  useEffect(function () {
    if (selected === null || !box.current) { return; }
    var at = rows.indexOf(selected);
    if (at < 0) { return; }
    var top = at * ROW_HEIGHT, el = box.current;
    if (top < el.scrollTop) { el.scrollTop = top; }
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) { el.scrollTop = top + ROW_HEIGHT - el.clientHeight; }
  }, [selected, rows]);
  var first = Math.max(0, Math.floor(scroll[0] / ROW_HEIGHT) - OVERSCAN);
  var last = Math.min(rows.length, Math.ceil((scroll[0] + height[0]) / ROW_HEIGHT) + OVERSCAN);
  var crits = index.criteria;
  var template = "56px 110px minmax(180px,1fr) 118px " + crits.map(function () { return "112px"; }).join(" ");
  function sortBy(key) {
    var dir = f.sort === key && f.dir > 0 ? "desc" : null;
    navigate(route, { sort: key === "row" && !dir ? null : key, dir: dir });
  }
  function arrow(key) { return f.sort === key ? (f.dir > 0 ? " ▲" : " ▼") : ""; }
  var visible = [];
  for (var i = first; i < last; i++) {
    var r = rows[i];
    var pendingRow = !!(index.pending && index.pending[r]);
    visible.push(html`<div role="row" class=${"row" + (r === selected ? " selected" : "")} key=${r} data-row=${r}
        data-testid="grid-row" aria-selected=${r === selected ? "true" : "false"}
        style=${"top:" + i * ROW_HEIGHT + "px;grid-template-columns:" + template}
        onClick=${(function (row) { return function () { props.onOpen(row); }; })(r)}>
      <span role="cell" class="num">${r + 1}</span>
      <span role="cell" class="set" title=${index.eval_sets[index.eval_set[r]]}>${index.eval_sets[index.eval_set[r]]}</span>
      <span role="cell" class="case" title=${index.case_id[r]}>${index.case_id[r]}</span>
      <span role="cell"><${Chip} status=${pendingRow ? "PENDING" : index.status_legend[index.status[r]]} /></span>
      ${crits.map(function (name) {
        var col = index.by_criterion[name];
        var code = col.status[r];
        if (code === null || code === undefined) { return html`<span role="cell" class="muted">—</span>`; }
        if (pendingRow) { return html`<span role="cell"><${Chip} status="PENDING" label="…" title=${name + ": pending"} /></span>`; }
        var status = index.status_legend[code];
        return html`<span role="cell"><${Chip} status=${status} label=${col.score[r] === null ? SHORT_LABEL[status] : fmt(col.score[r])} title=${name + ": " + status} /></span>`;
      })}
    </div>`);
  }
  return html`<div class="grid" role="table" aria-label="cases" aria-rowcount=${rows.length}>
    <div class="row head" role="row" style=${"grid-template-columns:" + template}>
      <button type="button" role="columnheader" onClick=${function () { sortBy("row"); }}>#${arrow("row")}</button>
      <span role="columnheader">eval set</span>
      <button type="button" role="columnheader" onClick=${function () { sortBy("case"); }}>case${arrow("case")}</button>
      <button type="button" role="columnheader" onClick=${function () { sortBy("status"); }}>status${arrow("status")}</button>
      ${crits.map(function (name) {
        return html`<button type="button" role="columnheader" class="crit-head" data-testid="crit-head" title=${name} onClick=${function () { sortBy("score:" + name); }}>${wrappingName(name)}${arrow("score:" + name)}</button>`;
      })}
    </div>
    <div class="viewport" ref=${box} tabindex="0" data-testid="viewport"
        onScroll=${function (e) { scroll[1](e.target.scrollTop); }}>
      <div class="spacer" style=${"height:" + rows.length * ROW_HEIGHT + "px"}>${visible}</div>
      ${rows.length === 0 ? html`<p class="empty" data-testid="no-rows">No case matches these filters.</p>` : null}
    </div>
  </div>`;
}
