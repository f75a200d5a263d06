"""Card-location network: where each unseen card probably is, from one seat's view.

The expert's inference (:mod:`engine.bots.inference`, the compiled core's ``infer``)
weighs every candidate deal by how plausible the other seats' plays are under it, play
by play, with small linear play models.  This module gives a second, direct opinion: a
network fitted on recorded deals (``bench/fit_locnet.py``: expert self-play and the
expert against other bots, from every seat's view) reads the whole observation
— the seat's hand, every card played and how (led, followed, discarded or trumped, on a
partner's winning card, winning the trick), what the sampler already knows (voids,
cards a seat cannot hold), the dealer and trump, the preset, the trick — and gives, for
every card the seat cannot see, the probability that each of the other three seats
holds it, as a correction of the share of the seats' room (the sampler's own
marginal, near enough).  A candidate deal then also weighs ``beta x sum log P(card at its seat)``
(``InferenceConfig.loc_beta``).

- Suits are renamed so that trump is suit 0 (the other suits keep their order): the
  network learns one trump, not four.
- The inputs are 0/1 (a list of the indices that are 1); the hidden layer is ReLU.
- :func:`log_table` evaluates it with fixed summation order in plain float64 (numpy's
  element-wise operations and axis-0 sums, the exponentials in :mod:`math`): the same
  numbers in every process, so the bot stays a pure function of (observation, seed).

The weights (``locnet.npz``, float32) ship with the package, beside the earlier
experts' (``locnet-<date>.npz``, named by ``InferenceConfig.loc_weights``); without them
the module reports no table and the expert plays as without the network.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

from ..cards import CARD_BY_TEXT, SUITS
from ..rules import get_rules
from .policy import trick_winner
from .sampler import Hidden, analyse

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locnet.npz")

PRESETS = ("flemish", "flemish-table", "french", "malilla")
# input layout (offsets): own hand 32; played by relative seat 4 x 32; led 4 x 32;
# not followed 4 x 32; played on the own side's winning card 4 x 32; winning the trick
# when played 4 x 32; cannot hold (sampler) 3 x 32; dealer 4; no trump 1; preset 4;
# tricks done 8; cards on the table 4; leader of the trick 4; hidden cards each other
# seat still holds 3 x 9
HAND, PLAYED, LED, OFF, ONWIN, BEAT, FORBID = 0, 32, 160, 288, 416, 544, 672
DEALER, NO_TRUMP, PRESET, TRICK, ON_TABLE, LEADER, NEED = 768, 772, 773, 777, 785, 789, 793
N_IN = 820


def _canon(trump: int | None) -> list[int]:
    """Card -> card with the suits renamed (trump first, the others in order)."""
    if trump is None:
        order = [0, 1, 2, 3]
    else:
        order = [trump] + [s for s in range(4) if s != trump]
    new = {s: i for i, s in enumerate(order)}
    return [new[c >> 3] * 8 + (c & 7) for c in range(32)]


def encode(obs: dict, hidden: Hidden | None = None):
    """(input indices, allowed seats per card, card renaming, hidden cards still held by
    the seats 1, 2, 3 places to the left) of a play observation, or None when no card
    is hidden.  ``allowed[c]``: bit r-1 set when the seat r places to the left of the
    viewer (1 left, 2 partner, 3 right) may hold card c (0: not hidden).  ``hidden``:
    the sampler's :func:`analyse` of ``obs``, when the caller has it already."""
    if obs.get("phase") != "play":
        return None
    rules = get_rules(obs.get("rules"))
    me = obs["seat"]
    if hidden is None:
        hidden = analyse(obs, rules)
    if not hidden.unseen:
        return None
    trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
    canon = _canon(trump)
    idx = [HAND + canon[c] for c in range(32) if hidden.hand >> c & 1]
    tricks = [t["cards"] for t in obs["tricks"]] + [obs["current_trick"]["cards"]]
    for texts in tricks:
        cards = [(s, CARD_BY_TEXT[text]) for s, text in texts]
        for i, (s, c) in enumerate(cards):
            r, cc = (s - me) % 4, canon[c]
            idx.append(PLAYED + 32 * r + cc)
            if i == 0:
                idx.append(LED + 32 * r + cc)
                continue
            if (c >> 3) != (cards[0][1] >> 3):
                idx.append(OFF + 32 * r + cc)
            if ((trick_winner(cards[:i], trump)[0] ^ s) & 1) == 0:
                idx.append(ONWIN + 32 * r + cc)
            if trick_winner(cards[: i + 1], trump)[0] == s:
                idx.append(BEAT + 32 * r + cc)
    allowed = [0] * 32
    for r in (1, 2, 3):
        s = (me + r) % 4
        f = hidden.forbid[s]
        for c in range(32):
            if f >> c & 1:
                idx.append(FORBID + 32 * (r - 1) + canon[c])
        idx.append(NEED + 9 * (r - 1) + min(hidden.need[s], 8))
        if hidden.need[s] > 0:
            for c in range(32):
                if hidden.unseen >> c & 1 and not f >> c & 1:
                    allowed[c] |= 1 << (r - 1)
    idx.append(DEALER + (obs["dealer"] - me) % 4)
    if trump is None:
        idx.append(NO_TRUMP)
    if rules.name in PRESETS:
        idx.append(PRESET + PRESETS.index(rules.name))
    idx.append(TRICK + min(len(obs["tricks"]), 7))
    cur = obs["current_trick"]
    idx.append(ON_TABLE + min(len(cur["cards"]), 3))
    idx.append(LEADER + (cur["leader"] - me) % 4)
    need = [hidden.need[(me + r) % 4] for r in (1, 2, 3)]
    return sorted(set(idx)), allowed, canon, need


