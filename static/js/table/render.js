// Pure DOM rendering of one observation. No network, no timers: main.js decides
// what to show when; these functions only draw it.
import { buttonName, display, isRed, parse, rankText, sortHand, spokenName, SUIT_SYMBOL } from "./cards.js";

const SEAT_CLASS = ["south", "west", "north", "east"];
const ANNOUNCE_ACTIONS = ["blind", "look", "mee", "tegen", "pass"];

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of [].concat(children)) if (c) node.append(c);
  return node;
}

// Whose eyes the table is drawn from: `me` is the viewer's seat (0 South for a
// spectator), drawn at the bottom with the partner at the top; `players` names the
// seats (from the snapshot's table facts). A solo game: me = 0, three bots.
const view = { me: 0, person: true, players: null, guestPrefix: "" };

// guestPrefix: the start of every guest's name ("gast-"); drawn apart on the felt, so that
// a phone can leave it out and show what tells the guests apart.
export function setView(me, players, guestPrefix = null) {
  view.person = me !== null && me !== undefined;
  view.me = view.person ? me : 0;
  view.players = players || null;
  if (guestPrefix !== null) view.guestPrefix = guestPrefix;
}

// A spectator's page: no side of its own, the result is told neutrally.
export function isSpectator() {
  return !view.person;
}

// The key of a line about the two sides: a spectator's names them by their seats
// (South–North, West–East) where a player's says US and THEM.
export function sideKey(key) {
  return view.person ? key : `${key}_seats`;
}

// The place on screen (0 bottom, 1 left, 2 top, 3 right) of an absolute seat.
export function rel(seat) {
  return (seat - view.me + 4) % 4;
}

// A pair [team of South/North, team of West/East] as [us, them] for the viewer.
export function ours(pair) {
  const [a, b] = pair || [0, 0];
  return view.me % 2 === 0 ? [a, b] : [b, a];
}

// A seat's label: the name (cut short on a narrow screen, in full as its title) and a
// separate "bot" tag that always shows when the bot plays a person's seat.
function labelSeat(box, seat, t) {
  const name = plainName(seat, t);
  const node = box.querySelector(".name");
  const prefix = view.guestPrefix;
  const guest = prefix && name.length > prefix.length && name.startsWith(prefix) && !isViewer(seat);
  if (guest) {
    // The prefix is a span of its own, left out on a narrow screen (site.css): every
    // guest read "gast-…" there. The whole name stays the title (and is read out).
    node.replaceChildren(el("span", { class: "guest-prefix", text: prefix }), name.slice(prefix.length));
  } else {
    node.textContent = name;
  }
  node.title = name;
  let tag = box.querySelector(".bot-tag");
  const botPlays = botPlaysPerson(seat);
  const away = !botPlays && isAway(seat);
  if ((botPlays || away) && !tag) {
    tag = el("span", { class: "bot-tag" });
    node.after(tag);
  }
  if (tag) {
    tag.hidden = !(botPlays || away);
    tag.textContent = `(${t(botPlays ? "bot" : "away")})`;
    tag.toggleAttribute("data-away", away);
  }
}

// A person's table is closed (no socket) and the bot has not taken the seat yet: the
// others are told who they wait for.
function isAway(seat) {
  const p = view.players?.[seat];
  return Boolean(!(view.person && seat === view.me) && p && p.person && p.away);
}

// "You" for the viewer's own seat, a person's name, else the direction.
function plainName(seat, t) {
  if (view.person && seat === view.me) return t("seat_0");
  const p = view.players?.[seat];
  return p && p.person && p.name ? p.name : t(`compass_${seat}`);
}

// The bot plays a named person's seat (not the viewer's own: their page says so).
function botPlaysPerson(seat) {
  const p = view.players?.[seat];
  return Boolean(!(view.person && seat === view.me) && p && p.person && p.name && p.bot_control);
}

// The seat is the viewer's own (never for a spectator): lines about it read "You win…".
export function isViewer(seat) {
  return view.person && seat === view.me;
}

export function seatName(seat, t) {
  const name = plainName(seat, t);
  return botPlaysPerson(seat) ? `${name} (${t("bot")})` : name;
}

// "5 cards", "1 card".
function cardsLeft(n, t) {
  return n === 1 ? t("one_card") : t("cards_left", { n });
}

