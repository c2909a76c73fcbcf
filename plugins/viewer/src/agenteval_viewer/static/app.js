/* agenteval viewer: one front end for the single-file report and `agenteval view`.
 *
 * The entry module (index.html loads it as a module script; the report inlines the
 * module graph, _report.py). Data comes from JSON islands (report mode: #ae-summary,
 * #ae-index, #ae-details-<k>) or from the server's JSON API (served mode, relative URLs). All
 * view state lives in the URL hash. Untrusted text (agent output, judge reasoning, ids) is
 * only ever rendered as text: Preact and htm create text nodes; nothing here sets innerHTML.
 * Modules, one concern each: ui (Preact/htm), status, source, route, pieces, live_index,
 * filters, header, criteria, grid, diff, drawer, run_view, history, compare, capabilities.
 */
import { html, render } from "./ui.js";
import { capabilities, loadCapabilities } from "./capabilities.js";
import { useRoute } from "./route.js";
import { filterRows, readFilters } from "./filters.js";
import { wordDiff } from "./diff.js";
import { RunView } from "./run_view.js";
import { HistoryView } from "./history.js";
import { CompareView } from "./compare.js";

function App() {
  var route = useRoute();
  if (route.view === "history") { return html`<${HistoryView} route=${route} />`; }
  if (route.view === "compare") { return html`<${CompareView} route=${route} />`; }
  if (route.view === "author") {  // author.js (agenteval view --allow-write) renders this screen
    var author = capabilities.author;
    return author ? html`<${author} route=${route} />` : html`<p class="loading">Loading…</p>`;
  }
  if (!route.runId) { return html`<p class="banner">No run selected.</p>`; }
  return html`<${RunView} route=${route} key=${route.runId} />`;
}

loadCapabilities();

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
window.__agentevalViewer = { filterRows: filterRows, readFilters: readFilters, wordDiff: wordDiff };
