"""Perfect-information Monte Carlo (PIMC) players: "club" and "expert".

Per decision: draw W deals of the hidden cards that agree with everything the seat
has seen (:mod:`engine.bots.sampler`, uniform among the consistent deals), solve each
double-dummy (:mod:`engine.solver`) for the card points every legal card secures, and
play the card with the best average.  Ties go to the cheapest card (points, then rank,
then suit), so the choice is a fixed function of the averages.

- Inference (``inference``, the expert): the hard facts leave the deals equally likely,
  but the other players' earlier actions are more plausible under some of them
  (:mod:`engine.bots.inference`: the dealer named trump in a long suit, a player led or
  followed the way a sensible player does with the sampled hand).  ``candidates x W``
  uniform deals are drawn and W of them kept by systematic resampling on that
  plausibility (a deal kept k times is solved once, weight k); with few deals left all
  of them are solved and averaged with those weights.  Measured on 400 duplicate deals
  against the heuristic bot: about +1.9 card points per deal over the same bot without.
  ``model="policy"``: the other seats are modelled by a softmax fitted on the expert's
  own self-play (:mod:`engine.bots.policy`, not the rule-based bot), and the drawing,
  weighting and resampling run in the compiled core (``engine/solver/_ismcts.c``,
  ``infer``), which is what lets the same time buy more deals.
  ``models``: a mixture of play models, each other seat playing by one of them
  throughout (which one is not known: the weight of a deal for that seat is the prior-
  weighted sum of each model's product of probabilities), so that a player who follows
  the simple rules is recognised as such after a few cards and one who plays like the
  expert as that (``"rules"``: the rule-based bot's own card, computed in the core).
- Few cards left: when at most ``exact_limit`` deals agree with the observation, all
  of them are solved (the exact expectation under a uniform prior) instead of W.
- Trump (the dealer sees only his 8 cards): a small fitted table
  (:mod:`engine.bots.trump_table`, linear in features of the 8 cards, fitted on
  double-dummy results of random deals) predicts his side's points per option; the best
  expected written score ``multiplier x (points - 30)`` wins.  ``trump_table=False``
  solves K sampled completions of the other 24 cards per option instead.
- flemish-table: "look" (never blind), and "mee"/"tegen" when the same estimate gives
  the side at least ``announce_margin`` points above 30.

- The first trick (``mcts_tricks``): only 4-8 deals could be solved per decision there,
  so it is played by information-set MCTS instead (:mod:`engine.bots.ismcts`' compiled
  search, ``mcts_iterations``), its determinisations drawn from ``mcts_pool`` deals
  weighted by the same inference (``search_pool`` in ``engine/solver/_ismcts.c``): the
  search handles what each seat cannot see, the inference what the plays so far say.
  ``mcts_blend`` (the expert, from 2026-12-02b): every later card scored by a mix of its
  PIMC value and its mean in such a search (20,000 iterations over 400 inferred deals).
  The two err in different places -- PIMC assumes every seat knows the deal (strategy
  fusion) on 40-200 deals, the MCTS sees what each seat cannot see but values with
  random playouts on a wider sample -- and the mix beats either alone.

- Bounded work: ``node_budget`` stops solving further deals once that many solver
  nodes are spent (at least ``min_deals`` solved), which bounds the hardest opening
  leads by an amount of search rather than of time; ``node_cap`` is a hard bound on the
  nodes of one decision (each solve may use only what is left of it), which also
  bounds the flemish-table announce.

Determinism: every choice is a pure function of (observation, seed): the RNG is
:func:`engine.bots.base.decision_rng` of both, the sample counts are fixed, there is
no time budget, and the solver's values do not depend on its backend or call history
(its node counts, which ``node_budget`` reads, are fixed for a given backend; the
policy inference needs the compiled core).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..cards import CARD_BY_TEXT, CARD_TEXT, RANK_POINTS, SUITS
from ..rules import get_rules
from . import policy
from .base import PhaseBot, decision_rng
from .inference import InferenceConfig, PlayModel
from .policy import trick_winner
from .sampler import analyse
from .trump_table import predict

_PTS = tuple(RANK_POINTS[c & 7] for c in range(32))


def _solver():
    # Imported on first use: loading the solver may compile its C core once.
    from .. import solver

    return solver


def _resample(hidden, model, rng, keep: int, draw: int) -> tuple[list, list[float]]:
    """``keep`` of ``draw`` uniform deals, picked with probability by plausibility.

    Systematic resampling (one uniform offset from ``rng``): a deal kept k times is
    solved once with weight k.
    """
    cands = [hidden.sample(rng) for _ in range(draw)]
    ws = [model.weight(h) for h in cands]
    total = sum(ws)
    step = total / keep
    u = rng.random() * step
    deals, weights = [], []
    acc = 0.0
    for h, w in zip(cands, ws, strict=True):
        acc += w
        k = 0
        while u < acc:
            k += 1
            u += step
        if k:
            deals.append(h)
            weights.append(float(k))
    return deals, weights


_CORE: list = []


def _policy_core():
    """The compiled core of the policy inference, or None (no C compiler on this host:
    the expert then weighs deals with the heuristic model in Python, which is just as
    deterministic but makes other choices)."""
    if not _CORE:
        from ..solver._build import load_core

        _CORE.append(load_core("_ismcts"))
    return _CORE[0]


def _policy_deals(obs, rules, hidden, model, inf, rng, keep: int, enumerated):
    """Deals and weights under the fitted policy model, sampled and weighted in C."""
    from ..solver import rule_args
    from .policy import MODELS

    core = _policy_core()
    # one model, or a mixture (a one-model list weighs exactly as that model alone)
    coef = [inf.coef if m == "expert" and inf.coef is not None else MODELS[m] for m in inf.models]
    extra = (inf.priors,)
    events, ti = model.core_args()
    trump = -1 if model.trump is None else model.trump
    _, bp, under, _, _ = rule_args(rules)
    par = (inf.mix, inf.alpha_opp, inf.alpha_partner, inf.eps_trump)
    if inf.loc_beta:
        from . import locnet

        table = locnet.log_table(obs, hidden, inf.loc_weights)
        if table is not None:
            extra = (inf.priors, [inf.loc_beta * x for x in table])
    if enumerated is not None:
        lw = core.weights(enumerated, events, coef, ti, trump, bp, under, *par, *extra)
        top = max(lw)
        return enumerated, [math.exp(x - top) for x in lw]
    out = core.infer(
        list(hidden.known), list(hidden.need), list(hidden.forbid), hidden.unseen,
        events, coef, ti, trump, bp, under, keep, keep * inf.candidates,
        rng.getrandbits(64), *par, *extra,
    )  # fmt: skip
    return [list(x[:4]) for x in out], [float(x[4]) for x in out]


def _cheap_key(c: int) -> tuple[int, int, int]:
    return (_PTS[c], c & 7, c >> 3)


def _best(scores: dict[int, float]) -> int:
    """The card with the highest score, ties to the cheapest (points, rank, suit)."""
    top = max(scores.values())
    return min((c for c, v in scores.items() if v == top), key=_cheap_key)


@dataclass(frozen=True)
class PIMCConfig:
    samples: tuple[int, ...]  # W deals per card decision, by trick number (1..8)
    exact_limit: int  # solve every consistent deal when there are at most this many
    trump_samples: int  # completions per trump option
    announce_samples: int
    announce_margin: float = 4.0
    trump_table: bool = True  # fitted table (trump_table.py) instead of sampled solving
    inference: InferenceConfig | None = None  # weight deals by the plausibility of the plays
    # Stop solving more deals once this many search nodes are spent (at least min_deals
    # solved; at twice the budget, at least one): bounds the hardest decisions (opening
    # leads) by a fixed amount of search, a pure function of the deals, never of the
    # clock.  None: no bound.
    node_budget: int | None = None
    min_deals: int = 3
    # A deal whose solve needs more than this many nodes is left out (the rare very
    # hard full deals of the opening lead; when no deal fits, the rule-based bot's card);
    # None: every deal is solved in full.
    solve_limit: int | None = None
    # A hard bound on the solver nodes of one decision (play, or the flemish-table
    # announce): each solve may use only what is left of it (a solve that would go past
    # it is cut off and its deal left out), so the worst decision is bounded by a fixed
    # amount of search.  None: only node_budget / solve_limit apply.
    node_cap: int | None = None
    # The first ``mcts_tricks`` tricks are played by information-set MCTS
    # (:mod:`engine.bots.ismcts`, ``mcts_iterations`` per decision) instead of PIMC.
    mcts_tricks: int = 0
    mcts_iterations: int = 20000
    # > 0: the MCTS draws its determinisations from this many deals weighted by the
    # inference (as PIMC's), not uniformly.
    mcts_pool: int = 0
    # > 1: that many independent MCTS trees at those tricks (each its own deals and
    # seed), the card with the most visits over them all
    mcts_trees: int = 1
    # >= 0 (with mcts_pool): that MCTS's playouts by the rule-based player, this share of
    # the cards uniformly random; None: random playouts
    mcts_playout: float | None = None
    # > 0: from trick ``mcts_tricks + 1`` on, every card is scored (1 - b) x its PIMC
    # value + b x its mean in an MCTS of ``blend_iterations`` over the same inference
    mcts_blend: float = 0.0
    blend_iterations: int = 20000
    # with mcts_tricks 0: the blend's iterations at trick 1 (None: blend_iterations),
    # and PIMC's node budget there (None: node_budget)
    blend_first: int | None = None
    first_budget: int | None = None
    # the blend's weight and iterations by trick number (1..8, the last entry repeats),
    # instead of mcts_blend / blend_iterations; the UCB constant of the blend's MCTS
    # (None: the sparring partner's, ismcts.UCB_C)
    blend_weights: tuple[float, ...] | None = None
    blend_iters: tuple[int, ...] | None = None
    blend_c: float | None = None
    # the blend's MCTS draws from this many inferred deals (None: mcts_pool)
    blend_pool: int | None = None
    # the blend's MCTS playouts (as mcts_playout; None: mcts_playout's)
    blend_playout: float | None = None
    # From trick ``postpone_from + 1`` on (None: never), the bot's own next card is not
    # assumed to know the deal (PIMC's strategy fusion): after each card of this trick
    # the others answer double dummy, and at the bot's next turn one card is chosen for
    # all the deals that look alike from its seat (the same cards seen played), the
    # first ``postpone_deals`` of the drawn deals.
    postpone_from: int | None = None
    postpone_deals: int = 48


class PIMCBot(PhaseBot):
    def __init__(self, name: str, config: PIMCConfig, backend: str | None = None) -> None:
        self.name = name
        self.config = config
        self.backend = backend  # solver backend: None = the fastest available
        # what the first decision would otherwise load (the compiled core, numpy and the
        # card-location network's weights, ~0.15 s), loaded with the bot: once per process
        inf = config.inference
        if inf is not None and inf.model == "policy" and _policy_core() is not None:
            if inf.loc_beta:
                from . import locnet

                locnet.available(inf.loc_weights)

    # ----------------------------------------------------------------- play
    def card_values(self, obs: dict, seed: bytes) -> dict[str, float]:
        """Average points (rest of the deal, own side) of each legal card."""
        rules = get_rules(obs.get("rules"))
        seat = obs["seat"]
        trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
        trick = [(s, CARD_BY_TEXT[c]) for s, c in obs["current_trick"]["cards"]]
        hidden = analyse(obs, rules)
        deals = hidden.enumerate_deals(self.config.exact_limit)
        inf = self.config.inference
        model = PlayModel(obs, rules, inf) if inf is not None else None
        if model is not None and not model.informative:
            model = None
        weights: list[float]
        if model is not None and inf is not None and inf.model == "policy" and _policy_core():
            rng = decision_rng(obs, seed)
            w = self.config.samples[min(len(obs["tricks"]), len(self.config.samples) - 1)]
            deals, weights = _policy_deals(obs, rules, hidden, model, inf, rng, w, deals)
        elif deals is None:
            rng = decision_rng(obs, seed)
            w = self.config.samples[min(len(obs["tricks"]), len(self.config.samples) - 1)]
            if model is None or inf is None:
                deals = [hidden.sample(rng) for _ in range(w)]
                weights = [1.0] * w
            else:
                deals, weights = _resample(hidden, model, rng, w, w * inf.candidates)
        elif model is not None:
            weights = [model.weight(h) for h in deals]
        else:
            weights = [1.0] * len(deals)
        legal = [CARD_BY_TEXT[t] for t in obs["legal"]]
        solver = _solver()
        totals = dict.fromkeys(legal, 0.0)
        budget = self.config.node_budget
        if not obs["tricks"] and self.config.first_budget is not None:
            budget = self.config.first_budget
        nodes, n, solved = 0, 0.0, 0
        pf = self.config.postpone_from
        postpone = pf is not None and pf <= len(obs["tricks"]) < 7 and len(legal) > 1
        kept: list[tuple[list[int], float, dict[int, int]]] = []  # for _postponed
        for hands, wt in zip(deals, weights, strict=True):
            if not wt:
                continue
            if (
                budget is not None
                and solved
                and (nodes > 2 * budget or (nodes > budget and solved >= self.config.min_deals))
            ):
                break  # a fixed amount of search, not of time: the same on every machine
            lim = self._limit(nodes)
            if lim is not None and lim < 1:
                break  # the hard node cap is spent
            if lim is None:
                vals = solver.solve_moves(hands, trump, seat, trick, rules, backend=self.backend)
            else:
                vals = solver.solve_moves_limited(
                    hands, trump, seat, trick, rules, limit=lim, backend=self.backend
                )
            nodes += solver.last_nodes(self.backend)
            if vals is None:
                continue  # one of the rare very hard deals: left out, by node count
            solved += 1
            n += wt
            if postpone and len(kept) < self.config.postpone_deals:
                kept.append((hands, wt, vals))
            for c in legal:
                totals[c] += wt * vals[c]
        if kept:
            # the strategy-fusion penalty, measured on the first deals, corrects the
            # plain PIMC value over them all
            fix = self._postponed(kept, trump, seat, trick, rules)
            return {CARD_TEXT[c]: totals[c] / n + fix[c] for c in legal}
        if not solved:  # every deal too hard for the limit: the rule-based card, valued 0
            from .heuristic import HeuristicBot

            card = HeuristicBot()._play(obs, seed)
            return {t: (1.0 if t == card else 0.0) for t in obs["legal"]}
        return {CARD_TEXT[c]: totals[c] / n for c in legal}

    def _postponed(self, solved, trump, seat: int, trick, rules) -> dict[int, float]:
        """Per legal card, what it loses over ``solved`` ((hands, weight, PIMC values)
        of solved deals) when the bot's own next card must be the same in every deal
        that looks the same from its seat (see PIMCConfig.postpone_from): that value
        minus the plain PIMC one (<= 0).  Before the last trick only: the bot always
        has a next card."""
        solver = _solver()
        side = seat & 1
        groups: dict[int, dict[tuple, list]] = {}
        plain: dict[int, float] = {}
        for hands, wt, root in solved:
            for m, v in root.items():
                plain[m] = plain.get(m, 0.0) + wt * v
                h = list(hands)
                h[seat] &= ~(1 << m)
                t = [*trick, (seat, m)]
                acc, seen, mover = 0, [], (seat + rules.direction) % 4
                while mover != seat or len(t) == 4:
                    if len(t) == 4:  # the root trick ends before the bot's next card
                        w, _ = trick_winner(t, trump)
                        if (w & 1) == side:
                            acc += sum(_PTS[c] for _, c in t) + rules.trick_bonus
                        t, mover = [], w
                        continue
                    vals = solver.solve_moves(h, trump, mover, t, rules, backend=self.backend)
                    c = _best(vals)
                    h[mover] &= ~(1 << c)
                    t.append((mover, c))
                    seen.append(c)
                    mover = (mover + rules.direction) % 4
                nxt = solver.solve_moves(h, trump, seat, t, rules, backend=self.backend)
                groups.setdefault(m, {}).setdefault(tuple(seen), []).append((wt, acc, nxt))
        out = {}
        for m, by_view in groups.items():
            total = n = 0.0
            for rows in by_view.values():
                cards = rows[0][2].keys()
                total += max(sum(wt * (acc + nxt[c]) for wt, acc, nxt in rows) for c in cards)
                n += sum(wt for wt, _, _ in rows)
            out[m] = (total - plain[m]) / n
        return out

    def _mcts(self, obs: dict, seed: bytes) -> int:
        trees = self.config.mcts_trees
        if trees <= 1:
            return self._mcts_stats(obs, seed, self.config.mcts_iterations)[0]
        # root-parallel: independent trees (each its own pool and seed), visits summed
        visits: dict[int, int] = {}
        for k in range(trees):
            stats = self._mcts_stats(obs, seed + b"/tree%d" % k, self.config.mcts_iterations)[1]
            for c, v, _ in stats:
                visits[c] = visits.get(c, 0) + v
        return _best(visits)

    def _mcts_stats(self, obs: dict, seed: bytes, iterations: int, blend: bool = False):
        """(best card, [(card, visits, mean points)], root mean) of an information-set
        MCTS (compiled: the caller checks for the core), its determinisations drawn from
        the inference's weighted deals (``mcts_pool``) or uniformly; ``blend``: the
        blend's search (its own UCB constant, pool and playouts where set)."""
        from .ismcts import UCB_C, search

        cfg = self.config
        c = (cfg.blend_c if blend else None) or UCB_C
        size = (cfg.blend_pool if blend else None) or cfg.mcts_pool
        playout = cfg.mcts_playout
        if blend and cfg.blend_playout is not None:
            playout = cfg.blend_playout
        inf = cfg.inference
        if not cfg.mcts_pool or inf is None or inf.model != "policy":
            return search(obs, seed, iterations, c=c)
        rules = get_rules(obs.get("rules"))
        model = PlayModel(obs, rules, inf)
        if not model.informative:
            return search(obs, seed, iterations, c=c)
        hidden = analyse(obs, rules)
        rng = decision_rng(obs, seed)
        pool = _policy_deals(
            obs, rules, hidden, model, inf, rng, size, hidden.enumerate_deals(size),
        )  # fmt: skip
        return search(
            obs, seed, iterations, c=c, pool=pool, seed64=rng.getrandbits(64),
            playout=playout,
        )  # fmt: skip

    def _blend(self, done: int) -> tuple[float, int]:
        """The blend's weight and MCTS iterations when ``done`` tricks are played."""
        cfg = self.config
        b, it = cfg.mcts_blend, cfg.blend_iterations
        if cfg.blend_weights:
            b = cfg.blend_weights[min(done, len(cfg.blend_weights) - 1)]
        if cfg.blend_iters:
            it = cfg.blend_iters[min(done, len(cfg.blend_iters) - 1)]
        elif not done and cfg.blend_first is not None:
            it = cfg.blend_first
        return b, it

    def _limit(self, nodes: int) -> int | None:
        """Nodes the next solve may use: the solve limit, within what is left of the cap."""
        limit, cap = self.config.solve_limit, self.config.node_cap
        if cap is None:
            return limit
        left = cap - nodes
        return left if limit is None else min(limit, left)

    def _play(self, obs: dict, seed: bytes) -> str:
        # the MCTS is compiled only: without a C compiler the expert plays PIMC throughout
        mcts = _policy_core() is not None
        if mcts and len(obs["tricks"]) < self.config.mcts_tricks and len(obs["legal"]) > 1:
            return CARD_TEXT[self._mcts(obs, seed)]
        values = self.card_values(obs, seed)
        b, it = self._blend(len(obs["tricks"]))
        if mcts and b > 0 and len(values) > 1:
            _, stats, _ = self._mcts_stats(obs, seed, it, blend=True)
            means = {CARD_TEXT[c]: m for c, _, m in stats}
            values = {t: (1 - b) * v + b * means.get(t, v) for t, v in values.items()}
        return CARD_TEXT[_best({CARD_BY_TEXT[t]: v for t, v in values.items()})]

    # ----------------------------------------------------------------- trump
    def _completions(self, obs: dict, seed: bytes, n: int) -> list[list[int]]:
        hidden = analyse(obs, obs.get("rules"))
        rng = decision_rng(obs, seed)
        return [hidden.sample(rng) for _ in range(n)]

    def _deal_points(self, hands, trump, leader: int, side: int, rules) -> int:
        """Card points ``side`` makes in a full deal (double dummy), ``leader`` to lead."""
        v = _solver().solve_value(hands, trump, leader, (), rules, backend=self.backend)
        total = 60 + 8 * rules.trick_bonus + rules.last_trick_bonus
        return v if (leader & 1) == side else total - v

    def trump_estimates(self, obs: dict, seed: bytes) -> dict[str, float]:
        """Expected written-score difference for the dealer's side, per trump action."""
        rules = get_rules(obs.get("rules"))
        seat, dealer = obs["seat"], obs["dealer"]
        leader = (dealer + rules.direction) % 4
        tie = obs.get("tie_factor", 1) or 1
        deals = self._completions(obs, seed, self.config.trump_samples)
        out = {}
        for action in obs["legal"]:
            if not action.startswith("trump:"):
                continue
            suit = action[6:]
            trump = None if suit == "none" else SUITS.index(suit)
            mult = (rules.no_trump_multiplier if trump is None else 1) * tie
            if rules.multiplier_cap is not None:
                mult = min(mult, rules.multiplier_cap)
            pts = sum(self._deal_points(h, trump, leader, seat & 1, rules) for h in deals) / len(
                deals
            )
            out[action] = mult * (pts - rules.threshold)
        return out

    def trump_table_estimates(self, obs: dict) -> dict[str, float]:
        """Expected written-score difference per trump action, from the fitted table."""
        rules = get_rules(obs.get("rules"))
        hand = 0
        for t in obs["hand"]:
            hand |= 1 << CARD_BY_TEXT[t]
        tie = obs.get("tie_factor", 1) or 1
        out = {}
        for action in obs["legal"]:
            if not action.startswith("trump:"):
                continue
            option = action[6:]
            mult = (rules.no_trump_multiplier if option == "none" else 1) * tie
            if rules.multiplier_cap is not None:
                mult = min(mult, rules.multiplier_cap)
            out[action] = predict(hand, option, multiplier=mult, threshold=rules.threshold)
        return out

    def _trump(self, obs: dict, seed: bytes) -> str:
        if self.config.trump_table:
            est = self.trump_table_estimates(obs)
        else:
            est = self.trump_estimates(obs, seed)
        order = {a: i for i, a in enumerate(obs["legal"])}
        return max(est, key=lambda a: (est[a], -order[a]))

    def _bounded_points(self, deals, trump, leader: int, side: int, rules) -> float:
        """Mean card points of ``side`` over the full ``deals`` solved within the node cap
        (a deal cut off by it is left out; none solved: the threshold, i.e. no edge)."""
        solver = _solver()
        total = 60 + 8 * rules.trick_bonus + rules.last_trick_bonus
        nodes, got = 0, []
        for hands in deals:
            lim = self._limit(nodes)
            if lim is not None and lim < 1:
                break
            vals = solver.solve_moves_limited(
                hands, trump, leader, (), rules, limit=lim, backend=self.backend
            )
            nodes += solver.last_nodes(self.backend)
            if vals is None:
                continue
            v = max(vals.values())
            got.append(v if (leader & 1) == side else total - v)
        return sum(got) / len(got) if got else float(rules.threshold)

    # ----------------------------------------------------------------- kloppen
    def _announce(self, obs: dict, seed: bytes) -> str:
        rules = get_rules(obs.get("rules"))
        seat, dealer = obs["seat"], obs["dealer"]
        leader = (dealer + rules.direction) % 4
        trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
        deals = self._completions(obs, seed, self.config.announce_samples)
        if self.config.node_cap is None:
            pts = sum(self._deal_points(h, trump, leader, seat & 1, rules) for h in deals) / len(
                deals
            )
        else:
            pts = self._bounded_points(deals, trump, leader, seat & 1, rules)
        call = next(a for a in obs["legal"] if a != "pass")
        return call if pts >= rules.threshold + self.config.announce_margin else "pass"


