/* agenteval viewer: The run header: verdict, counts, judge use and budgets, the rerun command. */
import { html } from "./ui.js";
import { capabilities } from "./capabilities.js";
import { MAIN_STATUSES, STATUS_CLASS, STATUS_LABEL, verdictClass } from "./status.js";
import { SOURCE } from "./source.js";
import { navigate } from "./route.js";
import { CopyButton, fmt } from "./pieces.js";
import { pendingOf } from "./live_index.js";

// The colour of a verdict badge: PASS / PASSED green, RUNNING blue, anything else red.
// The run's judge budgets (--judge-budget calls, --max-judge-tokens tokens): used of the
// limit, the calls refused once one was spent, and the criterion results those left unjudged
// (each INCONCLUSIVE with the reason judge_budget).
function budgetFacts(budget) {
  if (!budget) { return null; }
  var rows = [];
  if (budget.judge_calls_limit !== null && budget.judge_calls_limit !== undefined) {
    rows.push(["judge call budget", budget.judge_calls_used + " of " + budget.judge_calls_limit, budget.judge_calls_refused]);
  }
  if (budget.judge_tokens_limit !== null && budget.judge_tokens_limit !== undefined) {
    rows.push(["judge token budget", budget.judge_tokens_used + " of " + budget.judge_tokens_limit, budget.judge_tokens_refused]);
  }
  var facts = rows.map(function (r) {
    return html`<div data-testid="judge-budget"><dt>${r[0]}</dt><dd>${r[1]} used${r[2] ? ", " + r[2] + " call(s) refused" : ""}</dd></div>`;
  });
  if (budget.inconclusive) {
    facts.push(html`<div data-testid="judge-budget-unjudged"><dt>not judged</dt><dd>${budget.inconclusive} criterion result(s), INCONCLUSIVE (judge_budget)</dd></div>`);
  }
  return facts;
}

export function RunHeader(props) {
  var s = props.summary, route = props.route, filters = props.filters;
  var crits = s.criteria || [];
  function toggle(status) {
    var current = filters.statuses.slice();
    var at = current.indexOf(status);
    if (at >= 0) { current.splice(at, 1); } else { current.push(status); }
    navigate(route, { status: current.join(",") || null, case: null });
  }
  var judge = s.judge;
  var report = s.report;
  var pending = pendingOf(s);
  var shownCount = function (status) {
    if (status === "PENDING") { return pending; }
    var n = s.counts[status] || 0;
    return status === "NOT_EVALUATED" ? Math.max(0, n - pending) : n;
  };
  return html`<header class="run-header" aria-label="run header">
    <div class="title-row">
      <span class=${"verdict " + verdictClass(s.verdict)} data-testid="verdict">${s.verdict}</span>
      <h1 title=${s.run_id}>${s.run_id}</h1>
      <span class="state">${s.state}</span>
      ${SOURCE.mode === "served" ? html`<nav class="nav">${capabilities.author ? html`<a href="#/author">Eval sets</a> ` : null}<a href="#/history">History</a></nav>` : null}
    </div>
    <div class="counts" role="group" aria-label="cases by status">
      ${MAIN_STATUSES.concat(s.counts.INFORMATIONAL ? ["INFORMATIONAL"] : [], pending ? ["PENDING"] : []).map(function (status) {
        var active = filters.statuses.indexOf(status) >= 0;
        return html`<button type="button" class=${"count " + STATUS_CLASS[status] + (active ? " active" : "")}
          aria-pressed=${active ? "true" : "false"} data-testid=${"count-" + status}
          onClick=${function () { toggle(status); }}>
          <span class="n">${shownCount(status)}</span><span class="label">${STATUS_LABEL[status]}</span></button>`;
      })}
      <span class="total">${s.cases} cases${s.num_runs > 1 ? " × " + s.num_runs + " runs" : ""}${pending ? ", " + (s.cases - pending) + " finished" : ""}</span>
    </div>
    <dl class="facts">
      ${s.agent ? html`<div><dt>agent</dt><dd>${s.agent.target || ""}</dd></div>` : null}
      ${!s.agent && s.actual_files && s.actual_files.length ? html`<div><dt>actual</dt><dd>${s.actual_files.join(", ")}</dd></div>` : null}
      <div><dt>eval sets</dt><dd>${(s.eval_sets || []).map(function (e) { return e.eval_set_id + " (" + e.cases + ")"; }).join(", ")}</dd></div>
      <div><dt>criteria</dt><dd>${crits.map(function (c) { return c.name + "@" + c.version; }).join(", ")}</dd></div>
      ${s.judge_models && s.judge_models.length ? html`<div><dt>judge</dt><dd>${s.judge_models.join(", ")}</dd></div>` : null}
      <div><dt>duration</dt><dd>${s.duration_s === null ? "—" : fmt(s.duration_s, 1) + " s"}</dd></div>
      ${judge ? html`<div><dt>judge calls</dt><dd>${judge.calls} (cache hits ${judge.cache_hits})</dd></div>` : null}
      ${judge ? html`<div><dt>judge tokens</dt><dd data-testid="judge-tokens">${judge.input_tokens} in / ${judge.output_tokens} out</dd></div>` : null}
      ${s.judge_cost ? html`<div><dt>judge cost</dt><dd data-testid="judge-cost" title="at the prices of statistics.judge_prices, per million tokens">${fmt(s.judge_cost.total, 4)}${s.judge_cost.unpriced.length ? " (no price for " + s.judge_cost.unpriced.join(", ") + ")" : ""}</dd></div>` : null}
      ${budgetFacts(s.budget)}
      <div><dt>engine</dt><dd>${s.engine_version}</dd></div>
      ${s.git_commit ? html`<div><dt>commit</dt><dd class="mono">${s.git_commit.slice(0, 10)}</dd></div>` : null}
    </dl>
    ${s.rerun ? html`<div class="rerun"><code>${s.rerun}</code><${CopyButton} text=${s.rerun} /></div>` : null}
    ${report && report.details_left_out ? html`<p class="banner" data-testid="left-out-banner">
      Details of ${report.details_left_out} of ${s.cases} cases were left out of this report${report.size_limited ? " to keep it under " + report.max_mb + " MB" : ""}; open the run with agenteval view to see them.</p>` : null}
  </header>`;
}
