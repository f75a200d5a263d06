// The table's controller: keeps the shown state, paces incoming events so people can
// follow the bots, and turns clicks and keys into actions for the server.
import { GameSocket } from "./socket.js";
import * as R from "./render.js";
import { cardPoints, spokenName, trickWinner } from "./cards.js";
import { tournamentClosed } from "./closed.js";

const CARD_RE = /^[789JQKAT][SHDC]$/;
const BOT_PAUSE_MS = 600;
const TRICK_PAUSE_MS = 1100;
const COLLECT_MS = 350;
const SCALES = [0.75, 0.85, 1, 1.15, 1.3, 1.5];
const store = {
  get(k) {
    try {
      return window.localStorage.getItem(`manillen.${k}`);
    } catch {
      return null;
    }
  },
  set(k, v) {
    try {
      window.localStorage.setItem(`manillen.${k}`, v);
    } catch {
      /* private mode: the setting lasts for this page only */
    }
  },
};

const root = document.getElementById("table-root");
const $ = (sel) => root.querySelector(sel);

const dict = {};
document.querySelectorAll("#i18n [data-k]").forEach((n) => {
  dict[n.dataset.k] = n.textContent.trim();
});
function t(key, params = {}) {
  const raw = dict[key] ?? key;
  return raw.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

// Until the first snapshot, if the page came without a state: an empty table.
const EMPTY_STATE = {
  seat: 0, phase: "play", to_move: null, dealer: null, hand: [], hand_sizes: [0, 0, 0, 0],
  current_trick: { leader: null, cards: [] }, tricks: [], legal: [], scores: [0, 0],
  team_points: [0, 0], board: [], announcements: [], game_over: false, outcome: null,
};
const initialNode = document.getElementById("initial-state");
const tableNode = document.getElementById("initial-table");

const ui = {
  lastHeard: Date.now(), // when the server last sent anything
  movedAt: Date.now(), // when the game last moved on (a newer seq came)
  state: (initialNode && JSON.parse(initialNode.textContent)) || EMPTY_STATE,
  seq: Number(root.dataset.seq || 0), // newest seq received from the server
  shownSeq: Number(root.dataset.seq || 0), // seq of the state on screen
  queue: [],
  busy: false,
  gen: 0,
  pending: null, // action sent, no answer yet
  sentAt: 0, // when it was sent
  // A card sent and already shown on the table (moved at once, before the server's
  // echo); cleared by the echo, or taken back with the server's refusal.
  optimistic: null,
  trickView: null, // a completed trick still lying in the middle
  note: "",
  error: "",
  fast: false,
  wake: null,
  holdUntil: 0,
  // The player uses the keyboard (kept across pages: the first turn of a new page, a
  // reload, the next game brings the focus to the hand too).
  keyboard: store.get("keyboard") === "1",
  collectTimer: null,
  // A tournament game whose play is over (window ended, tournament closed): no moves.
  closed: root.dataset.closed === "true",
  // The page's socket has opened once. Until then nothing is offered: a tap in the
  // first moments of a new page was refused as "not connected" while it was only
  // still connecting. Offline later (a lost connection), the table keeps offering and
  // a tap is refused with that message, as before.
  connected: false,
  // Who sits where, the viewer's seat (null: a spectator), clock and rematch.
  table: (tableNode && JSON.parse(tableNode.textContent)) || { seat: 0, players: null },
  deadline: null, // epoch ms by which the seat to move must move (a table's clock)
};
ui.deadline = ui.table.deadline ?? null;
R.setView(ui.table.seat, ui.table.players, root.dataset.guestPrefix || "");

// The bot plays the viewer's own seat (away, clock, left): nothing to click until
// they take it back.
// The server's clock against the browser's: a move's deadline is the server's instant,
// and a phone's clock may be off by more than the clock gives (it showed 44 s of 15).
// Each message says the server's time as it left; the largest difference seen lately is
// the one least lengthened by the message's way here.
const skews = [];
function serverNow() {
  // + half a round trip: the largest difference still lost the way here (2.8 s each way
  // on a train's phone showed 14 s where 11 were left).
  return Date.now() + (skews.length ? Math.max(...skews) + roundTrip() / 2 : 0);
}

// A round trip as last measured: a move's echo, a ping's answer, else the handshake.
function roundTrip() {
  return ui.rtt || ui.handshakeRtt || 0;
}

function botPlaysMe() {
  const me = ui.table.seat;
  return me !== null && me !== undefined && Boolean(ui.table.players?.[me]?.bot_control);
}

function interactive() {
  return ui.connected && !ui.closed && !ui.busy && ui.queue.length === 0 && ui.pending === null
    && !botPlaysMe();
}

const baseTitle = document.title;

// The state on screen: the last state shown, with South's own card already moved from
// the hand to the trick while the server has not yet answered (ui.optimistic).
function shownState() {
  const s = ui.state;
  const card = ui.optimistic;
  if (!card || !(s.hand || []).includes(card)) return s;
  const seat = s.seat ?? 0;
  const cards = [...(s.current_trick?.cards || []), [seat, card]];
  const sizes = (s.hand_sizes || []).slice();
  if (sizes.length > seat) sizes[seat] -= 1;
  // Who plays next: the next seat, or (the trick full) its winner, as far as we know.
  const toMove = cards.length < 4 ? (seat + 1) % 4 : trickWinner(cards, s.no_trump ? null : s.trump);
  return {
    ...s,
    hand: s.hand.filter((c) => c !== card),
    hand_sizes: sizes,
    current_trick: { ...(s.current_trick || {}), cards },
    to_move: toMove,
    legal: [],
  };
}

// Nothing left to show of what the server sent: the seat to move is really thinking
// (not a step of the replay of events still queued).
function caughtUp() {
  return !ui.busy && ui.queue.length === 0 && ui.shownSeq === ui.seq;
}

function draw() {
  const s = shownState();
  // A mark in the tab title, for a player who is looking at another tab.
  const myTurn = s.to_move === s.seat && !s.game_over && !ui.closed && interactive();
  document.title = myTurn ? `\u25CF ${baseTitle}` : baseTitle;
  const turnBegins = myTurn && !ui.wasMyTurn;
  ui.wasMyTurn = myTurn;
  root.dataset.phase = s.phase;
  root.dataset.seq = String(ui.shownSeq);
  root.dataset.toMove = s.to_move ?? "";
  root.classList.toggle("waiting", !interactive());
  R.renderSeats(root, ui.closed ? { ...s, to_move: null } : s, t); // nobody is to play
  const cur = s.current_trick?.cards || [];
  const trick = $("#trick");
  if (cur.length) {
    // The card winning so far gets a quiet mark: it tells who holds the trick.
    const leading = cur.length > 1 ? trickWinner(cur, s.no_trump ? null : s.trump) : null;
    R.renderTrick(trick, cur, { leading, t });
  } else if (ui.trickView) {
    R.renderTrick(trick, ui.trickView.cards, { ...ui.trickView, t });
  } else {
    R.renderTrick(trick, [], { t });
  }
  const opts = { interactive: interactive(), t, keyboard: ui.keyboard };
  R.renderHand($("#hand"), s, opts);
  R.renderChoices($("#choices"), s, opts);
  const thinking = !ui.closed && caughtUp() && s.to_move !== null && s.to_move !== s.seat && !s.game_over;
  const prompt = $("#prompt");
  const promptMine = s.to_move === s.seat && !s.game_over && !ui.closed;
  // A live region only for the viewer's own turn: the others' moves are told by #sr-log,
  // and a prompt read out at every bot step talked over them. Set before the text.
  const live = promptMine ? "polite" : "off";
  if (prompt.getAttribute("aria-live") !== live) prompt.setAttribute("aria-live", live);
  setText(prompt, ui.closed ? "" : R.promptText(s, t, { thinking }));
  R.markThinking(root, thinking ? s.to_move : null);
  prompt.classList.toggle("mine", promptMine);
  setText($("#note"), ui.note);
  setText($("#error"), ui.error);
  $("#error").hidden = !ui.error;
  R.renderBoard($("#board-body"), $("#board-foot"), s, t);
  const [wij, zij] = R.ours(s.scores);
  $("#mini-wij").textContent = String(wij);
  $("#mini-zij").textContent = String(zij);
  R.renderDealCount($("[data-deal-count]"), s, t);
  R.renderEnd($("#end"), s, t, $("[data-end-reopen]"));
  const endBoard = $("[data-end-board]");
  if (endBoard && !$("#end").hidden) endBoard.replaceChildren($("#board table").cloneNode(true));
  syncEndModal();
  drawTable();
  // Your turn comes with the hand in view: on a short screen (a laptop's 720 px) it can
  // sit below the fold, its suits cut off. Only as the turn begins: reading the board
  // meanwhile is left alone.
  if (turnBegins) {
    const box = $("#hand").getBoundingClientRect();
    if (box.height && (box.bottom > window.innerHeight || box.top < 0)) {
      $("#hand").scrollIntoView({ block: "nearest" });
    }
  }
}

// Live regions (and role=alert) are written only when their text changes: the same
// words written again at every redraw were read out again, or talked over the moves.
function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

// The end dialog is modal while it is open: the rest of the page is inert (out of the
// Tab order and of the screen reader's reach) and Tab cycles through the dialog.
const inertByEnd = [];
function syncEndModal() {
  const box = $("#end");
  const open = !box.hidden;
  if (open && !inertByEnd.length) {
    // Every sibling of the dialog and of each of its ancestors, up to the body.
    for (let node = box; node && node !== document.body; node = node.parentElement) {
      for (const sib of node.parentElement?.children || []) {
        if (sib === node || sib.inert || ["SCRIPT", "STYLE", "TEMPLATE"].includes(sib.tagName)) continue;
        sib.inert = true;
        inertByEnd.push(sib);
      }
    }
    // Opened with the focus left behind (now inert): into the dialog, on its main action.
    if (!box.contains(document.activeElement)) R.endMainAction(box)?.focus();
  } else if (!open && inertByEnd.length) {
    inertByEnd.splice(0).forEach((n) => {
      n.inert = false;
    });
  }
}

// A table of people: the viewer's own seat controls (take back, leave), the clock of
// the seat to move, and the rematch once someone asked for it.
function drawTable() {
  const me = ui.table.seat;
  const mine = me === null || me === undefined ? null : ui.table.players?.[me];
  // Over: played to its end, or closed where it stood (a tournament's close, a casual
  // table everyone left): nothing to take back or leave.
  const over = !!ui.state.game_over || ui.closed;
  const back = $("[data-take-back-form]");
  if (back) back.hidden = !(mine && mine.bot_control && !over);
  const leave = $("[data-leave-form]");
  if (leave) leave.hidden = !mine || !!mine.bot_control || over;
  const botNote = $("[data-bot-note]");
  if (botNote) botNote.hidden = !(mine && mine.bot_control && !over);
  if (ui.closed) {
    const chat = $("#chat");
    if (chat) chat.hidden = true;
    const chatSwitch = $(".chat-switch");
    if (chatSwitch) chatSwitch.hidden = true;
  }
  const link = $("[data-rematch-link]");
  if (link && ui.table.rematch) {
    // A private table's next game has the same code: the link keeps it.
    const code = new URLSearchParams(window.location.search).get("code");
    link.href = `/tables/${ui.table.rematch}/${code ? `?code=${encodeURIComponent(code)}` : ""}`;
    link.hidden = false;
  }
  drawClock();
}

// Leaving mid-game is asked first: the bot takes the seat, and at a casual table the
// last person's leaving ends the game where it stands.
$("[data-leave-form]")?.addEventListener("submit", (ev) => {
  const button = ev.currentTarget.querySelector("[data-leave]");
  const me = ui.table.seat;
  const others = (ui.table.players || []).some(
    (p, i) => i !== me && p.person && !p.left,
  );
  const text = !others && button.dataset.confirmLast ? button.dataset.confirmLast : button.dataset.confirm;
  if (text && !window.confirm(text)) ev.preventDefault();
});

function drawClock() {
  const box = $("#clock");
  if (!box) return;
  const s = ui.state;
  // The clock counts a person's time: not while a bot plays the seat to move.
  const mover = ui.table.players?.[s.to_move];
  const botMoves = mover ? !mover.person || mover.bot_control : s.to_move !== s.seat;
  const alert = $("#clock-alert");
  if (!ui.deadline || s.game_over || s.to_move === null || ui.closed || botMoves) {
    box.hidden = true;
    if (alert?.textContent) alert.textContent = ""; // the next warning is new words
    return;
  }
  const left = Math.max(0, Math.ceil((ui.deadline - serverNow()) / 1000));
  box.hidden = false;
  const mine = s.to_move === s.seat;
  box.textContent = mine
    ? t("clock_you", { n: left })
    : t("clock_left", { name: R.seatName(s.to_move, t), n: left });
  box.classList.toggle("urgent", left <= 5);
  // The clock itself is not read out (it changes every second): the viewer's own turn
  // with 5 s or less left is said once, assertively, per turn (per deadline).
  if (mine && left <= 5 && left > 0 && ui.clockWarned !== ui.deadline && !botPlaysMe()) {
    ui.clockWarned = ui.deadline;
    if (alert) alert.textContent = t("clock_you", { n: left });
  } else if (!mine && alert?.textContent) alert.textContent = "";
}
setInterval(drawClock, 500);

// The trick that this step completed, if any: {cards, winner}.
function completedTrick(prev, next, msg) {
  const pt = prev.tricks || [];
  const nt = next.tricks || [];
  // What the trick added to the deal's points: its cards and the rules' points per trick
  // (french: +1), so that the lines add up to the deal's total.
  const before = sum(prev.team_points);
  if (next.deal_number === prev.deal_number && nt.length > pt.length) {
    const last = nt[nt.length - 1];
    const added = sum(next.team_points) - before;
    const points = nt.length === pt.length + 1 && added >= last.points ? added : last.points;
    return { cards: last.cards, winner: last.winner ?? null, points };
  }
  const pc = prev.current_trick?.cards || [];
  if (next.deal_number !== prev.deal_number && pc.length === 3 && CARD_RE.test(msg.action || "")) {
    const cards = [...pc, [msg.actor, msg.action]];
    // The deal's last trick: the next state is the new deal's; its points are the deal's
    // total on the board less what the earlier tricks made.
    const own = cards.reduce((s, [, c]) => s + cardPoints(c), 0);
    const row = (next.board || []).at(-1);
    const added = row?.card_points && row.deal === prev.deal_number ? sum(row.card_points) - before : own;
    const points = added >= own ? added : own;
    return { cards, winner: trickWinner(cards, prev.no_trump ? null : prev.trump), points };
  }
  return null;
}

function sum(pair) {
  return (pair || []).reduce((a, b) => a + (Number(b) || 0), 0);
}

function dealNote(prev, next) {
  const pb = prev.board || [];
  const nb = next.board || [];
  if (nb.length <= pb.length) return null;
  const last = nb[nb.length - 1];
  const [w, z] = R.ours(last.written);
  const [cw, cz] = last.card_points ? R.ours(last.card_points) : ["?", "?"];
  const head = t(R.sideKey("deal_result"), { n: last.deal, wij: cw, zij: cz });
  if (w > 0) return `${head} ${t(R.sideKey("wij_write"), { n: w })}`;
  if (z > 0) return `${head} ${t(R.sideKey("zij_write"), { n: z })}`;
  // Each deal on its own (the tie=own option): a tie doubles nothing; after the last
  // deal (a game of fixed deals, the deal limit) no deal follows to count double.
  if (next.game_over) return `${head} ${t("nobody_writes_last")}`;
  // (tie_doubles_next: the preset's rule, french and malilla double nothing; older
  // states without it: the tie option alone.)
  const own = next.tie_doubles_next === false || (next.options && next.options.tie_carry === false);
  return `${head} ${t(own ? "nobody_writes_own" : "nobody_writes")}`;
}

// One line per step for screen readers (the table itself is drawn, not spoken). The log
// keeps the last lines (a live region whose text was replaced at every step had a screen
// reader say only the last of several quick plays): each step is a line added, read out
// as it comes (aria-relevant additions), the oldest taken away unsaid. Only what
// everybody at the table saw: moves made, trump chosen, tricks won.
const LOG_LINES = 12;
function logLine(text) {
  const log = $("#sr-log");
  if (!log || !text) return;
  const line = document.createElement("p");
  line.textContent = text;
  log.append(line);
  while (log.children.length > LOG_LINES) log.firstElementChild.remove();
}

function announce(msg, next, done) {
  const name = R.seatName(msg.actor, t);
  const action = msg.action || "";
  let line = "";
  // The viewer's own lines have their own words ("You choose", "You win the trick").
  if (CARD_RE.test(action)) line = t("played", { name, card: spokenName(action, t) });
  else if (action.startsWith("trump:")) {
    line = t(R.isViewer(msg.actor) ? "you_chose" : "chose", { name, choice: R.choiceText(next, t) });
  } else if (action) {
    const said = R.saidText(msg.actor, action, t);
    // "Oost: past", "Est : passe" (French puts a space before the colon).
    line = R.isViewer(msg.actor) ? said : t("name_line", { name, text: said });
  }
  if (done && done.winner !== null && done.winner !== undefined) {
    const pts = done.points ?? (next.tricks || []).at(-1)?.points ?? "";
    const key = `${R.isViewer(done.winner) ? "you_won_trick" : "won_trick"}${Number(pts) === 1 && pts !== "" ? "_one" : ""}`;
    line += `. ${t(key, { name: R.seatName(done.winner, t), n: pts })}`;
  }
  logLine(line);
}

function sleep(ms) {
  if (ui.fast || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      ui.wake = null;
      resolve();
    }
    ui.wake = done;
  });
}

