// The game's WebSocket: reconnects by itself and gets a snapshot on every (re)connect
// (the server sends it on accepting), so nothing sent while we were away is missed. Nothing the
// page sends is kept for later: a message is sent over an open socket or refused.

// Delay before reconnect attempt n (0, 1, ...): quick at first, then about every
// 0.8 s with jitter, never more than 1 s apart, so a table is back within a second of
// its server answering again (a refused connection costs the server next to nothing).
export const RETRY_MS = [150, 400, 800];
const JITTER = 0.2;
const MAX_RETRY_MS = 950;

export function retryDelay(attempt, random = Math.random) {
  const base = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
  return Math.min(MAX_RETRY_MS, base * (1 - JITTER / 2 + JITTER * random()));
}

// The server closed the socket because the person no longer holds the seat it was
// opened for (game/consumers.py CLOSE_SEAT_RELEASED): not a lost connection.
export const CLOSE_SEAT_RELEASED = 4409;

export class GameSocket {
  constructor(path, { onMessage, onStatus, onReleased }) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.onReleased = onReleased || null;
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    this.timer = null; // the next try, when one is on its way
    this.openTimer = null; // gives up on a handshake that hangs
    this.rtt = 0; // a round trip as the last handshake measured it (ms)
    this.attempts = []; // when each connection was tried (Date.now()), the last few
  }

  // ?lang= tells the server the page's language, so refusals can be phrased in it.
  url() {
    const lang = (document.documentElement.lang || "").slice(0, 2);
    const query = lang && !this.path.includes("?") ? `?lang=${encodeURIComponent(lang)}` : "";
    if (/^wss?:\/\//.test(this.path)) return this.path + query;
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${window.location.host}${this.path}${query}`;
  }

  // How long a handshake may take before it is given up on: a route that died leaves it
  // hanging for good. Generous on a slow link (four measured round trips, at least 8 s),
  // longer with every try in a row, at most 30 s.
  handshakeMs() {
    return Math.min(30000, Math.max(8000, 4 * this.rtt) * (1 + Math.min(this.attempt, 3)));
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    this.attempts.push(Date.now());
    if (this.attempts.length > 50) this.attempts.shift();
    const started = Date.now();
    const ws = new WebSocket(this.url());
    this.ws = ws;
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => {
      if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) this.restart();
    }, this.handshakeMs());
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      clearTimeout(this.openTimer);
      // A TCP handshake and the upgrade: about two round trips.
      this.rtt = (Date.now() - started) / 2;
      this.onStatus("open");
      // No snapshot asked for: the server sends one as it accepts the socket (each asked
      // for as well cost a second one, and six tabs reconnecting at once ran out).
    });
    ws.addEventListener("message", (ev) => {
      // A socket given up on may still deliver: its words are no longer this page's (a
      // second live socket drew every move twice, and old moves over new ones).
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      // A connection that works, not merely opened (one accepted and closed at once, as
      // over the sockets budget, does not start the quick tries over).
      if (msg.type !== "error") this.attempt = 0;
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws || this.closed) return;
      if (ev.code === CLOSE_SEAT_RELEASED && this.onReleased) {
        // Reconnecting would be refused (or be a spectator's socket): the page decides.
        this.closed = true;
        this.onReleased();
        return;
      }
      this.lost();
    });
  }

  // The connection is gone: say so and try again soon (one try on its way at a time).
  lost() {
    if (this.closed) return;
    this.onStatus("closed");
    if (this.timer) return;
    const delay = retryDelay(this.attempt);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  // Give up on a socket that looks open but answers nothing (or a handshake that hangs),
  // and connect anew (its close event, which may take long on a dead connection, is then
  // ignored). `now`: the network is back (the browser says so), try at once.
  restart({ now = false } = {}) {
    if (this.closed) return;
    const ws = this.ws;
    this.ws = null;
    clearTimeout(this.openTimer);
    if (ws) ws.close();
    if (now) {
      this.connect();
      return;
    }
    this.lost();
  }

  // Whether the message went out. Not queued when offline: an action clicked then
  // is refused here (a snapshot is asked for on every open anyway).
  send(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  requestSnapshot() {
    this.send({ type: "snapshot" });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
