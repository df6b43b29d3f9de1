// The wire protocol of docs/PROTOCOL.md (`corkboard.v1`): the one place JSON is written and read,
// and the module the rest of the page imports the protocol from. It mirrors CorkboardProtocol, in
// the modules it names below (Tests/js/protocol.test.mjs checks every json example of
// docs/PROTOCOL.md against them):
//
// - protocol-limits.js: the version, the Limits table and every closed list (types, kinds, codes);
// - field-checks.js: ProtocolError, and checks made of smaller checks; `compose`;
// - value-checks.js: the values messages carry (tokens, card details, items, destinations);
// - operations.js: every board operation kind, checked, and `operation`, its builders;
// - client-messages.js: every message the page sends, checked, and `build`, its builders;
// - server-messages.js: every message the room sends, checked.
//
// Builders leave out optional fields that are undefined, null or false, check the result and throw
// a ProtocolError when it breaks a limit (a bug in the page: the server would refuse it with
// `invalid-field`). `decode` turns a frame into a checked server message or says which field is wrong.

import { ProtocolError } from "./field-checks.js";
import { validateClientMessage } from "./client-messages.js";
import { validateServerMessage } from "./server-messages.js";

export {
  CLIENT_TYPES, DRAG_END_REASONS, DROP_OPERATIONS, EDIT_END_REASONS, ERROR_CODES, INTENTS, LAYOUTS, LIMITS, OPERATION_KINDS,
  PRESENCE_STATES, PROTOCOL_VERSION, REJECT_CODES, ROLES, SERVER_TYPES, SUBPROTOCOL,
} from "./protocol-limits.js";
export { ProtocolError } from "./field-checks.js";
export { operation } from "./operations.js";
export { build, validateClientMessage } from "./client-messages.js";
export { validateServerMessage } from "./server-messages.js";

/** The one place a client message becomes JSON: checks it, then writes it. */
export function encode(message) {
  return JSON.stringify(validateClientMessage(message));
}

/**
 * The one place a frame becomes a server message: `{message}` when it is JSON and a valid server
 * message, else `{error}` (a ProtocolError saying what is wrong).
 */
export function decode(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return { error: new ProtocolError("The frame is not JSON.", "") };
  }
  try {
    return { message: validateServerMessage(message) };
  } catch (error) {
    if (error instanceof ProtocolError) return { error };
    throw error;
  }
}