# Early tricks cost most to solve and are the least certain anyway: fewer samples there
# (W by trick number 1, 2, 3, ...; the last entry repeats).
CLUB = PIMCConfig(samples=(4, 6, 8, 12), exact_limit=12, trump_samples=3, announce_samples=3)
# The expert of 2026-11-30 infers from the plays with the heuristic bot as the model
# (inference.py); screened on 400 duplicate deals against the heuristic bot (seed
# "screen-h5"): without inference +3.91, with it +5.37 (4 candidates per kept deal, W 10
# at trick 1), +5.53 (6, W 8), +5.80 (10, W 8: these settings).
EXPERT_2026_11_30 = PIMCConfig(
    samples=(8, 16, 24, 32),
    exact_limit=48,
    trump_samples=6,
    announce_samples=6,
    inference=InferenceConfig(eps=0.05, eps_partner=0.3, similar=0.7, eps_trump=0.1, candidates=10),
)
# The expert (issue #13): the other seats modelled by the policy fitted on expert
# self-play, the deals drawn and weighted in the compiled core (a sixth of the CPU per
# decision), more deals from trick 3 on, and the opening lead bounded by a fixed amount
# of search (node budget, very hard deals left out) instead of by time.
EXPERT_2026_12_01 = replace(
    EXPERT_2026_11_30,
    samples=(8, 12, 24, 48),
    inference=replace(EXPERT_2026_11_30.inference, model="policy"),
    node_budget=1_600_000,
    solve_limit=800_000,
)
# 2026-12-01b: more deals from trick 2 on (the late tricks are cheap to solve: about
# 1 ms CPU for 48 deals at trick 5, so 200 there cost little; every deal is enumerated
# when at most 200 agree), and a hard node cap per decision that also bounds the
# flemish-table announce.  Screened in self-play against the expert it replaces
# (trump fixed, bench/results/bots-2026-12-01b.md): 12/32/96/160/200 at tricks 2..6
# (expert@late) +0.21 [-0.07, +0.50] over 1,000 deals (+0.20 over 300 more), then
# 20/48 instead of 12/32 at tricks 2/3 a further +0.30 [-0.05, +0.65] over 1,000 deals.
EXPERT_2026_12_01B = replace(
    EXPERT_2026_12_01,
    samples=(8, 20, 48, 96, 160, 200, 200, 200),
    exact_limit=200,
    node_cap=3_200_000,
)
# 2026-12-01c: the first trick (where PIMC could afford only 4-8 solved deals) is played
# by information-set MCTS, 40,000 iterations, its determinisations drawn from 400 deals
# weighted by the same inference; from trick 2 on twice the deals (16 / 40 / 96 / 200)
# within twice the node budget and cap.  Screened against ismcts:20000 (trump fixed,
# seed screen-x, bench/results/bots-2026-12-01c.md): the two changes alone +0.21 and
# +0.20 over the expert it replaces (1,000 deals each, intervals including 0), together
# +0.61 [+0.14, +1.08] on the same 1,000 deals; on the benchmark's 1,000 deals (seed
# bench-2026-12-01) +1.44 against ismcts:20000 where the expert it replaces made +0.90.
EXPERT_2026_12_01C = replace(
    EXPERT_2026_12_01B,
    samples=(16, 40, 96, 200, 200, 200, 200, 200),
    node_budget=3_200_000,
    node_cap=6_400_000,
    mcts_tricks=1,
    mcts_iterations=40_000,
    mcts_pool=400,
)

