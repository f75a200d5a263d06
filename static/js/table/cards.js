// Card text <-> what people see. Engine notation: rank "7 8 9 J Q K A T" + suit "S H D C".

export const SUITS = ["S", "H", "C", "D"]; // alternating colours when no trump is chosen
export const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export const RED = new Set(["H", "D"]);
// High to low, the same in every suit: 10 (manille) A K Q J 9 8 7.
export const RANK_ORDER = ["T", "A", "K", "Q", "J", "9", "8", "7"];

// A card's points (engine/cards.py RANK_POINTS): 10 5, A 4, K 3, Q 2, J 1, the rest 0.
const RANK_POINTS = { T: 5, A: 4, K: 3, Q: 2, J: 1 };
export function cardPoints(card) {
  return RANK_POINTS[card.slice(0, -1)] ?? 0;
}

// The letter a face shows in the page's language (R/D/V in French): the table's strings
// letter_K/Q/J; without them, the engine's K/Q/J.
export function rankText(rank, t = null) {
  if (rank === "T") return "10";
  if (t && "KQJ".includes(rank)) {
    const key = `letter_${rank}`;
    const letter = t(key);
    if (letter && letter !== key) return letter;
  }
  return rank;
}

export function parse(card) {
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

export function display(card, t = null) {
  const { rank, suit } = parse(card);
  return rankText(rank, t) + SUIT_SYMBOL[suit];
}

// A card's name for screen readers in the page's language ("queen of hearts", "harten
// vrouw", "dame de cœur"): the keys card_name, rank_* and suitname_* of the table's
// strings. Without them (no t), the symbols people see.
export function spokenName(card, t) {
  if (!t) return display(card);
  const { rank, suit } = parse(card);
  const rankKey = `rank_${rank}`;
  const suitKey = `suitname_${suit}`;
  // 7, 8, 9 and 10 are said as numbers, in the reader's own language.
  const rankWord = "AKQJ".includes(rank) ? t(rankKey) : rankText(rank);
  const suitWord = t(suitKey);
  if (rankWord === rankKey || suitWord === suitKey) return display(card, t);
  return t("card_name", { rank: rankWord, suit: suitWord });
}

// A button's name holds the letter its face shows ("harten heer, K"): a voice-control
// user says what they see (WCAG 2.5.3, label in name). 7 to 10 are said as shown already.
export function buttonName(card, t) {
  const name = spokenName(card, t);
  const { rank } = parse(card);
  return "AKQJ".includes(rank) && name !== display(card, t) ? `${name}, ${rankText(rank, t)}` : name;
}

export function isRed(card) {
  return RED.has(parse(card).suit);
}

// Trump first, then the other suits keeping colours alternating where possible.
export function suitOrder(trump) {
  if (!trump || !SUIT_SYMBOL[trump]) return SUITS.slice();
  const rest = SUITS.filter((s) => s !== trump);
  const out = [trump];
  while (rest.length) {
    const lastRed = RED.has(out[out.length - 1]);
    const i = rest.findIndex((s) => RED.has(s) !== lastRed);
    out.push(rest.splice(i === -1 ? 0 : i, 1)[0]);
  }
  return out;
}

export function sortHand(hand, trump) {
  const order = suitOrder(trump);
  return hand.slice().sort((a, b) => {
    const pa = parse(a);
    const pb = parse(b);
    const ds = order.indexOf(pa.suit) - order.indexOf(pb.suit);
    return ds !== 0 ? ds : RANK_ORDER.indexOf(pa.rank) - RANK_ORDER.indexOf(pb.rank);
  });
}

// Seat whose card wins (or is winning) a trick: the highest trump, else the highest
// card of the suit led. cards: [[seat, "KS"], ...]; trump: suit letter or null.
export function trickWinner(cards, trump) {
  if (!cards.length) return null;
  let [bestSeat, best] = cards[0];
  for (const [seat, card] of cards.slice(1)) {
    const a = parse(card);
    const b = parse(best);
    const higher =
      a.suit === b.suit ? RANK_ORDER.indexOf(a.rank) < RANK_ORDER.indexOf(b.rank) : a.suit === trump;
    if (higher) {
      bestSeat = seat;
      best = card;
    }
  }
  return bestSeat;
}
