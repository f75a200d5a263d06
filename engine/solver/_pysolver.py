"""Pure-Python double-dummy search: the same algorithm as ``_ddcore.c``, move for move.

Used when the compiled core is missing (no C compiler, ``MANILLEN_SOLVER=python``).
The functions have the C module's signatures:

``move_values(h0, h1, h2, h3, trump, to_move, trick, dir, beat_partner, under, tbonus, lbonus)``
returns ``[(card, points), ...]`` for every legal card of the side to move, where
``points`` is what that side secures for the rest of the deal (cards on the table
included) with best play by everybody; ``trick`` is a flat ``(seat, card, ...)`` tuple
and ``trump`` is -1 for no trump.
"""

from __future__ import annotations

UT_FORBIDDEN, UT_ALLOWED, UT_FORCED = 0, 1, 2

_RANK_PTS = (0, 0, 0, 1, 2, 3, 4, 5)
CARD_PTS = tuple(_RANK_PTS[c & 7] for c in range(32))
SUITM = tuple(0xFF << (8 * s) for s in range(4))
ABOVE = tuple(SUITM[c >> 3] & ~((1 << (c + 1)) - 1) for c in range(32))
_BYTE_PTS = tuple(sum(_RANK_PTS[r] for r in range(8) if b >> r & 1) for b in range(256))


def mask_pts(m: int) -> int:
    return (
        _BYTE_PTS[m & 0xFF]
        + _BYTE_PTS[m >> 8 & 0xFF]
        + _BYTE_PTS[m >> 16 & 0xFF]
        + _BYTE_PTS[m >> 24]
    )


def legal_mask(h, n, led, w, ws, p, trump, beat_partner, under):
    """The obligations of engine.deal.Deal._legal_mask on plain ints (trump -1 = none)."""
    if n == 0:
        return h
    trumped = trump >= 0 and led != trump and (w >> 3) == trump
    opp = beat_partner or ((ws ^ p) & 1) == 1
    hs = h & SUITM[led]
    if hs:
        if opp and not trumped:
            higher = hs & ABOVE[w]
            if higher:
                return higher
        return hs
    if trump < 0:
        return h
    ht = h & SUITM[trump]
    if not ht:
        return h
    higher_t = ht & ABOVE[w] if trumped else ht
    if opp:
        if higher_t:
            return higher_t
        if under == UT_FORBIDDEN:
            return (h & ~ht) or h
        if under == UT_ALLOWED:
            return h
        return ht
    if trumped and under == UT_FORBIDDEN:
        return (h & ~(ht & ~higher_t)) or h
    return h


def reduce_equiv(lm: int, hand: int, live: int) -> int:
    """Drop 8s and 9s that a lower 0-point card of the same hand already represents."""
    out = lm
    for s in range(4):
        base = s * 8
        for r in (1, 2):
            c = base + r
            if not lm >> c & 1:
                continue
            below = live & SUITM[s] & ((1 << c) - 1)
            if not below:
                continue
            b = below.bit_length() - 1
            if hand >> b & 1 and lm >> b & 1:
                out &= ~(1 << c)
    return out