// t: the table's strings, for the card's spoken name ("queen of hearts"); the face shows
// the rank and the suit's symbol.
export function cardFace(card, { tag = "span", attrs = {}, t = null } = {}) {
  const { rank, suit } = parse(card);
  const face = el(tag, {
    class: `card face ${isRed(card) ? "red" : "black"}`,
    "aria-label": spokenName(card, t),
    ...attrs,
  });
  face.append(
    el("span", { class: "corner", "aria-hidden": "true" }, [
      el("span", { class: "rank", text: rankText(rank, t) }),
      el("span", { class: "suit", text: SUIT_SYMBOL[suit] }),
    ]),
    el("span", { class: "pip", "aria-hidden": "true", text: SUIT_SYMBOL[suit] }),
  );
  return face;
}

export function cardBack(extraClass = "") {
  return el("span", { class: `card back ${extraClass}`.trim(), "aria-hidden": "true" });
}

// What the dealer chose, shown under his name for the whole deal.
export function choiceText(state, t) {
  if (!state.trump_chosen) return "";
  const mult = state.multiplier > 1 ? ` \u00d7${state.multiplier}` : "";
  if (state.no_trump) return `${t("no_trump")}${mult}`;
  // The suit by name too: a screen reader says "♥" as "black heart suit", or nothing.
  if (state.trump) return `${t("trump")} ${SUIT_SYMBOL[state.trump]} ${t(`suit_${state.trump}`)}${mult}`;
  return "";
}

function choiceNode(state, t) {
  const text = choiceText(state, t);
  if (!text) return null;
  const node = el("span", { class: "choice-text" });
  if (!state.no_trump && state.trump) {
    const mult = state.multiplier > 1 ? ` \u00d7${state.multiplier}` : "";
    node.append(
      `${t("trump")} `,
      el("span", { class: isRed(`7${state.trump}`) ? "red" : "", "aria-hidden": "true", text: SUIT_SYMBOL[state.trump] }),
      el("span", { class: "visually-hidden", text: t(`suit_${state.trump}`) }),
      mult,
    );
  } else {
    node.textContent = text;
  }
  return node;
}

export function renderSeats(root, state, t) {
  const over = state.phase === "game_over" || state.game_over;
  for (let seat = 0; seat < 4; seat += 1) {
    const box = root.querySelector(`.seat[data-seat="${rel(seat)}"]`);
    if (!box) continue;
    const toMove = !over && state.to_move === seat;
    box.classList.toggle("to-move", toMove);
    // The dot is only drawn (aria-hidden); the text after the name says it.
    box.querySelector(".dot").hidden = !toMove;
    const toPlay = box.querySelector(".to-play-text");
    if (toPlay) toPlay.hidden = !toMove;
    labelSeat(box, seat, t);
    const sub = box.querySelector(".seat-sub");
    const parts = [];
    if (state.dealer === seat) {
      // The viewer's own seat reads "You deal", not "You deals".
      parts.push(document.createTextNode(t(isViewer(seat) ? "you_deal" : "deals")));
      const choice = choiceNode(state, t);
      if (choice) parts.push(choice);
    }
    if (state.dealer === seat && state.turned_card) {
      parts.push(document.createTextNode(t("turned", { card: display(state.turned_card, t) })));
    }
    for (const [who, word] of state.announcements || []) {
      if (who === seat) parts.push(document.createTextNode(saidText(seat, word, t)));
    }
    sub.replaceChildren();
    parts.forEach((p, i) => {
      if (i) sub.append(" \u00b7 ");
      sub.append(p);
    });
    const backs = box.querySelector(".backs");
    if (backs) {
      const n = (state.hand_sizes || [])[seat] ?? 0;
      backs.replaceChildren(...Array.from({ length: n }, () => cardBack("small")));
      backs.setAttribute("aria-label", cardsLeft(n, t));
    }
  }
}

// What a seat announced ("is in"); the viewer's own: "You are in".
export function saidText(seat, word, t) {
  return t(isViewer(seat) ? `you_said_${word}` : `said_${word}`);
}

// cards: [[seat, "KS"], ...]; winner: seat or null once the trick is complete.
// t: each card is named for screen readers with who played it ("West: 7♥").
export function renderTrick(container, cards, { winner = null, collecting = false, leading = null, t = null } = {}) {
  container.replaceChildren();
  container.classList.toggle("complete", winner !== null);
  container.classList.toggle("collecting", collecting);
  container.dataset.winner = winner === null ? "" : SEAT_CLASS[rel(winner)];
  for (const [seat, card] of cards) {
    const label = t ? t("played", { name: seatName(seat, t), card: spokenName(card, t) }) : display(card);
    const face = cardFace(card, {
      t,
      attrs: { "data-trick-card": card, "data-seat": seat, role: "img", "aria-label": label },
    });
    face.classList.add("played", `from-${SEAT_CLASS[rel(seat)]}`);
    if (winner === seat) face.classList.add("winning");
    if (leading === seat) face.classList.add("leading");
    container.append(face);
  }
}