async function collectTrick() {
  const view = ui.trickView;
  if (!view || view.collecting) return;
  view.collecting = true;
  draw();
  await new Promise((r) => setTimeout(r, ui.fast ? 0 : COLLECT_MS));
  if (ui.trickView === view) {
    ui.trickView = null;
    draw();
  }
}

async function pump() {
  if (ui.busy) return;
  ui.busy = true;
  const gen = ui.gen;
  while (ui.queue.length && gen === ui.gen) {
    // Hold the previous step on screen long enough to be read (not in fast play); the
    // echo of South's own card, on screen since the click, needs no hold.
    const echo = ui.optimistic !== null && ui.queue[0].actor === ui.state.seat;
    if (!echo) await sleep(ui.holdUntil - Date.now());
    if (gen !== ui.gen) break;
    if (ui.trickView) await collectTrick();
    if (gen !== ui.gen || !ui.queue.length) break;
    const msg = ui.queue.shift();
    const prev = ui.state;
    const next = msg.state;
    const mine = msg.actor === next.seat;
    const done = completedTrick(prev, next, msg);
    const note = dealNote(prev, next);
    if (mine) {
      ui.pending = null;
      ui.optimistic = null;
      ui.error = "";
    }
    ui.state = next;
    ui.shownSeq = msg.seq;
    if (done) {
      ui.trickView = { ...done, collecting: false };
      if (!note) ui.note = "";
      clearTimeout(ui.collectTimer);
      ui.collectTimer = setTimeout(collectTrick, ui.fast ? 600 : TRICK_PAUSE_MS);
    }
    if (note) ui.note = note;
    announce(msg, next, done);
    // Every step stays alone on screen for a moment, the player's own card too.
    let wait = BOT_PAUSE_MS;
    if (done) wait = Math.max(wait, TRICK_PAUSE_MS);
    ui.holdUntil = Date.now() + wait;
    ui.busy = ui.queue.length > 0;
    draw();
    ui.busy = true;
  }
  if (gen === ui.gen) {
    ui.busy = false;
    draw();
  }
}

