"""The SO-ISMCTS sparring partner (engine/bots/ismcts.py, engine/solver/_ismcts.c).

- every action it takes is legal, in every preset and every phase;
- it is a pure function of (observation, seed), across processes and hash seeds;
- its compiled sampler agrees with the Python sampler (engine/bots/sampler.py): the
  same number of consistent deals, only consistent deals, and uniformly among them;
- it is not in the UI's list of levels.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter

import pytest

from engine import Game
from engine.bots import available, bot_seed, get_bot
from engine.bots.ismcts import ISMCTSBot, hidden_args, search
from engine.bots.sampler import analyse
from engine.cards import CARD_BY_TEXT
from engine.solver._build import load_core

PRESETS = ["flemish", "flemish-table", "french", "malilla"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
core = load_core("_ismcts")
pytestmark = pytest.mark.skipif(core is None, reason="no C compiler for the ISMCTS core")


def observations(rules: str, games: int, seed: str, every: float = 0.4, forced: bool = False):
    """Observations of the seat to move at many decisions of random and heuristic games."""
    bots = [get_bot("random"), get_bot("heuristic")]
    rng = random.Random(seed)
    for gi in range(games):
        g = Game(f"{seed}-{gi}", rules)
        steps = 0
        while not g.is_terminal() and steps < 70:
            obs = g.observation(g.to_move)
            choice = forced or len(obs["legal"]) > 1
            if choice and (obs["phase"] != "play" or rng.random() < every):
                yield obs
            g.apply_action(bots[gi % 2].act(obs, b"s%d" % steps))
            steps += 1


@pytest.mark.parametrize("rules", PRESETS)
def test_every_action_is_legal_in_every_preset(rules):
    bot = get_bot("ismcts:300")
    phases = Counter()
    for k, obs in enumerate(observations(rules, 6, f"ismcts-legal-{rules}")):
        action = bot.act(obs, bot_seed("legal", k, obs["seat"]))
        assert action in obs["legal"], (obs, action)
        phases[obs["phase"]] += 1
    assert phases["play"] >= 30
    if rules in ("flemish", "flemish-table"):
        assert phases["trump"] >= 1


def test_full_deals_with_the_bot_in_every_seat_are_legal():
    bot = get_bot("ismcts:500")
    for rules in PRESETS:
        g = Game(f"ismcts-full-{rules}", rules)
        while g.deal_number == 1 and not g.is_terminal():
            obs = g.observation(g.to_move)
            a = bot.act(obs, bot_seed(g.seed, 1, g.to_move))
            assert a in obs["legal"]
            g.apply_action(a)
        assert sum(g.results[0].card_points) > 0


def test_levels_in_the_ui_leave_it_out_but_get_bot_knows_it():
    assert not any(n.startswith("ismcts") for n in available())
    bot = get_bot("ismcts:20000")
    assert isinstance(bot, ISMCTSBot) and bot.iterations == 20000 and bot.name == "ismcts:20000"
    assert get_bot("ismcts").iterations == 20000
    with pytest.raises(ValueError):
        get_bot("ismcts:many")
    with pytest.raises(ValueError):
        get_bot("ismcts:0")


def test_same_observation_and_seed_give_the_same_search():
    obs = next(o for o in observations("flemish", 1, "ismcts-det") if o["phase"] == "play")
    a = search(obs, b"seed-1", 3000)
    assert search(obs, b"seed-1", 3000) == a
    # a different seed draws other determinisations: the statistics differ
    assert search(obs, b"seed-2", 3000)[1] != a[1]


SCRIPT = r"""
import json
from engine import Game
from engine.bots import bot_seed, get_bot
bot, other = get_bot("ismcts:2000"), get_bot("heuristic")
out = []
for rules in ("flemish", "french"):
    g = Game("ismcts-determinism", rules)
    while g.deal_number == 1 and not g.is_terminal():
        seat = g.to_move
        obs = g.observation(seat)
        if seat % 2 == 0 or obs["phase"] == "trump":
            a = bot.act(obs, bot_seed(g.seed, 1, seat))
            out.append(a)
        else:
            a = other.act(obs, b"h")
        g.apply_action(a)
