// The one DOM helper: element creation, attributes and event listeners, for every module of the
// page. Nothing here knows about boards.

/**
 * Creates an element.
 *
 *   el("span", "dot")                                   class names
 *   el("li", "member", "Ada")                           class names and text
 *   el("ul", { className: "members", attrs: { "aria-label": "People" } })
 *   el("button", { className: "link-button", text: "Forget", props: { type: "button" }, on: { click } })
 *
 * `spec` is a class name string or {className, text, attrs, data, props, style, on}; the rest are
 * children (nodes, or strings as text). Falsy children are skipped.
 */
/** The class of the pane a mouse drag lays over the page to show its cursor (see drag.js). */
export const DRAG_SHIELD = "drag-shield";

/** The element at a client point, seen through a drag's shield. */
export function elementAt(x, y) {
  const hit = document.elementFromPoint(x, y);
  if (!hit?.classList.contains(DRAG_SHIELD)) return hit;
  // Not elementsFromPoint: listing every element at the point costs far more on a big board.
  hit.style.pointerEvents = "none";
  const under = document.elementFromPoint(x, y);
  hit.style.pointerEvents = "";
  return under;
}

export function el(tag, spec, ...children) {
  const node = document.createElement(tag);
  if (typeof spec === "string") {
    if (spec) node.className = spec;
  } else if (spec) {
    if (spec.className) node.className = spec.className;
    if (spec.text !== undefined) node.textContent = spec.text;
    if (spec.attrs) setAttributes(node, spec.attrs);
    if (spec.data) Object.assign(node.dataset, spec.data);
    if (spec.props) Object.assign(node, spec.props);
    if (spec.style) for (const [name, value] of Object.entries(spec.style)) node.style.setProperty(name, value);
    if (spec.on) for (const [type, handler] of Object.entries(spec.on)) node.addEventListener(type, handler);
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child);
  }
  return node;
}

/** Sets attributes; `null`, `undefined` or `false` removes one, `true` sets it empty. */
export function setAttributes(node, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) node.removeAttribute(name);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  return node;
}

/** Adds an event listener and returns the function that removes it. */
export function on(target, type, handler, options) {
  target.addEventListener(type, handler, options);
  return () => target.removeEventListener(type, handler, options);
}
