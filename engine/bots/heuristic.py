"""A rule-based player built on the tips of the source texts.

- The dealer picks his longest, strongest suit; no trump only with several tens and aces.
- Fatten (vetten) a trick the partner is sure to win; give the cheapest card to a lost trick.
- Cash side-suit tens early, and aces whose ten has gone; keep the trump ten.
- Win cheaply: the lowest card that takes the trick when it is safe to.
"""

from __future__ import annotations

from ..cards import ABOVE, CARD_BY_TEXT, CARD_TEXT, RANK_POINTS, SUIT_MASKS
from .base import PhaseBot, View

_PTS = tuple(RANK_POINTS[i & 7] for i in range(32))
_HONOUR = (0, 0, 0, 0.3, 0.6, 1.0, 2.0, 3.0)  # suit-strength weight by rank index


def _count(m: int) -> int:
    return bin(m).count("1")


def _top(m: int) -> int:
    return m.bit_length() - 1


class HeuristicBot(PhaseBot):
    name = "heuristic"

    # ----------------------------------------------------------------- trump
    @staticmethod
    def suit_strength(hand: int, s: int) -> float:
        m = hand >> (8 * s) & 0xFF
        return 1.5 * _count(m) + sum(_HONOUR[r] for r in range(8) if m >> r & 1)

    def _trump(self, obs: dict, seed: bytes) -> str:
        hand = View(obs).hand
        legal = obs["legal"]
        tens = sum(1 for s in range(4) if hand >> (s * 8 + 7) & 1)
        aces = sum(1 for s in range(4) if hand >> (s * 8 + 6) & 1)
        if "trump:none" in legal and tens >= 3 and tens + aces >= 5:
            return "trump:none"
        best = max(range(4), key=lambda s: (self.suit_strength(hand, s), -s))
        return "trump:" + "SHDC"[best]

    def _announce(self, obs: dict, seed: bytes) -> str:
        v = View(obs)
        if v.trump is None:
            strong = sum(1 for s in range(4) if v.hand >> (s * 8 + 7) & 1) >= 3
        else:
            trumps = v.hand & SUIT_MASKS[v.trump]
            strong = _count(trumps) >= 4 and bool(trumps >> (v.trump * 8 + 7) & 1)
        call = obs["legal"][0]
        return call if strong else "pass"

    # ----------------------------------------------------------------- play
    def _play(self, obs: dict, seed: bytes) -> str:
        v = View(obs)
        legal = 0
        for t in v.legal:
            legal |= 1 << CARD_BY_TEXT[t]
        if not v.trick:
            return CARD_TEXT[self._lead(v, legal)]
        return CARD_TEXT[self._follow(v, legal)]

    def _cheapest(self, v: View, cards: int, keep_trump: bool = True) -> int:
        """Fewest points, non-trumps before trumps, lowest rank."""
        best, key = -1, None
        for c in range(32):
            if cards >> c & 1:
                is_trump = v.trump is not None and (c >> 3) == v.trump
                k = (is_trump and keep_trump, _PTS[c], c & 7, c)
                if key is None or k < key:
                    best, key = c, k
        return best

    def _fattest(self, v: View, cards: int) -> int:
        """Most points, sparing trumps and the last guard of a ten."""
        best, key = -1, None
        for c in range(32):
            if cards >> c & 1:
                is_trump = v.trump is not None and (c >> 3) == v.trump
                k = (not is_trump, _PTS[c], -(c & 7), -c)
                if key is None or k > key:
                    best, key = c, k
        return best

    def _master(self, v: View, c: int) -> bool:
        """No unseen card of the suit beats ``c``."""
        return not (v.unseen & ABOVE[c])

    def _lead(self, v: View, legal: int) -> int:
        trump = v.trump
        # Cash side-suit masters: tens, then aces whose ten is gone.
        for rank in (7, 6, 5):
            for s in range(4):
                if s == trump:
                    continue
                c = s * 8 + rank
                if legal >> c & 1 and self._master(v, c):
                    # Only while the opponents still follow or have no trumps left to ruff.
                    if (
                        trump is None
                        or _count(v.unseen & SUIT_MASKS[trump]) == 0
                        or _count(v.unseen & SUIT_MASKS[s]) >= 2
                    ):
                        return c
        # With many trumps, draw them with a small one (keeping the ten).
        if trump is not None:
            mine = legal & SUIT_MASKS[trump]
            if _count(mine) >= 4 and v.unseen & SUIT_MASKS[trump]:
                low = mine & ~(1 << (trump * 8 + 7)) or mine
                return (low & -low).bit_length() - 1
        # Otherwise a low card from the longest side suit without a master to protect.
        best, key = -1, None
        for c in range(32):
            if legal >> c & 1:
                s = c >> 3
                is_trump = s == trump
                length = _count(v.hand & SUIT_MASKS[s])
                k = (is_trump, _PTS[c], -length, c & 7)
                if key is None or k < key:
                    best, key = c, k
        return best

    def _beats(self, v: View, c: int, w: int) -> bool:
        if (c >> 3) == (w >> 3):
            return c > w
        return v.trump is not None and (c >> 3) == v.trump

    def _follow(self, v: View, legal: int) -> int:
        seat = v.seat
        trick = v.trick
        w_seat, w = trick[0]
        for s, c in trick[1:]:
            if self._beats(v, c, w):
                w_seat, w = s, c
        last = len(trick) == 3
        partner_winning = (w_seat ^ seat) & 1 == 0
        trump = v.trump

        # Could anyone after us take the partner's card?  Approximate with "master".
        def safe(card: int) -> bool:
            if last:
                return True
            s = card >> 3
            if (
                trump is not None
                and s != trump
                and not (v.unseen & SUIT_MASKS[s])
                and v.unseen & SUIT_MASKS[trump]
            ):
                return False  # the next opponent may be void and ruff
            if (
                trump is not None
                and s != trump
                and (v.unseen & SUIT_MASKS[trump])
                and len(trick) == 1
            ):
                # Second hand: the opponent after us may be void; masters are still likely.
                return self._master(v, card) and _count(v.unseen & SUIT_MASKS[s]) >= 2
            return self._master(v, card)

        if partner_winning and safe(w):
            return self._fattest(v, legal)
        winners = [c for c in range(32) if legal >> c & 1 and self._beats(v, c, w)]
        if winners:
            # The cheapest winner that is itself safe; otherwise when the trick is worth it.
            safe_winners = [c for c in winners if safe(c)]
            pool = safe_winners or (winners if last or sum(_PTS[c] for _, c in trick) >= 4 else [])
            if pool:
                return min(
                    pool,
                    key=lambda c: (
                        (trump is not None and (c >> 3) == trump),
                        c & 7 == 7 and (c >> 3) == trump,
                        _PTS[c],
                        c & 7,
                    ),
                )
        if partner_winning:
            return self._cheapest(v, legal)
        return self._cheapest(v, legal)