assert EXPERT_2026_12_01C.inference is not None
# 2026-12-02: the other seats modelled by a mixture of two play models, the expert-like
# softmax and the one fitted on the rule-based bot's play (policy.HEURISTIC_COEF), each
# seat's plays explained by one of them (bench/results/bots-2026-12-02.md).  Screened
# paired against the expert it replaces, 1,000 deals each: +0.15 [-0.20, +0.50] against
# ismcts:20000 (trump fixed, seed screen-x), +0.39 [+0.05, +0.72] against the heuristic
# bot (own trump, seed screen-h).  The rule-based bot itself as the second component
# (expert@mixrules) made +0.69 against the heuristic bot but -0.18 against ismcts:20000:
# it recognises that one bot, not simple players in general; not kept.  On the
# benchmark's deals (seed bench-2026-12-01) the mixture is level with the expert it
# replaces: -0.12 [-0.49, +0.24] against ismcts:20000, -0.03 [-0.34, +0.28] against the
# heuristic bot, paired; kept as the more general model of the other seats.
EXPERT_2026_12_02 = replace(
    EXPERT_2026_12_01C,
    inference=replace(EXPERT_2026_12_01C.inference, models=("expert", "heuristic")),
)
# 2026-12-02b: every card from trick 2 on scored half by its PIMC value, half by its mean
# in an information-set MCTS of 20,000 iterations over 400 deals weighted by the same
# inference (mcts_blend), with the PIMC node budget at 2.0 M (was 3.2 M: the blend's
# search costs ~20-35 ms at tricks 2-5, and the budget keeps the hardest trick-2
# decisions, the latency p95, where they were).  Screened against the 2026-12-02 expert
# (bench/results/bots-2026-12-02b.md): +1.85 against ismcts:20000 (trump fixed, seed
# screen-x) where it makes +1.58, +7.03 against the heuristic bot (own trump, seed
# screen-h; the blend with the full budget) where it makes +6.66.
EXPERT = replace(EXPERT_2026_12_02, mcts_blend=0.5, node_budget=2_000_000)


