/* agenteval viewer: one front end for the single-file report and `agenteval view`.
 *
 * Data comes from JSON islands (report mode: #ae-summary, #ae-index, #ae-details-<k>) or from
 * the server's JSON API (served mode, relative URLs). All view state lives in the URL hash.
 * Untrusted text (agent output, judge reasoning, ids) is only ever rendered as text: Preact
 * and htm create text nodes; nothing here sets innerHTML.
 */
(function () {
  "use strict";
  var h = window.preact.h;
  var render = window.preact.render;
  var hooks = window.preactHooks;
  var useState = hooks.useState, useEffect = hooks.useEffect, useMemo = hooks.useMemo,
    useRef = hooks.useRef, useCallback = hooks.useCallback;
  var html = window.htm.bind(h);

  var ROW_HEIGHT = 30;
  var OVERSCAN = 8;
  var STATUS_CLASS = {
    PASSED: "passed", FAILED: "failed", ERRORED: "errored",
    NOT_EVALUATED: "not-evaluated", INFORMATIONAL: "informational", PENDING: "pending",
    INCONCLUSIVE: "inconclusive"
  };
  var STATUS_LABEL = {
    PASSED: "PASSED", FAILED: "FAILED", ERRORED: "ERRORED",
    NOT_EVALUATED: "NOT EVALUATED", INFORMATIONAL: "INFO", PENDING: "PENDING", INCONCLUSIVE: "INCONCLUSIVE"
  };
  var MAIN_STATUSES = ["PASSED", "FAILED", "ERRORED", "NOT_EVALUATED"];
  var SHORT_LABEL = { PASSED: "PASS", FAILED: "FAIL", ERRORED: "ERR", NOT_EVALUATED: "N/E", INFORMATIONAL: "INFO", PENDING: "…" };

  // ---------------------------------------------------------------- data sources

  // The colour of a verdict badge: PASS / PASSED green, RUNNING blue, anything else red.
  // The run's judge budgets (--judge-budget calls, --max-judge-tokens tokens): used of the
  // limit, and the calls refused once one was spent (each a NOT_EVALUATED judge_budget_exhausted).
  function budgetFacts(budget) {
    if (!budget) { return null; }
    var rows = [];
    if (budget.judge_calls_limit !== null && budget.judge_calls_limit !== undefined) {
      rows.push(["judge call budget", budget.judge_calls_used + " of " + budget.judge_calls_limit, budget.judge_calls_refused]);
    }
    if (budget.judge_tokens_limit !== null && budget.judge_tokens_limit !== undefined) {
      rows.push(["judge token budget", budget.judge_tokens_used + " of " + budget.judge_tokens_limit, budget.judge_tokens_refused]);
    }
    return rows.map(function (r) {
      return html`<div data-testid="judge-budget"><dt>${r[0]}</dt><dd>${r[1]} used${r[2] ? ", " + r[2] + " call(s) refused (judge_budget_exhausted)" : ""}</dd></div>`;
    });
  }

  function verdictClass(verdict) {
    if (verdict === "PASS" || verdict === "PASSED") return "passed";
    if (verdict === "RUNNING") return "running";
    return "failed";
  }

  function islandText(id) {
    var el = document.getElementById(id);
    return el ? el.textContent : null;
  }

  var REPORT = islandText("ae-summary") !== null;

  function ReportSource() {
    var summary = JSON.parse(islandText("ae-summary"));
    var index = JSON.parse(islandText("ae-index"));
    var chunks = {};
    var size = (summary.report && summary.report.chunk_size) || 1000;
    return {
      mode: "report",
      runId: summary.run_id,
      summary: function () { return Promise.resolve(summary); },
      index: function () { return Promise.resolve(index); },
      detail: function (row) {
        var k = Math.floor(row / size);
        if (!(k in chunks)) {
          var text = islandText("ae-details-" + k);
          chunks[k] = text === null ? {} : JSON.parse(text);
        }
        return Promise.resolve(chunks[k][String(row)] || null);
      }
    };
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
      return r.json();
    });
  }

  function ServedSource() {
    return {
      mode: "served",
      runs: function () { return getJSON("api/runs"); },
      summary: function (id) { return getJSON("api/runs/" + encodeURIComponent(id) + "/summary"); },
      index: function (id) { return getJSON("api/runs/" + encodeURIComponent(id) + "/index"); },
      indexSince: function (id, cursor) {
        return getJSON("api/runs/" + encodeURIComponent(id) + "/index?since=" + cursor);
      },
      head: function (id) { return getJSON("api/runs/" + encodeURIComponent(id) + "/head"); },
      detail: function (row, id) {
        return getJSON("api/runs/" + encodeURIComponent(id) + "/cases/" + row);
      },
      compare: function (a, b) {
        return getJSON("api/compare?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b));
      },
      events: function (id) {
        return typeof EventSource === "undefined" ? null
          : new EventSource("api/runs/" + encodeURIComponent(id) + "/events");
      }
    };
  }

  var SOURCE = REPORT ? ReportSource() : ServedSource();

  // ---------------------------------------------------------------- the URL hash

  function parseHash() {
    var raw = location.hash.replace(/^#/, "");
    var q = raw.indexOf("?");
    var path = q < 0 ? raw : raw.slice(0, q);
    var params = new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));
    var parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    var route = { view: "run", runId: null, params: params };
    if (parts[0] === "run" && parts[1]) { route.runId = parts[1]; }
    else if (parts[0] === "history") { route.view = "history"; }
    else if (parts[0] === "compare") { route.view = "compare"; }
    else if (parts[0] === "author") { route.view = "author"; }
    else if (!REPORT) { route.view = "history"; }
    if (REPORT) { route.runId = SOURCE.runId; if (route.view !== "run") { route.view = "run"; } }
    return route;
  }

  function hashFor(route, params) {
    var path = route.view === "run" ? "/run/" + encodeURIComponent(route.runId || "")
      : "/" + route.view;
    var text = params.toString();
    return "#" + path + (text ? "?" + text : "");
  }

  function useRoute() {
    var state = useState(parseHash());
    useEffect(function () {
      function onChange() { state[1](parseHash()); }
      window.addEventListener("hashchange", onChange);
      window.addEventListener("popstate", onChange);
      return function () {
        window.removeEventListener("hashchange", onChange);
        window.removeEventListener("popstate", onChange);
      };
    }, []);
    return state[0];
  }

  function navigate(route, update, replace) {
    var params = new URLSearchParams(route.params.toString());
    Object.keys(update).forEach(function (key) {
      var value = update[key];
      if (value === null || value === undefined || value === "") { params.delete(key); }
      else { params.set(key, String(value)); }
    });
    var hash = hashFor(route, params);
    if (hash === location.hash) { return; }
    if (replace) {
      history.replaceState(null, "", hash);
      window.dispatchEvent(new Event("popstate"));
    } else {
      location.hash = hash;
    }
  }

  // ---------------------------------------------------------------- small pieces

  function fmt(value, digits) {
    if (value === null || value === undefined) { return "—"; }
    if (typeof value !== "number") { return String(value); }
    return value.toFixed(digits === undefined ? 2 : digits).replace(/\.?0+$/, function (m) {
      return m.indexOf(".") === 0 ? "" : m;
    });
  }
  function pct(value) { return value === null || value === undefined ? "—" : (100 * value).toFixed(1) + "%"; }
  function interval(iv) {
    if (!iv) { return ""; }
    return " [" + fmt(iv.low) + ", " + fmt(iv.high) + "]";
  }
  /* A pass rate's interval, in percent like the rate beside it. */
  function pctInterval(iv) {
    if (!iv) { return ""; }
    return " [" + pct(iv.low) + ", " + pct(iv.high) + "]";
  }

  /* While a run goes on, cases without a record are pending: their own count, never
   * NOT_EVALUATED, and never in a pass rate's denominator. */
  function pendingOf(summary) {
    return summary && summary.verdict === "RUNNING" ? Math.max(0, summary.cases - summary.cases_recorded) : 0;
  }
  function criterionPending(c) { return (c.not_evaluated && c.not_evaluated.pending) || 0; }

  /* The rows of a running run's index whose case has no record yet (the engine reads them as
   * NOT_EVALUATED, reason ``pending``): a byte per row, 1 for pending. */
  function extends_(longer, shorter) {
    return shorter.length <= longer.length && shorter.every(function (v, i) { return longer[i] === v; });
  }

  // A live run's index with the rows of ``patch`` (``GET index?since=``) in place: a new object
  // (the grid's memo sees it changed), or null when the patch does not fit this index (another
  // shape or legends reordered: load the whole index instead). The whole index, when the server
  // sent that instead of a patch, is taken as it is.
  function patchedIndex(index, patch) {
    if (patch.schema !== "agenteval.viewer.index-patch/1") { return patch; }
    if (!index || patch.n !== index.n || patch.criteria.join("\n") !== index.criteria.join("\n")
        || !extends_(patch.reason_codes, index.reason_codes) || !extends_(patch.rubrics, index.rubrics)) {
      return null;
    }
    var next = Object.assign({}, index, {
      cursor: patch.cursor, reason_codes: patch.reason_codes, rubrics: patch.rubrics,
      status: index.status.slice(), search: index.search.slice(),
      failed_rubrics: Object.assign({}, index.failed_rubrics), by_criterion: {}
    });
    index.criteria.forEach(function (name) {
      var c = index.by_criterion[name];
      next.by_criterion[name] = { status: c.status.slice(), score: c.score.slice(), reason_code: Object.assign({}, c.reason_code) };
    });
    patch.rows.forEach(function (r, i) {
      var k = String(r);
      next.status[r] = patch.status[i];
      next.search[r] = patch.search[i];
      delete next.failed_rubrics[k];
      if (k in patch.failed_rubrics) { next.failed_rubrics[k] = patch.failed_rubrics[k]; }
      index.criteria.forEach(function (name) {
        var c = next.by_criterion[name], p = patch.by_criterion[name];
        c.status[r] = p.status[i];
        c.score[r] = p.score[i];
        delete c.reason_code[k];
        if (k in p.reason_code) { c.reason_code[k] = p.reason_code[k]; }
      });
    });
    return next;
  }

  function pendingRows(index, running) {
    var out = new Uint8Array(index.n);
    var code = running ? index.reason_codes.indexOf("pending") : -1;
    if (code < 0) { return out; }
    var ne = index.status_legend.indexOf("NOT_EVALUATED");
    var cols = index.criteria.map(function (n) { return index.by_criterion[n].reason_code || {}; });
    for (var r = 0; r < index.n; r++) {
      if (index.status[r] !== ne) { continue; }
      for (var c = 0; c < cols.length; c++) { if (cols[c][String(r)] === code) { out[r] = 1; break; } }
    }
    return out;
  }

  function Chip(props) {
    var status = props.status;
    var cls = "chip " + (STATUS_CLASS[status] || "none");
    return html`<span class=${cls} title=${props.title || status}>${props.label || STATUS_LABEL[status] || status}</span>`;
  }

  function Section(props) {
    return html`<section class=${"panel " + (props.cls || "")} aria-label=${props.title}>
      <h2>${props.title}</h2>${props.children}</section>`;
  }

  function copyText(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).catch(function () { fallbackCopy(text); });
    }
    fallbackCopy(text);
    return Promise.resolve();
  }
  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing to do */ }
    document.body.removeChild(area);
  }

  function CopyButton(props) {
    var done = useState(false);
    return html`<button class="copy" type="button" onClick=${function () {
      copyText(props.text).then(function () { done[1](true); setTimeout(function () { done[1](false); }, 1200); });
    }}>${done[0] ? "Copied" : (props.label || "Copy")}</button>`;
  }

  // ---------------------------------------------------------------- filtering

  function readFilters(params) {
    var statuses = (params.get("status") || "").split(",").filter(Boolean);
    var crit = params.get("crit") || "";
    var split = crit.lastIndexOf(":");
    return {
      statuses: statuses,
      critName: split > 0 ? crit.slice(0, split) : "",
      critStatus: split > 0 ? crit.slice(split + 1) : "",
      scoreCrit: params.get("scrit") || "",
      scoreMin: params.get("smin"),
      scoreMax: params.get("smax"),
      reason: params.get("reason") || "",
      rubric: params.get("rubric") || "",
      q: (params.get("q") || "").toLowerCase(),
      sort: params.get("sort") || "row",
      dir: params.get("dir") === "desc" ? -1 : 1
    };
  }

  /* The rows (plan-order numbers) that pass every filter, sorted. */
  function filterRows(index, f) {
    var n = index.n, legend = index.status_legend;
    var statusCodes = f.statuses.map(function (s) { return legend.indexOf(s); });
    var pending = index.pending || null;  // set by RunView on a running run's index
    var wantPending = f.statuses.indexOf("PENDING") >= 0;
    var byCrit = index.by_criterion || {};
    var critCol = f.critName && byCrit[f.critName] ? byCrit[f.critName].status : null;
    var critCode = legend.indexOf(f.critStatus);
    var scoreCol = f.scoreCrit && byCrit[f.scoreCrit] ? byCrit[f.scoreCrit].score : null;
    var smin = f.scoreMin === null || f.scoreMin === "" ? null : Number(f.scoreMin);
    var smax = f.scoreMax === null || f.scoreMax === "" ? null : Number(f.scoreMax);
    var reasonCode = f.reason ? index.reason_codes.indexOf(f.reason) : -1;
    var reasonCols = [];
    if (f.reason) {
      Object.keys(byCrit).forEach(function (name) { reasonCols.push(byCrit[name].reason_code || {}); });
    }
    var rubricCode = f.rubric ? index.rubrics.indexOf(f.rubric) : -1;
    var failed = index.failed_rubrics || {};
    var search = index.search, q = f.q;
    var out = [];
    for (var i = 0; i < n; i++) {
      if (statusCodes.length) {
        var isPending = pending !== null && pending[i] === 1;
        if (isPending ? !wantPending : statusCodes.indexOf(index.status[i]) < 0) { continue; }
      }
      if (critCol && (critCol[i] !== critCode || (pending !== null && pending[i] === 1))) { continue; }
      if (scoreCol) {
        var s = scoreCol[i];
        if (s === null || (smin !== null && s < smin) || (smax !== null && s > smax)) { continue; }
      }
      if (f.reason) {
        var hit = false, key = String(i);
        for (var c = 0; c < reasonCols.length; c++) { if (reasonCols[c][key] === reasonCode) { hit = true; break; } }
        if (!hit) { continue; }
      }
      if (f.rubric) {
        var list = failed[String(i)];
        if (!list || list.indexOf(rubricCode) < 0) { continue; }
      }
      if (q && search[i].indexOf(q) < 0) { continue; }
      out.push(i);
    }
    if (f.sort !== "row") {
      var key2;
      if (f.sort === "case") { key2 = function (r) { return index.case_id[r]; }; }
      else if (f.sort === "status") { key2 = function (r) { return index.status[r]; }; }
      else if (f.sort.indexOf("score:") === 0 && byCrit[f.sort.slice(6)]) {
        var col = byCrit[f.sort.slice(6)].score;
        key2 = function (r) { return col[r] === null ? -Infinity : col[r]; };
      }
      if (key2) {
        var dir = f.dir;
        out.sort(function (a, b) {
          var x = key2(a), y = key2(b);
          return x < y ? -dir : x > y ? dir : a - b;
        });
      }
    } else if (f.dir < 0) {
      out.reverse();
    }
    return out;
  }

  // ---------------------------------------------------------------- header and criteria

  function RunHeader(props) {
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
        ${SOURCE.mode === "served" ? html`<nav class="nav">${window.__agentevalAuthor ? html`<a href="#/author">Eval sets</a> ` : null}<a href="#/history">History</a></nav>` : null}
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
  function CalibrationLine(props) {
    var card = props.card;
    var kappa = card.kappa === null ? "undefined (one label throughout)"
      : fmt(card.kappa, 2) + " [" + fmt(card.kappa_interval.low, 2) + ", " + fmt(card.kappa_interval.high, 2) + "]";
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

  function CriteriaPanel(props) {
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

  // ---------------------------------------------------------------- filters bar and grid

  function FilterBar(props) {
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

  function Grid(props) {
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

  // ---------------------------------------------------------------- the case drawer

  function words(text) { return (text || "").split(/(\s+)/).filter(function (w) { return w.length; }); }

  /* Word-level diff (LCS over words); large texts are shown without a diff. */
  function wordDiff(a, b) {
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

  function DiffText(props) {
    if (!props.parts) { return html`<pre class="text">${props.text}</pre>`; }
    return html`<pre class="text">${props.parts.map(function (p) {
      return p[0] ? h(props.tag, null, p[1]) : p[1];
    })}</pre>`;
  }

  function Json(props) {
    return html`<code class="mono">${JSON.stringify(props.value)}</code>`;
  }

  var DIFF_KIND = { changed: "differs", missing: "missing", extra: "not expected", equivalent: "accepted" };

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
  function Trajectory(props) {
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
  function TrajectoryDiffs(props) {
    return (props.alignments || []).map(function (a) {
      return html`<div class="traj-diff" data-testid="traj-diff" data-criterion=${a.criterion}>
        <h4>why <span class="crit-name">${a.criterion}</span> lost points</h4>
        <div class="traj-diff-head"><${Chip} status=${a.status} /> <span>score ${fmt(a.score, 3)}</span></div>
        <${Trajectory} rows=${a.rows} testid="traj-diff-table" rowid="traj-diff-row" /></div>`;
    });
  }

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

  function Drawer(props) {
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

  // ---------------------------------------------------------------- the run view

  function RunView(props) {
    var route = props.route;
    var runId = route.runId;
    var data = useState({ summary: null, index: null, error: null });
    var tick = useState(0);
    // How long the last load of the summary and index took, and whether one is under way:
    // a live run's refreshes are spaced by twice that (never under 250 ms), so a big run's
    // rebuilds never pile up.
    // ``patch``: the next load asks only for the rows changed since the index's cursor (after
    // ``rows`` events); ``whole``: the whole index (first load, and after a new state).
    var loading = useRef({ busy: false, ms: 0, load: 0, patch: false, whole: false, index: null });
    useEffect(function () {
      var alive = true;
      var began = Date.now();
      var load = ++loading.current.load;
      var had = loading.current.patch && !loading.current.whole && loading.current.index;
      loading.current.busy = true;
      loading.current.patch = loading.current.whole = false;
      var index = had && had.cursor !== undefined && SOURCE.indexSince
        ? SOURCE.indexSince(runId, had.cursor).then(function (patch) { return patchedIndex(had, patch) || SOURCE.index(runId); })
        : SOURCE.index(runId);
      Promise.all([SOURCE.summary(runId), index]).then(function (r) {
        if (r[1] && r[0]) { r[1].pending = pendingRows(r[1], r[0].verdict === "RUNNING"); }
        if (alive) { loading.current.index = r[1]; data[1]({ summary: r[0], index: r[1], error: null }); }
      }).catch(function (e) { if (alive) { data[1]({ summary: null, index: null, error: String(e.message || e) }); } })
        .then(function () {
          if (load !== loading.current.load) { return; }  // a later load is under way
          loading.current.busy = false;
          loading.current.ms = Date.now() - began;
        });
      return function () { alive = false; };
    }, [runId, tick[0]]);
    useEffect(function () {
      if (SOURCE.mode !== "served") { return; }
      var events = SOURCE.events(runId);
      if (!events) { return; }
      var pending = null;
      function refresh(e) {
        if (e.type === "rows") {
          loading.current.patch = true;
        } else if (JSON.parse(e.data).state !== "running") {
          loading.current.whole = true;
        } else {
          return;  // each stream starts by saying the run is running: the view knows
        }
        if (pending) { return; }
        var wait = Math.max(250, 2 * loading.current.ms);
        pending = setTimeout(function again() {
          if (loading.current.busy) { pending = setTimeout(again, 100); return; }
          pending = null;
          tick[1](function (n) { return n + 1; });
        }, wait);
      }
      events.addEventListener("rows", refresh);
      events.addEventListener("state", refresh);
      events.onerror = function () { /* the browser reconnects by itself */ };
      return function () { events.close(); if (pending) { clearTimeout(pending); } };
    }, [runId]);
    // A big run's first rows (``/head``), read at once while its whole index is built; shown
    // until the summary and the whole index are here.
    var head = useState(null);
    useEffect(function () {
      if (!SOURCE.head) { return; }
      var alive = true;
      head[1](null);
      SOURCE.head(runId).then(function (h) { if (alive && h && h.partial) { head[1](h); } })
        .catch(function () { /* the whole index is on its way anyway */ });
      return function () { alive = false; };
    }, [runId]);
    var summary = data[0].summary, index = data[0].index;
    var filters = readFilters(route.params);
    var rows = useMemo(function () {
      return index ? filterRows(index, filters) : [];
    }, [index, route.params.toString()]);
    var caseParam = route.params.get("case");
    var openRow = caseParam === null || caseParam === "" ? null : Number(caseParam);
    var cursor = useState(null);
    var selected = openRow !== null ? openRow : cursor[0];
    var detail = useState({ row: null, value: null, loading: false });
    var partial = !(summary && index) && head[0] ? head[0] : null;
    useEffect(function () {
      if (openRow === null || !(index || partial)) { return; }
      var alive = true;
      detail[1]({ row: openRow, value: null, loading: true });
      SOURCE.detail(openRow, runId).then(function (value) {
        if (alive) { detail[1]({ row: openRow, value: value, loading: false }); }
      }).catch(function () { if (alive) { detail[1]({ row: openRow, value: null, loading: false }); } });
      return function () { alive = false; };
    }, [openRow, runId, index, partial, tick[0]]);
    var open = useCallback(function (row) { cursor[1](row); navigate(route, { case: row }); }, [route]);
    var close = useCallback(function () { navigate(route, { case: null }); }, [route]);
    // The key handler is registered once and reads the latest state from a ref, which it also
    // updates itself: a key pressed before the next render (or before the effects of the last
    // one ran) acts on the selection the previous key made, not on a stale closure.
    var keys = useRef(null);
    keys.current = { rows: rows, selected: selected, openRow: openRow, open: open, close: close };
    useEffect(function () {
      function onKey(e) {
        var tag = (e.target && e.target.tagName) || "";
        if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
          if (e.key === "Escape") { e.target.blur(); }
          return;
        }
        var k = keys.current;
        if (!k || !k.rows.length) { return; }
        var at = k.selected === null ? -1 : k.rows.indexOf(k.selected);
        var to = null;
        if (e.key === "j" || e.key === "ArrowDown") {
          to = k.rows[Math.min(k.rows.length - 1, at + 1)];
        } else if (e.key === "k" || e.key === "ArrowUp") {
          to = k.rows[Math.max(0, at - 1)];
        }
        if (to !== null) {
          e.preventDefault();
          k.selected = to;
          if (k.openRow !== null) { k.openRow = to; k.open(to); } else { cursor[1](to); }
        } else if (e.key === "Enter" && k.selected !== null && k.openRow === null) {
          e.preventDefault();
          k.openRow = k.selected;
          k.open(k.selected);
        } else if (e.key === "Escape" && k.openRow !== null) {
          e.preventDefault();
          k.openRow = null;
          k.close();
        }
      }
      document.addEventListener("keydown", onKey);
      return function () { document.removeEventListener("keydown", onKey); };
    }, []);
    if (data[0].error) { return html`<p class="banner error" data-testid="load-error">Could not load run ${runId}: ${data[0].error}</p>`; }
    if ((!summary || !index) && partial) {
      var shown = partial.row.filter(function (r) { return partial.status[r] !== null; });
      return html`<div class=${"run" + (openRow !== null ? " with-drawer" : "")}>
        <p class="loading" data-testid="indexing">Reading all ${partial.total} cases of run ${runId}…
          the first ${shown.length} are shown meanwhile; counts, criteria, filters and search come with the rest.</p>
        <${Section} title="Cases" cls="cases">
          <${Grid} index=${partial} rows=${shown} route=${route} filters=${filters} selected=${selected} onOpen=${open} />
        </${Section}>
        ${openRow !== null && openRow >= 0 && openRow < partial.n ? html`<${Drawer} row=${openRow} caseId=${partial.case_id[openRow]}
          detail=${detail[0].row === openRow ? detail[0].value : null} loading=${detail[0].row !== openRow || detail[0].loading} onClose=${close} />` : null}
      </div>`;
    }
    if (!summary || !index) { return html`<p class="loading">Loading run…</p>`; }
    return html`<div class=${"run" + (openRow !== null ? " with-drawer" : "")}>
      <${RunHeader} summary=${summary} route=${route} filters=${filters} />
      <${CriteriaPanel} summary=${summary} route=${route} />
      <${Section} title="Cases" cls="cases">
        <${FilterBar} index=${index} filters=${filters} route=${route} count=${rows.length} />
        <${Grid} index=${index} rows=${rows} route=${route} filters=${filters} selected=${selected} onOpen=${open} />
      </${Section}>
      ${openRow !== null && openRow >= 0 && openRow < index.n ? html`<${Drawer} row=${openRow} caseId=${index.case_id[openRow]}
        detail=${detail[0].row === openRow ? detail[0].value : null} loading=${detail[0].row !== openRow || detail[0].loading} onClose=${close} />` : null}
    </div>`;
  }

  // ---------------------------------------------------------------- history and compare (served)

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

  function HistoryView(props) {
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

  function CompareView(props) {
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

  function App() {
    var route = useRoute();
    if (route.view === "history") { return html`<${HistoryView} route=${route} />`; }
    if (route.view === "compare") { return html`<${CompareView} route=${route} />`; }
    if (route.view === "author") {  // author.js (agenteval view --allow-write) renders this screen
      var author = window.__agentevalAuthor;
      return author ? html`<${author.View} route=${route} />` : html`<p class="loading">Loading…</p>`;
    }
    if (!route.runId) { return html`<p class="banner">No run selected.</p>`; }
    return html`<${RunView} route=${route} key=${route.runId} />`;
  }

  // Writes allowed (agenteval view --allow-write): load the authoring screen, author.js.
  if (!REPORT) {
    getJSON("api/capabilities").then(function (c) {
      if (!c.write) { return; }
      var script = document.createElement("script");
      script.src = "author.js";
      document.body.appendChild(script);
    }).catch(function () { /* an older server: read-only */ });
  }

  var root = document.getElementById("app");
  root.textContent = "";
  render(html`<${App} />`, root);
  window.__agentevalViewer = { filterRows: filterRows, readFilters: readFilters, wordDiff: wordDiff };
})();
