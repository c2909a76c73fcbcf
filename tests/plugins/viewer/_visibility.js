/* The check of _visibility.py, run in the page: [scope selector, controls only] -> problems. */
(([scopeSelector, controlsOnly]) => {
  const scope = document.querySelector(scopeSelector);
  if (!scope) { return ["no element " + scopeSelector]; }
  function rgba(text) {
    const m = text.match(/rgba?\(([^)]+)\)/);
    if (!m) { return [0, 0, 0, 0]; }
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  function over(top, below) {  // top blended over an opaque colour
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + below[i] * (1 - a)).concat([1]);
  }
  function background(el) {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) { break; } }
    }
    let colour = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) { colour = over(layers[i], colour); }
    return colour;
  }
  function luminance(c) {
    const v = c.slice(0, 3).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  function contrast(el) {
    const style = getComputedStyle(el);
    const bg = background(el);
    const fg = over(rgba(style.color), bg);
    const a = luminance(fg), b = luminance(bg);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  function opacity(el) {
    let o = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) { o *= Number(getComputedStyle(node).opacity); }
    return o;
  }
  function large(el) {
    const s = getComputedStyle(el), size = parseFloat(s.fontSize), weight = Number(s.fontWeight) || 400;
    return size >= 24 || (size >= 18.66 && weight >= 700);
  }
  function name(el) {
    const id = el.getAttribute("data-testid");
    const text = (el.innerText || el.value || el.getAttribute("aria-label") || el.getAttribute("placeholder") || "").trim().slice(0, 40);
    return el.tagName.toLowerCase() + (id ? "[data-testid=" + id + "]" : "") + (text ? " '" + text + "'" : "");
  }
  function ownText(el) {
    for (const node of el.childNodes) { if (node.nodeType === 3 && node.textContent.trim()) { return true; } }
    return false;
  }
  const problems = [];
  const controls = Array.from(scope.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary"));
  for (const el of controls) {
    if (el.closest("details:not([open])") && el.tagName !== "SUMMARY") { continue; }
    el.scrollIntoView({ block: "center", inline: "nearest" });
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width < 1 || r.height < 1 || style.visibility === "hidden" || style.display === "none" || opacity(el) < 0.3) {
      problems.push(name(el) + ": not visible"); continue;
    }
    if (r.left < 0 || r.top < 0 || r.right > window.innerWidth + 0.5 || r.bottom > window.innerHeight + 0.5) {
      problems.push(name(el) + ": outside the viewport (" + [r.left, r.top, r.right, r.bottom].map(Math.round) + ")"); continue;
    }
    const first = el.getClientRects()[0] || r;  // an inline link over two lines: its first line
    const hit = document.elementFromPoint(first.left + first.width / 2, first.top + first.height / 2);
    if (!hit || !(hit === el || el.contains(hit) || (hit.tagName === "LABEL" && hit.control === el))) {
      problems.push(name(el) + ": covered by " + (hit ? name(hit) : "nothing")); continue;
    }
    const text = (el.innerText || el.value || el.placeholder || "").trim();
    if (text && !el.disabled && el.type !== "range" && el.type !== "checkbox" && el.type !== "radio") {
      const ratio = contrast(el);
      if (ratio < (large(el) ? 3 : 4.5)) { problems.push(name(el) + ": contrast " + ratio.toFixed(2) + ":1"); }
    }
  }
  if (!controlsOnly) {
    for (const el of scope.querySelectorAll("*")) {
      if (!ownText(el) || el.closest("svg") || el.closest("details:not([open])") || el.closest("button:disabled")) { continue; }
      if (el.matches("button, a[href], input, select, textarea, summary, option")) { continue; }
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || getComputedStyle(el).visibility === "hidden") { continue; }
      const ratio = contrast(el);
      if (ratio < (large(el) ? 3 : 4.5)) { problems.push(name(el) + ": text contrast " + ratio.toFixed(2) + ":1"); }
    }
  }
  window.scrollTo(0, 0);
  return problems;
})