def club() -> PIMCBot:
    return PIMCBot("club", CLUB)


def expert() -> PIMCBot:
    return PIMCBot("expert", EXPERT)


LEVELS = {"club": club, "expert": expert}

# Benchmark-only variants (get_bot("expert@name"), not in the UI): the expert's
# earlier settings and the ones screened against it.
VARIANTS: dict[str, PIMCConfig] = {
    "2026-11-30": EXPERT_2026_11_30,
    "2026-12-01": EXPERT_2026_12_01,
    "2026-12-01b": EXPERT_2026_12_01B,
    "2026-12-01c": EXPERT_2026_12_01C,
    "2026-12-02": EXPERT_2026_12_02,
    # screened against ismcts:20000 (bench/results/bots-2026-12-01.md)
    "policy-w": replace(
        EXPERT_2026_12_01,
        samples=(8, 20, 32, 48),
        node_budget=2_000_000,
        solve_limit=None,
    ),
    # the first step of 2026-12-01b (12/32 deals at tricks 2/3), screened against
    "late": replace(EXPERT_2026_12_01B, samples=(8, 12, 32, 96, 160, 200, 200, 200)),
    # trump by 6 sampled completions solved double-dummy per option instead of the
    # fitted table: measured alone (--trump only, heuristic card play, 1,000 deals) it
    # lost to the table (-0.68 card points and +0.09 written vs the heuristic's chooser,
    # the table +0.13 / +0.88) at up to 1.7 s per choice: not used
    "dd-trump": replace(EXPERT_2026_12_01B, trump_table=False, trump_samples=6),
    # screened 2026-12-01c against ismcts:20000 (bench/results/bots-2026-12-01c.md),
    # each a change of expert@2026-12-01b:
    # the first trick by MCTS over the inference's deals (+0.21 alone)
    "mcts1": replace(EXPERT_2026_12_01B, mcts_tricks=1, mcts_iterations=40_000, mcts_pool=400),
    # twice the deals from trick 2 on (+0.20 alone)
    "more": replace(EXPERT_2026_12_01C, mcts_tricks=0),
    # every trick by MCTS over the inference's deals (20,000 iterations: the sparring
    # partner plus inference; +1.07 against it)
    "mcts": replace(EXPERT_2026_12_01B, mcts_tricks=8, mcts_iterations=20_000, mcts_pool=400),
    # no inference (-1.00: what the inference is worth against ismcts:20000)
    "no-inference": replace(EXPERT_2026_12_01B, inference=None),
    # each card scored half by its PIMC value, half by its mean in an MCTS of 20,000
    # iterations over the inferred deals (+0.62, as good as the expert's change, at six
    # times the CPU at the median)
    "blend": replace(EXPERT_2026_12_01B, mcts_blend=0.5, mcts_pool=400),
    # the expert with that blend from trick 2 on (+0.16 [-0.17, +0.49] over the expert
    # against ismcts:20000, but 246 against the expert's 321 on the 40 regression deals)
    "combo-blend": replace(EXPERT_2026_12_01C, mcts_blend=0.5),
}


