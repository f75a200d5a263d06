// Live standings of a tournament of tables: the server pushes the whole standing after
// every finished set (and the progress of the set being played); the page re-renders
// the table, or reloads when a new set begins (your table may have changed) — once the
// page is free (busy.js: not over a form being filled in or a link just followed).
import { busyWatch, reloadWhenFree } from "./busy.js";

const busy = busyWatch();
let reloading = false;
const reload = () => {
  if (reloading) return;
  reloading = true;
  reloadWhenFree(busy);
};
const table = document.querySelector("[data-tables-standings]");
const doneShown = document.querySelector("[data-progress-done]");
if (table && table.dataset.live && "WebSocket" in window) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const mine = table.dataset.me || "";
  const duplicate = table.querySelectorAll("thead th").length > 4;
  let where; // the round.set the page was drawn for (undefined until the first message)
  // One decimal as the server's floatformat writes it in the page's language (5,0 in nl).
  const decimal = new Intl.NumberFormat(document.documentElement.lang || undefined, {
    minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false,
  });
  const fmt = (v) => (v === null || v === undefined ? "" : decimal.format(Number(v)));
  const render = (rows) => {
    const body = table.querySelector("tbody");
    if (!rows.length) return;
    body.replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      if (r.player === mine) tr.className = "mine";
      if (r.out_after) tr.dataset.out = ""; // cut after that round: shown as the page does
      const cells = [r.rank ?? "—", r.player, r.raw];
      if (duplicate) cells.push(fmt(r.dup_mp), fmt(r.dup_diff));
      cells.push(r.sets);
      cells.forEach((c, i) => {
        const td = document.createElement("td");
        if (i !== 1) td.className = "num";
        td.textContent = String(c);
        if (i === 1) {
          td.className = "t-player";
          // A note after the name, as the page writes it: "(eerder: …)", "(uitgeschakeld …)".
          const note = (label, key, value) => {
            if (!label) return;
            const small = document.createElement("small");
            small.textContent = `(${label.replace(key, value)})`;
            td.append(" ", small);
          };
          if (r.before && r.before.length) {
            note(table.dataset.beforeLabel, "{names}", r.before.join(", "));
          }
          if (r.out_after) note(table.dataset.outLabel, "{n}", r.out_after);
          if (r.no_show) note(table.dataset.noShowLabel, "", "");
        }
        tr.appendChild(td);
      });
      return tr;
    }));
  };
  const connect = () => {
    const ws = new WebSocket(`${scheme}://${location.host}${table.dataset.ws}`);
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type !== "standings") return;
      // Only the overall standing is pushed: a page showing a round or set keeps its own.
      if (!location.search.includes("round=")) render(msg.rows || []);
      const now = msg.progress ? `${msg.progress.round}.${msg.progress.set}` : null;
      // A new draw (the live start, the next set or round): your table may have changed.
      if (where !== undefined && now !== where) reload();
      where = now;
      // The big screen: a table done in the set being played ("2 of 3 tables done").
      if (doneShown && msg.progress && String(msg.progress.done) !== doneShown.dataset.progressDone) {
        reload();
      }
    };
    ws.onclose = () => setTimeout(connect, 3000);
  };
  connect();
}

// Without a socket push (it was lost, or the draw was made by another process in the
// embedded mode), a light poll every 10 s: a new table for you reloads the page.
const mySeat = document.querySelector("[data-my-seat]");
if (mySeat && table && table.dataset.live) {
  const shown = () => {
    const link = mySeat.querySelector("a.button.primary");
    return link ? link.getAttribute("href") : null;
  };
  const before = shown();
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const res = await fetch(`${location.pathname}?format=json`, { credentials: "same-origin" });
      if (!res.ok) return;
      const data = await res.json();
      const now = data.seat && !data.seat.done ? data.seat.href : null;
      if (now !== before) reload();
    } catch (e) {
      // offline for a moment: the next poll tries again
    }
  }, 10000);
}