// keyboard: the player uses the keyboard, so bring focus back to the hand on his turn
// when nothing else holds it (the card he played is gone with its focus).
export function renderHand(container, state, { interactive, t, keyboard = false }) {
  const focused = document.activeElement?.dataset?.card;
  const nothingFocused = !document.activeElement || document.activeElement === document.body;
  const hadFocus = container.contains(document.activeElement) || (keyboard && nothingFocused);
  container.replaceChildren();
  if (state.hand === null || state.hand === undefined) {
    const n = (state.hand_sizes || [])[state.seat ?? 0] ?? 8;
    container.classList.add("face-down");
    // A spectator holds no hand: the backs are South's, counted.
    const watching = state.seat === null || state.seat === undefined;
    container.setAttribute(
      "aria-label",
      watching
        ? cardsLeft(n, t)
        : isViewer(state.dealer)
          ? t("hand_face_down_you") // "until You has chosen" read wrong in every language
          : t("hand_face_down", { name: seatName(state.dealer, t) }),
    );
    for (let i = 0; i < n; i += 1) container.append(cardBack());
    return;
  }
  container.classList.remove("face-down");
  container.setAttribute("aria-label", t("your_cards"));
  const legal = new Set(interactive ? state.legal || [] : []);
  const myTurn = interactive && state.phase === "play" && state.to_move === state.seat;
  container.classList.toggle("my-turn", myTurn);
  for (const card of sortHand(state.hand, state.trump_chosen ? state.trump : null)) {
    const ok = legal.has(card);
    const btn = cardFace(card, {
      tag: "button",
      t,
      attrs: {
        type: "button",
        "data-card": card,
        "data-legal": ok || null,
        "aria-label": myTurn && !ok ? `${buttonName(card, t)} (${t("not_allowed_now")})` : buttonName(card, t),
      },
    });
    if (myTurn && !ok) btn.classList.add("dim");
    container.append(btn);
  }
  const again = focused && container.querySelector(`[data-card="${focused}"]`);
  if (again) again.focus();
  else if (hadFocus && myTurn) container.querySelector("[data-legal]")?.focus();
}

export function renderChoices(container, state, { interactive, t, keyboard = false }) {
  const nothingFocused = !document.activeElement || document.activeElement === document.body;
  const hadFocus = container.contains(document.activeElement) || (keyboard && nothingFocused);
  // The choice the player is on stays the one focused through a redraw (the end of a
  // trick, a table message): Enter must choose what they moved to, not the first again.
  const focused = container.contains(document.activeElement)
    ? document.activeElement.dataset?.action
    : null;
  container.replaceChildren();
  const legal = interactive && state.to_move === state.seat ? state.legal || [] : [];
  const trumps = legal.filter((a) => a.startsWith("trump:"));
  const extras = legal.filter((a) => ANNOUNCE_ACTIONS.includes(a));
  if (!trumps.length && !extras.length) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  // Named by what is asked: trump, in or against, blind or look.
  let asked = "choose_trump";
  if (!trumps.length) {
    if (extras.includes("mee")) asked = "announce_mee";
    else if (extras.includes("tegen")) asked = "announce_tegen";
    else if (extras.includes("blind") || extras.includes("look")) asked = "you_deal_blind";
  }
  container.setAttribute("aria-label", t(asked));
  for (const action of trumps) {
    const suit = action.slice(6);
    const isNone = suit === "none";
    const label = isNone ? t("no_trump_button") : `${SUIT_SYMBOL[suit]} ${t(`suit_${suit}`)}`;
    container.append(
      el("button", {
        type: "button",
        class: `choice trump-${suit} ${isNone ? "none" : isRed(`7${suit}`) ? "red" : "black"}`,
        "data-action": action,
        "data-trump": suit,
        text: label,
      }),
    );
  }
  for (const action of extras) {
    container.append(
      el("button", {
        type: "button",
        class: `choice announce ${action}`,
        "data-action": action,
        "data-announce": action,
        text: t(`action_${action}`),
      }),
    );
  }
  const again = focused && container.querySelector(`[data-action="${focused}"]`);
  if (again) again.focus();
  else if (hadFocus) container.querySelector("button")?.focus();
}

