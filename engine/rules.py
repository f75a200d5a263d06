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

MAX_FIXED_DEALS = 100  # the most deals a game of fixed deals may have


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
    # Options of a game (see OPTION_KEYS): a fixed number of deals replaces the target
    # and the match: one game of exactly ``deals`` deals, the higher total wins.
    deals: int | None = None

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
        if self.deals is not None and not (
            isinstance(self.deals, int)
            and not isinstance(self.deals, bool)  # deals=True is not a game of 1 deal
            and 1 <= self.deals <= MAX_FIXED_DEALS
        ):
            raise ValueError(
                f"a game of fixed deals has 1 to {MAX_FIXED_DEALS} deals, got {self.deals!r}"
            )

    # --- scoring a deal: one authority for the engine's deals and a table's score sheet
    def multiplier(
        self, *, no_trump: bool, blind: bool, doublings: int, tie_factor: int, all_tricks: bool
    ) -> int:
        """A deal's multiplier: no trump (blind or not), each announcement, the tie
        factor, all eight tricks where that doubles, the preset's cap."""
        m = 1
        if no_trump:
            m = self.blind_multiplier if blind else self.no_trump_multiplier
        m = m * (2**doublings) * tie_factor
        if all_tricks and self.all_tricks_doubles:
            m *= 2
        if self.multiplier_cap is not None:
            m = min(m, self.multiplier_cap)
        return m

    def written(self, points: tuple[int, int] | list[int], multiplier: int) -> tuple[int, int]:
        """What each side writes: the side with more points its points over the
        threshold times the multiplier, the other nothing (a tie: nobody)."""
        a, b = points
        thr = self.threshold
        return (max(0, a - thr) * multiplier if a > b else 0,
                max(0, b - thr) * multiplier if b > a else 0)  # fmt: skip

    def next_tie_factor(self, tied: bool, tie_factor: int) -> int:
        """The tie factor of the next deal: doubled after a tie where the preset says
        so (within the cap), else back to 1."""
        if not (tied and self.tie_doubles_next):
            return 1
        factor = tie_factor * 2
        return factor if self.multiplier_cap is None else min(factor, self.multiplier_cap)

    def target(self, game_index: int, games_won: tuple[int, int] | list[int] = (0, 0)) -> int:
        """The points a game is played to. A match's decider (french: the belle, to 44,
        the last of ``targets``) is played when the games stand level one short of the
        match (1–1), whatever the game's number: a game that ended level (at the deal
        limit) counts for neither side and is played again to the same target."""
        if self.is_match and len(self.targets) > 1:
            decider = games_won[0] == games_won[1] == self.games_to_win - 1
            return self.targets[-1] if decider else self.targets[0]
        return self.targets[min(game_index, len(self.targets) - 1)]

    @property
    def max_games(self) -> int:
        """The games a match can last: until a side has won ``games_to_win``, level games
        (at the deal limit) counting for neither, with at most MAX_LEVEL_GAMES of those
        (a bound for the duplicate deals stored; only four players steering every game
        level at the deal limit would reach it)."""
        return 2 * self.games_to_win - 1 + MAX_LEVEL_GAMES if self.is_match else 1

    @property
    def is_match(self) -> bool:
        """Several games (french, flemish-table) to a number of games won; a game of
        fixed deals is always one game."""
        return self.games_to_win > 1 and not self.deals

    @property
    def preset(self) -> RuleSet:
        """The preset these rules were made from (themselves for a custom variant)."""
        return PRESETS.get(self.name, self)

    @property
    def options(self) -> dict:
        """The options that differ from the preset: ``deals`` and ``tie_carry``."""
        base = self.preset
        out: dict = {}
        if self.deals != base.deals:
            out["deals"] = self.deals
        if self.tie_doubles_next != base.tie_doubles_next:
            out["tie_carry"] = self.tie_doubles_next
        return out

    @property
    def spec(self) -> str:
        """The preset's name and the options, as :func:`get_rules` reads them back:
        ``"flemish"``, ``"flemish deals=12"``, ``"flemish deals=12 tie=own"``."""
        return " ".join([self.name, *options_words(self.options)])

    def with_options(self, *, deals: int | None = None, tie_carry: bool | None = None) -> RuleSet:
        """These rules with game options: ``deals`` (a game of exactly that many deals;
        None: to the target, as the preset) and ``tie_carry`` (False: each deal stands
        on its own, a tie doubles nothing; True: the next deal counts double; None: as
        the preset's)."""
        if tie_carry is not None and not isinstance(tie_carry, bool):
            raise TypeError(f"tie_carry={tie_carry!r}: True, False or None")
        carry = self.preset.tie_doubles_next if tie_carry is None else tie_carry
        return self.replace(deals=deals, tie_doubles_next=carry)

    def replace(self, **changes) -> RuleSet:
        return dataclasses.replace(self, **changes)


