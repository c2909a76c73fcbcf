/* agenteval viewer: The criteria panel: pass rates, intervals, histograms, reasons, calibration. */
import { html } from "./ui.js";
import { MAIN_STATUSES, STATUS_CLASS, STATUS_LABEL } from "./status.js";
import { navigate } from "./route.js";
import { Section, fmt, interval, pct, pctInterval } from "./pieces.js";
import { criterionPending, pendingOf } from "./live_index.js";

function Histogram(props) {
  var hist = props.hist, threshold = props.threshold;
  if (!hist) { return html`<div class="hist empty">no scores</div>`; }
  var max = Math.max.apply(null, hist.counts.concat([1]));
  var w = 200, hgt = 48, bw = w / hist.counts.length;
  var tx = threshold === null || threshold === undefined ? null
    : (threshold - hist.low) / (hist.high - hist.low) * w;
  return html`<svg class="hist" viewBox=${"0 0 " + w + " " + (hgt + 12)} width=${w} height=${hgt + 12} role="img"
      aria-label=${"score histogram from " + fmt(hist.low) + " to " + fmt(hist.high)}>
    ${hist.counts.map(function (c, i) {
      var bh = c ? Math.max(1, c / max * hgt) : 0;
      return html`<rect x=${i * bw + 1} y=${hgt - bh} width=${bw - 2} height=${bh} class="bar"><title>${c} case(s)</title></rect>`;
    })}
    <line x1="0" x2=${w} y1=${hgt} y2=${hgt} class="axis" />
    ${tx === null ? null : html`<line x1=${tx} x2=${tx} y1="0" y2=${hgt} class="threshold" />`}
    <text x="0" y=${hgt + 11} class="tick">${fmt(hist.low)}</text>
    <text x=${w} y=${hgt + 11} class="tick end">${fmt(hist.high)}</text>
  </svg>`;
}

function Reasons(props) {
  var entries = Object.keys(props.counts || {});
  if (!entries.length) { return null; }
  return html`<div class="reasons"><span class=${"chip small " + STATUS_CLASS[props.status]}>${STATUS_LABEL[props.status]}</span>
    ${entries.map(function (code) {
      return html`<button type="button" class="link" onClick=${function () { navigate(props.route, { reason: code, case: null }); }}>${code} × ${props.counts[code]}</button>`;
    })}</div>`;
}

// The criterion's judge calibration card (agenteval calibrate): its agreement with people.
// A calibration card's κ with its interval, or why it is undefined.
export function kappaText(card) {
  return card.kappa === null ? "undefined (one label throughout)"
    : fmt(card.kappa, 2) + " [" + fmt(card.kappa_interval.low, 2) + ", " + fmt(card.kappa_interval.high, 2) + "]";
}

function CalibrationLine(props) {
  var card = props.card;
  var kappa = kappaText(card);
  return html`<p class="set-verdict" data-testid="calibration">calibrated against <b>${card.n}</b> human label(s):
    Cohen's κ <b>${kappa}</b>, people passed ${pct(card.base_rate)}, judge ${pct(card.judge_rate)},
    accuracy ${pct(card.accuracy.estimate)}${pctInterval(card.accuracy)}
    <span class="muted"> · judge ${(card.judge_models || []).join(", ") || "none"}, ${card.criterion_version}</span></p>`;
}

// The calibration gate (agenteval run --calibration): whether the judge may decide, and why not.
function CalibrationGateLine(props) {
  var gate = props.gate;
  if (gate.problem) {
    return html`<p class="set-verdict" data-testid="calibration-gate">calibration gate: <b>verdicts INCONCLUSIVE</b> <span class="code">${gate.reason_code}</span><span class="set-reason"> ${gate.problem}</span></p>`;
  }
  var kappa = gate.kappa === null ? "undefined"
    : fmt(gate.kappa, 2) + " [" + fmt(gate.kappa_low, 2) + ", " + fmt(gate.kappa_high, 2) + "]";
  var floor = gate.min_kappa === null ? "" : ", floor " + fmt(gate.min_kappa, 2);
  return html`<p class="set-verdict" data-testid="calibration-gate">calibration gate: <b>a current card</b> (run ${gate.card_run_id}, κ ${kappa} over ${gate.n} label(s)${floor})</p>`;
}

