/* agenteval viewer: The case drawer: one case's verdicts, labels and judge calls, turns, judge samples,
 * trace waterfall, runs and errors. */
import { html, useEffect, useMemo, useRef } from "./ui.js";
import { Chip } from "./status.js";
import { CopyButton, Section, fmt, interval } from "./pieces.js";
import { DiffText, Trajectory, TrajectoryDiffs, wordDiff } from "./diff.js";
import { JudgeUse } from "./judge_use.js";
import { LabelPanel } from "./labels.js";

function JudgePanel(props) {
  var v = props.verdict;
  return html`<div class="judge" data-testid="judge-panel">
    <div class="judge-head"><b>${v.criterion}</b> <${Chip} status=${v.status} /> <span>score ${fmt(v.score, 3)}</span>
      ${v.reason ? html`<span class="reason">${v.reason}</span>` : null}
      ${v.reason_code ? html`<span class="code">${v.reason_code}</span>` : null}</div>
    ${v.samples.length ? html`<ol class="samples">${v.samples.map(function (s) {
      return html`<li data-testid="judge-sample"><span class="muted">sample ${s.index + 1}</span>
        ${s.verdict ? html` <b>${s.verdict}</b>` : null}${s.score !== null && s.score !== undefined ? html` <span>score ${fmt(s.score, 3)}</span>` : null}
        ${s.error ? html` <span class="code">${s.error}</span> ${s.message}` : null}
        ${s.reasoning ? html`<p class="reasoning" dir="auto" data-testid="reasoning">${s.reasoning}</p>` : null}</li>`;
    })}</ol>` : null}
    ${v.rubrics.length ? html`<table class="matrix" data-testid="rubric-matrix"><thead><tr><th>rubric</th>
        ${v.samples.map(function (s) { return html`<th>s${s.index + 1}</th>`; })}<th>verdict</th><th>rationale</th></tr></thead>
      <tbody>${v.rubrics.map(function (r) {
        return html`<tr data-rubric=${r.rubric_id}><td title=${r.text}><b>${r.rubric_id}</b> <span class="muted">${r.text}</span></td>
          ${r.samples.map(function (x) { return html`<td class=${"vote " + (x === "yes" ? "yes" : x === "no" ? "no" : "")}>${x === null || x === undefined ? "—" : x}</td>`; })}
          <td class=${"vote " + (r.score === 1 ? "yes" : "no")}>${r.verdict}</td><td class="reasoning" dir="auto">${r.rationale}</td></tr>`;
      })}</tbody></table>` : null}
  </div>`;
}

/* A trace-recorded turn's spans: one row per span, indented by depth, its bar placed on the
   turn's time axis, with the tool's arguments and result and the model's tokens under it. */
function Waterfall(props) {
  var w = props.timeline;
  var total = w.duration_ms > 0 ? w.duration_ms : 1;
  function ms(v) { return v >= 1000 ? fmt(v / 1000, 2) + " s" : fmt(v, 1) + " ms"; }
  return html`<div class="waterfall" data-testid="waterfall" aria-label="spans of this turn">
    ${w.spans.map(function (r) {
      var left = Math.min(100, 100 * r.start_ms / total);
      var width = Math.max(0.5, Math.min(100 - left, 100 * r.duration_ms / total));
      var attrs = Object.keys(r.attributes || {});
      return html`<div class=${"span-row op-" + (r.operation || "other")} data-testid="span-row" data-name=${r.name}>
        <div class="span-name" style=${"padding-left:" + (4 + 14 * Math.min(r.depth, 12)) + "px"} title=${r.name}>${r.name}</div>
        <div class="span-track"><div class="span-bar" style=${"left:" + left + "%;width:" + width + "%"}></div></div>
        <div class="span-ms">${ms(r.duration_ms)}</div>
        ${attrs.length ? html`<div class="span-attrs" style=${"padding-left:" + (4 + 14 * Math.min(r.depth, 12)) + "px"}>${attrs.map(function (k) {
          return html`<div><span class="muted">${k}</span> <code class="mono">${r.attributes[k]}</code></div>`;
        })}</div>` : null}
      </div>`;
    })}
  </div>`;
}

function Turn(props) {
  var t = props.turn;
  var exp = t.expected ? t.expected.final_response : null;
  var act = t.actual ? t.actual.final_response : null;
  var diff = useMemo(function () {
    return exp !== null && act !== null ? wordDiff(exp, act) : null;
  }, [exp, act]);
  return html`<section class="turn" data-testid="turn">
    <h3>Turn ${t.index + 1}</h3>
    <div class="user"><span class="who">user</span><p dir="auto">${t.user}</p></div>
    <div class="sides">
      <div class="side"><h4>expected</h4>${exp === null ? html`<p class="muted">no expected response</p>` : html`<${DiffText} text=${exp} parts=${diff && diff[0]} tag="del" />`}</div>
      <div class="side"><h4>actual</h4>${act === null ? html`<p class="muted">no actual response</p>` : html`<${DiffText} text=${act} parts=${diff && diff[1]} tag="ins" />`}</div>
    </div>
    ${t.actual && t.actual.intermediate.length ? html`<details><summary>intermediate responses (${t.actual.intermediate.length})</summary>
      ${t.actual.intermediate.map(function (p) { return html`<p><b>${p[0]}</b>: ${p[1]}</p>`; })}</details>` : null}
    <h4>trajectory</h4>
    <${Trajectory} rows=${t.trajectory} />
    <${TrajectoryDiffs} alignments=${t.alignments} />
    ${t.spans ? html`<h4>spans (from the trace)</h4><${Waterfall} timeline=${t.spans} />` : null}
    ${t.criteria.length ? html`<h4>criteria on this turn</h4>${t.criteria.map(function (v) { return html`<${JudgePanel} verdict=${v} />`; })}` : null}
  </section>`;
}

