"""bench/bots.py: the trump modes and a tiny run end to end."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from engine import Game
from engine.bots import View, get_bot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _bench():
    spec = importlib.util.spec_from_file_location("bench_bots", os.path.join(ROOT, "bench/bots.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _trump_obs():
    g = Game("bench-trump", "flemish")
    obs = g.observation(g.to_move)
    assert obs["phase"] == "trump"
    return obs


def test_fixed_trump_names_the_simple_rule_and_leaves_the_play_to_the_bot():
    bench = _bench()
    obs = _trump_obs()
    rule = get_bot("heuristic").act(obs, b"s")
    a, b = bench.make_bots(["random", "expert"], "fixed")
    assert a.act(obs, b"s") == rule and b.act(obs, b"s") == rule
    assert a.name == "random" and b.name == "expert"


def test_trump_only_mode_plays_the_cards_with_b_and_names_trump_with_a():
    bench = _bench()
    obs = _trump_obs()
    a, b = bench.make_bots(["expert", "heuristic"], "only")
    assert a.act(obs, b"s") == get_bot("expert").act(obs, b"s")
    assert b.act(obs, b"s") == get_bot("heuristic").act(obs, b"s")
    assert a.bot.name == "heuristic"


def test_a_small_run_prints_the_interval_and_cpu_latency():
    res = subprocess.run(
        [sys.executable, "bench/bots.py", "--bots", "ismcts:200,heuristic", "--deals", "3",
         "--trump", "fixed", "--no-save", "--seed", "t"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "ismcts:200 vs heuristic — flemish, trump fixed, 3 duplicate deals" in out
    assert "95 % CI" in out and "| ismcts:200 | cpu | " in out


def test_the_seer_plays_the_double_dummy_best_card_of_the_true_deal():
    from engine.bots.pimc import _best
    from engine.cards import CARD_TEXT
    from engine.solver import solve_moves

    bench = _bench()
    seer = bench.Seer()
    g = Game("bench-seer", "flemish")
    heur = get_bot("heuristic")
    checked = 0
    while g.deal_number == 1 and not g.is_terminal():
        obs = g.observation(g.to_move)
        if obs["phase"] == "play" and len(obs["legal"]) > 1:
            seer.see(g.deal)
            d = g.deal
            trick = View(obs).trick
            vals = solve_moves(list(d.hands), d.trump, g.to_move, trick, obs["rules"])
            assert seer.act(obs, b"s") == CARD_TEXT[_best(vals)]
            checked += 1
        g.apply_action(heur.act(obs, b"s"))
    assert checked >= 8


def test_a_duplicate_play_shows_the_seer_each_deal_and_it_outplays_the_random_bot():
    bench = _bench()
    total = 0
    for k in (1, 2, 3):
        seer, rnd = bench.make_bots(["seer", "random"], "fixed")
        res, _ = bench.play_once("bench-seer", k, "flemish", {0: seer, 1: rnd})
        total += res["points"][0] - res["points"][1]
    assert total > 0