// The seat this page was drawn for (null: a spectator's page).
const pageSeat = tableNode ? (ui.table.seat ?? null) : undefined;

function onMessage(msg) {
  ui.lastHeard = Date.now();
  if (typeof msg.now === "number") {
    skews.push(msg.now - ui.lastHeard);
    if (skews.length > 20) skews.shift();
  }
  if (msg.type === "pong") {
    if (ui.pingAt) ui.rtt = Date.now() - ui.pingAt;
    ui.pingAt = 0;
    return;
  }
  if (msg.type === "snapshot" && msg.table && pageSeat !== undefined && (msg.table.seat ?? null) !== pageSeat) {
    // The seat changed hands since the page was drawn (its socket was released and
    // reconnected as who we are now): the server draws the page for that.
    window.location.reload();
    return;
  }
  if (msg.type === "snapshot" && msg.arrived) {
    // The seat was the bot's until this socket opened (late at a tournament's table, or a
    // replacement): say so once.
    ui.note = t(msg.arrived === "replaced" ? "arrived_replaced" : "arrived_late");
  }
  if (msg.type === "snapshot" && msg.chat) {
    for (const line of msg.chat) addChat({ ...line, history: true }); // the chat so far
  }
  if (msg.type === "snapshot" && msg.state) {
    // Snapshots and events travel different ways and may cross: never step back.
    const n = Number(msg.seq);
    if (n < ui.seq || (n === ui.seq && (ui.busy || ui.queue.length || ui.pending !== null))) {
      // Nothing new. A snapshot asked for before this page's own move reached the
      // server (on open, by the watchdog) says the card is still in the hand: the move
      // stays where the click put it and still gets its echo or refusal (or, with no
      // answer at all, the connection is made anew: see ANSWER_MS).
      return;
    }
    ui.gen += 1;
    if (n > ui.seq) ui.movedAt = Date.now();
    ui.queue.length = 0;
    ui.busy = false;
    ui.pending = null;
    ui.optimistic = null;
    ui.trickView = null;
    ui.state = msg.state;
    ui.seq = ui.shownSeq = Number(msg.seq);
    // "Not connected: play it again once the table is back": the table is back.
    if (["not_sent", "slow_down", "too_many_tables"].some((k) => ui.error === t(k))) ui.error = "";
    if (msg.table) setTable(msg.table);
    draw();
  } else if (msg.type === "event" && msg.state) {
    const n = Number(msg.seq);
    if (n <= ui.seq) return; // already have it
    if (n !== ui.seq + 1) {
      socket.requestSnapshot();
      return;
    }
    ui.seq = n;
    ui.movedAt = Date.now();
    // The echo of the page's own move: a round trip measured (see answerMs).
    if (ui.pending !== null && msg.actor === msg.state.seat) ui.rtt = ui.movedAt - ui.sentAt;
    ui.deadline = msg.deadline ?? null;
    ui.queue.push(msg);
    pump();
  } else if (msg.type === "table" && msg.table) {
    setTable({ ...msg.table, seat: ui.table.seat });
    draw();
  } else if (msg.type === "chat") {
    addChat(msg);
  } else if (msg.type === "closed") {
    if (msg.reason === "tournament") tournamentClosed(root, msg.reason, msg.record);
    else markClosed(msg.reason, msg.record);
  } else if (msg.type === "error") {
    onError(msg);
  }
}