// The bot (or, later, the player) in `seat` is thinking: its seat shows it; null: nobody.
export function markThinking(root, seat) {
  root.querySelectorAll(".seat[data-seat]").forEach((box) => {
    box.classList.toggle("thinking", seat !== null && Number(box.dataset.seat) === seat);
  });
}

// thinking: the seat to move is deciding now (not a step being replayed on screen).
export function promptText(state, t, { thinking = false } = {}) {
  if (state.phase === "game_over" || state.game_over) return t("game_over");
  const seat = state.seat;
  const legal = state.legal || [];
  const mine = view.person ? view.players?.[seat] : null;
  if (mine?.bot_control && state.to_move === seat) return t("bot_plays_you");
  if (seat !== null && seat !== undefined && state.to_move === seat) {
    if (state.phase === "trump") return t("you_deal_choose");
    if (state.phase === "blind") return t("you_deal_blind");
    if (state.phase === "announce") {
      // The choice may cover the dealer's line: the prompt names the trump itself.
      const trump = state.no_trump ? t("no_trump") : `${t("trump")} ${SUIT_SYMBOL[state.trump] ?? ""}`;
      if (legal.includes("mee")) return `${trump} — ${t("announce_mee")}`;
      if (legal.includes("tegen")) return `${trump} — ${t("announce_tegen")}`;
      return t("your_turn");
    }
    const cards = state.current_trick?.cards || [];
    return cards.length === 0 ? t("you_lead") : t("you_follow");
  }
  const who = seatName(state.to_move, t);
  // Someone who left (no socket, the bot not yet in their seat): not "thinking".
  if (isAway(state.to_move)) return t("someone_away", { name: plainName(state.to_move, t) });
  if (state.phase === "trump" || state.phase === "blind") {
    if (state.hand === null && seat !== null && state.dealer === (seat + 2) % 4) {
      return t("partner_chooses", { name: seatName(state.dealer, t) });
    }
    return t("someone_chooses", { name: who });
  }
  return t(thinking ? "someone_thinking" : "someone_to_move", { name: who });
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}

function boardRow(cells, cls) {
  return el(
    "tr",
    { class: cls },
    cells.map((c, i) => el(i === 0 ? "th" : "td", { scope: i === 0 ? "row" : null }, c)),
  );
}

function markFor(entry, t) {
  const bits = [];
  if (entry.no_trump) bits.push(t("nt_short"));
  else if (entry.trump) {
    bits.push(el("span", { class: isRed(`7${entry.trump}`) ? "red" : "", text: SUIT_SYMBOL[entry.trump] }));
  }
  if (entry.multiplier > 1) bits.push(el("span", { class: "mult", text: ` \u00d7${entry.multiplier}` }));
  return el("span", { class: "mark" }, bits);
}

export function renderBoard(tbody, tfoot, state, t) {
  tbody.replaceChildren();
  for (const entry of state.board || []) {
    const [w, z] = ours(entry.written);
    const pts = entry.card_points ? ours(entry.card_points) : [];
    const row = boardRow(
      [String(entry.deal), markFor(entry, t), w ? String(w) : "\u00b7", z ? String(z) : "\u00b7"],
      "done",
    );
    if (pts.length) row.title = t(sideKey("card_points"), { wij: pts[0], zij: pts[1] });
    tbody.append(row);
  }
  const over = state.phase === "game_over" || state.game_over;
  if (!over && state.deal_number) {
    const [w, z] = ours(state.team_points);
    const cur = {
      trump: state.trump_chosen ? state.trump : null,
      no_trump: state.trump_chosen && state.no_trump,
      multiplier: state.multiplier,
    };
    const row = boardRow([String(state.deal_number), markFor(cur, t), String(w), String(z)], "current");
    row.title = t("current_deal_points");
    tbody.append(row);
  }
  const [sw, sz] = ours(state.scores);
  const rows = [boardRow([t("total"), "", String(sw), String(sz)], "total")];
  // A match of several games (flemish-table, french): each finished game's totals and
  // the games each side has won.
  const won = state.games_won || [0, 0];
  if (isMatch(state)) {
    (state.game_scores || []).forEach((pair, i) => {
      const [a, b] = ours(pair);
      rows.push(boardRow([t("game_n", { n: i + 1 }), "", String(a), String(b)], "game"));
    });
    const [gw, gz] = ours(won);
    const row = boardRow([t("games_won"), "", String(gw), String(gz)], "games");
    row.dataset.gamesWon = `${gw}-${gz}`;
    rows.push(row);
  }
  tfoot.replaceChildren(...rows);
}

