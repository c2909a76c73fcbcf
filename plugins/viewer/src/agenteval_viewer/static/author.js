/* agenteval viewer: the "Eval sets" screen of `agenteval view --allow-write`.
 *
 * Imported by app.js only when GET api/capabilities says {"write": true}. Chat with an agent,
 * save the chat as a case, start a case from a recorded trace's session, edit cases, run them with chosen criteria and promote actual turns
 * to expected. Every request carries the session's token (X-Agenteval-Token), read once from
 * the address agenteval view printed (#/author?token=...) and kept in sessionStorage.
 * Untrusted text (agent replies, tool arguments, ids, file contents, diffs) is only ever
 * rendered as text: Preact and htm create text nodes; nothing here sets innerHTML.
 */
import { html, useEffect, useMemo, useRef, useState } from "./ui.js";
const TOKEN_KEY = "agenteval-view-token";
const LAST_AGENT = "agenteval-view-agent";

// ---------------------------------------------------------------- the token and requests

(function takeToken() {
  var match = /[?&]token=([^&]+)/.exec(location.hash);
  if (!match) { return; }
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
  history.replaceState(null, "", location.hash.replace(/[?&]token=[^&]+/, "").replace(/\?$/, ""));
})();

function api(method, path, body) {
  var options = { method: method, headers: { Accept: "application/json", "X-Agenteval-Token": sessionStorage.getItem(TOKEN_KEY) || "" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return fetch("api/author/" + path, options).then(function (r) {
    return r.text().then(function (text) {
      var data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
      return { status: r.status, ok: r.ok, body: data || {} };
    });
  });
}

/* A chat turn: POST, then read the server-sent events as they arrive. */
function streamTurn(chatId, text, onEvent) {
  return fetch("api/author/chats/" + chatId + "/turns", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Agenteval-Token": sessionStorage.getItem(TOKEN_KEY) || "" },
    body: JSON.stringify({ text: text })
  }).then(function (r) {
    if (!r.ok) { return r.json().then(function (b) { onEvent({ type: "error", code: "refused", message: b.error || ("HTTP " + r.status) }); }); }
    var reader = r.body.getReader(), decoder = new TextDecoder(), buffer = "";
    function pump() {
      return reader.read().then(function (part) {
        buffer += decoder.decode(part.value || new Uint8Array(), { stream: !part.done });
        var blocks = buffer.split("\n\n");
        buffer = blocks.pop();
        blocks.forEach(function (block) {
          var data = block.split("\n").filter(function (l) { return l.indexOf("data: ") === 0; }).map(function (l) { return l.slice(6); }).join("\n");
          if (data) { onEvent(JSON.parse(data)); }
        });
        return part.done ? null : pump();
      });
    }
    return pump();
  });
}

function pretty(value) { return JSON.stringify(value === undefined ? null : value, null, 2); }
function textOf(content) {
  if (!content || !content.parts) { return ""; }
  return content.parts.map(function (p) { return p.text || ""; }).filter(Boolean).join("\n");
}
function contentOf(text, role) { return { role: role, parts: [{ text: text }] }; }
function parseJSON(text, what) {
  try { return { value: text.trim() ? JSON.parse(text) : null }; }
  catch (e) { return { error: what + ": not valid JSON (" + e.message + ")" }; }
}

function Diff(props) {
  if (!props.diff) { return html`<p class="muted" data-testid="no-diff">No change: nothing to write.</p>`; }
  return html`<pre class="diff" data-testid="diff">${props.diff.split("\n").map(function (line) {
    var cls = line[0] === "+" && line.indexOf("+++") !== 0 ? "add" : line[0] === "-" && line.indexOf("---") !== 0 ? "del" : "";
    return html`<span class=${cls}>${line + "\n"}</span>`;
  })}</pre>`;
}

function Problem(props) {
  var p = props.problem;
  if (!p) { return null; }
  return html`<div class="banner error" role="alert" data-testid="problem"><div>${p.error}</div>
    ${p.errors && p.errors.length ? html`<ul>${p.errors.map(function (e) { return html`<li><code>${e.path}</code> ${e.message}</li>`; })}</ul>` : null}
    ${p.diff ? html`<${Diff} diff=${p.diff} />` : null}</div>`;
}

// ---------------------------------------------------------------- saving with a preview

/* Preview the edits' diff, then write on confirmation. `target` is {root, path, sha256,
 * new_set}; onSaved gets the save's answer. A taken case id asks before overwriting. */
function SaveBox(props) {
  var state = useState({ preview: null, problem: null, overwrite: false, saved: null });
  var s = state[0];
  function request(preview, overwrite) {
    var edits = props.edits.map(function (e) { return overwrite && e.op === "put_case" ? Object.assign({}, e, { overwrite: true }) : e; });
    var body = Object.assign({}, props.target, { edits: edits, preview: preview });
    return api("POST", "evalset/save", body).then(function (r) {
      if (r.ok) {
        if (preview) { state[1]({ preview: r.body, problem: null, overwrite: overwrite, saved: null }); }
        else { state[1]({ preview: null, problem: null, overwrite: false, saved: r.body }); props.onSaved(r.body); }
      } else if (r.status === 409 && r.body.case_exists) {
        state[1]({ preview: null, problem: { error: r.body.error, ask: r.body.case_exists }, overwrite: false, saved: null });
      } else {
        state[1]({ preview: null, problem: r.body, overwrite: false, saved: null });
        if (props.onErrors) { props.onErrors(r.body.errors || []); }
      }
    });
  }
  return html`<div class="savebox">
    <button type="button" data-testid="preview" disabled=${!!props.blocked} onClick=${function () { request(true, s.overwrite); }}>${props.label || "Preview changes"}</button>
    ${props.blocked ? html`<span class="blocked" data-testid="blocked">${props.blocked}</span>` : null}
    ${s.problem && s.problem.ask ? html`<div class="banner" data-testid="ask-overwrite">${s.problem.error}
      <button type="button" data-testid="overwrite" onClick=${function () { request(true, true); }}>Overwrite ${s.problem.ask}</button></div>` : html`<${Problem} problem=${s.problem} />`}
    ${s.preview ? html`<div class="preview"><h4>What will be written to ${props.target.path}</h4><${Diff} diff=${s.preview.diff} />
      ${(s.preview.warnings || []).map(function (w) { return html`<p class="banner" data-testid="save-warning">${w}</p>`; })}
      ${s.preview.changed ? html`<button type="button" class="primary" data-testid="confirm-save" onClick=${function () { request(false, s.overwrite); }}>Write the file</button>` : null}
      <button type="button" class="link" onClick=${function () { state[1]({ preview: null, problem: null, overwrite: false, saved: null }); }}>Cancel</button></div>` : null}
    ${s.saved ? html`<p class="saved" data-testid="saved">${s.saved.written ? "Saved " + props.target.path + "." : "Nothing changed."}</p>` : null}
  </div>`;
}

// ---------------------------------------------------------------- chat

function Turn(props) {
  var t = props.turn;
  return html`<div class="chat-turn" data-testid="chat-turn">
    <div class="msg user"><b>user</b> <span class="text">${t.user}</span></div>
    ${t.tools.map(function (c) {
      return html`<div class="msg tool" data-testid="tool-call"><b>tool</b> <code>${c.name}</code>
        <pre class="json">${pretty(c.args)}</pre>${c.response !== null && c.response !== undefined ? html`<div class="muted">→ <code>${JSON.stringify(c.response)}</code></div>` : null}</div>`;
    })}
    ${t.intermediate.map(function (m) { return html`<div class="msg step"><b>${m.author}</b> <span class="text">${m.text}</span></div>`; })}
    ${t.final !== null ? html`<div class="msg agent" data-testid="final"><b>agent</b> <span class="text">${t.final}</span></div>` : null}
    ${t.error ? html`<div class="msg error" role="alert" data-testid="chat-error"><b>${t.error.code}</b> <span class="text">${t.error.message}</span></div>` : null}
    ${t.pending ? html`<div class="muted">waiting for the agent…</div>` : null}
  </div>`;
}

function ChatPanel(props) {
  var stateText = useState("{}");
  var chat = useState(null);
  var turns = useState([]);
  var problem = useState(null);
  var message = useState("");
  var saveTo = useState({ file: "", newId: "", caseId: "", folder: "0:" });
  var caseDraft = useState(null);
  var turnsRef = useRef([]);
  function setTurns(next) { turnsRef.current = next; turns[1](next); }
  function start() {
    var parsed = parseJSON(stateText[0], "starting state");
    if (parsed.error) { problem[1]({ error: parsed.error }); return; }
    problem[1](null);
    api("POST", "chats", { agent: props.agent.trim(), session_input: { state: parsed.value || {} } }).then(function (r) {
      if (!r.ok) { problem[1](r.body); return; }
      chat[1](r.body); setTurns([]); caseDraft[1](null);
    });
  }
  function send() {
    var text = message[0];
    if (!text.trim() || !chat[0]) { return; }
    message[1]("");
    var turn = { user: text, tools: [], intermediate: [], final: null, error: null, pending: true };
    var all = turnsRef.current.concat([turn]);
    setTurns(all);
    function update(change) {
      var copy = turnsRef.current.slice();
      var at = copy.length - 1;
      copy[at] = Object.assign({}, copy[at], change(copy[at]));
      setTurns(copy);
    }
    streamTurn(chat[0].chat_id, text, function (e) {
      if (e.type === "tool_call") { update(function (t) { return { tools: t.tools.concat([e]) }; }); }
      else if (e.type === "intermediate") { update(function (t) { return { intermediate: t.intermediate.concat([e]) }; }); }
      else if (e.type === "final") { update(function () { return { final: e.text }; }); }
      else if (e.type === "error") { update(function () { return { error: e, pending: false }; }); }
      else if (e.type === "done") { update(function () { return { pending: false }; }); }
    }).catch(function (err) { update(function () { return { error: { code: "network", message: String(err) }, pending: false }; }); });
  }
  function makeCase() {
    var id = saveTo[0].caseId.trim();
    api("POST", "chats/" + chat[0].chat_id + "/case", { case_id: id }).then(function (r) {
      if (!r.ok) { problem[1](r.body); caseDraft[1](null); return; }
      problem[1](null); caseDraft[1](r.body.case);
    });
  }
  var files = props.files || [];
  var chosen = saveTo[0].file;
  var newId = saveTo[0].newId.trim();
  var target = null;
  if (caseDraft[0]) {
    if (chosen === "__new__") {
      var at = saveTo[0].folder.indexOf(":");
      var folder = saveTo[0].folder.slice(at + 1);
      target = { root: Number(saveTo[0].folder.slice(0, at)), path: (folder ? folder + "/" : "") + newId + ".evalset.json", sha256: null, new_set: { eval_set_id: newId } };
    } else if (chosen) {
      var f = files[Number(chosen)];
      target = f ? { root: f.root, path: f.path, sha256: f.sha256 || null, needsLoad: true } : null;
    }
  }
  return html`<section class="panel" aria-label="chat">
    <h2>Chat with an agent</h2>
    <div class="row">
      <label>Agent <input data-testid="agent" size="40" placeholder="folder, file.py:function, http://host/v1?model=m" value=${props.agent} onInput=${function (e) { props.setAgent(e.target.value); }} /></label>
      <label>Starting state (session_input.state) <textarea data-testid="state" rows="1" cols="30" value=${stateText[0]} onInput=${function (e) { stateText[1](e.target.value); }}></textarea></label>
      <button type="button" data-testid="start-chat" onClick=${start}>${chat[0] ? "New chat" : "Start chat"}</button>
    </div>
    <${Problem} problem=${problem[0]} />
    ${chat[0] ? html`<div class="chat" data-testid="chat">
      <p class="muted">Chat with <code>${chat[0].target}</code> (app <code>${chat[0].session_input.app_name}</code>), starting state <code>${JSON.stringify(chat[0].session_input.state)}</code></p>
      ${turns[0].map(function (t, i) { return html`<${Turn} turn=${t} key=${i} />`; })}
      <div class="row">
        <input data-testid="message" class="grow" placeholder="Message the agent" value=${message[0]}
          onInput=${function (e) { message[1](e.target.value); }} onKeyDown=${function (e) { if (e.key === "Enter") { send(); } }} />
        <button type="button" data-testid="send" onClick=${send}>Send</button>
      </div>
      ${turns[0].some(function (t) { return t.final !== null; }) ? html`<div class="save-chat"><h4>Save this chat as a case</h4>
        <div class="row">
          <label>Case id <input data-testid="case-id" value=${saveTo[0].caseId} onInput=${function (e) { saveTo[1](Object.assign({}, saveTo[0], { caseId: e.target.value })); }} /></label>
          <label>Eval set <select data-testid="save-target" value=${chosen} onChange=${function (e) { saveTo[1](Object.assign({}, saveTo[0], { file: e.target.value })); }}>
            <option value="">choose…</option>
            ${files.map(function (f, i) { return html`<option value=${String(i)}>${f.path}</option>`; })}
            <option value="__new__">a new eval set…</option></select></label>
          ${chosen === "__new__" ? html`<label>In folder <select data-testid="new-set-folder" value=${saveTo[0].folder} onChange=${function (e) { saveTo[1](Object.assign({}, saveTo[0], { folder: e.target.value })); }}>
              ${(props.folders || []).map(function (fo) { var root = (props.roots || [])[fo.root]; return html`<option value=${fo.root + ":" + fo.path}>${(root ? root.label : fo.root) + (fo.path ? "/" + fo.path : "")}/</option>`; })}</select></label>
            <label>New eval set id <input data-testid="new-set-id" value=${saveTo[0].newId} onInput=${function (e) { saveTo[1](Object.assign({}, saveTo[0], { newId: e.target.value })); }} /></label>` : null}
          <button type="button" data-testid="make-case" onClick=${makeCase}>Make the case</button>
        </div>
        ${caseDraft[0] && target ? html`<${ChatSave} target=${target} draft=${caseDraft[0]} onSaved=${props.onSaved} />` : null}
      </div>` : null}
    </div>` : null}
  </section>`;
}

/* Saving into an existing file needs its current sha256: load it first. */
function ChatSave(props) {
  var loaded = useState(null);
  var t = props.target;
  useEffect(function () {
    if (!t.needsLoad) { loaded[1](t); return; }
    api("GET", "evalset?root=" + t.root + "&path=" + encodeURIComponent(t.path)).then(function (r) {
      loaded[1](r.ok ? { root: t.root, path: t.path, sha256: r.body.sha256 } : { error: r.body });
    });
  }, [t.root, t.path, t.needsLoad]);
  if (!loaded[0]) { return html`<p class="loading">Loading ${t.path}…</p>`; }
  if (loaded[0].error) { return html`<${Problem} problem=${loaded[0].error} />`; }
  return html`<div><pre class="json small" data-testid="case-draft">${pretty(props.draft)}</pre>
    <${SaveBox} target=${loaded[0]} edits=${[{ op: "put_case", case: props.draft }]} onSaved=${function (r) { props.onSaved(loaded[0], r); }} /></div>`;
}

// ---------------------------------------------------------------- a trace as the start of a case

/* Open a recorded trace (GET traces, trace), pick one of its sessions, and edit its case
 * (POST trace/case: the session as `agenteval import-trace --as-expected` writes it) before
 * saving it into an eval set, new or existing, through the editor's save (diff, guard, conflict
 * check). A session whose turns lack content shows its findings and cannot be picked. */
function TracePanel(props) {
  var info = useState(null);
  var chosen = useState({ file: "", path: "", root: "0" });
  var opened = useState(null);
  var problem = useState(null);
  var draft = useState(null);
  var saveTo = useState({ file: "", newId: "", folder: "0:" });
  var saved = useState(null);
  useEffect(function () {
    api("GET", "traces").then(function (r) { info[1](r.ok ? r.body : { available: false, install: r.body.error, files: [] }); });
  }, []);
  if (!info[0]) { return html`<section class="panel" aria-label="start a case from a trace"><h2>Start a case from a trace</h2><p class="loading">Looking for trace files…</p></section>`; }
  if (!info[0].available) {
    return html`<section class="panel" aria-label="start a case from a trace" data-testid="trace-panel"><h2>Start a case from a trace</h2>
      <p class="muted" data-testid="trace-install">${info[0].install}</p></section>`;
  }
  var traces = info[0].files || [];
  function where() {
    var c = chosen[0];
    if (c.path.trim()) { return { root: Number(c.root), path: c.path.trim() }; }
    var f = traces[Number(c.file)];
    return c.file !== "" && f ? { root: f.root, path: f.path } : null;
  }
  function open() {
    var w = where();
    if (!w) { problem[1]({ error: "Choose a trace file, or give its path in the folder." }); return; }
    opened[1](null); draft[1](null); saved[1](null);
    api("GET", "trace?root=" + w.root + "&path=" + encodeURIComponent(w.path)).then(function (r) {
      if (r.ok) { opened[1](r.body); problem[1](null); } else { problem[1](r.body); }
    });
  }
  function start(session) {
    var o = opened[0];
    saved[1](null);
    api("POST", "trace/case", { root: o.root, path: o.path, session_id: session.session_id }).then(function (r) {
      if (r.ok) { draft[1]({ session: session.session_id, case: r.body.case }); problem[1](null); }
      else { draft[1](null); problem[1](r.body); }
    });
  }
  var files = props.files || [];
  var target = null;
  if (draft[0]) {
    if (saveTo[0].file === "__new__") {
      var newId = saveTo[0].newId.trim(), at = saveTo[0].folder.indexOf(":"), folder = saveTo[0].folder.slice(at + 1);
      target = newId ? { root: Number(saveTo[0].folder.slice(0, at)), path: (folder ? folder + "/" : "") + newId + ".evalset.json", sha256: null, new_set: { eval_set_id: newId }, evalSetId: newId } : null;
    } else if (saveTo[0].file !== "") {
      var ef = files[Number(saveTo[0].file)];
      target = ef ? { root: ef.root, path: ef.path, needsLoad: true } : null;
    }
  }
  function set(change) { saveTo[1](Object.assign({}, saveTo[0], change)); }
  var o = opened[0];
  // a session refused for what it lacks: the message's first line, its findings, its fix
  var lines = problem[0] && (problem[0].findings || []).length ? String(problem[0].error).split("\n") : null;
  var refused = lines ? { head: lines[0], fix: lines.filter(function (l) { return l.indexOf("Fix:") === 0; })[0] } : null;
  return html`<section class="panel" aria-label="start a case from a trace" data-testid="trace-panel">
    <h2>Start a case from a trace</h2>
    <p class="muted">A recorded OpenTelemetry trace (OTLP JSON or JSONL, Tempo, Jaeger): pick one of its sessions, and its turns become a new case's expected conversation, as <code>agenteval import-trace --as-expected</code> writes them.</p>
    <div class="row">
      <label>Trace file <select data-testid="trace-file" value=${chosen[0].file} onChange=${function (e) { chosen[1](Object.assign({}, chosen[0], { file: e.target.value, path: "" })); }}>
        <option value="">${traces.length ? "choose…" : "no trace file found here"}</option>
        ${traces.map(function (f, i) { var root = (props.roots || [])[f.root]; return html`<option value=${String(i)}>${(root ? root.label + "/" : "") + f.path}</option>`; })}</select></label>
      <label class="grow">or its path in the folder <input data-testid="trace-path" placeholder="traces/run.otlp.json" value=${chosen[0].path} onInput=${function (e) { chosen[1](Object.assign({}, chosen[0], { path: e.target.value })); }} /></label>
      ${(props.roots || []).length > 1 ? html`<label>Folder <select value=${chosen[0].root} onChange=${function (e) { chosen[1](Object.assign({}, chosen[0], { root: e.target.value })); }}>
        ${props.roots.map(function (r) { return html`<option value=${String(r.index)}>${r.label}</option>`; })}</select></label>` : null}
      <button type="button" data-testid="open-trace" onClick=${open}>Open the trace</button>
    </div>
    ${refused ? html`<div class="banner error" role="alert" data-testid="problem"><div>${refused.head}</div>
        <ul class="findings" data-testid="trace-findings">${problem[0].findings.map(function (f) { return html`<li>${f}</li>`; })}</ul>
        ${refused.fix ? html`<div>${refused.fix}</div>` : null}</div>` : html`<${Problem} problem=${problem[0]} />`}
    ${o ? html`<div data-testid="trace-sessions">
      <p class="muted"><code>${o.path}</code> · ${o.format} · ${o.sessions.length} session${o.sessions.length === 1 ? "" : "s"}</p>
      ${o.notes.map(function (n) { return html`<p class="banner" data-testid="trace-note">${n}</p>`; })}
      <table class="cases-table sessions-table"><thead><tr><th>session</th><th>first user message</th><th>turns</th><th></th></tr></thead><tbody>
        ${o.sessions.map(function (s) {
          var usable = !(s.findings || []).length;
          return html`<tr data-testid="trace-session" class=${draft[0] && draft[0].session === s.session_id ? "current" : ""}>
            <td><code>${s.session_id}</code>${s.case_id !== s.session_id ? html`<div class="muted">case <code>${s.case_id}</code></div>` : null}</td>
            <td class="first-text">${s.first_user_text}</td><td>${s.turns}</td>
            <td>${usable ? html`<button type="button" data-testid="start-case" onClick=${function () { start(s); }}>Start a case</button>`
              : html`<div class="unusable" data-testid="session-findings"><b>Lacks content: cannot be expected turns</b><ul class="findings">${s.findings.map(function (f) { return html`<li>${f}</li>`; })}</ul></div>`}</td></tr>`;
        })}</tbody></table></div>` : null}
    ${draft[0] ? html`<div class="trace-case" data-testid="trace-case"><h4>Save the case of session <code>${draft[0].session}</code> into</h4>
      <div class="row">
        <label>Eval set <select data-testid="trace-save-target" value=${saveTo[0].file} onChange=${function (e) { set({ file: e.target.value }); }}>
          <option value="">choose…</option>
          ${files.map(function (f, i) { return html`<option value=${String(i)}>${f.path}</option>`; })}
          <option value="__new__">a new eval set…</option></select></label>
        ${saveTo[0].file === "__new__" ? html`<label>In folder <select data-testid="trace-new-set-folder" value=${saveTo[0].folder} onChange=${function (e) { set({ folder: e.target.value }); }}>
            ${(props.folders || []).map(function (fo) { var root = (props.roots || [])[fo.root]; return html`<option value=${fo.root + ":" + fo.path}>${(root ? root.label : fo.root) + (fo.path ? "/" + fo.path : "")}/</option>`; })}</select></label>
          <label>New eval set id <input data-testid="trace-new-set-id" value=${saveTo[0].newId} onInput=${function (e) { set({ newId: e.target.value }); }} /></label>` : null}
      </div>
      ${target ? html`<${TraceCaseEditor} key=${draft[0].session} target=${target} draft=${draft[0].case}
        onSaved=${function () { saved[1]({ path: target.path, case_id: null }); draft[1](null); props.onSaved(target); }} />`
        : html`<p class="muted">Choose the eval set the case goes to; you can edit it before it is written.</p>`}
    </div>` : null}
    ${saved[0] ? html`<p class="saved" data-testid="trace-saved">Saved the case to ${saved[0].path}.</p>` : null}
  </section>`;
}

/* The case editor over a trace's case: an existing eval set is loaded first (its sha256 and
 * cases: the case is added after them). Another eval set chosen keeps the edits made so far
 * (the editor stays; its preview is dropped, as the file it was of changed). */
function TraceCaseEditor(props) {
  var loaded = useState(null);
  var t = props.target;
  useEffect(function () {
    if (!t.needsLoad) { loaded[1]({ target: { root: t.root, path: t.path, sha256: null, new_set: t.new_set }, evalSetId: t.evalSetId, count: 0 }); return; }
    api("GET", "evalset?root=" + t.root + "&path=" + encodeURIComponent(t.path)).then(function (r) {
      if (!r.ok) { loaded[1]({ error: r.body }); return; }
      if (!r.body.editable) { loaded[1]({ error: { error: t.path + " cannot be edited here (" + r.body.format + "); choose another eval set." } }); return; }
      loaded[1]({ target: { root: r.body.root, path: r.body.path, sha256: r.body.sha256 }, evalSetId: r.body.eval_set_id, count: r.body.cases.length });
    });
  }, [t.root, t.path, t.needsLoad]);
  var l = loaded[0];
  if (!l) { return html`<p class="loading">Loading ${t.path}…</p>`; }
  if (l.error) { return html`<${Problem} problem=${l.error} />`; }
  return html`<${CaseEditor} case=${props.draft} index=${l.count} isNew=${true} evalSetId=${l.evalSetId} target=${l.target} lastRun="" onSaved=${props.onSaved} />`;
}

// ---------------------------------------------------------------- case editor

function toolUses(turn) {
  var data = turn.intermediate_data;
  if (!data || data.tool_uses || Object.keys(data).length === 0) {
    return { legacy: true, text: pretty((data && data.tool_uses || []).map(function (c) { return c.id ? { id: c.id, name: c.name, args: c.args || {} } : { name: c.name, args: c.args || {} }; })) };
  }
  return { legacy: false, text: pretty(data) };
}

function editorState(c) {
  return {
    eval_id: c.eval_id,
    scenario: c.conversation_scenario ? {
      starting_prompt: c.conversation_scenario.starting_prompt || "",
      conversation_plan: c.conversation_scenario.conversation_plan || "",
      user_persona: typeof c.conversation_scenario.user_persona === "string" ? c.conversation_scenario.user_persona : pretty(c.conversation_scenario.user_persona || "")
    } : null,
    turns: (c.conversation || []).map(function (t) {
      var tools = toolUses(t);
      return {
        original: t, user: textOf(t.user_content), final: textOf(t.final_response), hasFinal: !!t.final_response,
        legacy: tools.legacy, tools: tools.text,
        intermediate: pretty((t.intermediate_data && t.intermediate_data.intermediate_responses) || [])
      };
    }),
    rubrics: pretty(c.rubrics || []),
    session_input: c.session_input ? pretty(c.session_input) : "",
    original: c
  };
}

/* The editor's state back to a case (snake_case): {value}, or {errors: {field: message}}
 * naming every JSON box that does not parse (each message is shown under its own box). */
function caseFrom(ed) {
  var errors = {};
  function json(text, field, what) {
    var parsed = parseJSON(text, what);
    if (parsed.error) { errors[field] = parsed.error; }
    return parsed.value;
  }
  var c = Object.assign({}, ed.original, { eval_id: ed.eval_id.trim() });
  if (ed.scenario) {
    var persona = ed.scenario.user_persona.trim();
    var scenario = Object.assign({}, ed.original.conversation_scenario || {}, {
      starting_prompt: ed.scenario.starting_prompt, conversation_plan: ed.scenario.conversation_plan
    });
    if (!persona) { delete scenario.user_persona; }
    else if (persona[0] === "{") { scenario.user_persona = json(persona, "persona", "persona"); }
    else { scenario.user_persona = persona; }
    c.conversation_scenario = scenario;
    delete c.conversation;
  } else {
    var turns = [];
    for (var i = 0; i < ed.turns.length; i++) {
      var t = ed.turns[i];
      // a text left as it was keeps its parts as they were (several, or with other fields)
      var turn = Object.assign({}, t.original, { user_content: t.original.user_content && t.user === textOf(t.original.user_content) ? t.original.user_content
        : Object.assign({}, t.original.user_content || { role: "user" }, { parts: [{ text: t.user }] }) });
      if (t.final || t.hasFinal) {
        turn.final_response = t.original.final_response && t.final === textOf(t.original.final_response) ? t.original.final_response
          : Object.assign({}, t.original.final_response || { role: "model" }, { parts: [{ text: t.final }] });
      }
      var tools = json(t.tools, "turn" + i + ".tools", "turn " + (i + 1) + " tool calls");
      if (t.legacy) {
        var steps = json(t.intermediate, "turn" + i + ".intermediate", "turn " + (i + 1) + " intermediate responses");
        var data = Object.assign({}, (t.original.intermediate_data || {}));
        data.tool_uses = tools || [];
        if ((steps || []).length || data.intermediate_responses) { data.intermediate_responses = steps || []; }
        if (!data.tool_uses.length && !data.tool_responses && !data.intermediate_responses) { delete turn.intermediate_data; }
        else { turn.intermediate_data = data; }
      } else { turn.intermediate_data = tools; }
      turns.push(turn);
    }
    c.conversation = turns;
  }
  var rubrics = json(ed.rubrics, "rubrics", "rubrics");
  if (rubrics && rubrics.length) { c.rubrics = rubrics; } else { delete c.rubrics; }
  var session = json(ed.session_input, "session_input", "session input");
  if (session) { c.session_input = session; } else { delete c.session_input; }
  return Object.keys(errors).length ? { errors: errors } : { value: c };
}

/* A JSON box's own problem, right under it. */
function JsonError(props) {
  var message = props.errors && props.errors[props.field];
  return message ? html`<p class="json-error" role="alert" data-testid="json-error">${message}</p>` : null;
}
function invalid(errors, field) { return errors && errors[field] ? " invalid" : ""; }

function FieldErrors(props) {
  var mine = (props.errors || []).filter(function (e) { return e.field !== null && e.field.indexOf(props.prefix) === 0; });
  return mine.length ? html`<ul class="field-errors" data-testid="field-error">${mine.map(function (e) { return html`<li><code>${e.field}</code> ${e.message}</li>`; })}</ul>` : null;
}

/* The recorded runs of eval set `evalSetId`, newest first (the viewer's read API), read
 * again whenever `refresh` changes (a run started from this screen). */
function useRunsOf(evalSetId, refresh) {
  var runs = useState(null);
  useEffect(function () {
    var alive = true;
    fetch("api/runs", { headers: { Accept: "application/json" } }).then(function (r) { return r.ok ? r.json() : { runs: [] }; })
      .then(function (d) {
        if (!alive) { return; }
        runs[1]((d.runs || []).filter(function (run) { return (run.eval_sets || []).indexOf(evalSetId) >= 0; }));
      }).catch(function () { if (alive) { runs[1]([]); } });
    return function () { alive = false; };
  }, [evalSetId, refresh]);
  return runs[0];
}

function runLabel(run) {
  var counts = run.counts || {};
  var parts = ["PASSED", "FAILED", "ERRORED", "NOT_EVALUATED"].filter(function (k) { return counts[k]; })
    .map(function (k) { return counts[k] + " " + k.replace("_", " ").toLowerCase(); });
  return run.run_id + " · " + (run.state === "running" ? "running" : (run.verdict || run.state)) + (parts.length ? " · " + parts.join(", ") : "");
}

function CaseEditor(props) {
  var ed = useState(editorState(props.case));
  var errors = useState([]);
  var promote = useState({ run: props.lastRun || "", turn: "", problem: null });
  var runs = useRunsOf(props.evalSetId, props.lastRun);
  useEffect(function () { ed[1](editorState(props.case)); errors[1]([]); }, [props.case]);
  useEffect(function () { promote[1](Object.assign({}, promote[0], { run: props.lastRun || promote[0].run })); }, [props.lastRun]);
  // no run chosen yet: the newest run of this eval set
  useEffect(function () {
    if (runs && runs.length && !promote[0].run) { promote[1](Object.assign({}, promote[0], { run: runs[0].run_id })); }
  }, [runs]);
  var e = ed[0];
  function set(change) { ed[1](Object.assign({}, ed[0], change)); }
  function setTurn(i, change) {
    var turns = ed[0].turns.slice(); turns[i] = Object.assign({}, turns[i], change); set({ turns: turns });
  }
  var built = caseFrom(e);
  var bad = built.errors || null;
  function doPromote() {
    var turn = promote[0].turn === "" ? null : Number(promote[0].turn);
    api("POST", "promote", { run_id: promote[0].run.trim(), case: built.value, eval_set_id: props.evalSetId, turn: turn }).then(function (r) {
      if (!r.ok) { promote[1](Object.assign({}, promote[0], { problem: r.body })); return; }
      promote[1](Object.assign({}, promote[0], { problem: null }));
      ed[1](Object.assign(editorState(r.body.case), { original: props.case }));
    });
  }
  var runList = runs || [];
  var listed = runList.some(function (r) { return r.run_id === promote[0].run; });
  return html`<section class="panel case-editor" aria-label="case editor" data-testid="case-editor">
    <h3>Case <input data-testid="edit-case-id" aria-label="case id" value=${e.eval_id} onInput=${function (ev) { set({ eval_id: ev.target.value }); }} /></h3>
    <${FieldErrors} errors=${errors[0]} prefix="eval_id" />
    ${e.scenario ? html`<div class="scenario"><h4>Conversation scenario (played by the user simulator)</h4>
      <label>Starting prompt <textarea data-testid="starting-prompt" rows="2" value=${e.scenario.starting_prompt} onInput=${function (ev) { set({ scenario: Object.assign({}, e.scenario, { starting_prompt: ev.target.value }) }); }}></textarea></label>
      <label>Conversation plan <textarea data-testid="conversation-plan" rows="3" value=${e.scenario.conversation_plan} onInput=${function (ev) { set({ scenario: Object.assign({}, e.scenario, { conversation_plan: ev.target.value }) }); }}></textarea></label>
      <label>Persona (EXPERT, NOVICE, EVALUATOR or a JSON object) <textarea rows="1" class=${invalid(bad, "persona")} aria-invalid=${bad && bad.persona ? "true" : "false"} value=${e.scenario.user_persona} onInput=${function (ev) { set({ scenario: Object.assign({}, e.scenario, { user_persona: ev.target.value }) }); }}></textarea></label>
      <${JsonError} errors=${bad} field="persona" />
      <${FieldErrors} errors=${errors[0]} prefix="conversation_scenario" /></div>` : null}
    ${e.turns.map(function (t, i) {
      var tf = "turn" + i + ".tools", inf = "turn" + i + ".intermediate";
      return html`<div class="edit-turn" data-testid="edit-turn"><h4>Turn ${i + 1} <button type="button" class="link" data-testid="delete-turn" onClick=${function () { set({ turns: e.turns.filter(function (_x, j) { return j !== i; }) }); }}>delete turn</button></h4>
        <label>User message <textarea rows="2" data-testid="user-text" value=${t.user} onInput=${function (ev) { setTurn(i, { user: ev.target.value }); }}></textarea></label>
        <label>${t.legacy ? "Expected tool calls (name and args, JSON)" : "Intermediate data (event form, JSON)"} <textarea rows="5" class=${"mono" + invalid(bad, tf)} aria-invalid=${bad && bad[tf] ? "true" : "false"} data-testid="tool-calls" value=${t.tools} onInput=${function (ev) { setTurn(i, { tools: ev.target.value }); }}></textarea></label>
        <${JsonError} errors=${bad} field=${tf} />
        ${t.legacy ? html`<label>Intermediate responses ([author, [parts]] pairs, JSON) <textarea rows="2" class=${"mono" + invalid(bad, inf)} aria-invalid=${bad && bad[inf] ? "true" : "false"} value=${t.intermediate} onInput=${function (ev) { setTurn(i, { intermediate: ev.target.value }); }}></textarea></label>
          <${JsonError} errors=${bad} field=${inf} />` : null}
        <label>Expected final response <textarea rows="2" data-testid="final-text" value=${t.final} onInput=${function (ev) { setTurn(i, { final: ev.target.value }); }}></textarea></label>
        <${FieldErrors} errors=${errors[0]} prefix=${"conversation[" + i + "]"} /></div>`;
    })}
    ${!e.scenario ? html`<button type="button" data-testid="add-turn" onClick=${function () {
      set({ turns: e.turns.concat([{ original: {}, user: "", final: "", hasFinal: true, legacy: true, tools: "[]", intermediate: "[]" }]) });
    }}>Add a turn</button>` : null}
    <label>Case rubrics (JSON) <textarea rows="3" class=${"mono" + invalid(bad, "rubrics")} aria-invalid=${bad && bad.rubrics ? "true" : "false"} data-testid="rubrics" value=${e.rubrics} onInput=${function (ev) { set({ rubrics: ev.target.value }); }}></textarea></label>
    <${JsonError} errors=${bad} field="rubrics" />
    <${FieldErrors} errors=${errors[0]} prefix="rubrics" />
    <label>Session input (app_name, user_id, state; JSON) <textarea rows="3" class=${"mono" + invalid(bad, "session_input")} aria-invalid=${bad && bad.session_input ? "true" : "false"} data-testid="session-input" value=${e.session_input} onInput=${function (ev) { set({ session_input: ev.target.value }); }}></textarea></label>
    <${JsonError} errors=${bad} field="session_input" />
    <${FieldErrors} errors=${errors[0]} prefix="session_input" />
    ${!e.scenario ? html`<div class="promote"><h4>Promote actual → expected</h4><div class="row">
      <label>Run <select data-testid="promote-run" value=${promote[0].run} onChange=${function (ev) { promote[1](Object.assign({}, promote[0], { run: ev.target.value, problem: null })); }}>
        ${runs === null ? html`<option value="">loading the runs…</option>` : null}
        ${runs !== null && !runList.length ? html`<option value="">no run of ${props.evalSetId} yet: run the case first</option>` : null}
        ${promote[0].run && !listed ? html`<option value=${promote[0].run}>${promote[0].run}</option>` : null}
        ${runList.map(function (r) { return html`<option value=${r.run_id}>${runLabel(r)}</option>`; })}</select></label>
      <label>Turn <select value=${promote[0].turn} onChange=${function (ev) { promote[1](Object.assign({}, promote[0], { turn: ev.target.value })); }}>
        <option value="">every turn</option>${e.turns.map(function (_t, i) { return html`<option value=${String(i)}>turn ${i + 1}</option>`; })}</select></label>
      <button type="button" data-testid="promote" disabled=${!!bad || !promote[0].run.trim()} onClick=${doPromote}>Promote</button></div>
      <p class="muted">The run's actual final responses and tool calls replace the expected ones in the editor; preview the diff, then write.</p>
      <${Problem} problem=${promote[0].problem} /></div>` : null}
    <${SaveBox} key=${(bad ? "blocked" : JSON.stringify(built.value)) + "|" + props.target.root + "/" + props.target.path} target=${props.target} blocked=${bad ? "Fix the JSON marked in red above to preview" : null}
      edits=${bad ? [] : [{ op: "put_case", case_id: props.isNew ? null : props.case.eval_id, case: built.value }]}
      onErrors=${function (list) { errors[1](list.filter(function (x) { return x.case_index === props.index; })); }} onSaved=${props.onSaved} />
  </section>`;
}

// ---------------------------------------------------------------- run dialog

function scoreRange(c) {
  if (c.informational) { return "informational: a value, never a verdict"; }
  if (c.min_score === null || c.min_score === undefined || c.max_score === null || c.max_score === undefined) { return "score"; }
  return "score " + c.min_score + "–" + c.max_score + (c.higher_is_better === false ? ", lower is better" : ", higher is better");
}

/* What the run will use, in words: the ticked criteria with their thresholds, or the
 * eval set's own configuration. */
function choiceText(picks, list) {
  var names = Object.keys(picks);
  if (!names.length) { return "No criterion ticked: the run uses the eval set's test_config.json, else ADK's defaults."; }
  var info = {};
  (list || []).forEach(function (c) { info[c.name] = c; });
  return "Runs with " + names.length + (names.length === 1 ? " criterion: " : " criteria: ") + names.map(function (n) {
    var c = info[n] || {};
    if (c.informational) { return n + " (informational)"; }
    return picks[n] === "" ? n + " (its default threshold)" : n + (c.higher_is_better === false ? " ≤ " : " ≥ ") + picks[n];
  }).join(", ") + ".";
}

function CriterionRow(props) {
  var c = props.criterion, value = props.value, on = value !== undefined;
  var ranged = c.min_score !== null && c.min_score !== undefined && c.max_score !== null && c.max_score !== undefined;
  var step = ranged && c.max_score - c.min_score > 1 ? 1 : 0.05;
  return html`<tr title=${c.error || ""} data-testid=${"crit-row-" + c.name}>
    <td><label><input type="checkbox" data-testid=${"crit-" + c.name} disabled=${!!c.error} checked=${on} onChange=${props.onToggle} /> <b>${c.name}</b></label>
      <div class="crit-desc">${c.error ? "cannot be loaded: " + c.error : c.description || ""}</div></td>
    <td class="crit-range">${scoreRange(c)}${c.requires_judge ? " · needs a judge" : ""}<br />${c.distribution} ${c.version}</td>
    <td>${on && c.informational ? html`<span class="muted">informational: reported, never gates</span>` : null}
      ${on && !c.informational ? html`<div class="threshold"><span class="muted">threshold</span>
        ${ranged ? html`<input type="range" data-testid=${"threshold-" + c.name} min=${c.min_score} max=${c.max_score} step=${step}
          aria-label=${"threshold of " + c.name + " (slider)"} value=${value === "" ? (c.default_threshold === null ? c.min_score : c.default_threshold) : value}
          onInput=${function (ev) { props.onThreshold(ev.target.value); }} />` : null}
        <input type="number" step=${step} min=${ranged ? c.min_score : undefined} max=${ranged ? c.max_score : undefined} aria-label=${"threshold of " + c.name}
          data-testid=${"threshold-value-" + c.name} value=${value} onInput=${function (ev) { props.onThreshold(ev.target.value); }} /></div>` : null}</td></tr>`;
}

function RunPanel(props) {
  var catalog = useState(null);
  var picks = useState({});
  var numRuns = useState(1);
  var judge = useState("");
  var job = useState(null);
  var problem = useState(null);
  useEffect(function () {
    api("GET", "criteria").then(function (r) { catalog[1](r.ok ? r.body.criteria : []); });
  }, []);
  useEffect(function () {
    if (!job[0] || job[0].state !== "running") { return; }
    var timer = setTimeout(function () {
      api("GET", "runs/" + encodeURIComponent(job[0].run_id)).then(function (r) { if (r.ok) { job[1](r.body); props.onJob(r.body); } });
    }, 400);
    return function () { clearTimeout(timer); };
  }, [job[0]]);
  function toggle(c) {
    var next = Object.assign({}, picks[0]);
    if (next[c.name] !== undefined) { delete next[c.name]; } else { next[c.name] = c.default_threshold === null || c.default_threshold === undefined ? "" : String(c.default_threshold); }
    picks[1](next);
  }
  function run(ids) {
    var criteria = {};
    Object.keys(picks[0]).forEach(function (name) {
      var t = picks[0][name];
      criteria[name] = t === "" ? {} : { threshold: Number(t) };
    });
    problem[1](null);
    api("POST", "runs", {
      files: [{ root: props.target.root, path: props.target.path, case_ids: ids }],
      agent: props.agent.trim(), criteria: criteria,
      num_runs: Number(numRuns[0]) || 1, judge_model: judge[0].trim() || null
    }).then(function (r) { if (r.ok) { job[1](r.body); props.onJob(r.body); } else { problem[1](r.body); } });
  }
  var list = catalog[0];
  var noAgent = !props.agent.trim();
  return html`<section class="panel" aria-label="run cases" data-testid="run-panel"><h2>Run cases</h2>
    <div class="row"><label class="grow">Agent (anything --agent accepts; the chat above uses the same)
      <input data-testid="run-agent" placeholder="folder, file.py:function, http://host/v1?model=m" value=${props.agent} onInput=${function (e) { props.setAgent(e.target.value); }} /></label></div>
    ${list === null ? html`<p class="loading">Loading the installed criteria…</p>` : html`<table class="criteria-pick" data-testid="criteria-pick"><thead><tr><th>criterion</th><th>scores</th><th>threshold</th></tr></thead><tbody>${list.map(function (c) {
      return html`<${CriterionRow} criterion=${c} value=${picks[0][c.name]} onToggle=${function () { toggle(c); }}
        onThreshold=${function (v) { var n = Object.assign({}, picks[0]); n[c.name] = v; picks[1](n); }} />`;
    })}</tbody></table>`}
    <p class="choice" data-testid="criteria-choice">${choiceText(picks[0], list)}</p>
    <div class="row"><label>Runs per case <input type="number" min="1" max="100" value=${numRuns[0]} onInput=${function (ev) { numRuns[1](ev.target.value); }} /></label>
      <label>Judge model <input placeholder="e.g. gemini-2.5-flash" value=${judge[0]} onInput=${function (ev) { judge[1](ev.target.value); }} /></label>
      <button type="button" data-testid="run-selected" disabled=${!props.selected.length || noAgent} onClick=${function () { run(props.selected); }}>Run selected (${props.selected.length})</button>
      <button type="button" data-testid="run-all" disabled=${noAgent} onClick=${function () { run(null); }}>Run all</button>
      ${noAgent ? html`<span class="blocked">Give the agent to run first.</span>` : null}</div>
    <${Problem} problem=${problem[0]} />
    ${job[0] ? html`<p data-testid="run-state">Run <a href=${"#/run/" + encodeURIComponent(job[0].run_id)}>${job[0].run_id}</a>: <b>${job[0].state}</b>
      ${Object.keys(job[0].counts || {}).map(function (k) { return html` <span class=${"chip " + k.toLowerCase().replace("_", "-")}>${k} ${job[0].counts[k]}</span>`; })}
      ${job[0].error ? html`<span class="banner error">${job[0].error}</span>` : null}
      <span class="muted"> · each case's result per criterion is in the cases table above</span></p>` : null}
  </section>`;
}

// ---------------------------------------------------------------- eval set

var SHORT = { PASSED: "PASS", FAILED: "FAIL", ERRORED: "ERROR", NOT_EVALUATED: "NOT EVALUATED", INFORMATIONAL: "INFO" };
var CHIP = { PASSED: "passed", FAILED: "failed", ERRORED: "errored", NOT_EVALUATED: "not-evaluated", INFORMATIONAL: "informational" };

/* One case's result in run `index` (the viewer's case index): the case's status and each
 * criterion's, with its score, in place in the cases table. */
function CaseResult(props) {
  var index = props.index, setId = props.evalSetId, caseId = props.caseId;
  if (!index) { return html`<span class="muted">—</span>`; }
  var row = -1;
  for (var i = 0; i < index.n; i++) {
    if (index.case_id[i] === caseId && index.eval_sets[index.eval_set[i]] === setId) { row = i; break; }
  }
  if (row < 0) { return html`<span class="muted">not in this run</span>`; }
  var pendingCode = index.reason_codes.indexOf("pending");
  var names = index.criteria.filter(function (n) { var st = index.by_criterion[n].status[row]; return st !== null && st !== undefined; });
  var pending = props.running && pendingCode >= 0 && names.some(function (n) { return (index.by_criterion[n].reason_code || {})[String(row)] === pendingCode; });
  if (pending) { return html`<span class="muted" data-testid="case-result">pending…</span>`; }
  var status = index.status_legend[index.status[row]];
  return html`<div class="result-chips" data-testid="case-result">
    <span class=${"chip " + CHIP[status]} title=${"case " + caseId + ": " + status}>${status.replace("_", " ")}</span>
    ${names.map(function (n) {
      var col = index.by_criterion[n], st = index.status_legend[col.status[row]], score = col.score[row];
      return html`<span class=${"chip " + CHIP[st]} data-testid="criterion-result" title=${n + ": " + st + (score === null ? "" : ", score " + score)}>${n} ${SHORT[st]}${score === null ? "" : " " + score}</span>`;
    })}</div>`;
}

function EvalSetPanel(props) {
  var data = useState(null);
  var editing = useState(null);
  var selected = useState([]);
  var problem = useState(null);
  var lastRun = useState("");
  var result = useState(null);
  var f = props.file;
  function load() {
    return api("GET", "evalset?root=" + f.root + "&path=" + encodeURIComponent(f.path)).then(function (r) {
      if (r.ok) { data[1](r.body); problem[1](null); } else { data[1](null); problem[1](r.body); }
      return r;
    });
  }
  useEffect(function () { data[1](null); editing[1](null); selected[1]([]); load(); }, [f.root, f.path]);
  // The case in the editor, made once per case the file holds: the editor starts over from
  // its case when that changes (another case, or the file read again after a save), never
  // when the screen around it does (a case ticked, the run's agent typed, a run's progress).
  var index = data[0] && editing[0] !== null ? data[0].cases.map(function (c) { return c.eval_id; }).indexOf(editing[0]) : -1;
  var listed = index >= 0 ? data[0].cases[index] : null;
  var editedCase = useMemo(function () { return listed && Object.assign({}, listed, { __new: undefined }); }, [listed]);
  function onJob(job) {
    lastRun[1](job.run_id);
    fetch("api/runs/" + encodeURIComponent(job.run_id) + "/index", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (index) { if (index) { result[1]({ run_id: job.run_id, running: job.state === "running", index: index }); } })
      .catch(function () { /* the next update tries again */ });
  }
  if (problem[0]) { return html`<section class="panel"><h2>${f.path}</h2><${Problem} problem=${problem[0]} /></section>`; }
  var d = data[0];
  if (!d) { return html`<p class="loading">Loading ${f.path}…</p>`; }
  var target = { root: d.root, path: d.path, sha256: d.sha256 };
  var sel = selected[0];
  function toggle(id) { selected[1](sel.indexOf(id) >= 0 ? sel.filter(function (x) { return x !== id; }) : sel.concat([id])); }
  function saved() { load().then(function (r) { if (r.ok && editing[0] !== null && r.body.cases.every(function (c) { return c.eval_id !== editing[0]; })) { editing[1](null); } }); }
  function newCase(scenario) {
    var id = "case_" + Math.random().toString(16).slice(2, 8);
    var c = scenario ? { eval_id: id, conversation_scenario: { starting_prompt: "", conversation_plan: "" } }
      : { eval_id: id, conversation: [{ user_content: { role: "user", parts: [{ text: "" }] } }] };
    data[1](Object.assign({}, d, { cases: d.cases.concat([Object.assign(c, { __new: true })]) }));
    editing[1](id);
  }
  var res = result[0];
  return html`<div class="evalset" data-testid="evalset">
    <section class="panel"><h2>${d.eval_set_id}${d.name ? " — " + d.name : ""} <span class="muted">${d.path} · ${d.format === "evalset" ? d.spelling : d.format} · ${d.cases.length} cases</span></h2>
      ${!d.editable && d.format.indexOf("legacy") === 0 ? html`<p class="banner">A legacy list file: shown as the engine reads it, not editable here. Convert it with agenteval migrate.</p>` : null}
      ${!d.editable && d.format !== "evalset" && d.format.indexOf("legacy") !== 0 ? html`<p class="banner">This file is in the ${d.format} format, which no installed writer saves in its own form: shown as the engine reads it, not editable here.</p>` : null}
      ${d.editable && d.format !== "evalset" ? html`<p class="banner" data-testid="format-note">This file is in the ${d.format} format: a case you save is written by the ${d.format} writer, in this file's format; the other cases stay as they are.</p>` : null}
      ${d.warnings.map(function (w) { return html`<p class="banner">${w}</p>`; })}
      <table class="cases-table"><thead><tr><th></th><th>case</th><th>kind</th><th>turns</th>
        <th>${res ? html`result of run <a href=${"#/run/" + encodeURIComponent(res.run_id)}>${res.run_id}</a>${res.running ? " (running)" : ""}` : "result (run the cases below)"}</th><th></th></tr></thead><tbody>
        ${d.cases.map(function (c) {
          return html`<tr data-testid="case-row" class=${c.eval_id === editing[0] ? "current" : ""}><td><input type="checkbox" aria-label=${"select " + c.eval_id} checked=${sel.indexOf(c.eval_id) >= 0} onChange=${function () { toggle(c.eval_id); }} /></td>
            <td><code>${c.eval_id}</code></td><td>${c.conversation_scenario ? "scenario" : "conversation"}</td><td>${(c.conversation || []).length || "—"}</td>
            <td><${CaseResult} index=${res && res.index} running=${res && res.running} evalSetId=${d.eval_set_id} caseId=${c.eval_id} /></td>
            <td>${d.editable ? html`<button type="button" class="link" data-testid="edit-case" onClick=${function () { editing[1](c.eval_id); }}>edit</button>` : null}</td></tr>`;
        })}</tbody></table>
      ${d.editable ? html`<div class="row"><button type="button" data-testid="new-case" onClick=${function () { newCase(false); }}>New case</button>
        <button type="button" data-testid="new-scenario" onClick=${function () { newCase(true); }}>New scenario case</button>
        ${sel.length ? html`<${SaveBox} label=${"Delete " + sel.length + " selected…"} target=${target} edits=${sel.map(function (id) { return { op: "delete_case", case_id: id }; })} onSaved=${function () { selected[1]([]); editing[1](null); saved(); }} />` : null}</div>` : null}
    </section>
    <${RunPanel} target=${target} selected=${sel} agent=${props.agent} setAgent=${props.setAgent} onJob=${onJob} />
    ${index >= 0 ? html`<${CaseEditor} key=${d.path + "/" + editing[0]} case=${editedCase} index=${index} isNew=${!!listed.__new}
        evalSetId=${d.eval_set_id} target=${target} lastRun=${lastRun[0]} onSaved=${saved} />` : null}
  </div>`;
}

// ---------------------------------------------------------------- the screen

export function AuthorView() {
  var files = useState(null);
  var current = useState(null);
  var problem = useState(null);
  // the agent: one for the chat and the runs (an existing eval set runs without a chat),
  // remembered across sessions
  var agent = useState(localStorage.getItem(LAST_AGENT) || "");
  function setAgent(value) { localStorage.setItem(LAST_AGENT, value); agent[1](value); }
  function refresh(select) {
    return api("GET", "files").then(function (r) {
      if (!r.ok) { problem[1](r.body); return; }
      files[1](r.body);
      if (select) {
        var at = r.body.files.map(function (f) { return f.root + "/" + f.path; }).indexOf(select.root + "/" + select.path);
        if (at >= 0) { current[1](r.body.files[at]); }
      }
    });
  }
  useEffect(function () { refresh(); }, []);
  if (problem[0]) {
    return html`<div class="author"><${Problem} problem=${problem[0]} /><p>Open the address <code>agenteval view --allow-write</code> printed: it carries this session's token.</p></div>`;
  }
  var list = files[0];
  return html`<div class="author" data-testid="author">
    <header class="run-header"><div class="title-row"><h1>Eval sets</h1><span class="muted">writes go only to ${list ? list.roots.map(function (r) { return r.folder; }).join(", ") : "…"}</span>
      <nav class="nav"><a href="#/history">History</a></nav></div></header>
    <div class="author-grid">
      <aside class="panel files" aria-label="eval sets"><h2>Files</h2>
        ${list ? list.files.map(function (f) {
          var on = current[0] && current[0].root === f.root && current[0].path === f.path;
          return html`<button type="button" class=${"file" + (on ? " current" : "")} data-testid="file" onClick=${function () { current[1](f); }}>${f.path}</button>`;
        }) : html`<p class="loading">…</p>`}
        ${list && !list.files.length ? html`<p class="muted">No eval files (*.evalset.json, *.test.json, or an installed format's) here yet: save a chat as a case in a new eval set.</p>` : null}
      </aside>
      <main>
        <${ChatPanel} files=${list ? list.files : []} folders=${list ? list.folders || [] : []} roots=${list ? list.roots : []}
          agent=${agent[0]} setAgent=${setAgent} onSaved=${function (t) { refresh({ root: t.root, path: t.path }); }} />
        <${TracePanel} files=${list ? list.files : []} folders=${list ? list.folders || [] : []} roots=${list ? list.roots : []}
          onSaved=${function (t) { refresh({ root: t.root, path: t.path }); }} />
        ${current[0] ? html`<${EvalSetPanel} file=${current[0]} key=${current[0].root + "/" + current[0].path} agent=${agent[0]} setAgent=${setAgent} />` : null}
      </main>
    </div>
  </div>`;
}

const link = document.createElement("link");
link.rel = "stylesheet";
link.href = "author.css";
document.head.appendChild(link);
