"""PIMC bots: legal, sensible, and a pure function of (observation, seed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from engine import Game
from engine.bots import available, bot_seed, get_bot
from engine.bots.pimc import CLUB, EXPERT, PIMCBot
from engine.solver import available_backends

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import json, sys
from engine import Game
from engine.bots import bot_seed, get_bot
bot = get_bot("club")  # the same code path as expert, fewer samples: a quick test
expert = get_bot("expert")
other = get_bot("heuristic")
g = Game("determinism", "flemish")
out = []
while g.deal_number == 1:
    seat = g.to_move
    obs = g.observation(seat)
    if seat % 2 == 0 or obs["phase"] == "trump":
        a = bot.act(obs, bot_seed(g.seed, g.deal_number, seat))
        out.append(a)
    else:
        a = other.act(obs, b"h")
    g.apply_action(a)
g = Game("determinism", "flemish")
while g.deal.phase != "play":
    g.apply_action(other.act(g.observation(g.to_move), b"h"))
out.append(expert.act(g.observation(g.to_move), bot_seed(g.seed, 1, g.to_move)))
print(json.dumps(out))
"""


def test_levels_are_registered():
    assert {"beginner", "club", "expert", "heuristic", "random"} <= set(available())
    assert get_bot("expert").name == "expert" and get_bot("club").name == "club"
    assert type(get_bot("beginner")).__name__ == "HeuristicBot"


def test_same_actions_in_other_processes_whatever_the_hash_seed():
    runs = []
    for hash_seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        res = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert res.returncode == 0, res.stderr
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]
    assert len(runs[0]) >= 16  # two seats' cards (+ trump when dealing)


@pytest.mark.parametrize("rules", ["flemish", "flemish-table", "french", "malilla"])
def test_club_plays_a_legal_deal_in_every_preset(rules):
    g = Game("club-" + rules, rules)
    club, other = get_bot("club"), get_bot("heuristic")
    while g.deal_number == 1 and not g.is_terminal():
        seat = g.to_move
        obs = g.observation(seat)
        bot = club if seat % 2 == 0 else other
        a = bot.act(obs, bot_seed(g.seed, 1, seat))
        assert a in obs["legal"]
        g.apply_action(a)


def test_the_same_call_twice_gives_the_same_card_and_the_seed_matters_only_via_samples():
    g = Game("twice", "flemish")
    h = get_bot("heuristic")
    while not (g.deal.phase == "play" and len(g.deal.tricks) == 3):
        g.apply_action(h.act(g.observation(g.to_move), b"x"))
    obs = g.observation(g.to_move)
    bot = get_bot("expert")
    assert bot.act(obs, b"seed-a") == bot.act(json.loads(json.dumps(obs)), b"seed-a")
    vals = bot.card_values(obs, b"seed-a")
    assert set(vals) == set(obs["legal"])


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
def test_c_and_python_backends_choose_the_same_cards_late_in_a_deal():
    g = Game("backends", "flemish")
    h = get_bot("heuristic")
    c_bot = PIMCBot("expert", EXPERT, backend="c")
    py_bot = PIMCBot("expert", EXPERT, backend="python")
    checked = 0
    while g.deal_number == 1:
        obs = g.observation(g.to_move)
        if obs["phase"] == "play" and len(obs["tricks"]) >= 5 and len(obs["legal"]) > 1:
            seed = bot_seed(g.seed, 1, g.to_move)
            assert c_bot.card_values(obs, seed) == py_bot.card_values(obs, seed)
            checked += 1
        g.apply_action(h.act(obs, b"y"))
    assert checked >= 1


def _obs_for_dealer(hand, rules="flemish", phase="trump"):
    legal = ["trump:S", "trump:H", "trump:D", "trump:C", "trump:none"]
    return {
        "seat": 0, "rules": rules, "dealer": 0, "phase": phase, "hand": hand.split(),
        "hand_sizes": [8, 8, 8, 8], "trump": None, "no_trump": False, "turned_card": None,
        "tricks": [], "current_trick": {"leader": 1, "cards": []}, "legal": legal,
        "tie_factor": 1, "deal_number": 1,
    }  # fmt: skip