_LOG = [0.0] + [math.log(n) for n in range(1, 9)]


@lru_cache(maxsize=4)
def _weights(name: str | None = None):
    """The network's weights in float64 (``name``: a file next to this module; None:
    :data:`WEIGHTS`), or None when the file or numpy is missing."""
    path = WEIGHTS if name is None else os.path.join(os.path.dirname(WEIGHTS), name)
    try:
        import numpy as np

        with np.load(path) as z:
            return {k: z[k].astype(np.float64) for k in ("w1", "b1", "w2", "b2")}
    except (OSError, ImportError, KeyError):
        return None


def available(name: str | None = None) -> bool:
    return _weights(name) is not None


def log_table(
    obs: dict, hidden: Hidden | None = None, weights: str | None = None
) -> list[float] | None:
    """128 numbers, ``4 * card + seat``: log P(seat holds card) for each hidden card
    (0 for the cards that are not hidden, -1e9 where the card cannot be), or None (no
    weights, or nothing hidden).  ``hidden`` as :func:`encode`; ``weights`` as
    :func:`available` (None: :data:`WEIGHTS`)."""
    p = _weights(weights)
    enc = encode(obs, hidden)
    if p is None or enc is None:
        return None
    idx, allowed, canon, need = enc
    # first layer: the rows of the active inputs added one after another (axis-0 sum)
    h = p["w1"][idx].sum(axis=0) + p["b1"]
    h = h * (h > 0)
    z = (h[:, None] * p["w2"]).sum(axis=0) + p["b2"]
    zl = z.tolist()
    me = obs["seat"]
    out = [0.0] * 128
    for c in range(32):
        a = allowed[c]
        if not a:
            continue
        k = canon[c]
        # the network's output corrects the room share (log of the cards each seat
        # still holds)
        logits = [zl[3 * k + r] + _LOG[need[r]] if a >> r & 1 else None for r in range(3)]
        m = max(v for v in logits if v is not None)
        tot = sum(math.exp(v - m) for v in logits if v is not None)
        lse = m + math.log(tot)
        for r in range(3):
            s = (me + r + 1) % 4
            out[4 * c + s] = (logits[r] - lse) if logits[r] is not None else -1e9
    return out
