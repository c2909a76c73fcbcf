/* agenteval viewer: The URL hash: all view state lives in it. */
import { useEffect, useState } from "./ui.js";
import { REPORT, SOURCE } from "./source.js";

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

export function useRoute() {
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

export function navigate(route, update, replace) {
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
