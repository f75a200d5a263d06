"""Deals of the hidden cards that agree with everything a seat has seen.

What the play so far tells about a hand (per the preset's obligations, the same logic
as ``Deal._legal_mask``):

- a player who did not follow the led suit holds none of it (void);
- one who followed without beating an opponent's winning card of the led suit, when
  obliged to beat, holds no higher card of that suit;
- one who, void and facing an opponent, neither trumped nor could be shown to have
  been unable to, holds no trump (or no trump above the winning trump);
- one who under-trumped holds nothing but lower trumps where the preset forbids
  under-trumping (``forced``/``allowed``: no higher trump);
- the turned card (french, malilla) stays with the dealer until it is played.

Each constraint is "seat s holds none of mask X".  The unseen cards fall into at most
seven groups by the set of seats that may hold them; a small dynamic programme counts
the completions of the hand sizes, so :func:`sample` draws **uniformly** among all
consistent deals (exact, no rejection, never fails) and :func:`enumerate_deals` lists
them all when there are few.  Everything is a pure function of the observation and
the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import comb

from ..cards import ABOVE, CARD_BY_TEXT, FULL_DECK, SUIT_MASKS, SUITS
from ..rules import UNDERTRUMP_FORBIDDEN, UNDERTRUMP_FORCED, RuleSet, get_rules


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def _count(m: int) -> int:
    return bin(m).count("1")


def trick_constraints(
    trick: list[tuple[int, int]], trump: int | None, rules: RuleSet, forbid: list[int]
) -> None:
    """Add to ``forbid[seat]`` what each play of one trick proves that seat lacked."""
    if not trick:
        return
    led = trick[0][1] >> 3
    w_seat, w = trick[0]
    led_mask = SUIT_MASKS[led]
    trump_mask = SUIT_MASKS[trump] if trump is not None else 0
    for p, c in trick[1:]:
        opp = rules.beat_partner or ((w_seat ^ p) & 1) == 1
        trumped = trump is not None and led != trump and (w >> 3) == trump
        if (c >> 3) == led:
            if opp and not trumped and c < w:
                forbid[p] |= ABOVE[w]  # could not beat in suit
        else:
            forbid[p] |= led_mask  # void
            if trump is not None:
                if (c >> 3) == trump:
                    if trumped and c < w:  # under-trumped
                        if opp:
                            forbid[p] |= ABOVE[w]  # could not over-trump
                        if rules.undertrump == UNDERTRUMP_FORBIDDEN:
                            # nothing but lower trumps (opponent or partner winning)
                            forbid[p] |= FULL_DECK & ~(trump_mask & ~ABOVE[w])
                elif opp:  # discarded against an opponent
                    if trumped and rules.undertrump != UNDERTRUMP_FORCED:
                        forbid[p] |= ABOVE[w]
                    else:
                        forbid[p] |= trump_mask
        # the winning card after this play
        if (c >> 3) == (w >> 3):
            if c > w:
                w_seat, w = p, c
        elif trump is not None and (c >> 3) == trump:
            w_seat, w = p, c


@dataclass
class Hidden:
    """The unknown part of a deal from one seat's view."""

    seat: int
    hand: int  # own cards
    known: list[int]  # cards each seat is known to hold (own hand; turned card)
    need: list[int]  # unknown cards each seat still holds
    forbid: list[int]  # cards each seat cannot hold
    unseen: int  # cards to place
    seats: list[int] = field(default_factory=list)
    groups: list[tuple[int, list[int]]] = field(default_factory=list)  # (seat-set bits, cards)
    _memo: dict = field(default_factory=dict, repr=False)

    # ----------------------------------------------------------------- counting
    def _prepare(self) -> None:
        self.seats = [s for s in range(4) if self.need[s] > 0]
        by_sig: dict[int, list[int]] = {}
        for c in _bits(self.unseen):
            sig = 0
            for i, s in enumerate(self.seats):
                if not (self.forbid[s] >> c & 1):
                    sig |= 1 << i
            by_sig.setdefault(sig, []).append(c)
        self.groups = sorted(by_sig.items())
        self._memo = {}

    def _ways(self, g: int, caps: tuple[int, ...]) -> int:
        """Completions of groups g.. into the remaining capacities."""
        if g == len(self.groups):
            return 1 if not any(caps) else 0
        key = (g, caps)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        sig, cards = self.groups[g]
        total = 0
        for split, ways in self._splits(sig, len(cards), caps):
            rest = tuple(caps[i] - split[i] for i in range(len(caps)))
            sub = self._ways(g + 1, rest)
            if sub:
                total += ways * sub
        self._memo[key] = total
        return total

    @staticmethod
    def _splits(sig: int, k: int, caps: tuple[int, ...]):
        """Every way to spread k distinct cards over the seats of sig within caps."""
        idx = [i for i in range(len(caps)) if sig >> i & 1]
        out = []

        def rec(j: int, left: int, split: list[int], ways: int) -> None:
            if j == len(idx) - 1:
                i = idx[j]
                if left <= caps[i]:
                    split[i] = left
                    out.append((tuple(split), ways))
                    split[i] = 0
                return
            i = idx[j]
            for x in range(min(left, caps[i]) + 1):
                split[i] = x
                rec(j + 1, left - x, split, ways * comb(left, x))
            split[i] = 0

        if not idx:
            if k == 0:
                out.append((tuple(0 for _ in caps), 1))
            return out
        rec(0, k, [0] * len(caps), 1)
        return out

    def count(self) -> int:
        """How many deals agree with the observation."""
        return self._ways(0, tuple(self.need[s] for s in self.seats))

    # ----------------------------------------------------------------- drawing
    def _hands(self, assign: list[int]) -> list[int]:
        hands = list(self.known)
        for i, s in enumerate(self.seats):
            hands[s] |= assign[i]
        return hands

    def sample(self, rng: random.Random) -> list[int]:
        """One consistent deal (four masks), uniformly among all of them."""
        caps = tuple(self.need[s] for s in self.seats)
        if self._ways(0, caps) == 0:
            raise ValueError("no deal agrees with the observation")
        assign = [0] * len(self.seats)
        for g, (sig, cards) in enumerate(self.groups):
            options = []
            for split, ways in self._splits(sig, len(cards), caps):
                rest = tuple(caps[i] - split[i] for i in range(len(caps)))
                w = ways * self._ways(g + 1, rest)
                if w:
                    options.append((split, rest, w))
            r = rng.randrange(sum(w for _, _, w in options))
            for split, rest, w in options:  # noqa: B007 - the chosen one is used after break
                if r < w:
                    break
                r -= w
            pool = list(cards)
            rng.shuffle(pool)
            pos = 0
            for i, x in enumerate(split):
                for c in pool[pos : pos + x]:
                    assign[i] |= 1 << c
                pos += x
            caps = rest
        return self._hands(assign)

    def enumerate_deals(self, limit: int) -> list[list[int]] | None:
        """All consistent deals in a fixed order, or None when there are more than limit."""
        if self.count() > limit:
            return None
        out: list[list[int]] = []
        ngroups = len(self.groups)

        def rec(g: int, caps: tuple[int, ...], assign: list[int]) -> None:
            if g == ngroups:
                if not any(caps):
                    out.append(self._hands(assign))
                return
            sig, cards = self.groups[g]
            for split, _ in self._splits(sig, len(cards), caps):
                rest = tuple(caps[i] - split[i] for i in range(len(caps)))
                if not self._ways(g + 1, rest):
                    continue
                for parts in _partitions(cards, split):
                    rec(g + 1, rest, [assign[i] | parts[i] for i in range(len(caps))])

        rec(0, tuple(self.need[s] for s in self.seats), [0] * len(self.seats))
        return out


