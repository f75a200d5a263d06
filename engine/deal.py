"""One deal as a state, in the OpenSpiel manner.

>>> d = Deal.from_hands([
...     "TS AS KS QS JS 9S 8S 7S".split(), "TH AH KH QH JH 9H 8H 7H".split(),
...     "TD AD KD QD JD 9D 8D 7D".split(), "TC AC KC QC JC 9C 8C 7C".split()], dealer=3)
>>> d.phase, d.to_move
('trump', 3)
>>> d.choose_trump("C")
>>> d.to_move, [str(c) for c in d.legal_moves()][:3]
(0, ['7S', '8S', '9S'])
>>> d.play("TS")
>>> d.play("7D")
Traceback (most recent call last):
...
engine.errors.IllegalMove: you do not hold 7D
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .cards import (
    _BYTE_CARDS,
    ABOVE,
    CARD_BY_TEXT,
    CARD_TEXT,
    CARDS,
    FULL_DECK,
    RANK_POINTS,
    SUIT_MASKS,
    SUITS,
    Card,
    mask_cards,
    mask_texts,
    parse_suit,
)
from .errors import IllegalMove
from .frozen import EMPTY, FrozenList, freeze
from .rules import UNDERTRUMP_ALLOWED, UNDERTRUMP_FORBIDDEN, RuleSet, get_rules

BLIND = "blind"
TRUMP = "trump"
ANNOUNCE = "announce"
PLAY = "play"
DONE = "done"

TRUMP_ACTIONS = ("trump:S", "trump:H", "trump:D", "trump:C")
NO_TRUMP_ACTION = "trump:none"
MEE, TEGEN, PASS, LOOK = "mee", "tegen", "pass", "look"

_POINTS = tuple(RANK_POINTS[i & 7] for i in range(32))
_BIT_OF_TEXT = {CARD_TEXT[i]: 1 << i for i in range(32)}
_BC0, _BC1, _BC2, _BC3 = _BYTE_CARDS
_new_tuple = tuple.__new__  # Trick(...) without NamedTuple's Python-level __new__


def team_of(seat: int) -> int:
    """0 = WIJ (South, North), 1 = ZIJ (West, East)."""
    return seat & 1


# Why an action does not fit the deal's phase (IllegalMove "wrong_phase", param
# `reason`); engine.messages translates them.
WRONG_PHASE_REASONS = {
    "choose_trump": "the dealer must choose trump first",
    "blind_or_look": "the dealer must first say blind or look",
    "announcing": "the announcements are not finished",
    "say_mee": "the opponents now say mee or pass",
    "say_tegen": "the dealer's side now says tegen or passes",
    "play_card": "play a card",
    "deal_over": "the deal is over",
}


class Trick(NamedTuple):
    leader: int
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    winner: int

    @property
    def points(self) -> int:
        return sum(_POINTS[c] for _, c in self.cards)

    def to_dict(self) -> dict:
        return {
            "leader": self.leader,
            "cards": [[s, str(c)] for s, c in self.cards],
            "winner": self.winner,
            "points": self.points,
        }


@dataclass(frozen=True)
class DealResult:
    number: int
    dealer: int
    trump: str | None
    no_trump: bool
    blind: bool
    doublings: int
    multiplier: int
    card_points: tuple[int, int]  # per team, including trick and turned-card points
    tricks_won: tuple[int, int]
    written: tuple[int, int]

    @property
    def tied(self) -> bool:
        return self.card_points[0] == self.card_points[1]

    def to_dict(self) -> dict:
        # Spelled out: dataclasses.asdict deep-copies and showed up in web profiles.
        return {
            "dealer": self.dealer,
            "trump": self.trump,
            "no_trump": self.no_trump,
            "blind": self.blind,
            "doublings": self.doublings,
            "multiplier": self.multiplier,
            "card_points": list(self.card_points),
            "tricks_won": list(self.tricks_won),
            "written": list(self.written),
            "deal": self.number,
        }


def _new_result(fields: dict) -> DealResult:
    """``DealResult(**fields)`` without the frozen dataclass's ``__init__``, which goes
    through ``object.__setattr__`` once per field: that was 10 µs, the biggest single
    cost of a deal. Equal, hashable and frozen like any other instance (a test checks
    that ``fields`` names every field)."""
    result = object.__new__(DealResult)
    result.__dict__.update(fields)
    return result


class Deal:
    """A single deal: trump choice, announcements where the preset has them, play, score."""

    __slots__ = (
        "rules", "number", "dealer", "hands", "initial_hands", "turned", "phase", "to_move",
        "trump", "no_trump", "blind", "trump_chosen", "doublings", "announcements",
        "_ann_side", "_ann_index", "tie_factor", "_trick", "_led", "_win_seat", "_win_card",
        "tricks", "team_points", "tricks_won", "result", "actions", "_dir", "_lm", "_tricks_view",
    )  # fmt: skip

    def __init__(
        self,
        hands: list[int],
        dealer: int,
        rules: RuleSet | str | None = None,
        *,
        turned: Card | None = None,
        tie_factor: int = 1,
        number: int = 1,
    ) -> None:
        self.rules = rs = get_rules(rules)
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"the dealer is a seat 0..3, got {dealer!r}")
        self.number = number
        self.dealer = dealer
        self.hands = list(hands)
        self.initial_hands = tuple(hands)
        self.turned = turned
        self.tie_factor = tie_factor
        self._dir = rs.direction
        self.trump: int | None = None
        self.no_trump = False
        self.blind = False
        self.trump_chosen = False
        self.doublings = 0
        self.announcements: list[tuple[int, str]] = []
        self._ann_side = 1
        self._ann_index = 0
        self._trick: list[tuple[int, Card]] = []
        self._led = -1
        self._win_seat = -1
        self._win_card = -1
        self.tricks: list[Trick] = []
        self.team_points = [0, 0]
        self.tricks_won = [0, 0]
        self.result: DealResult | None = None
        self.actions: list[str] = []
        self._lm = -1  # cached legal mask of the position, -1 when unknown
        self._tricks_view = EMPTY  # the finished tricks as observations show them
        self.phase = PLAY
        self.to_move: int | None = dealer
        if rs.trump_by_turned_card:
            if turned is None:
                raise ValueError("these rules turn the dealer's last card: give it as turned=")
            if not (hands[dealer] >> turned & 1):
                raise ValueError(
                    f"the turned card {turned} is not in the dealer's hand "
                    f"(seat {dealer}): these rules turn the dealer's last card"
                )
            self.trump = turned.suit_index
            self.trump_chosen = True
            if rs.turned_card_points:
                self.team_points[dealer & 1] += _POINTS[turned]
            self._after_trump()
        elif rs.blind_no_trump:
            self.phase, self.to_move = BLIND, dealer
        else:
            self.phase, self.to_move = TRUMP, dealer

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_hands(
        cls,
        hands,
        dealer: int,
        rules: RuleSet | str | None = "flemish",
        *,
        turned: str | Card | None = None,
        tie_factor: int = 1,
        number: int = 1,
    ) -> Deal:
        """Four hands (lists of card texts or Cards, seat 0..3) and the dealer.

        Where the preset turns the dealer's last card, ``turned`` defaults to the last
        card listed in the dealer's hand.
        """
        rs = get_rules(rules)
        masks = _text_masks(hands)
        if masks is None:
            masks = _checked_masks(hands)
        if rs.trump_by_turned_card:
            turned = (
                Card.parse(turned) if turned is not None else Card.parse(list(hands[dealer])[-1])
            )
        elif turned is not None:
            raise ValueError("these rules do not turn a trump card")
        return cls(masks, dealer, rs, turned=turned, tie_factor=tie_factor, number=number)

    @classmethod
    def from_spec(cls, spec, rules: RuleSet | str | None = None, tie_factor: int = 1) -> Deal:
        """From :func:`engine.deal_for`'s result."""
        masks = [sum(1 << c for c in h) for h in spec.hands]
        return cls(
            masks, spec.dealer, rules, turned=spec.turned, tie_factor=tie_factor, number=spec.number
        )

    def clone(self) -> Deal:
        new = object.__new__(Deal)
        for name in Deal.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = list(self.hands)
        new.announcements = list(self.announcements)
        new._trick = list(self._trick)
        new.tricks = list(self.tricks)
        new.team_points = list(self.team_points)
        new.tricks_won = list(self.tricks_won)
        new.actions = list(self.actions)
        return new

    # ----------------------------------------------------------------- queries
    @property
    def trump_suit(self) -> str | None:
        return None if self.trump is None else SUITS[self.trump]

    @property
    def current_trick(self) -> list[tuple[int, Card]]:
        return list(self._trick)

    @property
    def trick_leader(self) -> int | None:
        if self.phase != PLAY:
            return None
        return self._trick[0][0] if self._trick else self.to_move

    @property
    def winning(self) -> tuple[int, Card] | None:
        """(seat, card) currently winning the trick in progress."""
        return (self._win_seat, CARDS[self._win_card]) if self._trick else None

    def is_terminal(self) -> bool:
        return self.phase == DONE

    def hand(self, seat: int) -> list[Card]:
        return mask_cards(self.hands[seat])

    @property
    def multiplier(self) -> int:
        return self.rules.multiplier(
            no_trump=self.no_trump, blind=self.blind, doublings=self.doublings,
            tie_factor=self.tie_factor, all_tricks=self.phase == DONE and 8 in self.tricks_won,
        )  # fmt: skip

    def legal_actions(self) -> list[str]:
        phase = self.phase
        if phase == PLAY:
            return mask_texts(self.legal_mask())
        if phase == TRUMP:
            acts = list(TRUMP_ACTIONS)
            if self.rules.allow_no_trump:
                acts.append(NO_TRUMP_ACTION)
            return acts
        if phase == ANNOUNCE:
            return [MEE if self._ann_side == 1 else TEGEN, PASS]
        if phase == BLIND:
            return [BLIND, LOOK]
        return []

    def legal_moves(self) -> list[Card]:
        """The cards the player to move may play (empty outside the play phase)."""
        m = self._lm  # >= 0 only when cached in the play phase
        if m < 0:
            if self.phase != PLAY:
                return []
            # The hot path: obliged_mask() inline, a call less per card (tests/engine/
            # test_oracle.py holds it to the naive rules and to _legal_explained).
            p: int = self.to_move  # type: ignore[assignment]  # a player is to move in PLAY
            m = hand = self.hands[p]
            if self._trick:
                led = self._led
                w = self._win_card
                trump = self.trump
                trumped = trump is not None and led != trump and (w >> 3) == trump
                opp = self.rules.beat_partner or ((self._win_seat ^ p) & 1) == 1
                hs = hand & SUIT_MASKS[led]
                if hs:
                    m = (opp and not trumped and hs & ABOVE[w]) or hs
                elif trump is not None and hand & SUIT_MASKS[trump]:
                    m = self._legal_mask()  # void and holding trumps: rarer, the full rules
            self._lm = m
        return [*_BC0[m & 0xFF], *_BC1[m >> 8 & 0xFF], *_BC2[m >> 16 & 0xFF], *_BC3[m >> 24]]

    def legal_mask(self) -> int:
        if self.phase != PLAY:
            return 0
        if self._lm < 0:
            self._lm = self._legal_mask()
        return self._lm

    def _legal_mask(self) -> int:
        p: int = self.to_move  # type: ignore[assignment]  # only called with a player to move
        h = self.hands[p]
        if not self._trick:
            return h
        return obliged_mask(h, p, self._led, self._win_card, self._win_seat, self.trump, self.rules)

    def _legal_explained(self) -> tuple[int, str | None, dict]:
        """The legal mask with the rule that restricts it (slow; for refusals)."""
        p: int = self.to_move  # type: ignore[assignment]  # only called with a player to move
        h = self.hands[p]
        if not self._trick:
            return h, None, {}
        rs = self.rules
        led = self._led
        w = self._win_card
        win = CARDS[w]
        trump = self.trump
        trumped = trump is not None and led != trump and (w >> 3) == trump
        partner_winning = ((self._win_seat ^ p) & 1) == 0
        opp = rs.beat_partner or not partner_winning
        suffix = "_any" if partner_winning else ""
        hs = h & SUIT_MASKS[led]
        if hs:
            if opp and not trumped and hs & ABOVE[w]:
                return (
                    hs & ABOVE[w],
                    "beat_in_suit" + suffix,
                    {"winning": str(win), "suit": SUITS[led]},
                )
            return hs, "follow_suit", {"suit": SUITS[led]}
        if trump is None:
            return h, None, {}
        ht = h & SUIT_MASKS[trump]
        if not ht:
            return h, None, {}
        higher_t = ht & ABOVE[w] if trumped else ht
        if opp:
            if higher_t:
                if trumped:
                    return higher_t, "must_overtrump" + suffix, {"winning": str(win)}
                return higher_t, "must_trump" + suffix, {"led": SUITS[led]}
            if rs.undertrump == UNDERTRUMP_FORBIDDEN:
                return (h & ~ht) or h, "no_undertrump", {}
            if rs.undertrump == UNDERTRUMP_ALLOWED:
                return h, None, {}
            return ht, "forced_trump", {"led": SUITS[led]}
        if trumped and rs.undertrump == UNDERTRUMP_FORBIDDEN:
            return (h & ~(ht & ~higher_t)) or h, "no_undertrump", {}
        return h, None, {}

    def _refusal(self, card: Card) -> IllegalMove:
        p: int = self.to_move  # type: ignore[assignment]  # only called with a player to move
        if not (self.hands[p] >> card & 1):
            return IllegalMove("not_in_hand", f"you do not hold {card}", card=str(card))
        _, code, params = self._legal_explained()
        from .messages import render

        code = code or "follow_suit"
        return IllegalMove(code, render(code, "en", **params), card=str(card), **params)

    # ----------------------------------------------------------------- actions
    def apply_action(self, action: str | Card) -> None:
        """Apply an action string (see docs/engine-api.md); IllegalMove leaves no trace."""
        phase = self.phase
        if phase == PLAY:
            self.play(action)
            return
        if phase == DONE:
            raise IllegalMove(
                "wrong_phase",
                "the deal is over",
                action=str(action),
                expected="the deal is over",
                reason="deal_over",
            )
        if not isinstance(action, str):
            raise self._wrong_phase(str(action))
        if phase == TRUMP:
            if action == NO_TRUMP_ACTION:
                self.choose_trump(None)
            elif action in TRUMP_ACTIONS:
                self.choose_trump(action[-1])
            else:
                raise self._wrong_phase(action)
        elif phase == BLIND:
            if action == BLIND:
                self.blind = True
                self._set_trump(None)
            elif action == LOOK:
                self.phase = TRUMP
                self.actions.append(LOOK)
            else:
                raise self._wrong_phase(action)
        elif phase == ANNOUNCE:
            self._announce(action)

    def _wrong_phase(self, action: str) -> IllegalMove:
        # `reason` names the rule for engine.messages (translated); `expected` is its
        # English text, kept in the params for callers that read it.
        reason = {
            TRUMP: "choose_trump",
            BLIND: "blind_or_look",
            ANNOUNCE: "announcing",
            PLAY: "play_card",
        }.get(self.phase, "deal_over")
        if self.phase == ANNOUNCE and action in (MEE, TEGEN):
            # The opponents answer the trump with mee, the dealer's side a mee with tegen.
            reason = "say_mee" if self._ann_side == 1 else "say_tegen"
        expected = WRONG_PHASE_REASONS[reason]
        if action not in CARD_BY_TEXT and action not in (
            *TRUMP_ACTIONS,
            NO_TRUMP_ACTION,
            BLIND,
            LOOK,
            MEE,
            TEGEN,
            PASS,
        ):
            return IllegalMove("unknown_action", f"unknown action {action!r}", action=action)
        return IllegalMove(
            "wrong_phase",
            f"{action} is not possible now: {expected}",
            action=action,
            expected=expected,
            reason=reason,
        )

    def choose_trump(self, suit: str | None) -> None:
        """The dealer names trump: ``"S"``, ``"H"``, ``"D"``, ``"C"`` or ``None`` for no trump."""
        if self.phase != TRUMP:
            raise self._wrong_phase(NO_TRUMP_ACTION if suit is None else f"trump:{suit}")
        s = parse_suit(suit)
        if s is None and not self.rules.allow_no_trump:
            raise IllegalMove("no_trump_not_allowed", "these rules have no 'no trump'")
        self._set_trump(s)

    def _set_trump(self, s: int | None) -> None:
        self.trump = s
        self.no_trump = s is None
        self.trump_chosen = True
        if self.blind:
            self.actions.append(BLIND)
        else:
            self.actions.append(NO_TRUMP_ACTION if s is None else "trump:" + SUITS[s])
        self._after_trump()

    def _after_trump(self) -> None:
        if self.rules.announcements and self.rules.max_doublings > 0:
            self.phase = ANNOUNCE
            self._ann_side, self._ann_index = 1, 0
            self.to_move = self._announcer()
        else:
            self._start_play()

    def _announcer(self) -> int:
        # Opponents speak in playing order from the dealer's left; then dealer, partner.
        d, k = self.dealer, self.rules.direction
        if self._ann_side == 1:
            return (d + k * (1 + 2 * self._ann_index)) % 4
        return (d + 2 * self._ann_index) % 4

    def _announce(self, action: str) -> None:
        call = MEE if self._ann_side == 1 else TEGEN
        if action == call:
            self.doublings += 1
            self.announcements.append((self.to_move, call))  # type: ignore[arg-type]
            self.actions.append(call)
            if self.doublings >= self.rules.max_doublings:
                self._start_play()
            else:
                self._ann_side ^= 1
                self._ann_index = 0
                self.to_move = self._announcer()
        elif action == PASS:
            self.announcements.append((self.to_move, PASS))  # type: ignore[arg-type]
            self.actions.append(PASS)
            self._ann_index += 1
            if self._ann_index == 2:
                self._start_play()
            else:
                self.to_move = self._announcer()
        else:
            raise self._wrong_phase(action)

    def _start_play(self) -> None:
        self.phase = PLAY
        self.to_move = (self.dealer + self.rules.direction) % 4

    def play(self, card: str | Card) -> None:
        """The player to move plays ``card``; IllegalMove (naming the rule) if forbidden."""
        if type(card) is not Card:
            try:
                card = CARD_BY_TEXT[card]  # type: ignore[index]
            except (KeyError, TypeError):
                if self.phase != PLAY:
                    raise self._wrong_phase(str(card)) from None
                try:
                    card = Card.parse(card)
                except ValueError as e:
                    raise IllegalMove("unknown_action", str(e), action=str(card)) from None
        m = self._lm  # >= 0 only when cached in the play phase
        if m < 0:
            if self.phase != PLAY:
                raise self._wrong_phase(str(card))
            m = self._legal_mask()
        if not (m >> card & 1):
            raise self._refusal(card)
        # The move itself, inline (a call less per card).
        p: int = self.to_move  # type: ignore[assignment]  # a player is to move in PLAY
        self.hands[p] &= ~(1 << card)
        self.actions.append(CARD_TEXT[card])
        self._lm = -1
        trick = self._trick
        if not trick:
            self._led = card >> 3
            self._win_card = card
            self._win_seat = p
            trick.append((p, card))
            self.to_move = (p + self._dir) & 3
            return
        w = self._win_card
        if (card >> 3) == (w >> 3):
            if card > w:
                self._win_card = card
                self._win_seat = p
        elif (card >> 3) == self.trump:
            self._win_card = card
            self._win_seat = p
        trick.append((p, card))
        if len(trick) < 4:
            self.to_move = (p + self._dir) & 3
            return
        winner = self._win_seat
        team = winner & 1
        rules = self.rules
        pts = (
            _POINTS[trick[0][1]]
            + _POINTS[trick[1][1]]
            + _POINTS[trick[2][1]]
            + _POINTS[trick[3][1]]
            + rules.trick_bonus
        )
        tricks = self.tricks
        tricks.append(_new_tuple(Trick, (trick[0][0], tuple(trick), winner)))
        self._trick = []
        self.to_move = winner
        self.tricks_won[team] += 1
        if len(tricks) < 8:
            self.team_points[team] += pts
            return
        self.team_points[team] += pts + rules.last_trick_bonus
        self._finish()

    def _play(self, card: Card) -> None:
        """Play without checking legality (for search code that already knows)."""
        card = CARDS[card]
        self._lm = 1 << card  # "legal": play() then skips the obligations
        self.play(card)

    def _finish(self) -> None:
        self.phase = DONE
        self.to_move = None
        mult = self.multiplier
        a, b = self.team_points
        written = self.rules.written((a, b), mult)
        self.result = _new_result(
            {
                "number": self.number,
                "dealer": self.dealer,
                "trump": self.trump_suit,
                "no_trump": self.no_trump,
                "blind": self.blind,
                "doublings": self.doublings,
                "multiplier": mult,
                "card_points": (a, b),
                "tricks_won": (self.tricks_won[0], self.tricks_won[1]),
                "written": written,
            }
        )

    # ----------------------------------------------------------------- views
    def hand_visible(self, seat: int) -> bool:
        """The dealer's partner may not look before trump; nor the dealer before 'look'."""
        if self.phase == BLIND:
            return False if seat in (self.dealer, (self.dealer + 2) % 4) else True
        if not self.trump_chosen and seat == (self.dealer + 2) % 4:
            return False
        return True

    def observation(self, seat: int) -> dict:
        """Exactly what ``seat`` may see of this deal, as JSON-ready data."""
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"a seat is 0..3, got {seat!r}")
        trick = self._trick
        return {
            "dealer": self.dealer,
            "phase": self.phase,
            "to_move": self.to_move,
            "trump": self.trump_suit,
            "no_trump": self.no_trump,
            "blind": self.blind,
            "trump_chosen": self.trump_chosen,
            "turned_card": None if self.turned is None else str(self.turned),
            "announcements": [[s, c] for s, c in self.announcements],
            "multiplier": self.multiplier,
            "tie_factor": self.tie_factor,
            "hand": mask_texts(self.hands[seat]) if self.hand_visible(seat) else None,
            "hand_sizes": [h.bit_count() for h in self.hands],
            "current_trick": {
                "leader": trick[0][0] if trick else self.trick_leader,
                "cards": [[s, str(c)] for s, c in trick],
            },
            "tricks": self.tricks_view(),
            "team_points": list(self.team_points),
            "legal": self.legal_actions() if seat == self.to_move else [],
        }

    def tricks_view(self) -> FrozenList:
        """The finished tricks as ``Trick.to_dict()`` rows, read-only, each built once."""
        view = self._tricks_view
        done = len(view)
        if done != len(self.tricks):
            tricks = self.tricks
            if done > len(tricks):  # not a continuation of this deal's tricks
                view, done = EMPTY, 0
            view = self._tricks_view = FrozenList(
                [*view, *(freeze(t.to_dict()) for t in tricks[done:])]
            )
        return view

    def __repr__(self) -> str:
        return (
            f"<Deal {self.number} dealer={self.dealer} phase={self.phase} to_move={self.to_move}>"
        )


