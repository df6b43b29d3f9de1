// A short look at another board of the server, for "Move to…" (edit/move-to.js): its collections
// and sections, and whether this person may edit it. The page only knows other boards by the links
// this browser remembers, and the protocol sends a board's structure only to a member, so the look
// is a join (hello → welcome) that leaves again at once (the other board's members see this person
// come and go).
import { BoardSession } from "./session.js";
import { refusalInWords } from "../model/join-words.js";

/** How long a look waits for the other board's welcome. */
const PEEK_MS = 8000;

/**
 * Joins `board` with `key` as `name`, reads it and leaves: resolves {board, canEdit, title};
 * rejects with an Error whose message says why (in words for people, join-words.js) when it cannot be read;
 * `knownBefore`: this browser opened the board with this key before.
 */
export function peekBoard({ url, board, key, name, knownBefore = false }) {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (error, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.conn?.stop();
      if (error) reject(error);
      else resolve(value);
    };
    const session = new BoardSession({ url, board, key, name }, {
      welcome: (w) => finish(null, { board: session.board, canEdit: session.canEdit, title: w.board?.title || session.board?.title || board }),
      connection: ({ state, reason, code }) => {
        if (state === "closed") finish(new Error(refusalInWords({ code, reason, key: key || "", knownBefore }) || "That board closed the connection."));
      },
    });
    const timer = setTimeout(() => finish(new Error("That board did not answer in time; try again.")), PEEK_MS);
    session.start();
  });
}
