/* agenteval viewer: Preact, its hooks and htm as module bindings.
 *
 * The three are vendored UMD scripts (vendor/, pinned in vendor.lock.json) that index.html
 * loads before the modules, no build step and no network; every module imports them from
 * here, never from the window. */

export const h = window.preact.h;
export const render = window.preact.render;
export const { useState, useEffect, useMemo, useRef, useCallback } = window.preactHooks;
export const html = window.htm.bind(h);
