/* agenteval viewer: A running run's index: pending cases and the patches that fill them in. */

/* While a run goes on, cases without a record are pending: their own count, never
 * NOT_EVALUATED, and never in a pass rate's denominator. */
export function pendingOf(summary) {
  return summary && summary.verdict === "RUNNING" ? Math.max(0, summary.cases - summary.cases_recorded) : 0;
}

export function criterionPending(c) { return (c.not_evaluated && c.not_evaluated.pending) || 0; }

/* The rows of a running run's index whose case has no record yet (the engine reads them as
 * NOT_EVALUATED, reason ``pending``): a byte per row, 1 for pending. */
function extends_(longer, shorter) {
  return shorter.length <= longer.length && shorter.every(function (v, i) { return longer[i] === v; });
}

// A live run's index with the rows of ``patch`` (``GET index?since=``) in place: a new object
// (the grid's memo sees it changed), or null when the patch does not fit this index (another
// shape or legends reordered: load the whole index instead). The whole index, when the server
// sent that instead of a patch, is taken as it is.
export function patchedIndex(index, patch) {
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

export function pendingRows(index, running) {
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