def test_trump_choice_by_the_fitted_table_and_by_sampled_solving():
    bot = PIMCBot("club", CLUB)
    # All eight hearts: hearts (no trump would let the opponents run their suits).
    assert bot.act(_obs_for_dealer("TH AH KH QH JH 9H 8H 7H"), b"t") == "trump:H"
    # Four tens and four aces: no trump (doubles a sure win).
    assert bot.act(_obs_for_dealer("TS AS TH AH TD AD TC AC"), b"t") == "trump:none"
    # A long suit with the ten and the ace: that suit.
    assert bot.act(_obs_for_dealer("TD AD KD 9D 8D 7S 8C 9H"), b"t") == "trump:D"
    # The sampled estimate (trump_table=False): all hearts take every trick.
    est = bot.trump_estimates(_obs_for_dealer("TH AH KH QH JH 9H 8H 7H"), b"t")
    assert est["trump:H"] == 30
    sampled = PIMCBot("club", replace(CLUB, trump_table=False))
    assert sampled.act(_obs_for_dealer("TS AS TH AH TD AD TC AC"), b"t") == "trump:none"


def test_flemish_table_looks_and_announces_only_when_strong():
    bot = get_bot("club")
    obs = _obs_for_dealer("TH AH KH QH 9H 8H 7S 7D", rules="flemish-table", phase="blind")
    obs["hand"] = None
    obs["legal"] = ["blind", "look"]
    assert bot.act(obs, b"b") == "look"
    strong = _obs_for_dealer("TS AS KS QS JS TH AH TD", rules="flemish-table", phase="announce")
    strong.update(seat=1, dealer=0, trump="S", legal=["mee", "pass"])
    assert bot.act(strong, b"a") == "mee"
    weak = _obs_for_dealer("7S 8S 7H 8H 7D 8D 7C 8C", rules="flemish-table", phase="announce")
    weak.update(seat=1, dealer=0, trump="S", legal=["mee", "pass"])
    assert bot.act(weak, b"a") == "pass"


# ----------------------------------------------------------------- MCTS over the inferred deals
class _Recorder:
    """The compiled core, with its search_pool calls recorded."""

    def __init__(self, core):
        self.core, self.calls = core, []

    def __getattr__(self, name):
        return getattr(self.core, name)

    def search_pool(self, deals, weights, *args):
        out = self.core.search_pool(deals, weights, *args)
        self.calls.append((deals, weights, args, out))
        return out


def _decision(trick_number: int, seed: str = "mcts-expert"):
    g = Game(seed, "flemish")
    h = get_bot("heuristic")
    while True:
        obs = g.observation(g.to_move)
        if obs["phase"] == "play" and len(obs["tricks"]) == trick_number - 1:
            if len(obs["legal"]) > 1 and obs["current_trick"]["cards"]:
                return g, obs
        g.apply_action(h.act(obs, b"z"))


def _consistent(obs, hands) -> bool:
    from engine.cards import CARD_BY_TEXT

    own = sum(1 << CARD_BY_TEXT[t] for t in obs["hand"])
    played = set()
    for t in obs["tricks"]:
        played |= {CARD_BY_TEXT[c] for _, c in t["cards"]}
    played |= {CARD_BY_TEXT[c] for _, c in obs["current_trick"]["cards"]}
    return hands[obs["seat"]] == own and not any(
        hands[s] >> c & 1 for s in range(4) for c in played
    )


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
def test_the_first_trick_is_played_by_mcts_over_the_inferred_deals(monkeypatch):
    from engine.bots import ismcts
    from engine.cards import CARD_TEXT

    assert EXPERT.mcts_tricks >= 1 and EXPERT.mcts_pool > 0
    rec = _Recorder(ismcts._core())
    monkeypatch.setattr(ismcts, "_core", lambda: rec)
    g, obs = _decision(1)
    card = get_bot("expert").act(obs, bot_seed(g.seed, 1, obs["seat"]))
    assert len(rec.calls) == 1
    deals, weights, args, (best, stats, _) = rec.calls[0]
    assert card == CARD_TEXT[best] and card in obs["legal"]
    assert args[-3] == EXPERT.mcts_iterations
    assert 1 < len(deals) <= EXPERT.mcts_pool and all(w > 0 for w in weights)
    assert all(_consistent(obs, d) for d in deals)
    assert sum(v for _, v, _ in stats) == EXPERT.mcts_iterations


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
@pytest.mark.parametrize("name", ["expert", "expert@2026-12-02", "expert@blend"])
def test_later_cards_are_the_pimc_values_or_their_mix_with_the_mcts_means(monkeypatch, name):
    # the expert (from 2026-12-02b) scores each card half by PIMC, half by the MCTS means
    from engine.bots import ismcts, pimc
    from engine.cards import CARD_BY_TEXT, CARD_TEXT

    bot = get_bot(name)
    b = bot.config.mcts_blend
    assert (b > 0) == (name != "expert@2026-12-02")
    rec = _Recorder(ismcts._core())
    monkeypatch.setattr(ismcts, "_core", lambda: rec)
    checked = 0
    for seed in ("blend-1", "blend-2", "blend-3"):
        g, obs = _decision(3, seed)
        s = bot_seed(g.seed, 1, obs["seat"])
        rec.calls.clear()
        card = bot.act(obs, s)
        values = bot.card_values(obs, s)
        if b > 0:
            assert len(rec.calls) == 1 and rec.calls[0][2][-3] == bot.config.blend_iterations
            means = {CARD_TEXT[c]: m for c, _, m in rec.calls[0][3][1]}
            values = {t: (1 - b) * v + b * means.get(t, v) for t, v in values.items()}
        else:
            assert not rec.calls
        top = max(values.values())
        ties = [CARD_BY_TEXT[t] for t, v in values.items() if v == top]
        assert card == CARD_TEXT[min(ties, key=pimc._cheap_key)]
        checked += 1
    assert checked == 3


