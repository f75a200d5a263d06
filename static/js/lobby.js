// The lobby keeps its list of open tables fresh: it asks the server every few seconds
// (text only through textContent: names are never parsed as HTML).
const root = document.getElementById("lobby-root");
const body = root.querySelector("[data-lobby-rows]");
const words = {};
document.querySelectorAll("#lobby-i18n [data-k]").forEach((n) => {
  words[n.dataset.k] = n.textContent.trim();
});

// Each cell carries its column's name (the header's text): a phone shows the rows as
// cards, each value with its name before it (static/css/site.css, .lobby-table).
const labels = [...root.querySelectorAll(".lobby-table thead th")].map((th) => th.textContent.trim());

function cell(text, column) {
  const td = document.createElement("td");
  td.textContent = text;
  if (column !== undefined && labels[column]) td.dataset.label = labels[column];
  return td;
}

function draw(tables) {
  const rows = tables.map((t) => {
    const tr = document.createElement("tr");
    tr.dataset.table = t.id;
    const values = [t.host, t.rules_name, t.bot_name, t.clock ? `${t.clock} s` : words.off, `${t.people}/4`];
    tr.append(...values.map((v, i) => cell(v, i)));
    const td = document.createElement("td");
    const a = document.createElement("a");
    a.className = "button";
    a.href = `/tables/${t.id}/`;
    a.dataset.openTable = t.id;
    a.textContent = words.go;
    td.append(a);
    tr.append(td);
    return tr;
  });
  if (!rows.length) {
    const tr = document.createElement("tr");
    tr.dataset.lobbyEmpty = "";
    const td = cell(words.empty);
    td.colSpan = 6;
    tr.append(td);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

async function refresh() {
  try {
    const r = await fetch(root.dataset.refreshUrl, { credentials: "same-origin" });
    if (r.ok) draw((await r.json()).tables || []);
  } catch {
    /* offline for a moment: the next tick tries again */
  }
}
setInterval(refresh, 4000);
