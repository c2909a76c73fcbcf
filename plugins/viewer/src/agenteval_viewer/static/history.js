/* agenteval viewer: The runs folder's history (served mode): runs by suite, with trends. */
import { html, useEffect, useState } from "./ui.js";
import { MAIN_STATUSES, STATUS_LABEL, verdictClass } from "./status.js";
import { SOURCE } from "./source.js";
import { navigate } from "./route.js";
import { Section } from "./pieces.js";

function Trend(props) {
  var values = props.values;
  var w = 160, hgt = 32, n = values.length;
  var pts = [];
  values.forEach(function (v, i) {
    if (v === null || v === undefined) { return; }
    pts.push((n === 1 ? w / 2 : i / (n - 1) * w).toFixed(1) + "," + (hgt - v * hgt).toFixed(1));
  });
  var known = values.filter(function (v) { return v !== null && v !== undefined; });
  var last = known.length ? Math.round(known[known.length - 1] * 100) + "%" : "—";
  return html`<span class="trend-chart"><svg class="trend" width=${w} height=${hgt} viewBox=${"0 0 " + w + " " + hgt} role="img" aria-label=${"pass rate trend of " + props.name + ", oldest to newest; last " + last}>
    <rect class="frame" x="0" y="0" width=${w} height=${hgt} />
    <polyline points=${pts.join(" ")} class="line" />
    ${pts.map(function (p) { var xy = p.split(","); return html`<circle cx=${xy[0]} cy=${xy[1]} r="2" />`; })}</svg><b data-testid="trend-last">${last}</b></span>`;
}

/* A run's suite: its eval sets and its agent (or "--actual files"). Trends are drawn per
 * suite, so different suites' pass rates never merge into one line. */
function suiteOf(run) {
  return (run.eval_sets || []).join(", ") + " · " + (run.agent || "--actual files");
}

export function HistoryView(props) {
  var state = useState({ runs: null, error: null });
  var pick = useState([]);
  useEffect(function () {
    SOURCE.runs().then(function (r) { state[1]({ runs: r.runs || [], error: null }); })
      .catch(function (e) { state[1]({ runs: null, error: String(e.message || e) }); });
  }, []);
  if (state[0].error) { return html`<p class="banner error">Could not list the runs: ${state[0].error}</p>`; }
  var all = state[0].runs;
  if (!all) { return html`<p class="loading">Loading runs…</p>`; }
  if (!all.length) { return html`<p class="banner" data-testid="no-runs">No recorded runs in this folder yet.</p>`; }
  var suites = [];
  all.forEach(function (r) { var k = suiteOf(r); if (suites.indexOf(k) < 0) { suites.push(k); } });
  var wanted = props.route.params.get("suite");
  var runs = wanted && suites.indexOf(wanted) >= 0 ? all.filter(function (r) { return suiteOf(r) === wanted; }) : all;
  var chosen = pick[0];
  var ids = runs.map(function (r) { return r.run_id; });
  // the older of the two is the baseline A, the newer the candidate B (runs are newest first)
  var pair = chosen.slice().sort(function (x, y) { return ids.indexOf(y) - ids.indexOf(x); });
  function toggle(id) {
    var next = chosen.filter(function (x) { return x !== id; });
    if (next.length === chosen.length) { next = chosen.concat([id]).slice(-2); }
    pick[1](next);
  }
  var shownSuites = suites.filter(function (k) { return !wanted || k === wanted; });
  return html`<div class="history">
    <header class="run-header"><div class="title-row"><h1>Runs</h1><span class="muted">${all.length} recorded in ${suites.length} suite${suites.length === 1 ? "" : "s"}</span>
      ${chosen.length === 2 ? html`<a class="button" data-testid="compare-link" href=${"#/compare?a=" + encodeURIComponent(pair[0]) + "&b=" + encodeURIComponent(pair[1])}>Compare the two selected (older as baseline)</a>` : html`<span class="muted">select two runs to compare</span>`}
      ${suites.length > 1 ? html`<label class="nav">suite <select data-testid="suite-filter" value=${wanted || ""} onChange=${function (e) { navigate(props.route, { suite: e.target.value || null }); }}>
        <option value="">every suite</option>${suites.map(function (k) { return html`<option value=${k}>${k}</option>`; })}</select></label>` : null}</div></header>
    ${shownSuites.map(function (suite) {
      var mine = all.filter(function (r) { return suiteOf(r) === suite; });
      var names = [];
      // criteria with a pass rate in some run (an informational one has none)
      mine.forEach(function (r) {
        Object.keys(r.criteria || {}).forEach(function (n) {
          if (names.indexOf(n) < 0 && r.criteria[n].pass_rate !== null && r.criteria[n].pass_rate !== undefined) { names.push(n); }
        });
      });
      var first = mine[0];
      return html`<${Section} title="Pass rate per criterion" cls="suite-trends">
        <p class="suite-name" data-testid="suite-name">eval sets <b>${(first.eval_sets || []).join(", ")}</b> · agent ${first.agent ? html`<code>${first.agent}</code>` : "--actual files"} · ${mine.length} run${mine.length === 1 ? "" : "s"}</p>
        <div class="trends" data-testid="trends">${names.length ? names.map(function (name) {
          // runs come newest first; a trend reads oldest to newest, left to right
          return html`<div class="trend-item" data-testid="trend-item"><span class="trend-name">${name}</span><${Trend} name=${name} values=${mine.slice().reverse().map(function (r) { var c = (r.criteria || {})[name]; return c ? c.pass_rate : null; })} /></div>`;
        }) : html`<p class="muted">no finished run yet</p>`}</div>
      </${Section}>`;
    })}
    <${Section} title="Runs">
      <table class="history-table" data-testid="history"><thead><tr><th></th><th>run</th><th>eval sets</th><th>agent</th><th>state</th><th>verdict</th>
        ${MAIN_STATUSES.map(function (s) { return html`<th>${STATUS_LABEL[s]}</th>`; })}<th>started</th></tr></thead>
        <tbody>${runs.map(function (r) {
          return html`<tr data-testid="history-row"><td><input type="checkbox" aria-label=${"select " + r.run_id} checked=${chosen.indexOf(r.run_id) >= 0} onChange=${function () { toggle(r.run_id); }} /></td>
            <td><a href=${"#/run/" + encodeURIComponent(r.run_id)}>${r.run_id}</a></td>
            <td data-testid="history-sets">${(r.eval_sets || []).join(", ")}</td><td class="agent-cell" data-testid="history-agent" title=${r.agent || ""}>${r.agent || html`<span class="muted">--actual</span>`}</td><td>${r.state}</td>
            <td>${r.verdict ? html`<span class=${"verdict small " + verdictClass(r.verdict)}>${r.verdict}</span>` : "—"}</td>
            ${MAIN_STATUSES.map(function (s) { return html`<td>${(r.counts || {})[s] || 0}</td>`; })}<td>${r.started_at || ""}</td></tr>`;
        })}</tbody></table>
    </${Section}>
  </div>`;
}