def _text_masks(hands) -> list[int] | None:
    """The usual input of :meth:`Deal.from_hands` in a few lookups: four lists of eight
    card texts holding the 32 cards once. None for anything else (Cards, other notations,
    a wrong deal): :func:`_checked_masks` then parses it or names the problem."""
    bit = _BIT_OF_TEXT
    masks = []
    total = 0
    try:
        if len(hands) != 4:
            return None
        for hand in hands:
            if type(hand) not in (list, tuple) or len(hand) != 8:
                return None
            m = (
                bit[hand[0]] | bit[hand[1]] | bit[hand[2]] | bit[hand[3]]
                | bit[hand[4]] | bit[hand[5]] | bit[hand[6]] | bit[hand[7]]
            )  # fmt: skip
            masks.append(m)
            total |= m
    except (KeyError, TypeError):
        return None
    # 32 card bits whose union is the deck: every card once.
    return masks if total == FULL_DECK else None


def _checked_masks(hands) -> list[int]:
    """Four hands of any card notation as masks; ValueError naming what is wrong."""
    if len(hands) != 4:
        raise ValueError(f"four hands are needed, got {len(hands)}")
    masks = []
    seen = 0
    for seat, hand in enumerate(hands):
        cards = [Card.parse(c) for c in hand]
        if len(cards) != 8:
            raise ValueError(f"seat {seat} holds {len(cards)} cards, not 8")
        m = 0
        for c in cards:
            if (seen | m) >> c & 1:
                raise ValueError(f"card {c} is dealt twice")
            m |= 1 << c
        seen |= m
        masks.append(m)
    return masks