# Games of a match that may end level (at the deal limit) before it stops anyway.
MAX_LEVEL_GAMES = 2

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

# The option words of a rules text ("flemish deals=12 tie=own"); the longest text
# ("flemish-table deals=100 tie=own") fits the 32 characters a game row keeps.
OPTION_KEYS = ("deals", "tie")
TIE_WORDS = {"carry": True, "own": False}


def options_words(options: dict) -> list[str]:
    """``{"deals": 12, "tie_carry": False}`` -> ``["deals=12", "tie=own"]``."""
    words = []
    if options.get("deals") is not None:
        words.append(f"deals={options['deals']}")
    if options.get("tie_carry") is not None:
        words.append("tie=" + ("carry" if options["tie_carry"] else "own"))
    return words


def parse_options(text: str) -> dict:
    """``"deals=12 tie=own"`` -> ``{"deals": 12, "tie_carry": False}``; ValueError
    naming the bad word."""
    out: dict = {}
    seen: set[str] = set()
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in OPTION_KEYS:
            raise ValueError(f"unknown rules option {word!r}: write deals=N and/or tie=carry|own")
        if key in seen:
            raise ValueError(f"rules option {key} given twice")
        seen.add(key)
        if key == "deals":
            if not value.isdigit() or not 1 <= int(value) <= MAX_FIXED_DEALS:
                raise ValueError(
                    f"deals={value}: a game of fixed deals has 1 to {MAX_FIXED_DEALS} deals"
                )
            out["deals"] = int(value)
        else:
            if value not in TIE_WORDS:
                raise ValueError(
                    f"tie={value}: write tie=carry (a tie doubles the next deal)"
                    " or tie=own (each deal stands on its own)"
                )
            out["tie_carry"] = TIE_WORDS[value]
    return out


def get_rules(rules: str | RuleSet | None = None, **options) -> RuleSet:
    """A preset by name (or a RuleSet passed through); ``None`` gives flemish.

    A name may carry game options, as :attr:`RuleSet.spec` writes them
    (``"flemish deals=12 tie=own"``), or pass them as keywords (``deals=12,
    tie_carry=False``; see :meth:`RuleSet.with_options`).
    """
    if rules is None:
        rs = FLEMISH
    elif isinstance(rules, RuleSet):
        rs = rules
    else:
        name, _, rest = rules.strip().partition(" ") if isinstance(rules, str) else (rules, "", "")
        try:
            rs = PRESETS[name]
        except (KeyError, TypeError):
            names = ", ".join(PRESETS)
            raise ValueError(f"unknown rules preset {rules!r}: choose one of {names}") from None
        if rest.strip():
            rs = rs.with_options(**parse_options(rest))
    if options:
        unknown = set(options) - {"deals", "tie_carry"}
        if unknown:
            raise TypeError(f"unknown rules options {sorted(unknown)}: deals, tie_carry")
        rs = rs.with_options(**{**rs.options, **options})
    return rs