export function Drawer(props) {
  var d = props.detail, row = props.row;
  var ref = useRef(null);
  useEffect(function () { if (ref.current) { ref.current.focus(); } }, [row]);
  var body;
  if (props.loading) {
    body = html`<p class="muted">Loading…</p>`;
  } else if (!d) {
    body = html`<p class="banner" data-testid="no-details">Details left out of this report; open it with agenteval view.</p>`;
  } else {
    body = html`<div>
      <div class="drawer-meta"><${Chip} status=${d.status} /> <span class="muted">${d.eval_set_id}</span>
        ${d.reason ? html`<span class="reason">${d.reason}</span>` : null}${d.reason_code ? html` <span class="code">${d.reason_code}</span>` : null}</div>
      ${d.rerun ? html`<div class="rerun"><code data-testid="rerun">${d.rerun}</code><${CopyButton} text=${d.rerun} /></div>` : null}
      ${d.errors.length ? html`<${Section} title="Errors" cls="errors">${d.errors.map(function (e) {
        return html`<div class="error" data-testid="error"><span class="code">${e.reason_code || e.type || "error"}</span> <b>${e.source}</b>${e.run ? " (run " + e.run + ")" : ""}: ${e.message}</div>`;
      })}</${Section}>` : null}
      <${Section} title="Verdicts">
        <table class="verdicts"><thead><tr><th>criterion</th><th>outcome</th><th>score</th><th>threshold</th><th>over runs</th><th>reason</th></tr></thead>
        <tbody>${d.criteria.map(function (c) {
          // One outcome word per result, as the CLI prints it: the status, and INCONCLUSIVE
          // beside it only when the runs leave the verdict open. The tri-state verdict's
          // own words (PASS, FAIL, NOT_EVALUATED) only repeat the status, so they are not shown.
          var v = c.verdict;
          var overRuns = v && v.interval && v.basis !== "single-run";
          return html`<tr data-testid="verdict-row"><td title=${c.distribution + " " + c.version}>${c.name}</td>
            <td><${Chip} status=${c.status} />${v && v.verdict === "INCONCLUSIVE" ? html` <${Chip} status="INCONCLUSIVE" title=${v.reason || "the runs leave the verdict open"} />` : null}</td>
            <td>${fmt(c.score, 3)}</td><td>${fmt(c.threshold)}</td>
            <td>${overRuns ? html`<span title=${v.reason || ""}>${interval(v.interval).trim()}</span>` : "—"}${v && v.hint ? html`<div class="muted">${v.hint}</div>` : null}
              ${v && v.basis !== "single-run" && v.reason ? html`<div class="verdict-basis" data-testid="verdict-basis"><span class="code">${v.basis}</span> ${v.reason}</div>` : null}</td>
            <td>${c.reason || ""}${c.reason_code ? html` <span class="code">${c.reason_code}</span>` : null}
              ${c.runs.length ? html`<div class="muted">runs: ${c.runs.map(function (r) { return fmt(r.score); }).join(", ")}</div>` : null}</td></tr>`;
        })}</tbody></table>
      </${Section}>
      ${props.summary ? html`<${LabelPanel} runId=${props.runId} detail=${d} summary=${props.summary} />` : null}
      <${JudgeUse} criteria=${d.criteria} />
      ${d.turns.map(function (t) { return html`<${Turn} turn=${t} key=${t.index} />`; })}
      ${d.alignments && d.alignments.length ? html`<${Section} title="Trajectory over the conversation"><${TrajectoryDiffs} alignments=${d.alignments} /></${Section}>` : null}
      ${d.runs.length > 1 ? html`<${Section} title="Runs"><table class="runs"><thead><tr><th>run</th><th>status</th><th>reason</th><th>final responses</th></tr></thead>
        <tbody>${d.runs.map(function (r) {
          return html`<tr><td>${r.run}</td><td>${r.recorded ? html`<${Chip} status=${r.status} />` : "not recorded"}</td><td>${r.reason || ""}</td>
            <td>${(r.final_responses || []).join(" | ")}</td></tr>`;
        })}</tbody></table></${Section}>` : null}
      ${d.output ? html`<${Section} title="Agent output"><pre class="text output" data-testid="output">${d.output}</pre></${Section}>` : null}
    </div>`;
  }
  return html`<aside class="drawer" role="dialog" aria-label="case detail" data-testid="drawer" tabindex="-1" ref=${ref}>
    <div class="drawer-head"><h2 data-testid="drawer-title" title=${props.caseId}>${props.caseId}</h2>
      <span class="muted">row ${row + 1}</span>
      <button type="button" class="close" aria-label="close" data-testid="close" onClick=${props.onClose}>✕</button></div>
    ${body}
  </aside>`;
}
