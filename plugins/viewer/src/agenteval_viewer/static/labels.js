/* agenteval viewer: human labels for a case's judge criteria (served mode, agenteval view on a
 * loopback address). A person marks each judge criterion's result pass or fail, with a note;
 * the server writes the labels file `agenteval calibrate RUN --labels FILE` reads
 * (POST api/runs/<id>/labels, with the session's token from api/capabilities). The label in
 * the file is shown, and the criterion's calibration card (κ) when the run has one. */
import { html, useEffect, useState } from "./ui.js";
import { Chip } from "./status.js";
import { useCapabilities } from "./capabilities.js";
import { CopyButton, Section } from "./pieces.js";
import { kappaText } from "./criteria.js";

function labelsUrl(runId) { return "api/runs/" + encodeURIComponent(runId) + "/labels"; }

function answer(r) {
  return r.json().catch(function () { return {}; }).then(function (data) {
    if (!r.ok) { throw new Error(data.error || "HTTP " + r.status); }
    return data;
  });
}

function sameKey(label, caseId, criterion) {
  return label.eval_id === caseId && label.criterion === criterion && !label.invocation_id;
}

function LabelRow(props) {
  var c = props.criterion, current = props.current, card = props.card;
  var note = useState(current && current.note ? current.note : "");
  useEffect(function () { note[1](current && current.note ? current.note : ""); }, [current && current.note]);
  var given = current ? current.label : null;
  function choose(label) { props.onSave(c.name, label, note[0]); }
  return html`<tr data-testid="label-row" data-criterion=${c.name}>
    <td class="crit-name">${c.name}</td>
    <td><${Chip} status=${c.status} /></td>
    <td class="label-choice">
      <button type="button" class=${"label-button pass" + (given === "pass" ? " chosen" : "")} aria-pressed=${given === "pass"}
        disabled=${props.disabled} data-testid="label-pass" onClick=${function () { choose("pass"); }}>pass</button>
      <button type="button" class=${"label-button fail" + (given === "fail" ? " chosen" : "")} aria-pressed=${given === "fail"}
        disabled=${props.disabled} data-testid="label-fail" onClick=${function () { choose("fail"); }}>fail</button>
      ${given ? html`<button type="button" class="link" disabled=${props.disabled} data-testid="label-clear" onClick=${function () { choose(null); }}>clear</button>` : null}
      <div class="muted" data-testid="label-current">${given ? "labelled " + given : "not labelled"}</div>
    </td>
    <td><input class="label-note" type="text" placeholder="note (optional)" aria-label=${"note on " + c.name} value=${note[0]}
      disabled=${props.disabled} data-testid="label-note" onInput=${function (e) { note[1](e.target.value); }}
      onChange=${function (e) { if (given) { props.onSave(c.name, given, e.target.value); } }} /></td>
    <td data-testid="label-kappa">${card ? html`κ ${kappaText(card)} <span class="muted">(${card.n} labels)</span>` : html`<span class="muted">no card</span>`}</td>
  </tr>`;
}

// The labels panel of the case drawer: one row per judge criterion of the case.
export function LabelPanel(props) {
  var caps = useCapabilities();
  var runId = props.runId, detail = props.detail;
  var state = useState(null);
  var error = useState(null);
  useEffect(function () {
    if (!caps.labels) { return; }
    var alive = true;
    fetch(labelsUrl(runId), { headers: { Accept: "application/json" } }).then(answer)
      .then(function (data) { if (alive) { state[1](data); } })
      .catch(function (e) { if (alive) { error[1](String(e.message || e)); } });
    return function () { alive = false; };
  }, [runId, !!caps.labels]);
  var judged = (props.summary ? props.summary.criteria : []).filter(function (c) { return c.judge_models && c.judge_models.length; });
  var byName = {};
  judged.forEach(function (c) { byName[c.name] = c; });
  var rows = detail.criteria.filter(function (c) { return byName[c.name]; });
  if (!caps.labels || !rows.length) { return null; }
  var data = state[0];
  function save(criterion, label, note) {
    error[1](null);
    fetch(labelsUrl(runId), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-Agenteval-Token": caps.labels.token },
      body: JSON.stringify({ eval_id: detail.case_id, criterion: criterion, label: label, note: note || null })
    }).then(answer).then(function (next) { state[1](next); })
      .catch(function (e) { error[1](String(e.message || e)); });
  }
  var labels = data ? data.labels : [];
  return html`<${Section} title="Your labels" cls="labels">
    ${data ? html`<p class="muted label-file">Written to <code data-testid="labels-file">${data.file}</code>; compare them with the judge:</p>
      <div class="rerun"><code data-testid="calibrate-command">${data.calibrate}</code><${CopyButton} text=${data.calibrate} /></div>` : null}
    ${data && data.refused ? html`<p class="banner error" data-testid="labels-refused">${data.refused}</p>` : null}
    ${error[0] ? html`<p class="banner error" role="alert" data-testid="labels-error">${error[0]}</p>` : null}
    <table class="labels-table"><thead><tr><th>criterion</th><th>judge</th><th>your label</th><th>note</th><th>calibration</th></tr></thead>
    <tbody>${rows.map(function (c) {
      var current = labels.find(function (l) { return sameKey(l, detail.case_id, c.name); }) || null;
      return html`<${LabelRow} key=${c.name} criterion=${c} current=${current} card=${byName[c.name].calibration}
        disabled=${!data || !data.writable} onSave=${save} />`;
    })}</tbody></table>
  </${Section}>`;
}