print(json.dumps(out))
"""


def test_same_actions_in_other_processes_whatever_the_hash_seed():
    runs = []
    for hash_seed in ("3", "777"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        res = subprocess.run(
            [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]
    assert len(runs[0]) >= 32


# ----------------------------------------------------------------- the compiled sampler
def _positions(n: int):
    out = []
    for rules in PRESETS:
        for obs in observations(rules, 3, f"ismcts-sampler-{rules}", every=0.5):
            if obs["phase"] == "play":
                out.append(obs)
    return out[:n]


def test_the_c_sampler_counts_the_deals_the_python_sampler_counts():
    checked = 0
    for obs in _positions(120):
        h = analyse(obs, obs["rules"])
        known, need, forbid, unseen = hidden_args(obs, obs["rules"])
        assert core.count(known, need, forbid, unseen) == float(h.count())
        checked += 1
    assert checked >= 60


def test_the_c_sampler_draws_only_consistent_deals_and_uniformly():
    uniform_checked = 0
    for obs in _positions(120):
        rules = obs["rules"]
        h = analyse(obs, rules)
        known, need, forbid, unseen = hidden_args(obs, rules)
        allowed = h.enumerate_deals(400)
        draws = core.sample(known, need, forbid, unseen, 4000, 12345)
        for hands in draws[:200]:
            for s in range(4):
                assert hands[s] & known[s] == known[s]
                assert not hands[s] & forbid[s]
                if s != obs["seat"]:
                    assert bin(hands[s] & ~known[s]).count("1") == need[s]
            assert hands[0] | hands[1] | hands[2] | hands[3] == unseen | h.hand | sum(known)
        if allowed is not None and 4 <= len(allowed) <= 40:
            keys = {tuple(d): 0 for d in allowed}
            for d in draws:
                assert tuple(d) in keys
                keys[tuple(d)] += 1
            expected = len(draws) / len(keys)
            chi2 = sum((v - expected) ** 2 / expected for v in keys.values())
            # chi-square with len-1 degrees of freedom: far below this bound if uniform
            assert chi2 < 3 * len(keys) + 30, (len(keys), chi2)
            uniform_checked += 1
    assert uniform_checked >= 5


def test_the_last_card_scores_the_table_for_the_side_that_wins_the_trick():
    # last trick, three cards on the table: nothing is hidden, so every iteration gives
    # the exact points, which the double-dummy solver gives too
    from engine.rules import get_rules
    from engine.solver import solve_value

    checked = 0
    for rules in PRESETS:
        for o in observations(rules, 4, f"ismcts-last-{rules}", 1.0, True):
            if o["phase"] != "play" or len(o["tricks"]) != 7:
                continue
            if len(o["current_trick"]["cards"]) != 3:
                continue
            hands = [0, 0, 0, 0]
            hands[o["seat"]] = 1 << CARD_BY_TEXT[o["hand"][0]]
            trick = [(s, CARD_BY_TEXT[c]) for s, c in o["current_trick"]["cards"]]
            trump = None if o["trump"] is None else "SHDC".index(o["trump"])
            exact = solve_value(hands, trump, o["seat"], trick, get_rules(rules))
            best, stats, root = search(o, b"x", 50)
            assert best == CARD_BY_TEXT[o["hand"][0]]
            assert root == exact and stats == [(best, 50, float(exact))]
            checked += 1
    assert checked >= 3


# ----------------------------------------------------------------- search_pool (the expert's MCTS)
def _pool_args(o):
    from engine.rules import get_rules
    from engine.solver import rule_args

    flat = []
    for s, t in o["current_trick"]["cards"]:
        flat += [s, CARD_BY_TEXT[t]]
    trump = -1 if o["trump"] is None else "SHDC".index(o["trump"])
    return trump, o["seat"], o["seat"], tuple(flat), *rule_args(get_rules(o["rules"]))


def _late_positions(tricks_done: int, n: int):
    """Observations at trick ``tricks_done + 1`` with a choice, and the true hands."""
    out = []
    for rules in PRESETS:
        bots = [get_bot("heuristic"), get_bot("random")]
        for gi in range(12):
            g = Game(f"pool-{rules}-{gi}", rules)
            while g.deal_number == 1 and not g.is_terminal():
                o = g.observation(g.to_move)
                if o["phase"] == "play" and len(o["tricks"]) == tricks_done and len(o["legal"]) > 1:
                    hands = [0, 0, 0, 0]
                    for s in range(4):
                        for t in g.observation(s)["hand"]:
                            hands[s] |= 1 << CARD_BY_TEXT[t]
                    out.append((o, hands))
                    break
                g.apply_action(bots[g.to_move & 1].act(o, b"p"))
            if len(out) >= n:
                return out
    return out


def test_a_pool_of_one_deal_is_searched_as_that_deal_and_finds_a_best_card():
    # two tricks left, one determinisation: the tree is the whole game tree and the
    # most visited card is one the double-dummy solver rates best
    from engine.rules import get_rules
    from engine.solver import solve_moves

    checked = 0
    for o, hands in _late_positions(6, 24):
        trump = None if o["trump"] is None else "SHDC".index(o["trump"])
        trick = [(s, CARD_BY_TEXT[c]) for s, c in o["current_trick"]["cards"]]
        vals = solve_moves(hands, trump, o["seat"], trick, get_rules(o["rules"]))
        best, stats, root = core.search_pool([hands], [1.0], *_pool_args(o), 4000, 7, 0.7)
        assert vals[best] == max(vals.values()), (o, vals, stats)
        assert {c for c, _, _ in stats} == set(vals)
        checked += 1
    assert checked >= 12


def test_the_pool_is_drawn_by_weight_and_deterministically():
    o, hands = _late_positions(5, 1)[0]
    other = core.sample(*hidden_args(o, o["rules"]), 1, 99)[0]
    args = _pool_args(o)
    a = core.search_pool([hands, other], [1.0, 0.0], *args, 2000, 5, 0.7)
    assert a == core.search_pool([hands], [3.0], *args, 2000, 5, 0.7)  # weight 0: never drawn
    assert a == core.search_pool([hands, other], [1.0, 0.0], *args, 2000, 5, 0.7)
    mixed = core.search_pool([hands, other], [1.0, 1.0], *args, 2000, 5, 0.7)
    assert mixed[1] != a[1] or hands == list(other)


@pytest.mark.parametrize(
    "deals, weights",
    [([], []), ([[1, 2, 4, 8]], [1.0, 1.0]), ([[1, 2, 4, 8]], [0.0]),
     ([[1, 2, 4, 8]], [-1.0]), ([[1, 2]], [1.0])],
)  # fmt: skip
def test_search_pool_refuses_bad_input(deals, weights):
    with pytest.raises(ValueError):
        core.search_pool(deals, weights, -1, 0, 0, (), 1, 0, 0, 0, 0, 100, 1, 0.7)


def test_rule_based_playouts_play_the_rule_based_bot_for_every_seat():
    # one determinisation (the true deal), no random cards, as many iterations as legal
    # cards: each root card is tried once and played out by the rule-based player in
    # every seat, so its mean is what the heuristic bot makes from there, card for card
    heuristic = get_bot("heuristic")
    checked = 0
    for rules in PRESETS:
        for gi in range(6):
            g = Game(f"playout-{rules}-{gi}", rules)
            while not g.is_terminal():
                o = g.observation(g.to_move)
                if o["phase"] == "play" and len(o["tricks"]) == 2 + gi % 4 and len(o["legal"]) > 1:
                    break
                g.apply_action(heuristic.act(o, b"p"))
            if g.is_terminal():
                continue
            hands = [0, 0, 0, 0]
            for s in range(4):
                for t in g.observation(s)["hand"]:
                    hands[s] |= 1 << CARD_BY_TEXT[t]
            side = o["seat"] & 1
            k = len(o["legal"])
            _, stats, _ = core.search_pool([hands], [1.0], *_pool_args(o), k, 3, 0.7, 0.0)
            assert sorted(c for c, _, _ in stats) == sorted(CARD_BY_TEXT[t] for t in o["legal"])
            for card, visits, mean in stats:
                sim = g.clone()
                sim.apply_action(next(t for t in o["legal"] if CARD_BY_TEXT[t] == card))
                while sim.deal_number == o["deal_number"] and not sim.is_terminal():
                    sim.apply_action(heuristic.act(sim.observation(sim.to_move), b"p"))
                made = sim.board[-1]["card_points"][side] - o["team_points"][side]
                assert visits == 1 and mean == pytest.approx(made, abs=1e-9), (rules, gi, card)
            # and a share of random cards changes the playouts, deterministically
            a = core.search_pool([hands], [1.0], *_pool_args(o), 400, 3, 0.7, 0.5)
            assert a == core.search_pool([hands], [1.0], *_pool_args(o), 400, 3, 0.7, 0.5)
            checked += 1
    assert checked >= 16