def test_without_the_compiled_core_the_expert_plays_the_first_trick_by_pimc(monkeypatch):
    # a host without a C compiler: no MCTS, the expert still plays (PIMC, Python weights)
    from engine.bots import pimc

    monkeypatch.setattr(pimc, "_policy_core", lambda: None)
    g, obs = _decision(1, "no-core")
    bot = PIMCBot("expert", EXPERT, backend="python" if "c" not in available_backends() else None)
    card = bot.act(obs, bot_seed(g.seed, 1, obs["seat"]))
    assert card in obs["legal"]
    assert card == bot.act(obs, bot_seed(g.seed, 1, obs["seat"]))


def test_postponed_pimc_never_gains_and_one_deal_changes_nothing():
    # one card for all deals that look alike can only lose against PIMC's card per deal;
    # with a single deal there is nothing to confuse, so nothing is lost
    import random

    from engine.bots.sampler import analyse
    from engine.cards import CARD_BY_TEXT, SUITS
    from engine.rules import get_rules
    from engine.solver import solve_moves

    bot = get_bot("expert@post4")
    for i in range(12):
        g, obs = _decision(4 + i % 3, f"post-{i}")
        rules = get_rules(obs["rules"])
        trump = None if obs["trump"] is None else SUITS.index(obs["trump"])
        trick = [(s, CARD_BY_TEXT[c]) for s, c in obs["current_trick"]["cards"]]
        hidden = analyse(obs, rules)
        deals = hidden.enumerate_deals(60) or [hidden.sample(random.Random(1))]
        solved = [(d, 1.0, solve_moves(d, trump, obs["seat"], trick, rules)) for d in deals]
        fix = bot._postponed(solved, trump, obs["seat"], trick, rules)
        assert set(fix) == {CARD_BY_TEXT[t] for t in obs["legal"]}
        assert all(v <= 1e-9 for v in fix.values())
        one = bot._postponed(solved[:1], trump, obs["seat"], trick, rules)
        assert all(abs(v) < 1e-9 for v in one.values())
        assert bot.act(obs, b"s") in obs["legal"]


