// Entry point: the start page without ?board=, otherwise the live board (with a key, an invite, or
// as the person this browser is there).
import { startPage, rememberBoard, displayName } from "./pages/start.js";
import { BoardClient } from "./pages/client.js";
import { readAddress } from "./model/invite-link.js";

const { board, key, invite, name } = readAddress(location.href);

if (!board) {
  startPage(document.getElementById("app"));
} else {
  const client = new BoardClient({
    board,
    key: key || undefined,
    invite: invite || undefined,
    name: name || displayName(),
    root: document.getElementById("app"),
    onWelcome: (info) => rememberBoard({ id: board, key: key || "", title: info.title, role: info.role }),
  });
  client.start();
  // For tests and debugging from the console; not an API.
  window.corkboard = client;
}