def check_deck(hands: list[int]) -> bool:
    """All 32 cards dealt once (for tests and record validation)."""
    total = 0
    for h in hands:
        if total & h:
            return False
        total |= h
    return total == FULL_DECK


def obliged_mask(
    hand: int, seat: int, led: int, win_card: int, win_seat: int, trump: int | None, rules
) -> int:
    """The cards of ``hand`` that ``seat`` may play to a trick led in suit ``led`` and
    won so far by ``win_card`` of ``win_seat``: follow suit, beat the opponents, trump,
    over-trump, the preset's under-trump rule — as mask operations (the hot path of
    ``Deal.legal_mask``; ``Deal._legal_explained`` gives the same mask with reasons)."""
    w = win_card
    trumped = trump is not None and led != trump and (w >> 3) == trump
    opp = rules.beat_partner or ((win_seat ^ seat) & 1) == 1
    hs = hand & SUIT_MASKS[led]
    if hs:
        if opp and not trumped:
            higher = hs & ABOVE[w]
            if higher:
                return higher
        return hs
    if trump is None:
        return hand
    ht = hand & SUIT_MASKS[trump]
    if not ht:
        return hand
    higher_t = ht & ABOVE[w] if trumped else ht
    if opp:
        if higher_t:
            return higher_t
        if rules.undertrump == UNDERTRUMP_FORBIDDEN:
            return (hand & ~ht) or hand
        if rules.undertrump == UNDERTRUMP_ALLOWED:
            return hand
        return ht
    if trumped and rules.undertrump == UNDERTRUMP_FORBIDDEN:
        return (hand & ~(ht & ~higher_t)) or hand
    return hand
