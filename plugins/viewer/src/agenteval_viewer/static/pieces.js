/* agenteval viewer: Small shared pieces: number formats, sections, copy buttons. */
import { html, useState } from "./ui.js";

export function fmt(value, digits) {
  if (value === null || value === undefined) { return "—"; }
  if (typeof value !== "number") { return String(value); }
  return value.toFixed(digits === undefined ? 2 : digits).replace(/\.?0+$/, function (m) {
    return m.indexOf(".") === 0 ? "" : m;
  });
}

export function pct(value) { return value === null || value === undefined ? "—" : (100 * value).toFixed(1) + "%"; }

export function interval(iv) {
  if (!iv) { return ""; }
  return " [" + fmt(iv.low) + ", " + fmt(iv.high) + "]";
}

/* A pass rate's interval, in percent like the rate beside it. */
export function pctInterval(iv) {
  if (!iv) { return ""; }
  return " [" + pct(iv.low) + ", " + pct(iv.high) + "]";
}

export function Section(props) {
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

export function CopyButton(props) {
  var done = useState(false);
  return html`<button class="copy" type="button" onClick=${function () {
    copyText(props.text).then(function () { done[1](true); setTimeout(function () { done[1](false); }, 1200); });
  }}>${done[0] ? "Copied" : (props.label || "Copy")}</button>`;
}