class _Search:
    __slots__ = (
        "hand", "trump", "dir", "bp", "under", "tbonus", "lbonus",
        "n", "led", "win_card", "win_seat", "tpts", "live", "nodes", "tt",
    )  # fmt: skip

    def can_beat(self, q: int, led: int, wc: int) -> bool:
        h = self.hand[q]
        hs = h & SUITM[led]
        if hs:
            return (wc >> 3) == led and bool(hs & ABOVE[wc])
        trump = self.trump
        if trump < 0:
            return False
        ht = h & SUITM[trump]
        if not ht:
            return False
        if (wc >> 3) == trump:
            return bool(ht & ABOVE[wc])
        return True

    def order(self, p: int, lm: int, hint: int) -> list[int]:
        trump = self.trump
        n = self.n
        hand = self.hand
        d = self.dir
        scored = []
        partner_win = n > 0 and not ((self.win_seat ^ p) & 1)
        while lm:
            low = lm & -lm
            c = low.bit_length() - 1
            lm ^= low
            r, su, pts = c & 7, c >> 3, CARD_PTS[c]
            tr = 1 if su == trump else 0
            if c == hint:
                sc = 100000
            elif n == 0:
                o1, o2 = (p + d) & 3, (p + 3 * d) & 3
                if not self.can_beat(o1, su, c) and not self.can_beat(o2, su, c):
                    sc = 300 + pts * 4 - 50 * tr
                else:
                    hs = hand[p] & SUITM[su]
                    if c == (hs & -hs).bit_length() - 1:
                        pa = hand[(p + 2) & 3]
                        others = (hand[o1] | hand[o2] | pa) & SUITM[su]
                        pm = 1 if others and pa >> (others.bit_length() - 1) & 1 else 0
                        sc = 200 + pm * 60 - r - 30 * tr
                    else:
                        sc = 100 - pts * 4 - r
            else:
                w = self.win_card
                beats = (c > w) if (c >> 3) == (w >> 3) else (su == trump)
                if n == 3:
                    if partner_win:
                        sc = 300 + pts * 8 + r - tr * 40
                    elif beats:
                        sc = 300 - pts * 8 - r - tr * 20
                    else:
                        sc = 100 - pts * 8 - r - tr * 20
                else:
                    q4 = (p + d) & 3 if n == 2 else (p + 3 * d) & 3
                    safe = (beats or partner_win) and not self.can_beat(
                        q4, self.led, c if beats else w
                    )
                    if safe and not beats:
                        sc = 300 + pts * 8 + r - tr * 40
                    elif safe:
                        sc = 300 - pts * 4 - r - tr * 20
                    elif beats:
                        sc = 150 - pts * 8 - r - tr * 20
                    else:
                        sc = 100 - pts * 8 - r - tr * 20
            scored.append((-sc, c))
        scored.sort()
        return [c for _, c in scored]

    def last_trick(self, p: int) -> int:
        hand = self.hand
        c = (hand[p] & -hand[p]).bit_length() - 1
        wc, ws, pts = c, p, CARD_PTS[c]
        for _ in range(3):
            p = (p + self.dir) & 3
            c = (hand[p] & -hand[p]).bit_length() - 1
            pts += CARD_PTS[c]
            if (c >> 3) == (wc >> 3):
                if c > wc:
                    wc, ws = c, p
            elif (c >> 3) == self.trump:
                wc, ws = c, p
        return 0 if ws & 1 else pts + self.tbonus + self.lbonus

    def child(self, p: int, c: int, alpha: int, beta: int) -> int:
        sn, sled, swc, sws, stp = self.n, self.led, self.win_card, self.win_seat, self.tpts
        hand = self.hand
        hand[p] &= ~(1 << c)
        if sn == 0:
            self.led = c >> 3
            self.win_card = c
            self.win_seat = p
        else:
            w = self.win_card
            if (c >> 3) == (w >> 3):
                if c > w:
                    self.win_card = c
                    self.win_seat = p
            elif (c >> 3) == self.trump:
                self.win_card = c
                self.win_seat = p
        self.tpts = stp + CARD_PTS[c]
        self.n = sn + 1
        if sn == 3:
            alls = hand[0] | hand[1] | hand[2] | hand[3]
            pts = self.tpts + self.tbonus + (0 if alls else self.lbonus)
            ws = self.win_seat
            gain = 0 if ws & 1 else pts
            slive = self.live
            self.live = alls
            self.n = 0
            self.tpts = 0
            v = gain + self.search(ws, alpha - gain, beta - gain)
            self.live = slive
        else:
            v = self.search((p + self.dir) & 3, alpha, beta)
        self.n, self.led, self.win_card, self.win_seat, self.tpts = sn, sled, swc, sws, stp
        hand[p] |= 1 << c
        return v

    def search(self, p: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        hand = self.hand
        boundary = self.n == 0
        hint = -1
        key = None
        lo = hi = 0
        if boundary:
            alls = hand[0] | hand[1] | hand[2] | hand[3]
            if not alls:
                return 0
            if bin(alls).count("1") == 4:
                return self.last_trick(p)
            R = mask_pts(alls) + self.tbonus * (bin(alls).count("1") // 4) + self.lbonus
            if R <= alpha:
                return R
            if beta <= 0:
                return 0
            key = (hand[0], hand[1], hand[2], hand[3], p)
            ent = self.tt.get(key)
            if ent is not None:
                lo, hi, hint = ent
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            else:
                lo, hi = 0, R
        lm = legal_mask(
            hand[p],
            self.n,
            self.led,
            self.win_card,
            self.win_seat,
            p,
            self.trump,
            self.bp,
            self.under,
        )
        lm = reduce_equiv(lm, hand[p], self.live)
        if self.n == 3:
            # enhanced transposition cutoff: every move ends the trick
            alls = hand[0] | hand[1] | hand[2] | hand[3]
            tt = self.tt
            m = lm
            while m:
                low = m & -m
                c = low.bit_length() - 1
                m ^= low
                rest = alls & ~low
                if not rest or bin(rest).count("1") == 4:
                    continue
                wc, ws = self.win_card, self.win_seat
                if (c >> 3) == (wc >> 3):
                    if c > wc:
                        ws = p
                elif (c >> 3) == self.trump:
                    ws = p
                gain = 0 if ws & 1 else self.tpts + CARD_PTS[c] + self.tbonus
                hp = hand[p] & ~low
                k = (
                    hp if p == 0 else hand[0],
                    hp if p == 1 else hand[1],
                    hp if p == 2 else hand[2],
                    hp if p == 3 else hand[3],
                    ws,
                )
                ent = tt.get(k)
                if ent is not None:
                    if not (p & 1) and gain + ent[0] >= beta:
                        return gain + ent[0]
                    if p & 1 and gain + ent[1] <= alpha:
                        return gain + ent[1]
        moves = self.order(p, lm, hint)
        maxi = not (p & 1)
        best = -1000 if maxi else 1000
        bestc = moves[0]
        a, b = alpha, beta
        for c in moves:
            v = self.child(p, c, a, b)
            if maxi:
                if v > best:
                    best, bestc = v, c
                    if best > a:
                        a = best
            elif v < best:
                best, bestc = v, c
                if best < b:
                    b = best
            if a >= b:
                break
        if boundary:
            if best <= alpha:
                hi = min(hi, best)
            elif best >= beta:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.tt[key] = (lo, hi, bestc)
        return best

    def mtd(self, p: int, c: int, guess: int, lower: int, upper: int) -> int:
        g = min(max(guess, lower), upper)
        first = True
        while lower < upper:
            if first:
                beta = g + 1 if g == lower else g
                first = False
            else:
                beta = (lower + upper + 1) // 2
            g = self.child(p, c, beta - 1, beta) if c >= 0 else self.search(p, beta - 1, beta)
            if g < beta:
                upper = g
            else:
                lower = g
        return lower


_last_nodes = 0


def _setup(h0, h1, h2, h3, trump, to_move, trick, dir, beat_partner, under, tbonus, lbonus):
    s = _Search()
    s.hand = [h0, h1, h2, h3]
    s.trump, s.dir, s.bp, s.under, s.tbonus, s.lbonus = (
        trump,
        dir,
        bool(beat_partner),
        under,
        tbonus,
        lbonus,
    )
    s.n = s.led = s.win_card = s.win_seat = s.tpts = 0
    s.nodes = 0
    s.tt = {}
    table = 0
    trick = list(trick)
    if len(trick) % 2 or len(trick) > 6:
        raise ValueError("trick: flat (seat, card) pairs, at most 3 cards")
    for i in range(0, len(trick), 2):
        seat, c = trick[i], trick[i + 1]
        if i == 0:
            s.led, s.win_card, s.win_seat = c >> 3, c, seat
        else:
            w = s.win_card
            if (c >> 3) == (w >> 3):
                if c > w:
                    s.win_card, s.win_seat = c, seat
            elif (c >> 3) == trump:
                s.win_card, s.win_seat = c, seat
        s.tpts += CARD_PTS[c]
        table |= 1 << c
    s.n = len(trick) // 2
    alls = h0 | h1 | h2 | h3
    s.live = alls | table
    tricks = (bin(alls).count("1") + s.n + 3) // 4
    total = mask_pts(s.live) + tbonus * tricks + (lbonus if tricks else 0)
    return s, to_move & 3, total


def move_values(*args) -> list[tuple[int, int]]:
    global _last_nodes
    s, p, total = _setup(*args)
    lm_all = legal_mask(s.hand[p], s.n, s.led, s.win_card, s.win_seat, p, s.trump, s.bp, s.under)
    if not lm_all:
        return []
    lm = reduce_equiv(lm_all, s.hand[p], s.live)
    vals = {}
    guess = total // 2
    for c in s.order(p, lm, -1):
        v = s.mtd(p, c, guess, 0, total)
        vals[c] = v
        guess = v
    out = []
    for c in range(32):
        if not lm_all >> c & 1:
            continue
        rep = c
        while not lm >> rep & 1:
            rep = (s.live & SUITM[rep >> 3] & ((1 << rep) - 1)).bit_length() - 1
        v = vals[rep]
        out.append((c, total - v if p & 1 else v))
    _last_nodes = s.nodes
    return out


def value(*args) -> int:
    global _last_nodes
    s, p, total = _setup(*args)
    v = s.mtd(p, -1, total // 2, 0, total)
    _last_nodes = s.nodes
    return total - v if p & 1 else v


def legal(*args) -> int:
    s, p, _ = _setup(*args)
    return legal_mask(s.hand[p], s.n, s.led, s.win_card, s.win_seat, p, s.trump, s.bp, s.under)


def nodes() -> int:
    return _last_nodes
