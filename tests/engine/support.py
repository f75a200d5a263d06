"""Helpers for the engine tests (not fixtures): build hands around a few fixed cards."""

from __future__ import annotations

from engine import Deal

SUITS = "SHDC"
RANKS = "789JQKAT"
ALL_TEXTS = [r + s for s in SUITS for r in RANKS]

SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3


def fill_hands(
    fixed: dict[int, list[str]], forbid: dict[int, str | list[str]] | None = None
) -> list[list[str]]:
    """Four 8-card hands holding ``fixed`` cards; the other cards are spread so that no
    seat gets an extra card of a suit (one letter) or a card (two letters) in ``forbid``.
    Deterministic: the result depends only on the arguments."""
    forbid = forbid or {}
    hands = [list(fixed.get(s, [])) for s in range(4)]
    used = {c for h in hands for c in h}
    assert len(used) == sum(len(h) for h in hands), "a fixed card is given twice"
    rest = [c for c in ALL_TEXTS if c not in used]

    def eligible(card: str) -> list[int]:
        out = []
        for s in range(4):
            f = forbid.get(s, "")
            items = list(f) if isinstance(f, str) else list(f)
            suits = {x for x in items if len(x) == 1}
            cards = {x for x in items if len(x) == 2}
            if card[1] in suits or card in cards:
                continue
            out.append(s)
        return out

    # Most constrained cards first, each to the eligible seat with most room left.
    rest.sort(key=lambda c: (len(eligible(c)), ALL_TEXTS.index(c)))
    for card in rest:
        seats = [s for s in eligible(card) if len(hands[s]) < 8]
        assert seats, f"cannot place {card}: hands {hands}"
        seat = max(seats, key=lambda s: (8 - len(hands[s]), -s))
        hands[seat].append(card)
    assert all(len(h) == 8 for h in hands), hands
    return hands


def deal_with(fixed, forbid=None, *, dealer: int, trump: str | None, rules="flemish") -> Deal:
    """A flemish-style deal (dealer chooses trump; ``None`` = no trump) in the play phase."""
    d = Deal.from_hands(fill_hands(fixed, forbid), dealer=dealer, rules=rules)
    d.choose_trump(trump)
    return d


def snapshot(d: Deal) -> tuple:
    """Everything a refused move must leave untouched."""
    return (
        d.phase,
        d.to_move,
        tuple(d.hands),
        tuple(d.current_trick),
        len(d.tricks),
        tuple(d.team_points),
        tuple(d.actions),
        tuple(str(c) for c in d.legal_moves()),
        tuple(repr(d.observation(s)) for s in range(4)),
    )


def finish_randomly(d: Deal, rng) -> Deal:
    """A clone of ``d`` played to the end with random legal actions."""
    d = d.clone()
    while not d.is_terminal():
        d.apply_action(rng.choice(d.legal_actions()))
    return d


def find_playout(d: Deal, predicate, seed: int | str = 0, tries: int = 3000) -> Deal:
    """The first random continuation of ``d`` (seeded) whose finished deal satisfies
    ``predicate``; ``.actions`` of the result holds the whole action list."""
    import random

    rng = random.Random(seed)
    for _ in range(tries):
        done = finish_randomly(d, rng)
        if predicate(done):
            return done
    raise AssertionError("no continuation found")


# ------------------------------------------------------------------ scripted games
# One fixed deal (seed "x", deal 1, East deals) whose random playouts give WIJ anything
# from 0 to about 50 card points: a library of plays with a chosen result, to build
# games with exact scores.

SCRIPT_SEED = "x"
_script_cache: dict[tuple[bool, int], list[str]] = {}


def script_spec(number: int = 1):
    import dataclasses

    from engine import deal_for

    return dataclasses.replace(deal_for(SCRIPT_SEED, 1), number=number)


def scripted(wij_points: int, no_trump: bool = False, tries: int = 40000) -> list[str]:
    """Flemish actions (trump choice + 32 cards) for the script deal in which WIJ
    (South/North) take exactly ``wij_points`` card points."""
    import random

    key = (no_trump, wij_points)
    if key not in _script_cache:
        rng = random.Random(f"script-{no_trump}-{wij_points}")
        trumps = ["trump:none"] if no_trump else ["trump:S", "trump:H", "trump:D", "trump:C"]
        for i in range(tries):
            d = Deal.from_spec(script_spec())
            d.apply_action(trumps[i % len(trumps)])
            done = finish_randomly(d, rng)
            if done.result.card_points[0] == wij_points:
                _script_cache[key] = list(done.actions)
                break
        else:
            raise AssertionError(f"no playout with WIJ = {wij_points}")
    return list(_script_cache[key])


def as_table(actions: list[str]) -> list[str]:
    """The same deal at the flemish-table: look, trump, both opponents pass, the cards."""
    return ["look", actions[0], "pass", "pass", *actions[1:]]


def scripted_game(plan, rules="flemish", seed="scripted"):
    """``plan``: list of (spec or None for the script deal, actions). Returns the Game
    after applying every action of the plan (one deal per entry)."""
    from engine import Game

    specs = [spec for spec, _ in plan]

    def deals(n):
        import dataclasses

        spec = specs[n - 1] if n - 1 < len(specs) and specs[n - 1] is not None else script_spec()
        return dataclasses.replace(spec, number=n)

    g = Game(seed, rules, deals=deals)
    for i, (_, actions) in enumerate(plan):
        assert g.deal_number == i + 1 and not g.is_terminal()
        for a in actions:
            g.apply_action(a)
    return g
