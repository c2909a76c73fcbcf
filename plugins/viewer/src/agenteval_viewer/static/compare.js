/* agenteval viewer: Two runs compared (served mode). */
import { html, useEffect, useState } from "./ui.js";
import { Chip } from "./status.js";
import { SOURCE } from "./source.js";
import { Section, fmt, interval } from "./pieces.js";

export function CompareView(props) {
  var a = props.route.params.get("a"), b = props.route.params.get("b");
  var state = useState({ data: null, error: null });
  var side = useState(null);
  useEffect(function () {
    if (!a || !b) { return; }
    SOURCE.compare(a, b).then(function (d) { state[1]({ data: d, error: null }); })
      .catch(function (e) { state[1]({ data: null, error: String(e.message || e) }); });
  }, [a, b]);
  if (!a || !b) { return html`<p class="banner">Pick two runs in the <a href="#/history">history</a> to compare.</p>`; }
  if (state[0].error) { return html`<p class="banner error">Could not compare: ${state[0].error}</p>`; }
  var d = state[0].data;
  if (!d) { return html`<p class="loading">Comparing…</p>`; }
  var flips = (d.flips || []).slice().sort(function (x, y) {
    var rx = x.baseline === "PASSED" && x.candidate !== "PASSED" ? 0 : 1;
    var ry = y.baseline === "PASSED" && y.candidate !== "PASSED" ? 0 : 1;
    return rx - ry;
  });
  var changed = (d.criteria || []).some(function (c) { return c.status !== "NO DETECTABLE CHANGE"; });
  var nothing = !flips.length && !changed && !(d.only_in_baseline || []).length && !(d.only_in_candidate || []).length;
  function showSides(f) {
    side[1]({ flip: f, a: null, b: null });
    Promise.all([SOURCE.index(a), SOURCE.index(b)]).then(function (ix) {
      function rowOf(index) {
        for (var i = 0; i < index.n; i++) {
          if (index.case_id[i] === f.case_id && index.eval_sets[index.eval_set[i]] === f.eval_set_id) { return i; }
        }
        return -1;
      }
      var ra = rowOf(ix[0]), rb = rowOf(ix[1]);
      return Promise.all([ra < 0 ? null : SOURCE.detail(ra, a), rb < 0 ? null : SOURCE.detail(rb, b)]);
    }).then(function (dd) { side[1]({ flip: f, a: dd[0], b: dd[1] }); }).catch(function () { side[1](null); });
  }
  function finals(detail) {
    if (!detail) { return "—"; }
    return detail.turns.map(function (t) { return t.actual ? t.actual.final_response : ""; }).join("\n\n");
  }
  return html`<div class="compare">
    <header class="run-header"><div class="title-row"><h1>Compare</h1><a href="#/history">History</a></div>
      <p><span class="muted">A</span> ${d.baseline} → <span class="muted">B</span> ${d.candidate}; ${d.paired_cases} paired cases</p></header>
    ${nothing ? html`<p class="banner" data-testid="no-changes">No changes: no criterion moved detectably and no case flipped its verdict.</p>` : null}
    <${Section} title="Criteria">
      <table data-testid="compare-criteria"><thead><tr><th>criterion</th><th>mean A</th><th>mean B</th><th>Δ</th><th>interval</th><th>p (Holm)</th><th>change</th></tr></thead>
        <tbody>${(d.criteria || []).map(function (c) {
          var cls = c.status === "REGRESSED" ? "failed" : c.status === "IMPROVED" ? "passed" : "none";
          return html`<tr><td>${c.criterion}</td><td>${fmt(c.mean_a, 3)}</td><td>${fmt(c.mean_b, 3)}</td><td><b>${fmt(c.delta, 3)}</b></td>
            <td>${interval(c.interval)}</td><td>${fmt(c.p_holm, 3)}</td><td><span class=${"chip " + cls}>${c.status}</span></td></tr>`;
        })}</tbody></table>
      ${(d.config_changes || []).length ? html`<p class="banner">${d.config_changes.join("; ")}</p>` : null}
    </${Section}>
    <${Section} title=${"Verdict flips (" + flips.length + ")"}>
      ${flips.length ? html`<table data-testid="flips"><thead><tr><th>case</th><th>criterion</th><th>A</th><th>B</th><th>Δ score</th><th></th></tr></thead>
        <tbody>${flips.map(function (f) {
          var regression = f.baseline === "PASSED" && f.candidate !== "PASSED";
          return html`<tr data-testid="flip" class=${regression ? "regression" : ""}><td>${f.eval_set_id} / ${f.case_id}</td><td>${f.criterion}</td>
            <td><${Chip} status=${f.baseline} /></td><td><${Chip} status=${f.candidate} /></td><td>${fmt(f.delta, 3)}</td>
            <td><button type="button" class="link" onClick=${function () { showSides(f); }}>outputs</button></td></tr>`;
        })}</tbody></table>` : html`<p class="muted">No case changed its verdict.</p>`}
    </${Section}>
    ${side[0] ? html`<${Section} title=${"Outputs of " + side[0].flip.case_id}><div class="sides">
      <div class="side"><h4>A</h4><pre class="text">${side[0].a === null ? "…" : finals(side[0].a)}</pre></div>
      <div class="side"><h4>B</h4><pre class="text">${side[0].b === null ? "…" : finals(side[0].b)}</pre></div></div></${Section}>` : null}
    ${(d.only_in_baseline || []).length || (d.only_in_candidate || []).length ? html`<${Section} title="Unpaired cases">
      <p>only in A: ${(d.only_in_baseline || []).map(function (k) { return k.join("/"); }).join(", ") || "none"}</p>
      <p>only in B: ${(d.only_in_candidate || []).map(function (k) { return k.join("/"); }).join(", ") || "none"}</p></${Section}>` : null}
  </div>`;
}