function setTable(table) {
  ui.table = { ...ui.table, ...table };
  if ("deadline" in table) ui.deadline = table.deadline ?? null;
  R.setView(ui.table.seat, ui.table.players);
  const chat = $("#chat");
  if (chat) chat.hidden = !ui.table.chat;
}

function addChat(msg) {
  const log = $("#chat-log");
  if (!log) return;
  // A line the history already brought (a snapshot after a reconnect) is shown once.
  if (msg.id && log.querySelector(`[data-chat-id="${Number(msg.id)}"]`)) return;
  const line = document.createElement("li");
  if (msg.id) line.dataset.chatId = String(Number(msg.id));
  const who = document.createElement("b");
  who.textContent = t("name_line", { name: msg.name, text: "" });
  line.append(who, document.createTextNode(msg.text)); // text, never HTML
  line.dataset.chatLine = "";
  log.append(line);
  if (!msg.history && !root.classList.contains("board-open") && $("#chat") && !$("#chat").hidden) {
    unreadChat(true);
  }
  while (log.children.length > 50) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

$("#chat-form")?.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = $("#chat-input");
  const text = input.value.trim();
  if (!text) return;
  socket.send({ type: "chat", text: text.slice(0, 200) });
  input.value = "";
});

// The server stopped this game (its tournament closed or the play window ended): the
// note says so and links to the results; the cards no longer answer.
function markClosed(reason, record) {
  if (reason === "bot") tournamentClosed(root, reason, record);
  ui.closed = true;
  ui.pending = null;
  ui.optimistic = null;
  root.dataset.closed = "true";
  const deadline = $("[data-set-deadline]"); // the set's end no longer concerns this table
  if (deadline) deadline.hidden = true;
  const note = $("#closed-note");
  if (note) {
    const text = { as_played: "closed_as_played", removed: "removed", bot: "closed_bot", abandoned: "closed_abandoned", stopped: "closed_stopped" }[reason] || (reason ? "closed" : null);
    if (text) note.querySelector("[data-closed-text]").textContent = t(text);
    const link = note.querySelector("[data-results-link]");
    const results = root.dataset.resultsUrl;
    if (reason && reason !== "removed" && link && results) {
      link.href = results;
      link.textContent = t("see_results");
    }
    note.hidden = false;
  }
  draw();
}

