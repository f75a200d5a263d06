// The game's WebSocket: reconnects with backoff and asks for a snapshot on every
// (re)connect, so nothing sent while we were away is lost.

export class GameSocket {
  constructor(path, { onMessage, onStatus }) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    this.outbox = [];
  }

  // ?lang= tells the server the page's language, so refusals can be phrased in it.
  url() {
    const lang = (document.documentElement.lang || "").slice(0, 2);
    const query = lang && !this.path.includes("?") ? `?lang=${encodeURIComponent(lang)}` : "";
    if (/^wss?:\/\//.test(this.path)) return this.path + query;
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${window.location.host}${this.path}${query}`;
  }

  connect() {
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      this.onStatus("open");
      ws.send(JSON.stringify({ type: "snapshot" }));
      const pending = this.outbox.splice(0);
      pending.forEach((m) => ws.send(m));
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws || this.closed) return;
      this.onStatus("closed");
      const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.75 + Math.random() / 2);
      this.attempt += 1;
      setTimeout(() => this.connect(), delay);
    });
  }

  send(obj) {
    const data = JSON.stringify(obj);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(data);
    } else if (obj.type !== "snapshot") {
      // A snapshot is requested anyway on open; actions wait for the connection.
      this.outbox.push(data);
    }
  }

  requestSnapshot() {
    this.send({ type: "snapshot" });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
