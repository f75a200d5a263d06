"""bench/bots.py: the trump modes and a tiny run end to end."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from engine import Game
from engine.bots import get_bot

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
