"""Helpers for the engine tests (not fixtures): build hands around a few fixed cards."""

from __future__ import annotations

from engine import Deal

SUITS = "SHDC"
RANKS = "789JQKAT"
ALL_TEXTS = [r + s for s in SUITS for r in RANKS]

SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3


def fill_hands(fixed: dict[int, list[str]], forbid: dict[int, str | list[str]] | None = None) -> list[list[str]]:
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