def variant(spec: str) -> PIMCBot:
    name = spec.partition("@")[2]
    if name not in VARIANTS:
        raise ValueError(f"unknown bot {spec!r}: expert@ one of {', '.join(sorted(VARIANTS))}")
    return PIMCBot(spec, VARIANTS[name])


def _inf(**kw) -> PIMCConfig:
    """A change of the inference of the expert of 2026-12-01c (what these screened)."""
    assert EXPERT_2026_12_01C.inference is not None
    return replace(EXPERT_2026_12_01C, inference=replace(EXPERT_2026_12_01C.inference, **kw))


# screened 2026-12-02 against ismcts:20000 (trump fixed, seed screen-x, 1,000 deals,
# paired with the expert of 2026-12-01c; bench/results/bots-2026-12-02.md): the
# inference's sharpness, each worse or level -- 40 candidates per kept deal -0.39
# [-0.79, +0.01], opponents' alpha 0.7 -0.20 [-0.52, +0.13], partner's alpha 1.0 -0.09
# [-0.42, +0.25]; a prior 0.5 x log P(card) of the fitted play model added to each card's
# PIMC value (close calls to the "sensible" card) -0.64 [-0.94, -0.34], not kept.
VARIANTS.update(
    {
        "cand40": _inf(candidates=40),
        "aopp07": _inf(alpha_opp=0.7),
        "apar10": _inf(alpha_partner=1.0),
        # the other seats a mixture of the expert-like and the simple rule-based player
        # (the latter's fitted softmax): now the expert
        "mixture": _inf(models=("expert", "heuristic")),
        # the rule-based player itself as the second component
        "mixrules": _inf(models=("expert", "rules")),
        "mix3": _inf(models=("expert", "heuristic", "rules")),
    }
)

