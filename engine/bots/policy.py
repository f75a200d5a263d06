"""A small card-play policy model fitted on expert self-play (inference for the expert).

The expert weighs each sampled deal by how plausible the other seats' earlier plays are
under it.  This module gives that plausibility: a linear softmax over the legal cards,
``P(card) ∝ exp(coef · features(card))``, the features describing the card in its
context (points, rank, trump, master, lowest/highest of its suit in the hand, winning
the trick, the partner winning, the seat's position, ...).  The coefficients were fitted
by ``bench/fit_policy.py`` on the expert's own choices in self-play, so the model is
the expert's play in a few dozen numbers, not the rule-based bot's.

:func:`features` is the reference; the compiled core (``engine/solver/_ismcts.c``,
``policy_features``) computes the same numbers and does the sampling and weighting
(tests compare the two).  Everything is a pure function of its arguments.
"""

from __future__ import annotations

import math

from ..cards import ABOVE, FULL_DECK, RANK_POINTS, SUIT_MASKS

_PTS = tuple(RANK_POINTS[c & 7] for c in range(32))

NAMES = (
    "pts", "rank", "trump", "master", "lowest", "highest", "length", "higher_unseen",
    "trump_ten", "trumps_held",
    "lead", "lead_pts", "lead_trump", "lead_master", "lead_length", "lead_master_pts",
    "lead_lowest", "lead_suit_unseen", "lead_trump_master", "lead_singleton",
    "follow", "partner_pts", "overtake_partner", "beat_opp", "beat_pts", "give_opp_pts",
    "last_beat", "last_partner_pts", "safe_win", "ruff", "trump_on_partner", "table_beat",
    "discard_pts", "discard_singleton", "second_beat", "third_beat", "second_pts",
)  # fmt: skip
N = len(NAMES)


def _count(m: int) -> int:
    return bin(m).count("1")


def trick_winner(trick, trump: int | None) -> tuple[int, int]:
    w_seat, w = trick[0]
    for s, c in trick[1:]:
        if (c >> 3) == (w >> 3):
            if c > w:
                w_seat, w = s, c
        elif trump is not None and (c >> 3) == trump:
            w_seat, w = s, c
    return w_seat, w


def features(hand: int, trick, trump: int | None, unseen: int, seat: int, c: int) -> list[float]:
    """Features of playing ``c`` from ``hand`` on ``trick`` (``[(seat, card)]``).

    ``unseen``: the cards the player cannot see (not in his hand, not played before).
    """
    suit, r = c >> 3, c & 7
    pts = _PTS[c] / 5
    tr = 1.0 if trump is not None and suit == trump else 0.0
    hs = hand & SUIT_MASKS[suit]
    length = _count(hs)
    higher = _count(unseen & ABOVE[c])
    master = 1.0 if higher == 0 else 0.0
    lowest = 1.0 if (hs & -hs) == (1 << c) else 0.0
    highest = 1.0 if hs.bit_length() - 1 == c else 0.0
    trumps_held = _count(hand & SUIT_MASKS[trump]) / 8 if trump is not None else 0.0
    f = [
        pts, r / 7, tr, master, lowest, highest, length / 8, higher / 8,
        tr * (r == 7), tr * trumps_held,
    ]  # fmt: skip
    lead = [0.0] * 10
    follow = [0.0] * 17
    if not trick:
        lead = [
            1.0, pts, tr, master, length / 8, master * pts, lowest,
            _count(unseen & SUIT_MASKS[suit]) / 8, tr * master, 1.0 if length == 1 else 0.0,
        ]  # fmt: skip
    else:
        n = len(trick)
        led = trick[0][1] >> 3
        w_seat, w = trick_winner(trick, trump)
        partner = 1.0 if ((w_seat ^ seat) & 1) == 0 else 0.0
        if (c >> 3) == (w >> 3):
            beats = 1.0 if c > w else 0.0
        else:
            beats = tr
        follows = 1.0 if suit == led else 0.0
        last = 1.0 if n == 3 else 0.0
        safe = beats * (1.0 if n == 3 or (master and follows) else 0.0)
        table = sum(_PTS[x] for _, x in trick) / 10
        follow = [
            1.0, partner * pts, partner * beats, (1 - partner) * beats, beats * pts,
            (1 - partner) * (1 - beats) * pts, last * beats, last * partner * pts, safe,
            tr * (1 - follows), tr * partner, table * beats, (1 - follows) * (1 - tr) * pts,
            (1 - follows) * (1.0 if length == 1 else 0.0), (n == 1) * beats, (n == 2) * beats,
            (n == 1) * pts,
        ]  # fmt: skip
    return f + lead + follow