def test_postponed_pimc_plays_whole_deals_leading_and_following():
    bot = get_bot("expert@post4")
    g = Game("post-deal", "flemish")
    while g.deal_number == 1 and not g.is_terminal():
        obs = g.observation(g.to_move)
        action = bot.act(obs, b"d")
        assert action in obs["legal"]
        g.apply_action(action)
    assert g.deal_number == 2 or g.is_terminal()


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
def test_a_first_trick_blend_uses_its_own_iterations_and_node_budget(monkeypatch):
    # expert@blend1b: the blend from trick 1 on, its MCTS at blend_first iterations there,
    # PIMC bounded by first_budget there (one deal once twice the budget is spent)
    from dataclasses import replace

    from engine.bots import ismcts, pimc
    from engine.cards import CARD_TEXT

    cfg = pimc.VARIANTS["blend1b"]
    assert cfg.mcts_tricks == 0 and cfg.blend_first != cfg.blend_iterations
    rec = _Recorder(ismcts._core())
    monkeypatch.setattr(ismcts, "_core", lambda: rec)
    g, obs = _decision(1, "blend-first")
    s = bot_seed(g.seed, 1, obs["seat"])
    card = get_bot("expert@blend1b").act(obs, s)
    assert len(rec.calls) == 1 and rec.calls[0][2][-3] == cfg.blend_first
    assert card in obs["legal"] and card in {CARD_TEXT[c] for c, _, _ in rec.calls[0][3][1]}

    solves = []
    real = pimc._solver()

    class Counting:
        def __getattr__(self, name):
            return getattr(real, name)

        def solve_moves_limited(self, *a, **k):
            solves.append(1)
            return real.solve_moves_limited(*a, **k)

    monkeypatch.setattr(pimc, "_solver", lambda: Counting())
    PIMCBot("t", replace(cfg, first_budget=1)).card_values(obs, s)
    assert len(solves) == 1
    solves.clear()
    PIMCBot("t", cfg).card_values(obs, s)
    assert len(solves) > cfg.min_deals


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
@pytest.mark.parametrize("trick_number", [2, 5])
def test_the_blend_by_trick_uses_that_tricks_weight_iterations_and_ucb_constant(
    monkeypatch, trick_number
):
    # a blend set by trick (weights, iterations), its own UCB constant and pool: at trick 2 the
    # first entries, from trick 4 on the last; the card is the best of that mix
    from dataclasses import replace

    from engine.bots import ismcts, pimc
    from engine.cards import CARD_BY_TEXT, CARD_TEXT

    cfg = replace(
        EXPERT,
        blend_weights=(0.5, 0.4, 0.4, 0.8),
        blend_iters=(9, 3000, 3000, 5000),
        blend_c=0.9,
        blend_pool=150,
    )
    bot = PIMCBot("expert@test", cfg)
    b, it = (0.4, 3000) if trick_number == 2 else (0.8, 5000)
    rec = _Recorder(ismcts._core())
    monkeypatch.setattr(ismcts, "_core", lambda: rec)
    g, obs = _decision(trick_number, f"by-trick-{trick_number}")
    s = bot_seed(g.seed, 1, obs["seat"])
    card = bot.act(obs, s)
    assert len(rec.calls) == 1
    args = rec.calls[0][2]
    assert args[-3] == it and args[-1] == 0.9
    assert 1 < len(rec.calls[0][0]) <= 150  # drawn from its own pool's size
    assert sum(v for _, v, _ in rec.calls[0][3][1]) == it
    means = {CARD_TEXT[c]: m for c, _, m in rec.calls[0][3][1]}
    values = {t: (1 - b) * v + b * means.get(t, v) for t, v in bot.card_values(obs, s).items()}
    top = max(values.values())
    assert card == CARD_TEXT[min((CARD_BY_TEXT[t] for t, v in values.items() if v == top),
                                 key=pimc._cheap_key)]  # fmt: skip
    # the expert's own blend: the sparring partner's constant, random playouts; with
    # blend_playout, the rule-based playouts' share of random cards passed on
    rec.calls.clear()
    get_bot("expert").act(obs, s)
    assert rec.calls[0][2][-1] == ismcts.UCB_C
    rec.calls.clear()
    get_bot("expert@blend-rp").act(obs, s)
    assert rec.calls[0][2][-2:] == (ismcts.UCB_C, pimc.VARIANTS["blend-rp"].blend_playout)


@pytest.mark.skipif("c" not in available_backends(), reason="no compiled core")
def test_two_trees_at_the_first_trick_play_the_card_most_visited_over_both(monkeypatch):
    # expert@t1-2trees: two independent searches (their own deals and seeds), visits summed
    from engine.bots import ismcts, pimc
    from engine.cards import CARD_TEXT

    cfg = pimc.VARIANTS["t1-2trees"]
    rec = _Recorder(ismcts._core())
    monkeypatch.setattr(ismcts, "_core", lambda: rec)
    g, obs = _decision(1, "two-trees")
    s = bot_seed(g.seed, 1, obs["seat"])
    card = get_bot("expert@t1-2trees").act(obs, s)
    assert len(rec.calls) == cfg.mcts_trees == 2
    assert rec.calls[0][2][-2] != rec.calls[1][2][-2]  # each tree its own seed
    assert rec.calls[0][0] != rec.calls[1][0]  # and its own deals
    visits: dict[int, int] = {}
    for call in rec.calls:
        assert sum(v for _, v, _ in call[3][1]) == cfg.mcts_iterations
        for c, v, _ in call[3][1]:
            visits[c] = visits.get(c, 0) + v
    top = max(visits.values())
    assert card == CARD_TEXT[min((c for c, v in visits.items() if v == top), key=pimc._cheap_key)]
    assert get_bot("expert@t1-2trees").act(obs, s) == card  # deterministic
