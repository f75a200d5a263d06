"""The score sheet of deals played with real cards: what a table writes down per deal
(trump, announcements, the card points its South/North side counted) turned into the
same board rows an engine :class:`~engine.game.Game` produces, by the same rules.

A club night in the room plays the printed duplicate deals with real cards and enters
each deal's result from a phone; the server, not the players' arithmetic, writes the
score. The tie factor carries from deal to deal as the preset says, so lines are scored
in order.

>>> from engine import deal_for, get_rules
>>> rules = get_rules("flemish deals=3")
>>> specs = [deal_for("sheet", k, rules) for k in (1, 2, 3)]
>>> rows = score_sheet(rules, specs, [Line("H", 38), Line(None, 30), Line("S", 20)])
>>> [(r["multiplier"], r["written"]) for r in rows]
[(1, (8, 0)), (2, (0, 0)), (2, (0, 20))]
>>> score_sheet(rules, specs[:1], [Line("H", 61)])
Traceback (most recent call last):
...
engine.scoresheet.LineError: deal 1: South/North's points must be 0 to 60, not 61
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import SUITS
from .deal import DealResult
from .dealing import DealSpec
from .rules import RuleSet, get_rules


@dataclass(frozen=True)
class Line:
    """One deal as a table writes it down.

    ``trump``: "S", "H", "D", "C", or None for no trump (ignored where the preset turns
    the dealer's last card: that card's suit is trump). ``points``: what South/North
    counted, trick and turned-card points included. ``blind``: no trump named before
    the dealer looked. ``doublings``: "ik ga mee" / "ik ga tegen" said. ``all_tricks``:
    one side took all eight tricks (it doubles where the preset says so)."""

    trump: str | None
    points: int
    blind: bool = False
    doublings: int = 0
    all_tricks: bool = False

    @classmethod
    def of(cls, result: DealResult) -> Line:
        """The line a table writes down for a deal played out (an engine result)."""
        return cls(
            trump=None if result.no_trump else result.trump,
            points=result.card_points[0],
            blind=result.blind,
            doublings=result.doublings,
            all_tricks=8 in result.tricks_won,
        )


class LineError(ValueError):
    """A line the rules cannot score: ``code`` says which rule ("points", "trump",
    "no_trump", "blind", "announcements", "all_tricks") and ``params`` its numbers, so a
    caller can say it in its own words; the message is English."""

    def __init__(self, code: str, message: str, **params: int) -> None:
        super().__init__(message)
        self.code, self.params = code, params


def deal_total(rules: RuleSet, spec: DealSpec) -> int:
    """The points both sides count together in this deal: 60 card points, plus the
    preset's points per trick and for the last trick, plus a turned card's points."""
    total = 60 + 8 * rules.trick_bonus + rules.last_trick_bonus
    if rules.trump_by_turned_card and rules.turned_card_points and spec.turned is not None:
        total += spec.turned.points
    return total


def check_line(rules: RuleSet, spec: DealSpec, line: Line) -> None:
    """LineError (a ValueError) naming what is wrong with ``line`` under ``rules``."""
    where = f"deal {spec.number}"
    total = deal_total(rules, spec)
    if not isinstance(line.points, int) or not 0 <= line.points <= total:
        raise LineError(
            "points", f"{where}: South/North's points must be 0 to {total}, not {line.points}",
            total=total,
        )  # fmt: skip
    if not rules.trump_by_turned_card:
        if line.trump is not None and line.trump not in SUITS:
            raise LineError(
                "trump", f"{where}: trump must be one of {', '.join(SUITS)} or no trump"
            )
        if line.trump is None and not rules.allow_no_trump:
            raise LineError("no_trump", f"{where}: these rules have no no-trump")
    if line.blind and not (rules.blind_no_trump and line.trump is None):
        raise LineError("blind", f"{where}: blind is a no-trump of the table presets only")
    limit = rules.max_doublings if rules.announcements else 0
    if not 0 <= line.doublings <= limit:
        raise LineError(
            "announcements",
            f"{where}: announcements must be 0 to {limit}, not {line.doublings}",
            limit=limit,
        )
    # Checked only where it scores: with a turned card its points go to the dealer's
    # side whoever takes the tricks, and no such preset doubles all eight tricks.
    if line.all_tricks and rules.all_tricks_doubles and line.points not in (0, total):
        raise LineError(
            "all_tricks", f"{where}: a side with all eight tricks has all {total} points",
            total=total,
        )  # fmt: skip


def writable(rules: RuleSet, spec: DealSpec) -> frozenset[int]:
    """Every score a side can write on this deal under ``rules`` (the other side then
    writes 0; a tie writes 0 for both): its points over the threshold times any
    multiplier the deal can have, a tie factor carried from the deals before it
    included.

    >>> from engine import deal_for, get_rules
    >>> rules = get_rules("flemish deals=3")
    >>> first = writable(rules, deal_for("sheet", 1, rules))
    >>> max(first), 31 in first, 29 in first, 58 in first
    (60, False, True, True)
    """
    total = deal_total(rules, spec)
    trumps = [(False, False)]
    if rules.allow_no_trump and not rules.trump_by_turned_card:
        trumps.append((True, False))
    if rules.blind_no_trump and not rules.trump_by_turned_card:
        trumps.append((True, True))
    doublings = range((rules.max_doublings if rules.announcements else 0) + 1)
    # A tie doubles the next deal (within the cap): deal k follows at most k - 1 ties.
    ties = spec.number - 1 if rules.tie_doubles_next else 0
    factors = {min(2**k, rules.multiplier_cap or 2**k) for k in range(ties + 1)}

    def multipliers(all_tricks: bool) -> set[int]:
        return {
            rules.multiplier(
                no_trump=no_trump, blind=blind, doublings=d, tie_factor=f, all_tricks=all_tricks
            )
            for no_trump, blind in trumps
            for d in doublings
            for f in factors
        }

    # The side with more points writes; it has more than half of the deal's total, and
    # all eight tricks (all the points) may double.
    some, every = multipliers(False), multipliers(True)
    return frozenset(
        max(0, p - rules.threshold) * m
        for p in range(total // 2 + 1, total + 1)
        for m in (every if p == total else some)
    )


def score_sheet(
    rules: RuleSet | str, specs: Sequence[DealSpec], lines: Sequence[Line], *, tie_factor: int = 1
) -> list[dict]:
    """Board rows (as :meth:`engine.deal.DealResult.to_dict`, ``tricks_won`` unknown:
    None) of ``lines`` played on ``specs`` in order. ValueError names the first bad
    line."""
    rules = get_rules(rules)
    if len(specs) < len(lines):
        raise ValueError(f"{len(lines)} lines for {len(specs)} deals")
    rows = []
    for spec, line in zip(specs, lines, strict=False):
        check_line(rules, spec, line)
        if rules.trump_by_turned_card:
            trump, no_trump = spec.turned.suit, False
        else:
            trump, no_trump = line.trump, line.trump is None
        total = deal_total(rules, spec)
        a, b = line.points, total - line.points
        mult = rules.multiplier(
            no_trump=no_trump, blind=line.blind, doublings=line.doublings,
            tie_factor=tie_factor, all_tricks=line.all_tricks,
        )  # fmt: skip
        written = rules.written((a, b), mult)
        rows.append(
            {
                "dealer": spec.dealer,
                "trump": trump,
                "no_trump": no_trump,
                "blind": bool(line.blind),
                "doublings": line.doublings,
                "multiplier": mult,
                "card_points": (a, b),
                "tricks_won": None,
                "written": written,
                "deal": spec.number,
            }
        )
        tie_factor = rules.next_tie_factor(a == b, tie_factor)
    return rows