function onError(msg) {
  const card = ui.pending;
  ui.pending = null;
  ui.optimistic = null; // a card moved at once goes back to the hand
  if (msg.code === "closed") {
    markClosed(null);
    // The note says it (with a link); the server's words only if there is no note.
    ui.error = $("#closed-note") ? "" : msg.message || t("refused");
  } else if (msg.code === "rate_limited") {
    // The server's words are English. Only a move of the player's own is theirs to
    // slow down: the page's own asking (snapshots on reconnects of several tabs) is not.
    // Over the sockets budget (too many tables open) is said: this page cannot play.
    if (card) ui.error = t("slow_down");
    else if (/sockets/.test(msg.message || "")) ui.error = t("too_many_tables");
  } else if (msg.code === "stale" || msg.code === "not_your_turn") {
    ui.error = msg.code === "not_your_turn" ? t("wait_turn") : "";
    socket.requestSnapshot();
  } else {
    ui.error = msg.message || t("refused");
  }
  draw();
  if (card && CARD_RE.test(card)) {
    const btn = $(`#hand [data-card="${card}"]`);
    if (btn) {
      btn.classList.add("refused");
      btn.focus();
      setTimeout(() => btn.classList.remove("refused"), 500);
    }
  }
}

function act(action) {
  if (ui.closed) {
    markClosed(null);
    return;
  }
  if (!interactive()) return;
  const s = ui.state;
  if (s.to_move !== s.seat || s.game_over) {
    ui.error = t("wait_turn");
    draw();
    return;
  }
  // Only over an open connection: a click made while offline is not kept to be
  // replayed later (the player could not know when, or whether, it would count).
  if (!socket.send({ type: "action", action, seq: ui.seq })) {
    ui.error = t("not_sent");
    draw();
    return;
  }
  ui.pending = action;
  ui.sentAt = Date.now();
  ui.error = "";
  if (CARD_RE.test(action) && (s.legal || []).includes(action)) {
    // A legal card leaves the hand at once; the previous trick, if still lying in the
    // middle, is taken in now. A refusal (onError) puts the card back.
    ui.optimistic = action;
    clearTimeout(ui.collectTimer);
    ui.trickView = null;
  }
  draw();
}

