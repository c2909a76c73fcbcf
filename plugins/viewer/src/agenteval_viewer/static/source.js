/* agenteval viewer: Where the data comes from: JSON islands (the single-file report) or the server's JSON
 * API (agenteval view, relative URLs). */

function islandText(id) {
  var el = document.getElementById(id);
  return el ? el.textContent : null;
}

export const REPORT = islandText("ae-summary") !== null;

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

export function getJSON(url) {
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
    summarySince: function (id, version) {
      return getJSON("api/runs/" + encodeURIComponent(id) + "/summary?since=" + encodeURIComponent(version));
    },
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

export const SOURCE = REPORT ? ReportSource() : ServedSource();
