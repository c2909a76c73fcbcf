/* agenteval viewer: A running run's summary: the patches that bring it up to date. */

// A live run's summary with ``patch`` (``GET summary?since=<version>``) applied: a new object,
// or null when the patch does not start from this summary (load the whole summary instead).
// The whole summary, when the server sent that instead of a patch, is taken as it is.
export function patchedSummary(summary, patch) {
  if (patch.schema !== "agenteval.viewer.summary-patch/1") { return patch; }
  if (!summary || patch.since !== summary.version) { return null; }
  var next = Object.assign({}, summary, patch.set);
  if (!("criteria" in patch.set)) {
    next.criteria = summary.criteria.map(function (c) {
      return Object.prototype.hasOwnProperty.call(patch.criteria, c.name) ? Object.assign({}, c, patch.criteria[c.name]) : c;
    });
  }
  return next;
}
