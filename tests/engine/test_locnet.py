"""The card-location network (engine/bots/locnet.py) and its term in the inference."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from engine import Game
from engine.bots import bot_seed, get_bot, locnet
from engine.bots.sampler import analyse
from engine.rules import get_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _positions(rules: str, seed: str, stops=(1, 6, 13, 22, 29)):
    """Observations of the seat to move at a few points of a heuristic-played deal."""
    g = Game(seed, rules)
    bot = get_bot("heuristic")
    out, step = [], 0
    while g.deal_number == 1 and not g.is_terminal():
        seat = g.to_move
        obs = g.observation(seat)
        if obs["phase"] == "play":
            step += 1
            if step in stops:
                out.append((obs, list(g.deal.hands)))
        g.apply_action(bot.act(obs, bot_seed(seed, 1, seat)))
    return out


@pytest.mark.parametrize("rules", ["flemish", "flemish-table", "french", "malilla"])
def test_encode_agrees_with_the_sampler(rules):
    for obs, hands in _positions(rules, "loc-" + rules):
        idx, allowed, canon, need = locnet.encode(obs)
        assert idx == sorted(set(idx)) and 0 <= idx[0] and idx[-1] < locnet.N_IN
        assert sorted(canon) == list(range(32))
        hidden = analyse(obs, get_rules(rules))
        me = obs["seat"]
        for c in range(32):
            assert bool(allowed[c]) == bool(hidden.unseen >> c & 1)
            if allowed[c]:
                owner = next(s for s in range(4) if hands[s] >> c & 1)
                # the true holder is always among the allowed seats
                assert allowed[c] >> ((owner - me) % 4 - 1) & 1
        assert need == [hidden.need[(me + r) % 4] for r in (1, 2, 3)]


def test_the_trump_suit_is_renamed_first():
    assert locnet._canon(2)[2 * 8 + 5] == 5  # a diamond (trump) is suit 0
    assert locnet._canon(2)[0 * 8 + 1] == 8 + 1  # spades move to suit 1
    assert locnet._canon(None) == list(range(32))


@pytest.mark.skipif(not locnet.available(), reason="locnet.npz is not built")
def test_log_table_is_a_distribution_per_hidden_card():
    for obs, _ in _positions("flemish", "loc-table"):
        table = locnet.log_table(obs)
        _, allowed, _, _ = locnet.encode(obs)
        me = obs["seat"]
        for c in range(32):
            row = table[4 * c : 4 * c + 4]
            if not allowed[c]:
                assert row == [0.0] * 4
                continue
            assert row[me] == 0.0
            ok = [(me + r + 1) % 4 for r in range(3) if allowed[c] >> r & 1]
            assert math.isclose(sum(math.exp(row[s]) for s in ok), 1.0, rel_tol=1e-9)
            assert all(row[s] == -1e9 for s in range(4) if s != me and s not in ok)


@pytest.mark.skipif(not locnet.available(), reason="locnet.npz is not built")
def test_log_table_is_the_same_in_another_process():
    obs = _positions("flemish", "loc-proc")[2][0]
    code = (
        "import json,sys; from engine.bots import locnet; "
        "print(json.dumps(locnet.log_table(json.loads(sys.stdin.read()))))"
    )
    env = dict(os.environ, PYTHONHASHSEED="123")
    out = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(obs), capture_output=True, text=True,
        cwd=ROOT, env=env, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout) == locnet.log_table(obs)  # bit for bit


def test_a_named_weights_file_is_read_and_a_missing_one_gives_no_table():
    obs = _positions("flemish", "loc-named")[1][0]
    name = os.path.basename(locnet.WEIGHTS)
    assert locnet.log_table(obs, weights=name) == locnet.log_table(obs)
    assert not locnet.available("no-such-weights.npz")
    assert locnet.log_table(obs, weights="no-such-weights.npz") is None


def test_every_expert_variant_finds_its_network():
    from engine.bots.pimc import EXPERT, VARIANTS

    named = {v.inference.loc_weights for v in [EXPERT, *VARIANTS.values()] if v.inference}
    assert "locnet-2026-12-03.npz" in named  # the expert of 2026-12-03 keeps its own
    for name in named:
        assert locnet.available(name), name


def test_the_core_adds_the_location_term_to_each_deal():
    from engine.bots.inference import InferenceConfig, PlayModel
    from engine.bots.pimc import _policy_core
    from engine.bots.policy import COEF
    from engine.solver import rule_args

    core = _policy_core()
    if core is None:
        pytest.skip("no compiled core")
    obs = _positions("flemish", "loc-core")[3][0]
    rules = get_rules("flemish")
    hidden = analyse(obs, rules)
    deals = hidden.enumerate_deals(10_000)[:50] or [hidden.sample(__import__("random").Random(1))]
    model = PlayModel(obs, rules, InferenceConfig(model="policy"))
    events, ti = model.core_args()
    trump = -1 if model.trump is None else model.trump
    _, bp, under, _, _ = rule_args(rules)
    args = (deals, events, COEF, ti, trump, bp, under, 0.1, 1.0, 0.5, 0.1)
    plain = core.weights(*args)
    loc = [((c * 7 + s * 3) % 11) / 10.0 for c in range(32) for s in range(4)]
    with_loc = core.weights(*args, None, loc)
    for h, a, b in zip(deals, plain, with_loc, strict=True):
        extra = sum(loc[4 * c + s] for s in range(4) for c in range(32) if h[s] >> c & 1)
        assert math.isclose(b, a + extra, rel_tol=1e-12, abs_tol=1e-9)
    with pytest.raises(ValueError):
        core.weights(*args, None, loc[:100])
