"""The fitted policy model of the expert's inference (engine/bots/policy.py) and its
compiled twin (engine/solver/_ismcts.c: policy_features, weights, infer)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from engine import Game
from engine.bots import get_bot
from engine.bots.inference import InferenceConfig, PlayModel, legal_mask, model_trump
from engine.bots.policy import COEF, HEURISTIC_COEF, N, features, probabilities
from engine.bots.sampler import analyse
from engine.rules import get_rules
from engine.solver import rule_args
from engine.solver._build import load_core

core = load_core("_ismcts")
pytestmark = pytest.mark.skipif(core is None, reason="no C compiler for the core")
PRESETS = ["flemish", "flemish-table", "french", "malilla"]


def test_the_compiled_features_are_the_python_features():
    rng = random.Random(7)
    for _ in range(5000):
        cards = list(range(32))
        rng.shuffle(cards)
        hand = sum(1 << c for c in cards[: rng.randint(1, 8)])
        n = rng.randint(0, 3)
        first = rng.randrange(4)
        trick = [((first + i) % 4, cards[10 + i]) for i in range(n)]
        seat = (first + n) % 4
        trump = rng.choice([None, 0, 1, 2, 3])
        unseen = sum(1 << c for c in cards[14 : 14 + rng.randint(0, 18)])
        for c in range(32):
            if hand >> c & 1:
                py = features(hand, trick, trump, unseen, seat, c)
                flat = [x for p in trick for x in p]
                cc = core.policy_features(
                    hand, flat, -1 if trump is None else trump, unseen, seat, c
                )
                assert len(py) == len(cc) == N
                assert cc == pytest.approx(py, abs=1e-12)


def _python_logw(model: PlayModel, inf: InferenceConfig, hands, coef) -> float:
    """The reference: the same weight computed in Python (a mixture of one model)."""
    return _python_mixture_logw(model, inf, hands, [coef], (1.0,))


def _observations(rules, games, seed):
    bots = [get_bot("random"), get_bot("heuristic")]
    rng = random.Random(seed)
    for gi in range(games):
        g = Game(f"{seed}-{gi}", rules)
        while g.deal_number == 1 and not g.is_terminal():
            obs = g.observation(g.to_move)
            if obs["phase"] == "play" and len(obs["legal"]) > 1 and rng.random() < 0.3:
                yield obs
            g.apply_action(bots[gi % 2].act(obs, b"x"))


def _weight_cases(inf: InferenceConfig, games: int, seed: str, deals: int, presets=PRESETS):
    """(model, sampled deals, the core's arguments after the coefficients) of positions
    of games of each preset, for comparing the core's weights with a reference."""
    for rules in presets:
        rs = get_rules(rules)
        _, bp, under, _, _ = rule_args(rs)
        for obs in _observations(rules, games, f"{seed}-{rules}"):
            model = PlayModel(obs, rs, inf)
            if not model.informative:
                continue
            hidden = analyse(obs, rs)
            sampled = [hidden.sample(random.Random(k)) for k in range(deals)]
            events, ti = model.core_args()
            trump = -1 if model.trump is None else model.trump
            par = (ti, trump, bp, under, inf.mix, inf.alpha_opp, inf.alpha_partner, inf.eps_trump)
            yield model, sampled, events, par


def test_the_compiled_weights_are_the_python_weights():
    inf = InferenceConfig(model="policy", mix=0.1, alpha_opp=1.0, alpha_partner=0.5)
    coef = COEF if COEF is not None else tuple(random.Random(3).uniform(-2, 2) for _ in range(N))
    checked = 0
    for model, deals, events, par in _weight_cases(inf, 3, "policy-w", 5):
        lw = core.weights(deals, events, coef, *par)
        ref = [_python_logw(model, inf, h, coef) for h in deals]
        assert lw == pytest.approx(ref, rel=1e-9, abs=1e-9)
        checked += 1
    assert checked >= 20


def _python_mixture_logw(model: PlayModel, inf: InferenceConfig, hands, coefs, priors):
    """The mixture's reference: per seat log sum_k prior_k prod_plays P_k(card)."""
    rules = model.rules
    lw = 0.0
    if model.dealer_trump is not None:
        dealer, option, legal, played = model.dealer_trump
        if option not in model_trump(hands[dealer] | played, legal, rules.no_trump_multiplier):
            lw += math.log(inf.eps_trump)
    per: dict[int, list[float]] = {}
    for s, c, before, trick, later in model.events:
        hand = hands[s] | later
        lm = legal_mask(hand, trick, model.trump, s, rules)
        cards = [x for x in range(32) if lm >> x & 1]
        if len(cards) < 2:
            continue
        unseen = ((1 << 32) - 1) & ~before & ~hand
        alpha = inf.alpha_opp if (s ^ model.seat) & 1 else inf.alpha_partner
        acc = per.setdefault(s, [0.0] * len(coefs))
        for k, coef in enumerate(coefs):
            p = probabilities(coef, hand, trick, model.trump, unseen, s, cards)[cards.index(c)]
            acc[k] += alpha * math.log(inf.mix / len(cards) + (1 - inf.mix) * p)
    total = sum(priors)
    for acc in per.values():
        lw += math.log(sum(pr / total * math.exp(a) for pr, a in zip(priors, acc, strict=True)))
    return lw


@pytest.mark.parametrize("priors", [None, (0.7, 0.3)])
def test_the_compiled_mixture_weights_are_the_python_weights(priors):
    inf = InferenceConfig(model="policy", mix=0.1, alpha_opp=1.0, alpha_partner=0.5)
    coefs = [COEF, HEURISTIC_COEF]
    checked = 0
    for model, deals, events, par in _weight_cases(inf, 2, "mixture-w", 4):
        lw = core.weights(deals, events, coefs, *par, priors)
        ref = [_python_mixture_logw(model, inf, h, coefs, priors or (1, 1)) for h in deals]
        assert lw == pytest.approx(ref, rel=1e-9, abs=1e-9)
        checked += 1
    assert checked >= 15


def test_the_mixture_weights_of_a_batch_are_those_of_each_deal_alone_bit_for_bit():
    """With a mixture the core keeps each seat's term per (seat, hand) over a call's
    deals: a hand met again (here: every deal twice, and deals that share some seats'
    hands) must weigh exactly what it weighs alone, to the last bit."""
    inf = InferenceConfig(model="policy", mix=0.1, alpha_opp=1.0, alpha_partner=0.5)
    checked = 0
    for _, deals, events, par in _weight_cases(inf, 2, "mixture-cache", 4):
        coefs = [COEF, HEURISTIC_COEF]
        mixed = [(a[0], a[1], b[2], b[3]) for a, b in itertools.permutations(deals, 2)]
        batch = deals + mixed + deals
        alone = [core.weights([d], events, coefs, *par)[0] for d in batch]
        assert core.weights(batch, events, coefs, *par) == alone
        checked += 1
    assert checked >= 15


def test_a_one_model_mixture_is_that_model():
    inf = InferenceConfig(model="policy")
    cases = _weight_cases(inf, 2, "mixture-one", 4, presets=["flemish"])
    for _, deals, events, par in itertools.islice(cases, 8):
        flat = core.weights(deals, events, HEURISTIC_COEF, *par)
        nested = core.weights(deals, events, [HEURISTIC_COEF], *par)
        assert flat == nested


def test_the_mixture_refuses_bad_models():
    args = (None, -1, 0, 0, 0.1, 1.0, 0.5, 0.1)
    with pytest.raises(ValueError):
        core.weights([], [], [COEF] * 4, *args)
    with pytest.raises(ValueError):
        core.weights([], [], [COEF, HEURISTIC_COEF], *args, (1.0, 0.0))
    with pytest.raises(ValueError):
        core.weights([], [], [COEF, HEURISTIC_COEF], *args, (1.0,))


def test_the_mixture_recognises_a_rule_following_player():
    """Deals under which an opponent's plays are the heuristic bot's own choices weigh
    more, relative to the expert-model alone, the more of his plays are seen."""
    heur = get_bot("heuristic")
    rs = get_rules("flemish")
    _, bp, under, _, _ = rule_args(rs)
    g = Game("mixture-learn", "flemish")
    while g.deal_number == 1 and not g.is_terminal():
        obs = g.observation(g.to_move)
        if obs["phase"] == "play" and obs["seat"] == 0 and len(obs["tricks"]) == 5:
            break
        g.apply_action(heur.act(obs, b"x"))
    inf = InferenceConfig(model="policy")
    model = PlayModel(obs, rs, inf)
    events, ti = model.core_args()
    trump = -1 if model.trump is None else model.trump
    hidden = analyse(obs, rs)
    deals = [hidden.sample(random.Random(k)) for k in range(200)]
    args = (ti, trump, bp, under, 0.1, 1.0, 0.5, 0.1)
    alone = core.weights(deals, events, COEF, *args)
    heuristic = core.weights(deals, events, HEURISTIC_COEF, *args)
    mixed = core.weights(deals, events, [COEF, HEURISTIC_COEF], *args)
    # the mixture is never far below the better of its parts (log 2 per seat at most),
    # and a log-probability (at most 0)
    for a, h, m in zip(alone, heuristic, mixed, strict=True):
        assert m >= max(a, h) - 3 * math.log(2) - 1e-9
        assert m <= 0.0 + 1e-9
    # the plays came from the heuristic bot: its model explains them better on average
    assert sum(heuristic) > sum(alone)


def test_infer_keeps_consistent_deals_deterministically():
    inf = InferenceConfig(model="policy")
    coef = COEF if COEF is not None else (0.5,) * N
    rs = get_rules("flemish")
    _, bp, under, _, _ = rule_args(rs)
    for obs in list(_observations("flemish", 2, "policy-infer"))[:10]:
        model = PlayModel(obs, rs, inf)
        hidden = analyse(obs, rs)
        events, ti = model.core_args()
        trump = -1 if model.trump is None else model.trump
        args = (
            list(hidden.known), list(hidden.need), list(hidden.forbid), hidden.unseen, events,
            coef, ti, trump, bp, under, 12, 120, 99, 0.1, 1.0, 0.5, 0.1,
        )  # fmt: skip
        out = core.infer(*args)
        assert out == core.infer(*args)
        assert sum(x[4] for x in out) == 12
        for x in out:
            hands = list(x[:4])
            for s in range(4):
                assert not hands[s] & hidden.forbid[s]
                assert hands[s] & hidden.known[s] == hidden.known[s]


def test_the_node_budget_bounds_the_solves_by_search_not_by_time(monkeypatch):
    from dataclasses import replace

    from engine import solver
    from engine.bots.pimc import VARIANTS, PIMCBot

    obs = next(
        o
        for o in _observations("flemish", 1, "budget")
        if len(o["tricks"]) == 1 and not o["current_trick"]["cards"]
    )
    calls = []
    real = solver.solve_moves

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(solver, "solve_moves", counting)
    cfg = VARIANTS["policy-w"]
    free = PIMCBot("x", replace(cfg, node_budget=None)).card_values(obs, b"s")
    n_free = len(calls)
    calls.clear()
    # past twice the budget one solved deal is enough
    tight = PIMCBot("x", replace(cfg, node_budget=1, min_deals=3))
    first = tight.card_values(obs, b"s")
    assert len(calls) == 1 < n_free
    assert tight.card_values(obs, b"s") == first  # a pure function of (observation, seed)
    assert set(first) == set(free) == set(obs["legal"])


def test_the_limited_solve_is_exact_or_none_and_a_fixed_function_of_the_position():
    from engine.solver import last_nodes, solve_moves, solve_moves_limited

    rng = random.Random(11)
    rules = get_rules("flemish")
    fits = misses = 0
    for _ in range(12):
        cards = list(range(32))
        rng.shuffle(cards)
        hands = [sum(1 << c for c in cards[i * 8 : (i + 1) * 8]) for i in range(4)]
        trump = rng.choice([None, 0, 1, 2, 3])
        full = solve_moves(hands, trump, 1, [], rules, backend="c")
        nodes = last_nodes("c")
        big = solve_moves_limited(hands, trump, 1, [], rules, limit=nodes + 1, backend="c")
        assert big == full
        small = solve_moves_limited(hands, trump, 1, [], rules, limit=nodes // 2, backend="c")
        assert small is None
        assert (
            solve_moves_limited(hands, trump, 1, [], rules, limit=nodes // 2, backend="c") is None
        )
        # an aborted search leaves nothing behind: the next full solve is the same
        assert solve_moves(hands, trump, 1, [], rules, backend="c") == full
        assert last_nodes("c") == nodes
        fits += big is not None
        misses += small is None
    assert fits == misses == 12


def test_the_node_cap_bounds_the_whole_decision_and_cuts_off_the_solve_that_would_pass_it(
    monkeypatch,
):
    from dataclasses import replace

    from engine import solver
    from engine.bots.pimc import EXPERT, PIMCBot

    obs = next(o for o in _observations("flemish", 4, "budget") if not o["tricks"])
    spent, limits = [], []
    real = solver.solve_moves_limited

    def counting(*a, **k):
        limits.append(k["limit"])
        out = real(*a, **k)
        spent.append(solver.last_nodes())
        return out

    monkeypatch.setattr(solver, "solve_moves_limited", counting)
    free = PIMCBot("x", replace(EXPERT, node_cap=None)).card_values(obs, b"s")
    assert max(limits) == EXPERT.solve_limit  # without a cap: only the per-deal limit
    n_free = sum(spent)
    cap = n_free // 3
    spent.clear()
    limits.clear()
    capped = PIMCBot("x", replace(EXPERT, node_cap=cap))
    first = capped.card_values(obs, b"s")
    # every solve may use only what is left: the decision never searches past the cap
    assert sum(spent) <= cap + 1000  # (a cut-off search unwinds a few nodes past it)
    assert min(limits) < EXPERT.solve_limit
    assert capped.card_values(obs, b"s") == first  # a pure function of (observation, seed)
    assert set(first) == set(free) == set(obs["legal"])


def test_the_flemish_table_announce_is_bounded_by_the_node_cap(monkeypatch):
    from dataclasses import replace

    from engine import solver
    from engine.bots.pimc import EXPERT, PIMCBot

    legal = ["trump:S", "trump:H", "trump:D", "trump:C", "trump:none"]
    obs = {
        "seat": 1, "rules": "flemish-table", "dealer": 0, "phase": "announce",
        "hand": "TS AS KS QS JS TH AH TD".split(), "hand_sizes": [8, 8, 8, 8], "trump": "S",
        "no_trump": False, "turned_card": None, "tricks": [],
        "current_trick": {"leader": 1, "cards": []}, "legal": ["mee", "pass"],
        "tie_factor": 1, "deal_number": 1,
    }  # fmt: skip
    assert legal  # (the trump options are not offered in this phase)
    spent = []
    real = solver.solve_moves_limited

    def counting(*a, **k):
        out = real(*a, **k)
        spent.append(solver.last_nodes())
        return out

    monkeypatch.setattr(solver, "solve_moves_limited", counting)
    bot = PIMCBot("x", EXPERT)
    assert bot.act(obs, b"a") == "mee"  # strong: announces
    assert spent and sum(spent) <= EXPERT.node_cap + 1000
    spent.clear()
    tiny = PIMCBot("x", replace(EXPERT, node_cap=1000))
    tiny.act(obs, b"a")
    assert sum(spent) <= 1000 + 1000


def test_the_compiled_rule_player_is_the_heuristic_bot():
    """``rule_card`` (the "rules" mixture component) plays the heuristic bot's card in
    every position of games of the four presets."""
    from engine.bots import View
    from engine.bots.heuristic import HeuristicBot
    from engine.cards import CARD_BY_TEXT

    rule_bot = HeuristicBot()
    bots = [get_bot("random"), get_bot("heuristic")]
    checked = 0
    for rules in PRESETS:
        for gi in range(12):
            g = Game(f"rule-card-{rules}-{gi}", rules)
            while g.deal_number == 1 and not g.is_terminal():
                obs = g.observation(g.to_move)
                if obs["phase"] == "play":
                    v = View(obs)
                    lm = sum(1 << CARD_BY_TEXT[t] for t in obs["legal"])
                    want = rule_bot._follow(v, lm) if v.trick else rule_bot._lead(v, lm)
                    flat = [x for p in v.trick for x in p]
                    trump = -1 if v.trump is None else v.trump
                    assert core.rule_card(v.hand, flat, trump, v.unseen, v.seat, lm) == want
                    checked += 1
                g.apply_action(bots[gi % 2].act(obs, b"x"))
    assert checked > 1000
    with pytest.raises(ValueError):
        core.rule_card(1, [], -1, 0, 0, 0)


def test_the_rules_component_weighs_the_rule_players_card():
    """Under the "rules" model alone a deal weighs mix / n + (1 - mix) for each play
    that is the rule-based bot's card with that deal's hands, mix / n otherwise."""
    rs = get_rules("flemish")
    inf = InferenceConfig(model="policy", mix=0.1)
    cases = _weight_cases(inf, 2, "rules-w", 3, presets=["flemish"])
    for model, deals, events, par in itertools.islice(cases, 10):
        trump = par[1]
        lw = core.weights(deals, events, ["rules"], None, *par[1:])  # no trump term
        for h, got in zip(deals, lw, strict=True):
            ref = 0.0
            for s, c, before, trick, later in model.events:
                hand = h[s] | later
                lm = legal_mask(hand, trick, model.trump, s, rs)
                n = bin(lm).count("1")
                if n < 2:
                    continue
                unseen = ((1 << 32) - 1) & ~before & ~hand
                flat = [x for p in trick for x in p]
                rc = core.rule_card(hand, flat, trump, unseen, s, lm)
                alpha = 1.0 if (s ^ model.seat) & 1 else 0.5
                ref += alpha * math.log(0.1 / n + 0.9 * (rc == c))
            assert got == pytest.approx(ref, rel=1e-9, abs=1e-9)