def _partitions(cards: list[int], split: tuple[int, ...]):
    """Every way to give split[i] of ``cards`` to slot i (as masks), in a fixed order."""
    n = len(split)

    def rec(i: int, rest: list[int]):
        if i == n - 1:
            m = 0
            for c in rest:
                m |= 1 << c
            yield [m]
            return
        from itertools import combinations

        for chosen in combinations(rest, split[i]):
            m = 0
            for c in chosen:
                m |= 1 << c
            left = [c for c in rest if not (m >> c & 1)]
            for tail in rec(i + 1, left):
                yield [m, *tail]

    yield from rec(0, list(cards))


def analyse(obs: dict, rules: RuleSet | str | None = None) -> Hidden:
    """The hidden-card problem of the seat in ``obs`` (a Game or Deal observation)."""
    rs = get_rules(rules if rules is not None else obs.get("rules"))
    seat = obs["seat"]
    hand = 0
    for t in obs.get("hand") or []:
        hand |= 1 << CARD_BY_TEXT[t]
    trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
    played = 0
    forbid = [0, 0, 0, 0]
    for t in obs.get("tricks", []):
        cards = [(s, CARD_BY_TEXT[c]) for s, c in t["cards"]]
        for _, c in cards:
            played |= 1 << c
        trick_constraints(cards, trump, rs, forbid)
    cur = [(s, CARD_BY_TEXT[c]) for s, c in obs["current_trick"]["cards"]]
    for _, c in cur:
        played |= 1 << c
    trick_constraints(cur, trump, rs, forbid)
    known = [0, 0, 0, 0]
    known[seat] = hand
    sizes = list(obs["hand_sizes"])
    unseen = FULL_DECK & ~played & ~hand
    turned = obs.get("turned_card")
    dealer = obs.get("dealer")
    if turned and dealer is not None and dealer != seat:
        tc = CARD_BY_TEXT[turned]
        if unseen >> tc & 1:
            known[dealer] |= 1 << tc
            unseen &= ~(1 << tc)
    need = [sizes[s] - _count(known[s]) for s in range(4)]
    need[seat] = 0
    h = Hidden(seat, hand, known, need, forbid, unseen)
    h._prepare()
    if sum(need) != _count(unseen) or h.count() == 0:
        # Something the inference did not foresee (or a malformed observation): keep
        # only the voids, then nothing, rather than fail.
        for keep_voids in (True, False):
            relaxed = [0, 0, 0, 0]
            if keep_voids:
                for t in obs.get("tricks", []) + [obs["current_trick"]]:
                    cards = [(s, CARD_BY_TEXT[c]) for s, c in t["cards"]]
                    if cards:
                        led = cards[0][1] >> 3
                        for s, c in cards[1:]:
                            if (c >> 3) != led:
                                relaxed[s] |= SUIT_MASKS[led]
            h = Hidden(seat, hand, known, need, relaxed, unseen)
            h._prepare()
            if sum(need) == _count(unseen) and h.count() > 0:
                break
    return h


def sample_deals(obs: dict, n: int, rng: random.Random, rules=None) -> list[list[int]]:
    """``n`` consistent deals (four masks each) drawn with ``rng``."""
    h = analyse(obs, rules)
    return [h.sample(rng) for _ in range(n)]
