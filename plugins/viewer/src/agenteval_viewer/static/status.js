/* agenteval viewer: The status vocabulary: classes, labels and the chip that shows a status. */
import { html } from "./ui.js";

export const STATUS_CLASS = {
  PASSED: "passed", FAILED: "failed", ERRORED: "errored",
  NOT_EVALUATED: "not-evaluated", INFORMATIONAL: "informational", PENDING: "pending",
  INCONCLUSIVE: "inconclusive"
};

export const STATUS_LABEL = {
  PASSED: "PASSED", FAILED: "FAILED", ERRORED: "ERRORED",
  NOT_EVALUATED: "NOT EVALUATED", INFORMATIONAL: "INFO", PENDING: "PENDING", INCONCLUSIVE: "INCONCLUSIVE"
};

export const MAIN_STATUSES = ["PASSED", "FAILED", "ERRORED", "NOT_EVALUATED"];

export const SHORT_LABEL = { PASSED: "PASS", FAILED: "FAIL", ERRORED: "ERR", NOT_EVALUATED: "N/E", INFORMATIONAL: "INFO", PENDING: "…" };

export function verdictClass(verdict) {
  if (verdict === "PASS" || verdict === "PASSED") return "passed";
  if (verdict === "RUNNING") return "running";
  return "failed";
}

export function Chip(props) {
  var status = props.status;
  var cls = "chip " + (STATUS_CLASS[status] || "none");
  return html`<span class=${cls} title=${props.title || status}>${props.label || STATUS_LABEL[status] || status}</span>`;
}
