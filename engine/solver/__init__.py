"""Double-dummy solver: exact card points per move with all four hands known.

>>> from engine import Deal
>>> d = Deal.from_hands([
...     "TS AS KS QS JS 9S 8S 7S".split(), "TH AH KH QH JH 9H 8H 7H".split(),
...     "TD AD KD QD JD 9D 8D 7D".split(), "TC AC KC QC JC 9C 8C 7C".split()], dealer=3)
>>> d.choose_trump("S")
>>> deal_value(d)          # South, on lead, takes every trick
60
>>> move_values(d)["TS"], set(move_values(d).values())
(60, {60})

The search is alpha-beta on points (team 0 maximises, team 1 minimises) with a
transposition table at trick boundaries (key: the four hands and the leader; value:
bounds), equivalent-card pruning (7/8/9 of one hand with nothing live between them),
move ordering and MTD(f) zero-window drivers.  The compiled core (``_ddcore.c``) and
the pure-Python one (``_pysolver.py``) give identical values; ``BACKEND`` says which
is in use.  Values never depend on time: there is no time budget anywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import UNDERTRUMP_ALLOWED, UNDERTRUMP_FORBIDDEN, RuleSet, get_rules
from . import _pysolver
from ._build import load_core

if TYPE_CHECKING:
    from ..deal import Deal

_core = load_core()
BACKEND = "c" if _core is not None else "python"
_impl = _core if _core is not None else _pysolver

UNDER_CODE = {UNDERTRUMP_FORBIDDEN: 0, UNDERTRUMP_ALLOWED: 1}  # anything else: forced (2)


def rule_args(rules: RuleSet | str | None) -> tuple[int, int, int, int, int]:
    """(direction, beat_partner, undertrump code, trick bonus, last-trick bonus)."""
    rs = get_rules(rules)
    return (
        rs.direction,
        int(rs.beat_partner),
        UNDER_CODE.get(rs.undertrump, 2),
        rs.trick_bonus,
        rs.last_trick_bonus,
    )


def _args(hands, trump, to_move, trick, rules):
    flat = []
    for seat, card in trick:
        flat.append(int(seat))
        flat.append(int(card))
    t = -1 if trump is None else int(trump)
    return (
        int(hands[0]),
        int(hands[1]),
        int(hands[2]),
        int(hands[3]),
        t,
        int(to_move),
        tuple(flat),
        *rule_args(rules),
    )


def solve_moves(hands, trump, to_move, trick=(), rules=None, *, backend=None) -> dict[int, int]:
    """``{card: points}`` for every legal card of ``to_move``.

    ``hands``: four masks (cards still held); ``trump``: suit index or None;
    ``trick``: ``[(seat, card), ...]`` already on the table.  ``points``: what the side
    to move secures for the rest of the deal (table cards, trick and last-trick bonuses
    included) when everybody plays double-dummy from then on.
    """
    impl = _pick(backend)
    return dict(impl.move_values(*_args(hands, trump, to_move, trick, rules)))


def solve_moves_limited(
    hands, trump, to_move, trick=(), rules=None, *, limit: int, backend=None
) -> dict[int, int] | None:
    """:func:`solve_moves`, or None when the search needs more than ``limit`` nodes.

    The values returned are exact; whether a position fits is a fixed function of the
    position for a given backend (the pure-Python one counts its own nodes).
    """
    impl = _pick(backend)
    args = _args(hands, trump, to_move, trick, rules)
    if impl is _pysolver:
        vals = dict(impl.move_values(*args))
        return vals if impl.nodes() <= limit else None
    out = impl.move_values_limited(int(limit), *args)
    return None if out is None else dict(out)


def solve_value(hands, trump, to_move, trick=(), rules=None, *, backend=None) -> int:
    """The best of :func:`solve_moves`, computed with one search."""
    return _pick(backend).value(*_args(hands, trump, to_move, trick, rules))


def legal(hands, trump, to_move, trick=(), rules=None, *, backend=None) -> int:
    """The solver's own legal mask (tests compare it with ``Deal._legal_mask``)."""
    return _pick(backend).legal(*_args(hands, trump, to_move, trick, rules))


def last_nodes(backend=None) -> int:
    return _pick(backend).nodes()


def _pick(backend):
    if backend is None:
        return _impl
    if backend == "python":
        return _pysolver
    if backend == "c":
        if _core is None:
            raise RuntimeError("the compiled solver core is not available")
        return _core
    raise ValueError(f"backend is 'c' or 'python', got {backend!r}")


def position(deal: Deal):
    """(hands, trump, to_move, trick, rules) of a Deal in its play phase."""
    if deal.phase != "play":
        raise ValueError("the solver needs a deal in its play phase")
    return (
        list(deal.hands),
        deal.trump,
        deal.to_move,
        [(s, int(c)) for s, c in deal.current_trick],
        deal.rules,
    )


def move_values(deal: Deal, *, backend=None) -> dict[str, int]:
    """``{card text: points for the side to move}`` of a Deal."""
    from ..cards import CARD_TEXT

    return {CARD_TEXT[c]: v for c, v in solve_moves(*position(deal), backend=backend).items()}


def deal_value(deal: Deal, *, backend=None) -> int:
    """Points the side to move secures for the rest of the deal."""
    return solve_value(*position(deal), backend=backend)


def available_backends() -> list[str]:
    return ["c", "python"] if _core is not None else ["python"]


__all__ = [
    "BACKEND", "solve_moves", "solve_moves_limited", "solve_value", "legal", "move_values",
    "deal_value", "position",
    "available_backends", "rule_args", "last_nodes",
]  # fmt: skip
