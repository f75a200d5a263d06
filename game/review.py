"""A finished game trick by trick, as South saw it (the "step through your game" page).

Only South's own cards and the cards played to the table: what the player saw while
playing, nothing more, so the page leaks no hidden card whatever the game (a solo game
or a tournament entry). The game is split into its deals by the replay helper of the
tournaments' compare page (`tournaments.replays.split_deals`, engine-only).
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from tournaments.replays import split_deals

from .cards import SUIT_SYMBOLS as SYMBOLS
from .cards import card_letter

SOUTH = 0
RANKS = "TAKQJ987"  # high to low in every suit: 10 (manille) A K Q J 9 8 7
SUITS = "SHCD"  # alternating colours


def face(card: str) -> dict:
    """What a card shows: {"card": "TH", "rank": "10", "suit": "♥", "red": True}."""
    rank, suit = card[:-1], card[-1]
    return {
        "card": card,
        "rank": card_letter(rank),
        "suit": SYMBOLS[suit],
        "red": suit in "HD",
    }


def sort_hand(cards: list[str], trump: str | None) -> list[str]:
    """Trump first, then the other suits in alternating colours; high to low (as the
    table sorts South's hand)."""
    order = list(SUITS)
    if trump in SYMBOLS:
        rest = [x for x in SUITS if x != trump]
        order = [trump]
        while rest:
            red = order[-1] in "HD"
            pick = next((x for x in rest if (x in "HD") != red), rest[0])
            order.append(pick)
            rest.remove(pick)
    return sorted(cards, key=lambda c: (order.index(c[-1]), RANKS.index(c[:-1])))


@dataclass
class TrickStep:
    deal: int  # the deal's number in the game (1, 2, ...)
    trick: int  # 1..8
    tricks_in_deal: int
    dealer: int
    trump: str | None  # suit letter, None when no trump
    no_trump: bool
    multiplier: int
    hand: list[str]  # South's cards before this trick (engine notation)
    cards: list[tuple[int, str]]  # (seat, card) in the order played
    winner: int | None
    points: int
    # The deal's points of the viewer's team and the other after this trick (cards, the
    # rules' points per trick, a turned card's): the last trick's are the deal's.
    deal_points: list[int]
    result: dict | None = None  # the deal's result on its last trick


def trick_steps(seed: str, rules: str, actions: list[str], seat: int = SOUTH) -> list[TrickStep]:
    """Every trick of the game in order, each with `seat`'s hand before it (the person
    stepping through their own game, wherever they sat); `deal_points` and a deal's
    result are of `seat`'s team first."""
    game, deals = split_deals(seed, rules, actions)
    played = [(d.number, d.tricks, d.result, d.result) for d in deals]
    if not game.is_terminal() and game.deal.tricks:
        # A game stopped mid-deal (a tournament closed "as played"): its tricks so far,
        # the trump as South saw it.
        seen = game.observation(seat)
        info = {k: seen.get(k) for k in ("trump", "no_trump", "multiplier")}
        played.append((game.deal.number, [t.to_dict() for t in game.deal.tricks], None, info))
    steps: list[TrickStep] = []
    for number, tricks, result, info in played:
        spec = engine.deal_for(seed, number, rules)
        hand = list(spec.texts()[seat])  # the viewer's own cards only
        if result is not None and seat % 2:
            result = _their_side_first(result)
        # The turned card's points (french) are the dealer's team's before any trick.
        start = [0, 0]
        rs = game.rules
        if rs.trump_by_turned_card and rs.turned_card_points and spec.turned is not None:
            start[(spec.dealer - seat) % 2] += spec.turned.points
        steps.extend(_deal_steps(number, spec.dealer, hand, tricks, result, info, seat, rs, start))
    return steps


def _their_side_first(result: dict) -> dict:
    """A deal's result with West/East's figures first (a viewer of that team)."""
    out = dict(result)
    for key in ("card_points", "written", "tricks_won"):
        if out.get(key) is not None:
            out[key] = list(reversed(out[key]))
    return out


def _deal_steps(
    number, dealer, hand, tricks, result, info, me=SOUTH, rules=None, start=(0, 0)
) -> list[TrickStep]:
    out = []
    points = list(start)  # the viewer's team first
    for i, trick in enumerate(tricks):
        cards = [(seat, card) for seat, card in trick["cards"]]
        winner = trick.get("winner")
        # What the trick adds to the deal's points: its cards, and the rules' points per
        # trick (french: +1 a trick), so that the tricks add up to the deal's total.
        worth = trick.get("points", 0)
        if rules is not None and winner is not None:
            worth += rules.trick_bonus + (rules.last_trick_bonus if i == 7 else 0)
        if winner is not None:
            points[(winner - me) % 2] += worth
        out.append(
            TrickStep(
                deal=number,
                trick=i + 1,
                tricks_in_deal=len(tricks),
                dealer=dealer,
                trump=info.get("trump"),
                no_trump=bool(info.get("no_trump")),
                multiplier=info.get("multiplier") or 1,
                hand=list(hand),
                cards=cards,
                winner=winner,
                points=worth,
                deal_points=list(points),
                result=result if result is not None and i == len(tricks) - 1 else None,
            )
        )
        hand = [c for c in hand if c not in {card for seat, card in cards if seat == me}]
    return out