# screened 2026-12-02 (second session): the first trick's MCTS with rule-based playouts
VARIANTS.update(
    {
        "rp0": replace(EXPERT_2026_12_02, mcts_playout=0.0),
        "rp1": replace(EXPERT_2026_12_02, mcts_playout=0.1),
        "rp1t2": replace(EXPERT_2026_12_02, mcts_playout=0.1, mcts_tricks=2),
        "rp1t3": replace(EXPERT_2026_12_02, mcts_playout=0.1, mcts_tricks=3),
        "rt2": replace(EXPERT_2026_12_02, mcts_tricks=2),
        "post4": replace(EXPERT_2026_12_02, postpone_from=4),
        "post3": replace(EXPERT_2026_12_02, postpone_from=3),
        "post5": replace(EXPERT_2026_12_02, postpone_from=5),
    }
)

# screened 2026-12-02 (third session, bench/results/bots-2026-12-02b.md), changes of the
# 2026-12-02 expert: the ISMCTS blend (mixblend-nb is now the expert) and a longer
# first-trick search (80,000 iterations: no better, p95 over the target)
VARIANTS.update(
    {
        "mixblend": replace(EXPERT_2026_12_02, mcts_blend=0.5),
        "it80": replace(EXPERT_2026_12_02, mcts_iterations=80_000),
        # cheaper PIMC beside the blend's MCTS (its latency p95): a node budget of 2.0 M
        # (now the expert, +1.85), or fewer deals at tricks 2-3 (+1.67); the blend's weight
        # 0.7 (+1.67) and 0.3 (+1.84, level with 0.5)
        "mixblend-nb": replace(EXPERT_2026_12_02, mcts_blend=0.5, node_budget=2_000_000),
        "mixblend-s": replace(EXPERT_2026_12_02, mcts_blend=0.5, samples=(16, 32, 64, 200)),
        "mixblend-b7": replace(EXPERT_2026_12_02, mcts_blend=0.7, node_budget=2_000_000),
        "mixblend-b3": replace(EXPERT_2026_12_02, mcts_blend=0.3, node_budget=2_000_000),
    }
)

