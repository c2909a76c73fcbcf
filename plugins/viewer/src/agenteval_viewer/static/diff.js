/* agenteval viewer: Expected against actual: word diffs, JSON, aligned tool-call trajectories. */
import { h, html } from "./ui.js";
import { Chip } from "./status.js";
import { fmt } from "./pieces.js";

function words(text) { return (text || "").split(/(\s+)/).filter(function (w) { return w.length; }); }

/* Word-level diff (LCS over words); large texts are shown without a diff. */
export function wordDiff(a, b) {
  var x = words(a), y = words(b);
  if (x.length * y.length > 4000000) { return null; }
  var n = x.length, m = y.length, dp = new Array(n + 1);
  for (var i = 0; i <= n; i++) { dp[i] = new Uint32Array(m + 1); }
  for (i = n - 1; i >= 0; i--) {
    for (var j = m - 1; j >= 0; j--) {
      dp[i][j] = x[i] === y[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  var left = [], right = [];
  i = 0; j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { left.push([0, x[i]]); right.push([0, y[j]]); i++; j++; }
    else if (j >= m || (i < n && dp[i + 1][j] >= dp[i][j + 1])) { left.push([1, x[i]]); i++; }
    else { right.push([1, y[j]]); j++; }
  }
  return [left, right];
}

export function DiffText(props) {
  if (!props.parts) { return html`<pre class="text">${props.text}</pre>`; }
  return html`<pre class="text">${props.parts.map(function (p) {
    return p[0] ? h(props.tag, null, p[1]) : p[1];
  })}</pre>`;
}

function Json(props) {
  return html`<code class="mono">${JSON.stringify(props.value)}</code>`;
}

const DIFF_KIND = { changed: "differs", missing: "missing", extra: "not expected", equivalent: "accepted" };

/* One argument that differs: its key, what was expected and what the agent gave, and the
   matcher that decided (criteria that compare arguments key by key name it). */
function ArgDiff(props) {
  var d = props.diff;
  return html`<div class=${"argdiff kind-" + d.kind} data-testid="argdiff" data-key=${d.key} data-kind=${d.kind}>
    <span class="mono key">${d.key}</span>${" "}<span class="kind">${DIFF_KIND[d.kind] || d.kind}:</span>
    ${d.kind === "extra" ? null : html`${" "}<span class="side">expected</span>${" "}<del data-testid="argdiff-expected"><${Json} value=${d.expected} /></del>`}
    ${d.kind === "extra" || d.kind === "missing" ? null : html`${" "}<span class="side">→</span>`}
    ${d.kind === "missing" ? null : html`${" "}<span class="side">actual</span>${" "}<ins data-testid="argdiff-actual"><${Json} value=${d.actual} /></ins>`}
    ${d.matcher ? html`${" "}<span class="side">by</span>${" "}<span class="matcher" data-testid="argdiff-matcher" title="the matcher that decided">${d.matcher}</span>${d.score !== undefined && d.score !== null && d.score > 0 && d.score < 1 ? html`${" "}<span class="side">${"(" + fmt(d.score, 3) + ")"}</span>` : null}` : null}</div>`;
}

function Call(props) {
  var r = props.row, index = r[props.side + "_index"], turn = r[props.side + "_turn"];
  if (index === null || index === undefined) { return null; }
  return html`<span class="where">#${index + 1}${turn !== null && turn !== undefined ? ", turn " + (turn + 1) : ""}</span>${" "}<b>${r.name}</b>${" "}<${Json} value=${r[props.side + "_args"]} />`;
}

/* The aligned trajectory: the engine's (by tool name, every turn), or a criterion's own rows
   (``alignments``), which add each pair's similarity and the matcher of each argument. */
export function Trajectory(props) {
  var rows = props.rows || [];
  if (!rows.length) { return html`<p class="muted">no tool calls on either side</p>`; }
  var SIGN = { match: "✓ match", missing: "✗ missing", extra: "+ extra", args_differ: "≠ args differ" };
  return html`<table class="trajectory" data-testid=${props.testid || "trajectory"}><thead><tr><th></th><th>expected</th><th>actual</th><th>argument differences</th></tr></thead>
    <tbody>${rows.map(function (r) {
      var scored = r.similarity !== undefined && r.similarity !== null && (r.op === "match" || r.op === "args_differ");
      return html`<tr class=${"op-" + r.op} data-testid=${props.rowid || "traj-row"} data-op=${r.op} data-name=${r.name}>
        <td class="op">${SIGN[r.op] || r.op}${scored ? html`<div class="sim" title="the pair's similarity, in [0, 1]">similarity <span data-testid="similarity">${fmt(r.similarity, 3)}</span></div>` : null}</td>
        <td><${Call} row=${r} side="expected" /></td>
        <td><${Call} row=${r} side="actual" /></td>
        <td>${(r.arg_diffs || []).map(function (d) { return html`<${ArgDiff} diff=${d} />`; })}</td></tr>`;
    })}</tbody></table>`;
}

/* Why a criterion that declares ``shows_trajectory`` lost points: its own aligned rows. */
export function TrajectoryDiffs(props) {
  return (props.alignments || []).map(function (a) {
    return html`<div class="traj-diff" data-testid="traj-diff" data-criterion=${a.criterion}>
      <h4>why <span class="crit-name">${a.criterion}</span> lost points</h4>
      <div class="traj-diff-head"><${Chip} status=${a.status} /> <span>score ${fmt(a.score, 3)}</span></div>
      <${Trajectory} rows=${a.rows} testid="traj-diff-table" rowid="traj-diff-row" /></div>`;
  });
}
