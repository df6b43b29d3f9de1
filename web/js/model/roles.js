// Roles (issue 45, R17): what each role may do, the page's mirror of the server's one decision table
// (Sources/CorkboardProtocol/Role+Permissions.swift). The server checks every operation; the page
// uses the table to show only the controls a role can use and to word refusals.
//
// | action      | admin | editor | commenter       | viewer                       |
// |-------------|-------|--------|-----------------|------------------------------|
// | edit        | ✓     | ✓      |                 |                              |
// | comment     | ✓     | ✓      | ✓               |                              |
// | drag        | ✓     | ✓      |                 | ✓ (to copy to another board) |
// | undo        | ✓     | ✓      | ✓ (its comments)|                              |
// | manageLinks | ✓     |        |                 |                              |

export const ROLE_NAMES = Object.freeze(["admin", "editor", "commenter", "viewer"]);
export const ROLE_ACTIONS = Object.freeze(["edit", "comment", "drag", "undo", "manageLinks"]);

const TABLE = Object.freeze({
  admin: new Set(ROLE_ACTIONS),
  editor: new Set(["edit", "comment", "drag", "undo"]),
  commenter: new Set(["comment", "undo"]),
  viewer: new Set(["drag"]),
});

/** The operation kinds a comment uses; every other kind changes the board (`edit`). */
export const COMMENT_KINDS = Object.freeze(["addComment", "editComment", "deleteComment"]);

/** Whether `role` may do `action` (one of ROLE_ACTIONS); an unknown role may do nothing. */
export function roleMay(role, action) {
  return TABLE[role]?.has(action) || false;
}

/** What a role must allow to submit an operation of `kind` (a batch: each of its parts). */
export function actionOf(op) {
  if (op?.kind === "batch") return op.ops?.length && op.ops.every((part) => actionOf(part) === "comment") ? "comment" : "edit";
  return COMMENT_KINDS.includes(op?.kind) ? "comment" : "edit";
}

/** Whether `role` may submit `op`. */
export function roleMayDo(role, op) {
  return roleMay(role, actionOf(op));
}

/** The roles whose links `role` may hand out, highest first: its own and every lower one. */
export function sharedRoles(role) {
  const at = ROLE_NAMES.indexOf(role);
  return at < 0 ? [] : ROLE_NAMES.slice(at);
}

/** The role badge of the top bar ("" for roles that may change the board). */
export function roleBadge(role) {
  if (role === "viewer") return "View only";
  if (role === "commenter") return "Can comment";
  return "";
}
