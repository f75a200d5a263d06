"""Rule presets as data.

A :class:`RuleSet` is a frozen value; the play and scoring code reads its fields and
never branches on the preset's name, so a club can build its own variant with
``dataclasses.replace(get_rules("flemish"), target=121)``.

>>> r = get_rules("flemish")
>>> r.direction, r.packets, r.multiplier_cap, r.targets
(1, (3, 2, 3), 4, (101,))
>>> get_rules("french").trick_bonus
1
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

CLOCKWISE = 1
COUNTER_CLOCKWISE = -1

# What a player void in the led suit, facing a trump it cannot beat, may do.
UNDERTRUMP_FORBIDDEN = "forbidden"  # another suit; lower trumps only if nothing else
UNDERTRUMP_ALLOWED = "allowed"  # any card
UNDERTRUMP_FORCED = "forced"  # must still play a trump if holding one


@dataclass(frozen=True)
class RuleSet:
    name: str
    # Seating and dealing
    direction: int = CLOCKWISE  # play, deal and dealer rotation: +1 clockwise, -1 counter
    packets: tuple[int, ...] = (3, 2, 3)
    # Trump
    trump_by_turned_card: bool = False  # the dealer's last card sets trump
    turned_card_points: bool = False  # its points count for the dealer's team
    allow_no_trump: bool = True
    no_trump_multiplier: int = 2
    blind_no_trump: bool = False  # chosen before the dealer looks
    blind_multiplier: int = 4
    # Kloppen: "ik ga mee" / "ik ga tegen"
    announcements: bool = False
    max_doublings: int = 2
    # Play obligations
    beat_partner: bool = False  # the obligation to beat holds against the partner too
    undertrump: str = UNDERTRUMP_FORBIDDEN
    # Scoring
    trick_bonus: int = 0  # points per trick won
    last_trick_bonus: int = 0
    threshold: int = 30  # the team with more writes (points - threshold) x multiplier
    tie_doubles_next: bool = True
    multiplier_cap: int | None = 4
    all_tricks_doubles: bool = False
    # The game and the match
    targets: tuple[int, ...] = (101,)  # target of game 1, 2, ... (the last repeats)
    games_to_win: int = 1
    max_deals: int = 40  # per game; the higher total wins when reached

    def __post_init__(self) -> None:
        if self.direction not in (CLOCKWISE, COUNTER_CLOCKWISE):
            raise ValueError("direction must be 1 (clockwise) or -1 (counter-clockwise)")
        if sum(self.packets) != 8 or any(p <= 0 for p in self.packets):
            raise ValueError(f"packets must be positive and add up to 8, got {self.packets}")
        if self.undertrump not in (UNDERTRUMP_FORBIDDEN, UNDERTRUMP_ALLOWED, UNDERTRUMP_FORCED):
            raise ValueError(f"unknown undertrump policy {self.undertrump!r}")
        if self.trump_by_turned_card and (self.allow_no_trump or self.blind_no_trump):
            raise ValueError("a turned trump card leaves no room for no trump")
        if not self.targets or min(self.targets) <= 0 or self.games_to_win < 1:
            raise ValueError("targets must be positive and games_to_win at least 1")
        if self.max_doublings < 0 or self.max_deals < 1:
            raise ValueError("max_doublings must be >= 0 and max_deals >= 1")

    def target(self, game_index: int) -> int:
        return self.targets[min(game_index, len(self.targets) - 1)]

    @property
    def max_games(self) -> int:
        return 2 * self.games_to_win - 1

    def replace(self, **changes) -> RuleSet:
        return dataclasses.replace(self, **changes)


FLEMISH = RuleSet(name="flemish")

FLEMISH_TABLE = RuleSet(
    name="flemish-table",
    blind_no_trump=True,
    announcements=True,
    max_doublings=2,
    all_tricks_doubles=True,
    multiplier_cap=None,
    games_to_win=2,
)

FRENCH = RuleSet(
    name="french",
    direction=COUNTER_CLOCKWISE,
    packets=(4, 4),
    trump_by_turned_card=True,
    turned_card_points=True,
    allow_no_trump=False,
    undertrump=UNDERTRUMP_ALLOWED,
    trick_bonus=1,
    threshold=34,
    tie_doubles_next=False,
    multiplier_cap=None,
    targets=(34, 34, 44),
    games_to_win=2,
)

MALILLA = RuleSet(
    name="malilla",
    direction=COUNTER_CLOCKWISE,
    packets=(3, 2, 3),
    trump_by_turned_card=True,
    allow_no_trump=False,
    beat_partner=True,
    undertrump=UNDERTRUMP_FORCED,
    tie_doubles_next=False,
    multiplier_cap=None,
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (FLEMISH, FLEMISH_TABLE, FRENCH, MALILLA)}
DEFAULT = "flemish"


def get_rules(rules: str | RuleSet | None = None) -> RuleSet:
    """A preset by name (or a RuleSet passed through); ``None`` gives flemish."""
    if rules is None:
        return FLEMISH
    if isinstance(rules, RuleSet):
        return rules
    try:
        return PRESETS[rules]
    except (KeyError, TypeError):
        names = ", ".join(PRESETS)
        raise ValueError(f"unknown rules preset {rules!r}: choose one of {names}") from None