# screened 2026-12-02 (fourth session, bench/results/bots-2026-12-02c.md), neither kept:
# the blend at trick 1 too (its MCTS 40,000 iterations, beside PIMC over the first
# trick's 16 deals within 0.8 M nodes there): +1.52 against ismcts:20000 where the
# expert makes +1.85; weight 0.3 with the full 3.2 M budget: +1.84, p95 99.5 ms
VARIANTS.update(
    {
        # the same within the 2.0 M budget at trick 1: profiled only (8 deals: p95 114
        # ms, over the target), not screened
        "blend1": replace(EXPERT, mcts_tricks=0, blend_first=40_000),
        "blend1b": replace(EXPERT, mcts_tricks=0, blend_first=40_000, first_budget=800_000),
        # the blend's weight 0.3 (lower p95) with PIMC's full 3.2 M node budget again
        "b3-full": replace(EXPERT_2026_12_02, mcts_blend=0.3),
    }
)

# screened 2026-12-03 against ismcts:20000 (trump fixed, seed screen-x, paired with the
# expert's +1.85; bench/results/bots-2026-12-03.md), changes of the expert, none kept:
# late-pimc +0.02, c05 -0.07, c10 -0.11, more23 +0.10, more23b -0.15, t1-20k -0.20,
# pool1k -0.21, t1-2trees -0.28, mixflat -0.28; late-mcts stopped, it-late and blend-rp
# not run
VARIANTS.update(
    {
        "late-pimc": replace(EXPERT, blend_weights=(0.5, 0.5, 0.5, 0.25)),
        "late-mcts": replace(EXPERT, blend_weights=(0.5, 0.5, 0.5, 0.75)),
        "c05": replace(EXPERT, blend_c=0.5),
        "c10": replace(EXPERT, blend_c=1.0),
        "it-late": replace(EXPERT, blend_iters=(20_000, 20_000, 20_000, 40_000)),
        "pool1k": replace(EXPERT, blend_pool=1000),
        # the first trick's MCTS at 20,000 iterations (80,000 measured worse than 40,000)
        "t1-20k": replace(EXPERT, mcts_iterations=20_000),
        # more PIMC deals at tricks 2-3, where the deal count binds (median 40 of 40 and
        # 95 of 96 solved) and the node budget only the hardest decisions
        "more23": replace(EXPERT, samples=(16, 64, 160, 200, 200, 200, 200, 200)),
        "more23b": replace(EXPERT, samples=(16, 80, 200, 200, 200, 200, 200, 200)),
        # the first trick by two independent 40,000-iteration trees (root-parallel)
        "t1-2trees": replace(EXPERT, mcts_trees=2),
        # a third play model in the mixture: the expert-like one at half its sharpness
        "mixflat": replace(
            EXPERT,
            inference=replace(EXPERT.inference, models=("expert", "heuristic", "expert-flat")),
        ),
        # the blend's MCTS with rule-based playouts, 10 % of the cards at random
        "blend-rp": replace(EXPERT, blend_playout=0.1),
    }
)


# the card-location network of 2026-12-03 (932 deals of expert self-play)
LOCNET_2026_12_03 = "locnet-2026-12-03.npz"


def _loc(
    beta: float,
    alpha: float | None = None,
    coef=None,
    base: PIMCConfig | None = None,
    weights: str | None = LOCNET_2026_12_03,
):
    """``base`` (None: ``EXPERT`` when called; every variant below is made before the
    expert of 2026-12-03 replaces that of 2026-12-02b) with the card-location network's opinion
    in its inference (weight ``beta``, the network's ``weights`` file); ``alpha``: the
    play models' weight too (None: unchanged); ``coef``: the expert-like play model's
    coefficients (None: unchanged)."""
    base = base or EXPERT
    assert base.inference is not None
    inf = replace(base.inference, loc_beta=beta, loc_weights=weights)
    if alpha is not None:
        inf = replace(inf, alpha_opp=alpha * inf.alpha_opp, alpha_partner=alpha * inf.alpha_partner)
    if coef is not None:
        inf = replace(inf, coef=coef)
    return replace(base, inference=inf)


