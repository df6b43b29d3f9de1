// The board's DOM written as it is kept: only what changes is written (a write, even of the same
// value, makes the browser lay the board out again, and these run for every collection at every
// render), and a parent's children made a list in order, moving as few nodes as possible.

export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

export function setData(node, key, value) {
  if (node.dataset[key] !== value) node.dataset[key] = value;
}

/** An id as a part of an element id. */
export function cssId(id) {
  return String(id).replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** Makes `parent`'s managed children exactly `children`, in order, moving as few nodes as possible. */
export function syncChildren(parent, children, managed = () => true) {
  const wanted = new Set(children);
  for (const node of [...parent.children]) if (managed(node) && !wanted.has(node)) node.remove();
  let cursor = firstManaged(parent.firstElementChild, managed);
  for (const child of children) {
    if (child === cursor) {
      cursor = firstManaged(cursor.nextElementSibling, managed);
    } else {
      parent.insertBefore(child, cursor);
    }
  }
}

function firstManaged(node, managed) {
  while (node && !managed(node)) node = node.nextElementSibling;
  return node;
}

/** Removes every element of `nodes` (key → element, or → an entry whose element `nodeOf` gives) whose key is not in `keep`. */
export function removeUnkept(nodes, keep, nodeOf = (value) => value) {
  for (const [key, value] of nodes) {
    if (keep.has(key)) continue;
    nodeOf(value).remove();
    nodes.delete(key);
  }
}