function setStatus(status) {
  if (status === "open") ui.handshakeRtt = socket.rtt; // the link's speed, from the start
  if (status === "open" && !ui.connected) {
    ui.connected = true;
    draw();
  }
  const conn = $("#conn");
  const text = { closed: t("conn_lost"), reconnecting: t("conn_retry") }[status] || "";
  conn.textContent = text;
  conn.hidden = !text;
  if (status === "closed" && ui.pending !== null) {
    // The answer is lost with the connection: the snapshot on reconnect tells whether
    // the card counted; until then it is shown back in the hand.
    ui.pending = null;
    ui.optimistic = null;
    draw();
  }
}

// --- controls --------------------------------------------------------------------

function moveFocus(container, selector, ev) {
  const items = [...container.querySelectorAll(selector)];
  const i = items.indexOf(document.activeElement);
  if (i === -1) return;
  const keys = { ArrowLeft: i - 1, ArrowUp: i - 1, ArrowRight: i + 1, ArrowDown: i + 1, Home: 0, End: items.length - 1 };
  if (!(ev.key in keys)) return;
  ev.preventDefault();
  items[(keys[ev.key] + items.length) % items.length].focus();
}

// Keyboard or pointer: a key that moves or acts says keyboard, a mouse or a finger says
// not (a click with detail 0 came from Enter/Space). Kept for the next pages.
function setKeyboard(on) {
  if (ui.keyboard === on) return;
  ui.keyboard = on;
  store.set("keyboard", on ? "1" : "0");
}
const KEYBOARD_KEYS = ["Tab", "Enter", " ", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"];
document.addEventListener(
  "keydown",
  (ev) => {
    if (!KEYBOARD_KEYS.includes(ev.key)) return;
    const lost = !document.activeElement || document.activeElement === document.body;
    setKeyboard(true);
    // Tab with the focus nowhere on the player's turn: to the hand (or the choices),
    // not through the whole page from its top.
    if (ev.key === "Tab" && !ev.shiftKey && lost && ui.wasMyTurn && endBox.hidden) {
      const target = $("#choices:not([hidden]) button") || $("#hand [data-legal]");
      if (target) {
        ev.preventDefault();
        target.focus();
      }
    }
  },
  true,
);
document.addEventListener("pointerdown", (ev) => {
  if (ev.pointerType) setKeyboard(false);
});
$("#hand").addEventListener("click", (ev) => {
  const btn = ev.target.closest("button[data-card]");
  setKeyboard(ev.detail === 0);
  if (btn) act(btn.dataset.card);
});
$("#hand").addEventListener("keydown", (ev) => moveFocus($("#hand"), "button[data-card]", ev));
$("#choices").addEventListener("click", (ev) => {
  const btn = ev.target.closest("button[data-action]");
  setKeyboard(ev.detail === 0);
  if (btn) act(btn.dataset.action);
});
$("#choices").addEventListener("keydown", (ev) => moveFocus($("#choices"), "button", ev));

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

const fastBox = $("#fast-play");
function setFast(on, { persist = true } = {}) {
  ui.fast = on;
  fastBox.checked = on;
  root.classList.toggle("fast", on);
  if (on && ui.wake) ui.wake();
  if (!persist) return;
  store.set("fastPlay", on ? "1" : "0");
  const url = root.dataset.fastPlayUrl;
  if (url) {
    const body = new URLSearchParams({ fast_play: on ? "1" : "0" });
    fetch(url, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
    }).catch(() => {});
  }
}
fastBox.addEventListener("change", () => setFast(fastBox.checked));
{
  const saved = store.get("fastPlay");
  const server = (root.dataset.fastPlay || "").toLowerCase() === "true";
  setFast(saved === null ? server : saved === "1", { persist: saved !== null && (saved === "1") !== server });
}

