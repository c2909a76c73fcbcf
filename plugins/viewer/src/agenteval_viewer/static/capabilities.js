/* agenteval viewer: what this server allows beyond reading (GET api/capabilities): the
 * "Eval sets" screen of agenteval view --allow-write (author.js, imported only then) and
 * labelling in the case drawer (`labels`: the session's token, and the --labels file if
 * one was given). The single-file report and an older server allow nothing more. */
import { useEffect, useState } from "./ui.js";
import { REPORT, getJSON } from "./source.js";

const CHANGED = "agenteval:capabilities";
export const capabilities = { loaded: false, write: false, author: null, labels: null };

function changed() {
  window.dispatchEvent(new Event(CHANGED));
  window.dispatchEvent(new HashChangeEvent("hashchange"));  // the route re-renders with them
}

export function loadCapabilities() {
  if (REPORT) { return; }
  getJSON("api/capabilities").then(function (c) {
    Object.assign(capabilities, { loaded: true, write: !!c.write, labels: c.labels || null });
    changed();
    if (!c.write) { return; }
    import("./author.js").then(function (module) {
      capabilities.author = module.AuthorView;
      changed();
    });
  }).catch(function () { /* an older server: read-only */ });
}

// The capabilities, re-rendering the component when they arrive.
export function useCapabilities() {
  var tick = useState(0);
  useEffect(function () {
    function onChange() { tick[1](function (n) { return n + 1; }); }
    window.addEventListener(CHANGED, onChange);
    return function () { window.removeEventListener(CHANGED, onChange); };
  }, []);
  return capabilities;
}
