// Server status for the start page: polls /healthz and holds a corkboard.v1 WebSocket open.
const $ = (id) => document.getElementById(id);

async function refreshHealth() {
  try {
    const response = await fetch("/healthz", { cache: "no-store" });
    const health = await response.json();
    $("health").textContent = health.status;
    $("health").className = health.status === "ok" ? "ok" : "bad";
    $("version").textContent = health.version;
    $("uptime").textContent = `${Math.round(health.uptimeSeconds)} s`;
    $("connections").textContent = String(health.connections);
  } catch (error) {
    $("health").textContent = `unreachable (${error.message})`;
    $("health").className = "bad";
  }
}

function openSocket(attempt = 0) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/ws`, "corkboard.v1");
  socket.addEventListener("open", () => {
    attempt = 0;
    $("socket").textContent = `open (${socket.protocol})`;
    $("socket").className = "ok";
    refreshHealth();
  });
  socket.addEventListener("close", (event) => {
    const delay = Math.min(30000, 500 * 2 ** attempt);
    $("socket").textContent = `closed (${event.code}${event.reason ? ": " + event.reason : ""}), retrying in ${Math.round(delay / 1000)} s`;
    $("socket").className = "bad";
    setTimeout(() => openSocket(attempt + 1), delay);
  });
}

refreshHealth();
setInterval(refreshHealth, 5000);
openSocket();
