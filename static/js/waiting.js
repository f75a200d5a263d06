// The waiting room follows the table live: any change of seats, or the start, reloads
// the page (the server renders who sits where; at the start, the card table).
const root = document.getElementById("waiting-root");
const path = root.dataset.wsPath;
const initial = document.getElementById("initial-players");
// A form being sent (sit, add a bot, start) brings its own new page: a reload now
// would cancel it and lose its answer (the new guest's session cookie, say).
let submitting = false;
// Closing a table others sit at is asked first.
for (const button of document.querySelectorAll("[data-close-table][data-confirm]")) {
  button.form.addEventListener("submit", (ev) => {
    if (!window.confirm(button.dataset.confirm)) ev.preventDefault();
  });
}
document.addEventListener("submit", (ev) => {
  if (!ev.defaultPrevented) submitting = true;
});
function reload() {
  if (!submitting) window.location.reload();
}

// The name a visitor is typing survives the reloads (somebody else sat down meanwhile).
const nameInput = document.querySelector("[data-guest-name]");
if (nameInput) {
  const key = `guest-name:${path}`;
  try {
    nameInput.value ||= sessionStorage.getItem(key) || "";
    nameInput.addEventListener("input", () => sessionStorage.setItem(key, nameInput.value));
  } catch {
    // storage off: the name is simply typed again
  }
}
let lastSeats = initial ? JSON.stringify(JSON.parse(initial.textContent)) : null;

function connect(attempt = 0) {
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${window.location.host}${path}`);
  ws.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    const table = msg.table;
    if (!table) return;
    if (table.status === "closed") {
      // The host closed the table: back to the open tables, which say so.
      if (!submitting) window.location.assign("/tables/?closed=1");
      return;
    }
    if (table.status !== "waiting") {
      reload();
      return;
    }
    const seats = JSON.stringify(table.players);
    if (lastSeats !== null && seats !== lastSeats) reload();
    lastSeats = seats;
  });
  ws.addEventListener("open", () => {
    attempt = 0;
  });
  ws.addEventListener("close", () => {
    setTimeout(() => connect(attempt + 1), Math.min(10000, 500 * 2 ** attempt));
  });
}
if (path) connect();