# the card-location network (engine/bots/locnet.py, bench/fit_locnet.py) beside the play
# models, or instead of them
VARIANTS.update(
    {
        "loc05": _loc(0.5),
        "loc1": _loc(1.0),
        "loc-only": _loc(1.0, alpha=0.0),
        "loc-half": _loc(0.5, alpha=0.5),
    }
)

# screened 2026-12-03 (bench/results/bots-2026-12-03b.md): the inference alone, scored
# offline by bench/inference_check.py (log-likelihood per hidden card of its pool, 600
# positions of 200 deals of the expert against ismcts:20000, baseline -1.021, the
# expert -0.968): the play model refitted on the current expert +0.004, the
# card-location network at weight 0.5 +0.011, both +0.015 [+0.010, +0.020]; in play
# against ismcts:20000 (trump fixed, fresh seed screen-z, 1,000 deals, paired with the
# expert's +1.75): both +2.35, paired +0.60 [+0.18, +1.02] -- now the expert.
VARIANTS["coef-1203"] = _loc(0.0, coef=policy.COEF_2026_12_03)
VARIANTS["coef-loc03"] = _loc(0.3, coef=policy.COEF_2026_12_03)

# 2026-12-03: the inference with the expert-like play model refitted on the current
# expert's self-play (policy.COEF_2026_12_03) and the card-location network's opinion at
# weight 0.5 (locnet.py, InferenceConfig.loc_beta); the search unchanged.
EXPERT_2026_12_02B = EXPERT
EXPERT_2026_12_03 = _loc(0.5, coef=policy.COEF_2026_12_03, base=EXPERT_2026_12_02B)
VARIANTS["2026-12-02b"] = EXPERT_2026_12_02B
VARIANTS["coef-loc"] = EXPERT_2026_12_03
VARIANTS["2026-12-03"] = EXPERT_2026_12_03
EXPERT = EXPERT_2026_12_03

# 2026-12-04: the latency p95 is set by the leads at tricks 2-3, where PIMC spends its
# whole node budget (2.0 M nodes, ~25 of 40 deals solved at trick 2) beside the blend's
# MCTS; a smaller budget there (see loc2-nb12 below: it costs strength)
VARIANTS["nb12"] = replace(EXPERT, node_budget=1_200_000)
VARIANTS["nb15"] = replace(EXPERT, node_budget=1_500_000)

# 2026-12-04: the card-location network refitted (locnet.npz, hidden layer of 64) on
# 2,800 deals: 2,000 of expert self-play, 300 of the expert against ismcts:20000 and 500
# against the heuristic bot, every position from all four views (a partner or opponent
# of any kind); screened offline (bench/inference_check.py, 500 positions each, on
# deals of seeds never fitted): +0.0092 [+0.0042, +0.0142] per hidden card over the
# expert of 2026-12-03 against ismcts:20000, +0.0129 [+0.0078, +0.0180] against the
# heuristic bot; weight 0.5 (0.3: -0.002, 0.8: -0.006, 1.0: -0.011 against ismcts);
# fitted on self-play alone (2,000 deals): +0.0093 and +0.0085; a hidden layer of 128
# did worse held out (-0.983 per card against -0.973).
# In play against ismcts:20000 (trump fixed, fresh seed screen-ab, 600 deals, paired
# with the expert of 2026-12-03's +2.05): +2.15, paired +0.10 [-0.35, +0.55].  With
# PIMC's node budget at 1.2 M as well (the latency p95 66 ms instead of 87): +1.67,
# paired with the network alone -0.48 [-0.74, -0.21]: the budget at the hard leads is
# worth its time, kept at 2.0 M.
VARIANTS["loc2"] = _loc(0.5, base=EXPERT_2026_12_03, weights=None)
VARIANTS["loc2-nb12"] = replace(VARIANTS["loc2"], node_budget=1_200_000)
# 2026-12-04: the expert with the refitted network, the search unchanged
EXPERT = EXPERT_2026_12_04 = VARIANTS["loc2"]


# 2026-12-04b: what the expert's kind of bot makes at about a third of ismcts:20000's CPU
# per deal (the title of issue #13), its search scaled down five- to eightfold, the
# inference unchanged (bench/results/bots-2026-12-04b.md; against ismcts:20000, trump
# fixed, 400 deals each): lite +1.42 [+0.79, +2.05] at 0.50x its CPU; lite2 +1.02 and
# +1.09 on two seeds at 0.35-0.37x; lite2-pimc (no blend, more PIMC deals) +1.18 at
# 0.31x; lite2-mcts (a larger blend, fewer PIMC deals) +0.80 at 0.40x.  The full expert
# makes +2.2 at 2.5x: +2 is out of reach at a third of the time with this design.
def _lite(samples: tuple[int, ...], budget: int, cap: int, mcts: int, pool: int, blend: int):
    """The expert with its search scaled down (every consistent deal listed when at
    most the last deal count fit)."""
    return replace(
        EXPERT,
        samples=samples,
        exact_limit=samples[-1],
        node_budget=budget,
        node_cap=cap,
        mcts_iterations=mcts,
        mcts_pool=pool,
        blend_iterations=blend,
    )


VARIANTS["lite"] = _lite((4, 10, 24, 48, 48, 48, 48, 48), 250_000, 800_000, 5_000, 100, 2_500)
VARIANTS["lite2"] = _lite((4, 8, 16, 32, 32, 32, 32, 32), 150_000, 500_000, 3_000, 60, 1_500)
VARIANTS["lite2-pimc"] = replace(
    VARIANTS["lite2"], mcts_blend=0.0, samples=(6, 12, 24, 48, 48, 48, 48, 48), node_budget=250_000
)
VARIANTS["lite2-mcts"] = replace(
    VARIANTS["lite2"],
    samples=(3, 6, 12, 24, 32, 32, 32, 32),
    node_budget=80_000,
    blend_iterations=4_000,
)