def probabilities(coef, hand, trick, trump, unseen, seat, legal_cards) -> list[float]:
    """Softmax of ``coef · features`` over ``legal_cards`` (the reference for the core)."""
    scores = [
        sum(a * b for a, b in zip(coef, features(hand, trick, trump, unseen, seat, c), strict=True))
        for c in legal_cards
    ]
    m = max(scores)
    ex = [math.exp(s - m) for s in scores]
    t = sum(ex)
    return [e / t for e in ex]


def unseen_for(hand: int, before: int) -> int:
    return FULL_DECK & ~before & ~hand


# Fitted by `python bench/fit_policy.py --deals 60 --seed fit-policy-1` on the expert's
# self-play (2026-11-30 settings: heuristic-model inference): 1,237 decisions of 60 deals
# over the four presets; held out, log-likelihood per decision -0.952 (uniform -1.178).
# fmt: off
COEF: tuple[float, ...] = (
    0.392, -0.882, 0.026, -0.726, 0.885, -0.022, -0.239, -0.096, -0.746, 0.058,
    -0.000, 0.313, 0.172, 1.605, 0.094, 0.766, -0.560, 0.273, 0.682, 0.418,
    0.000, 1.844, -0.709, 0.000, 0.015, -2.412, -0.980, 0.764, 1.279, -0.146,
    -0.025, -0.139, -0.117, 0.811, -0.000, 0.271, 0.816,
)
# fmt: on

# Fitted by `python bench/fit_policy.py --deals 400 --seed fit-heur-1 --bot heuristic` on
# the rule-based bot's self-play (the "beginner" level): 7,586 decisions over the four
# presets; held out, log-likelihood per decision -0.442 (uniform -1.129), top card = the
# bot's 82.5 %.  The model of a simple, rule-following player, one component of the
# expert's mixture (``InferenceConfig.models``).
# fmt: off
HEURISTIC_COEF: tuple[float, ...] = (
    0.693, -1.996, -1.928, 1.446, 2.061, 0.793, 1.251, -0.718, -0.059, -0.229,
    0.000, -0.551, -1.250, -0.452, 1.099, 3.885, 0.333, 0.550, -2.243, -1.584,
    0.000, 4.182, -0.775, 0.000, -0.127, -3.745, -1.008, 1.825, 1.109, -0.734,
    -0.562, -0.411, -0.274, -0.696, -0.000, 0.234, 0.541,
)
# fmt: on

# Refitted by `python bench/fit_policy.py --records FILES` on the current expert's own
# decisions in self-play (bench/inference_check.py record, 686 deals over the presets,
# 15,339 decisions; held out -0.929 per decision, uniform -1.161): the expert-like model
# of the expert of 2026-12-03 (``InferenceConfig.coef``).
# fmt: off
COEF_2026_12_03: tuple[float, ...] = (
    -0.709, -0.250, -0.276, -0.711, 0.396, 0.484, 0.571, -0.175, -0.623, 0.219,
    0.000, -0.194, 0.049, 1.321, 0.569, 1.808, -0.053, -0.086, 0.254, -0.232,
    0.000, 1.399, -0.407, 0.000, 0.072, -3.174, -0.898, 0.587, 1.233, -0.325,
    -0.199, -0.432, 0.279, 0.187, 0.000, 0.492, 0.696,
)
# fmt: on

# The play models by name (``InferenceConfig.models``); "rules" is the rule-based bot
# itself (engine/bots/heuristic.py's card play, in the compiled core: ``rule_card``), a
# play having probability mix / n + (1 - mix) x [it is that bot's card].
MODELS: dict[str, tuple[float, ...] | str] = {
    "expert": COEF,
    "heuristic": HEURISTIC_COEF,
    "rules": "rules",
    # the expert-like model at half its sharpness: a strong player who plays less
    # predictably (benchmark variants only)
    "expert-flat": tuple(0.5 * c for c in COEF),
}
