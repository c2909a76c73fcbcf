/* agenteval viewer: The grid's filters: read from the URL, applied to the columnar index. */

export function readFilters(params) {
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
export function filterRows(index, f) {
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