let scaleIdx = SCALES.indexOf(Number(store.get("scale")));
if (scaleIdx === -1) scaleIdx = SCALES.indexOf(1);
function applyScale() {
  root.style.setProperty("--scale", String(SCALES[scaleIdx]));
  $("#btn-smaller").disabled = scaleIdx === 0;
  $("#btn-larger").disabled = scaleIdx === SCALES.length - 1;
  store.set("scale", String(SCALES[scaleIdx]));
}
// At the end of the range a button is disabled: the focus goes to the other one, not to
// the page.
$("#btn-smaller").addEventListener("click", () => {
  scaleIdx = Math.max(0, scaleIdx - 1);
  applyScale();
  if ($("#btn-smaller").disabled) $("#btn-larger").focus();
});
$("#btn-larger").addEventListener("click", () => {
  scaleIdx = Math.min(SCALES.length - 1, scaleIdx + 1);
  applyScale();
  if ($("#btn-larger").disabled) $("#btn-smaller").focus();
});
applyScale();

const scoresBtn = $("#btn-scores");
function setBoard(open) {
  root.classList.toggle("board-open", open);
  scoresBtn.setAttribute("aria-expanded", String(open));
  if (open) unreadChat(false);
  // Lying over the table (a phone), the board hides the hand: Tab must not reach cards
  // nobody sees (Enter there would play one).
  const covered = open && boardOverTable.matches;
  for (const part of [$("#hand"), $("#choices")]) if (part) part.inert = covered;
}
// A chat line while the board (where the chat lives on a phone) is closed: a mark on
// its button until it is opened.
function unreadChat(on) {
  scoresBtn?.classList.toggle("unread", on);
  const mark = scoresBtn?.querySelector("[data-unread]");
  if (mark) mark.hidden = !on;
}
scoresBtn.addEventListener("click", () => setBoard(!root.classList.contains("board-open")));
$("#board-close")?.addEventListener("click", () => {
  setBoard(false);
  scoresBtn.focus();
});
// Where the board lies over the table (site.css: a phone upright, or any screen on its
// side too short for the felt and the hand one below the other) it starts closed and
// Escape closes it; elsewhere it is a column beside the table and starts open.
const boardOverTable = window.matchMedia(
  "(max-width: 899.98px), (orientation: landscape) and (max-height: 520px)",
);
// The end dialog closes (the final table stays in view) and opens again.
const endBox = $("#end");
const endReopen = $("[data-end-reopen]");
$("[data-end-close]")?.addEventListener("click", () => {
  endBox.dataset.dismissed = "1";
  endBox.hidden = true;
  syncEndModal();
  if (endReopen) {
    endReopen.hidden = false;
    endReopen.focus();
  }
});
endReopen?.addEventListener("click", () => {
  delete endBox.dataset.dismissed;
  draw();
});
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Tab" && !endBox.hidden) {
    // The open end dialog keeps the focus: Tab past its last control comes back to its
    // first, Shift+Tab before its first to its last.
    const items = R.focusables(endBox);
    if (!items.length) return;
    const i = items.indexOf(document.activeElement);
    const out = !endBox.contains(document.activeElement);
    // Inside but on none of them (a scroller the browser lets the focus rest on): the
    // browser's own Tab order goes on inside the dialog.
    if (!out && i === -1) return;
    if (ev.shiftKey && (out || i === 0)) {
      ev.preventDefault();
      items.at(-1).focus();
    } else if (!ev.shiftKey && (out || i === items.length - 1)) {
      ev.preventDefault();
      items[0].focus();
    }
    return;
  }
  if (ev.key !== "Escape") return;
  if (!endBox.hidden) $("[data-end-close]")?.click(); // the end dialog closes first
  else if (root.classList.contains("board-open") && boardOverTable.matches) {
    // As its Close button: the focus goes back to Scores, not to the page (it was on
    // a control of the board, which is hidden now).
    const inside = $("#board")?.contains(document.activeElement);
    setBoard(false);
    if (inside || document.activeElement === document.body) scoresBtn.focus();
  }
});
setBoard(!boardOverTable.matches);

