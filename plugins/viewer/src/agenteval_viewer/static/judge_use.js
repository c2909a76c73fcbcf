/* agenteval viewer: what a case's judge calls used, per criterion (its result's `judge`: calls,
 * cache hits, retries, tokens as the provider reported them), and what they cost when the
 * record has a cost (`judge_cost`, or `judge.cost`: at the config's prices). Criteria without
 * judge calls are left out; a record without any shows nothing. */
import { html } from "./ui.js";
import { Section, fmt } from "./pieces.js";

function costOf(c) {
  var cost = c.judge_cost !== undefined && c.judge_cost !== null ? c.judge_cost : c.judge && c.judge.cost;
  if (cost === null || cost === undefined) { return null; }
  return typeof cost === "number" ? cost : typeof cost.total === "number" ? cost.total : null;
}

function count(n) { return n === null || n === undefined ? "—" : Number(n).toLocaleString("en-US"); }

export function JudgeUse(props) {
  var used = props.criteria.filter(function (c) { return c.judge || costOf(c) !== null; });
  if (!used.length) { return null; }
  var priced = used.some(function (c) { return costOf(c) !== null; });
  return html`<${Section} title="Judge calls" cls="judge-use">
    <table class="judge-use-table"><thead><tr><th>criterion</th><th>calls</th><th>cache hits</th><th>retries</th>
      <th>input tokens</th><th>output tokens</th>${priced ? html`<th>cost</th>` : null}</tr></thead>
    <tbody>${used.map(function (c) {
      var j = c.judge || {};
      var failures = Object.keys(j.failures || {}).map(function (k) { return k + " " + j.failures[k]; }).join(", ");
      return html`<tr data-testid="judge-use-row" data-criterion=${c.name}><td class="crit-name">${c.name}</td>
        <td>${count(j.calls)}${failures ? html`<div class="muted">failed: ${failures}</div>` : null}</td>
        <td>${count(j.cache_hits)}</td><td>${count(j.retries)}</td>
        <td>${count(j.input_tokens)}</td><td>${count(j.output_tokens)}</td>
        ${priced ? html`<td>${costOf(c) === null ? "—" : fmt(costOf(c), 4)}</td>` : null}</tr>`;
    })}</tbody></table>
  </${Section}>`;
}