export function CriteriaPanel(props) {
  var s = props.summary, route = props.route;
  var running = pendingOf(s) > 0;
  return html`<${Section} title="Criteria" cls="criteria">
    <div class="criteria-grid">
      ${(s.criteria || []).map(function (c) {
        // while the run goes on: the rate over the finished cases, and pending apart
        var pending = running ? criterionPending(c) : 0;
        var finished = c.total - pending;
        var rate = pending ? (finished ? (c.counts.PASSED || 0) / finished : null) : c.pass_rate;
        var notEvaluated = Object.assign({}, c.not_evaluated);
        if (pending) { delete notEvaluated.pending; }
        return html`<article class="criterion" data-testid=${"criterion-" + c.name}>
          <h3 title=${c.distribution + " " + c.version}>${c.name} <span class="muted">@${c.version}</span></h3>
          <div class="stats">
            ${c.informational ? html`<span>informational</span>`
              : pending ? html`<span data-testid="pass-rate">pass rate <b>${pct(rate)}</b> of ${finished} finished</span>`
              : html`<span data-testid="pass-rate">pass rate <b>${pct(rate)}</b>${pctInterval(c.pass_rate_interval)}</span>`}
            <span>mean <b>${fmt(c.mean, 3)}</b>${interval(c.mean_interval)}</span>
            <span>threshold ${fmt(c.threshold)}</span>
          </div>
          ${c.calibration ? html`<${CalibrationLine} card=${c.calibration} />` : null}
          ${c.calibration_gate ? html`<${CalibrationGateLine} gate=${c.calibration_gate} />` : null}
          ${(c.eval_sets || []).filter(function (e) { return e.verdict; }).map(function (e) {
            // the eval set's verdict, the rule that drew it, why, and the error it controls
            return html`<p class="set-verdict" data-testid="set-verdict">eval set <b>${e.eval_set_id}</b>: <b data-testid="set-verdict-word">${e.verdict}</b>${e.verdict_rule ? html` <span class="muted">(${e.verdict_rule})</span>` : null}
              ${e.verdict_reason ? html`<span class="set-reason"> ${e.verdict_reason}</span>` : null}
              ${e.guarantee ? html`<span class="muted"> · guarantee: <span data-testid="set-guarantee">${e.guarantee}</span></span>` : null}</p>`;
          })}
          <div class="crit-counts">
            ${MAIN_STATUSES.map(function (status) {
              var n = (c.counts[status] || 0) - (status === "NOT_EVALUATED" ? pending : 0);
              return n ? html`<button type="button" class=${"chip small " + STATUS_CLASS[status]}
                onClick=${function () { navigate(route, { crit: c.name + ":" + status, case: null }); }}>${STATUS_LABEL[status]} ${n}</button>` : null;
            })}
            ${pending ? html`<span class="chip small pending" data-testid="crit-pending">PENDING ${pending}</span>` : null}
          </div>
          <${Histogram} hist=${c.histogram} threshold=${c.threshold} />
          <${Reasons} counts=${notEvaluated} status="NOT_EVALUATED" route=${route} />
          <${Reasons} counts=${c.errored} status="ERRORED" route=${route} />
          ${c.rubrics && c.rubrics.length ? html`<table class="rubrics"><thead><tr><th>rubric</th><th>fails</th><th></th></tr></thead><tbody>
            ${c.rubrics.map(function (r) {
              return html`<tr><td title=${r.text}><button type="button" class="link" onClick=${function () { navigate(route, { rubric: r.rubric_id, case: null }); }}>${r.rubric_id}</button> <span class="muted">${r.text}</span></td>
                <td>${r.fails}/${r.total}</td><td>${r.never_fails ? html`<span class="muted">never fails</span>` : null}</td></tr>`;
            })}</tbody></table>` : null}
        </article>`;
      })}
    </div>
  </${Section}>`;
}