// A game of fixed deals: "deal 3 of 12" in the toolbar (hidden in a game to 101).
export function renderDealCount(node, state, t) {
  if (!node) return;
  node.hidden = !state.deals;
  if (state.deals) node.textContent = t("deal_of", { n: state.deal_number, total: state.deals });
}

// The end of the game: a dialog over the table; closed (data-dismissed) it leaves the
// final table in view, and the "reopen" button brings it back.
// Several games (a match of the table or french presets), as far as can be told yet.
export function isMatch(state) {
  // (a single game, of fixed deals too, also ends with one game won: not a match)
  return state.game_index > 0 || state.outcome?.reason === "match";
}

export function renderEnd(box, state, t, reopen = null) {
  const over = state.phase === "game_over" || state.game_over;
  if (!over) {
    box.hidden = true;
    box.removeAttribute("data-game-over");
    box.removeAttribute("data-score");
    if (reopen) reopen.hidden = true;
    return;
  }
  // The whole match counts (every game's total), as the score saved and ranked does.
  const games = state.game_scores || [];
  const totals = games.length
    ? games.reduce((sum, [a, b]) => [sum[0] + a, sum[1] + b], [0, 0])
    : state.outcome?.scores || state.scores;
  const [wij, zij] = ours(totals);
  const score = wij - zij;
  const opening = box.hidden;
  const dismissed = box.dataset?.dismissed === "1";
  box.hidden = dismissed;
  if (reopen) reopen.hidden = !dismissed;
  box.setAttribute("data-game-over", "");
  box.setAttribute("data-score", String(score));
  box.querySelector("[data-end-wij]").textContent = String(wij);
  box.querySelector("[data-end-zij]").textContent = String(zij);
  box.querySelector("[data-end-score]").textContent = signed(score);
  const myTeam = view.me % 2;
  // wij/zij are the viewer's team and the other; the outcome names teams absolutely.
  const winner = state.outcome ? state.outcome.winner : wij > zij ? myTeam : wij < zij ? 1 - myTeam : null;
  const [us, them] = ours(state.outcome?.games_won || state.games_won || [0, 0]);
  const match = state.outcome?.reason === "match";
  const own = box.querySelector(".end-score");
  if (own) own.hidden = !view.person; // a spectator has no score of their own
  let title;
  if (!view.person) {
    // A spectator has no side: who won, by the teams' seats, without "you" (the totals
    // below are South–North's and West–East's: table.html).
    title = winner === 0 ? t("ns_won") : winner === 1 ? t("we_won") : t("draw");
  } else if (winner === null || winner === undefined) title = t("draw");
  else if (winner === myTeam) title = t(match ? "won_match" : state.deals ? "won_deals" : "won", { us, them });
  else title = t(match ? "lost_match" : state.deals ? "lost_deals" : "lost", { us, them });
  // A score "0–2" stays on one line (a phone's narrow dialog broke it after the dash).
  box.querySelector("[data-end-title]").textContent = title.replace(/(\d)([–-])(\d)/g, "$1\u2060$2\u2060$3");
  if (opening && !dismissed) {
    // Focus goes into the dialog: its main action, else its first control.
    endMainAction(box)?.focus();
  }
}

// The dialog's main action, by what matters most: the tournament's tables, its standings
// (before "a free game", which is not in the tournament), a rematch, another game; else
// its first control.
const MAIN_ACTIONS = ["[data-tables-link]", "[data-standings-link]", "[data-rematch]", "[data-new-game]"];
export function endMainAction(box) {
  for (const sel of MAIN_ACTIONS) {
    const node = box.querySelector(sel);
    const shown = node && !node.closest?.("[hidden]") && (node.getClientRects?.().length ?? 1) > 0;
    if (shown) return node;
  }
  return focusables(box)[0] || null;
}

// The controls of a box that take the focus by Tab, in order (shown ones only).
export function focusables(box) {
  const sel = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";
  return [...box.querySelectorAll(sel)].filter((n) => n.getClientRects().length > 0 && !n.closest("[hidden], [inert]"));
}

export { signed };