// --- go ------------------------------------------------------------------------
// The seat was given to someone else or the person got up elsewhere (the server closed
// the socket with CLOSE_SEAT_RELEASED): the hand goes at once, and the page is left for
// the tournament's tables (a replaced player may no longer watch a sealed table) or
// drawn again as whoever the person is now.
function seatReleased() {
  ui.closed = true;
  if (ui.state) ui.state = { ...ui.state, hand: [], legal: [] };
  draw();
  const tables = document.querySelector("a[data-tournament-link]");
  if (tables) window.location.assign(tables.href);
  else window.location.reload();
}
const socket = new GameSocket(root.dataset.wsPath, { onMessage, onStatus: setStatus, onReleased: seatReleased });
draw();
if (root.dataset.wsPath) socket.connect();

// A bot turn can be lost with a crashed server process. While the table waits on a
// bot and hears nothing, it asks for a snapshot now and then; answering one, the server
// re-queues a bot turn that has waited longer than its SWEEP_STUCK_AFTER.
const WATCHDOG_MS = 10000;
const BOTS_SLOW_MS = 20000;
setInterval(() => {
  const s = ui.state;
  // Also while a person is to move: a move made where no event reaches this page (a
  // command run beside an embedded server, a message the channel layer dropped) is found.
  const onBot = s.to_move !== null && s.to_move !== s.seat && !s.game_over && !ui.closed;
  if (onBot && !ui.busy && !ui.queue.length && Date.now() - ui.lastHeard >= WATCHDOG_MS) {
    ui.lastHeard = Date.now();
    socket.requestSnapshot();
  }
  // A bot that has not moved for long (its worker is down): say so, rather than
  // "West is thinking…" for ever; the watchdog above keeps asking meanwhile.
  const player = ui.table.players?.[s.to_move];
  const botTurn = onBot && (player ? Boolean(player.bot) : true);
  const slow = botTurn && !ui.busy && !ui.queue.length && Date.now() - ui.movedAt >= BOTS_SLOW_MS;
  const line = $("[data-bots-slow]");
  if (line && line.hidden === slow) line.hidden = !slow;
}, WATCHDOG_MS / 4);

// A move answered by nothing at all (no echo, no refusal, not a word from the server):
// the socket looks open but is dead (a phone that changed networks keeps one "open" for
// minutes). Start the connection over; the snapshot then tells whether the card counted.
// The wait allows for a slow link: three round trips as last measured, at least 5 s.
const ANSWER_MS = 5000;
function answerMs() {
  return Math.max(ANSWER_MS, 3 * Math.max(ui.rtt || 0, ui.handshakeRtt || 0));
}
setInterval(() => {
  if (ui.pending === null || Date.now() - Math.max(ui.sentAt, ui.lastHeard) < answerMs()) return;
  socket.restart();
}, 500);

// A connection that died without a word (the network gone, a router that dropped it)
// also looks open while nobody moves: with nothing heard for PING_MS the page asks the
// server for a word ("ping", answered at once, no database work) and, with no answer in
// answerMs(), starts over, saying the connection is lost meanwhile. The browser saying
// it went offline or online again starts over at once.
const PING_MS = 10000;
setInterval(() => {
  if (ui.closed || !socket.isOpen()) return;
  const now = Date.now();
  if (ui.pingAt) {
    if (ui.lastHeard >= ui.pingAt) ui.pingAt = 0; // something came meanwhile
    else if (now - ui.pingAt >= answerMs()) {
      ui.pingAt = 0;
      socket.restart();
    }
    return;
  }
  if (now - ui.lastHeard >= PING_MS && socket.send({ type: "ping" })) ui.pingAt = now;
}, 1000);
window.addEventListener("offline", () => socket.restart());
window.addEventListener("online", () => socket.restart({ now: true }));

// For debugging from the console and for tests; not an API.
window.manillenTable = { ui, draw, socket, onMessage };
