// Entry point: the start page without ?board=, otherwise the live board.
import { startPage, rememberBoard, displayName } from "./pages/start.js";
import { BoardClient } from "./pages/client.js";

const params = new URLSearchParams(location.search);
const board = params.get("board");

if (!board) {
  startPage(document.getElementById("app"));
} else {
  const client = new BoardClient({
    board,
    key: params.get("key") || undefined,
    invite: params.get("invite") || undefined,
    name: params.get("name") || displayName(),
    root: document.getElementById("app"),
    onWelcome: (info) => rememberBoard({ id: board, key: params.get("key") || "", title: info.title, role: info.role }),
  });
  client.start();
  // For tests and debugging from the console; not an API.
  window.corkboard = client;
}
