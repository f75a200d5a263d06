// Live standings: the server pushes the whole table after every recomputation.
const table = document.querySelector("[data-standings]");
if (table && "WebSocket" in window) {
  const path = table.dataset.ws;
  const mine = table.dataset.me || "";
  // A name links to the player's public page ("/players/-/" with the name for "-");
  // guests ("gast-…") and deleted accounts ("anoniem-…") have none, as on the server.
  const playerUrl = table.dataset.playerUrl || "";
  const nameCell = (td, name) => {
    if (!playerUrl || !name || /^(gast|anoniem)-/.test(name) || name.includes("/")) {
      td.textContent = name || "";
      return;
    }
    const a = document.createElement("a");
    a.href = playerUrl.replace(/-\/$/, encodeURIComponent(name) + "/");
    a.textContent = name;
    td.appendChild(a);
  };
  // The "bot" tag of an entry the bot finished, as the server renders it.
  const botMark = table.dataset.botMark || "";
  const markCell = (td, finishMode) => {
    if (finishMode !== "bot" || !botMark) return;
    const holder = document.createElement("template");
    holder.innerHTML = botMark;
    td.append(...holder.content.childNodes);
  };
  let version = Number(table.dataset.version || 0);
  const status = document.querySelector("[data-live-status]");
  // Decimals as the server's floatformat writes them in the page's language (17,5 in nl).
  const lang = document.documentElement.lang || undefined;
  const formats = {};
  const fmt = (v, digits) => {
    if (v === null || v === undefined) return "";
    formats[digits] ??= new Intl.NumberFormat(lang, {
      minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false,
    });
    return formats[digits].format(Number(v));
  };
  // A score per deal with one decimal from the total itself (as the server's
  // per_deal_shown: not the 2 decimals of score_per_deal rounded again), halves away
  // from zero: tenths counted on integers.
  const perDeal = (score, deals) => {
    if (score === null || score === undefined || !deals) return "";
    const tenths = Math.sign(score) * Math.round((Math.abs(score) * 10) / deals);
    return fmt(tenths / 10, 1);
  };
  // A percentage as the server's `percent` filter writes it (50,0 % in French).
  const percentFormat = new Intl.NumberFormat(lang, {
    style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false,
  });
  const pctText = (v) => (v === null || v === undefined ? "" : percentFormat.format(Number(v) / 100));
  const render = (rows) => {
    const body = table.querySelector("tbody");
    if (!rows.length) {
      // As the server renders it: an empty table says why it is empty.
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 6;
      td.textContent = table.dataset.empty || "";
      tr.appendChild(td);
      body.replaceChildren(tr);
      return;
    }
    body.replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      if (r.player === mine) tr.className = "mine";
      // The columns of _standings_table.html: totals and per-deal figures as named.
      const pct = r.deal_matchpoints_pct;
      const cells = [r.rank, r.player, r.score + (r.corrected ? " *" : ""), r.deals_played,
        perDeal(r.score, r.deals_played), pctText(pct)];
      cells.forEach((c, i) => {
        const td = document.createElement("td");
        if (i === 1) {
          td.className = "t-player";
          nameCell(td, r.player);
          markCell(td, r.finish_mode);
        } else {
          td.textContent = c === null || c === undefined ? "" : String(c);
          td.className = "num";
        }
        tr.appendChild(td);
      });
      return tr;
    }));
  };
  const connect = () => {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "standings" && msg.version >= version) {
        version = msg.version;
        render(msg.rows);
        if (status) status.hidden = false;
        // An entry without a place: the rankings task has not run since it finished.
        const pending = document.querySelector("[data-rankings-pending]");
        if (pending) pending.hidden = !msg.rows.some((r) => r.rank === null);
      }
    };
    ws.onclose = (e) => { if (e.code !== 4403) setTimeout(connect, 5000); };
  };
  connect();
}
