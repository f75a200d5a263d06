"""The random and heuristic bots: legal, deterministic (RULES.md §9), and the heuristic
plays clearly better than random on duplicate deals."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Game, deal_for
from engine.bots import available, bot_seed, get_bot

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ["flemish", "flemish-table", "french", "malilla"]
BOTS = ["random", "heuristic"]


def collect_observations(preset: str, seed: str, limit: int = 80) -> list[tuple[dict, bytes]]:
    """Observations of the seat to move along a heuristic game, with each seat's seed."""
    g = Game(seed, preset)
    bot = get_bot("heuristic")
    out = []
    while not g.is_terminal() and len(out) < limit:
        seat = g.to_move
        obs = g.observation(seat)
        s = bot_seed(seed, g.deal_number, seat)
        out.append((obs, s))
        g.apply_action(bot.act(obs, s))
    return out


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", BOTS)
def test_bot_plays_only_legal_actions(name, preset):
    bot = get_bot(name)
    g = Game(f"legal-{name}-{preset}", preset)
    while not g.is_terminal() and len(g.actions) < 500:
        seat = g.to_move
        obs = g.observation(seat)
        frozen = copy.deepcopy(obs)
        action = bot.act(obs, bot_seed(g.seed, g.deal_number, seat))
        assert obs == frozen, "a bot must not modify the observation"
        assert action in g.legal_actions()
        g.apply_action(action, seat=seat)
    assert g.is_terminal() or len(g.results) >= 10


@pytest.mark.parametrize("preset", PRESETS)
def test_mixed_table_of_bots_finishes_games(preset):
    bots = [get_bot("heuristic"), get_bot("random"), get_bot("random"), get_bot("heuristic")]
    g = Game(f"mixed-{preset}", preset)
    while not g.is_terminal():
        seat = g.to_move
        g.apply_action(bots[seat].act(g.observation(seat), bot_seed(g.seed, g.deal_number, seat)))
    assert g.outcome.reason in ("boom", "deal_limit", "match")


@pytest.mark.parametrize("name", BOTS)
def test_bot_is_a_deterministic_function_of_observation_and_seed(name):
    bot = get_bot(name)
    for preset in PRESETS:
        for obs, seed in collect_observations(preset, f"det-{preset}", limit=60):
            first = bot.act(obs, seed)
            assert get_bot(name).act(copy.deepcopy(obs), seed) == first
            assert bot.act(json.loads(json.dumps(obs)), seed) == first


def test_random_bot_depends_on_the_seed():
    bot = get_bot("random")
    obs_seeds = [
        (o, s)
        for o, s in collect_observations("flemish", "seeds", limit=60)
        if len(o["legal"]) >= 3
    ]
    assert obs_seeds
    differs = sum(
        1 for o, _ in obs_seeds if len({bot.act(o, bytes([i]) * 32) for i in range(8)}) > 1
    )
    assert differs > len(obs_seeds) // 2


def test_random_bot_never_goes_blind():
    bot = get_bot("random")
    g = Game("blind", "flemish-table")
    assert g.legal_actions() == ["blind", "look"]
    obs = g.observation(g.to_move)
    assert all(bot.act(obs, bytes([i]) * 32) == "look" for i in range(20))


_SUBPROCESS = """
import json, sys
from engine.bots import get_bot
data = json.load(sys.stdin)
out = {}
for name in ("random", "heuristic"):
    bot = get_bot(name)
    out[name] = [bot.act(obs, bytes.fromhex(seed)) for obs, seed in data]
print(json.dumps(out))
"""


def test_bots_give_the_same_actions_in_another_process():
    data = []
    for preset in PRESETS:
        data += [
            (obs, seed.hex())
            for obs, seed in collect_observations(preset, f"proc-{preset}", limit=40)
        ]
    expected = {
        name: [get_bot(name).act(obs, bytes.fromhex(s)) for obs, s in data] for name in BOTS
    }
    env = {**os.environ, "PYTHONHASHSEED": "977", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS], input=json.dumps(data), cwd=ROOT, env=env,
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert json.loads(out) == expected


def test_bot_seed_is_fixed_by_game_seed_deal_and_seat():
    assert bot_seed("t", 1, 0) == bot_seed("t", 1, 0)
    assert len({bot_seed("t", d, s) for d in range(1, 5) for s in range(4)}) == 16
    assert bot_seed("t", 1, 0) != bot_seed("u", 1, 0)


def test_unknown_bot_name_is_refused():
    assert {"random", "heuristic"} <= set(available())
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("grandmaster-9000")


def test_bot_refuses_when_it_has_nothing_to_do():
    g = Game("idle")
    other = (g.to_move + 1) % 4
    for name in BOTS:
        with pytest.raises(ValueError):
            get_bot(name).act(g.observation(other), b"x")


def _duplicate_deal(seed: str, k: int, heuristic_team: int, preset: str):
    """Deal ``k`` of ``seed`` with the heuristic bot on one team and random on the other."""
    h, r = get_bot("heuristic"), get_bot("random")
    g = Game(seed, preset, deals=lambda n: deal_for(seed, k, preset))
    while not g.results:
        seat = g.to_move
        bot = h if seat % 2 == heuristic_team else r
        g.apply_action(bot.act(g.observation(seat), bot_seed(seed, k, seat)))
    res = g.results[0]
    return res.card_points[heuristic_team], res.card_points[1 - heuristic_team], res.written


@pytest.mark.parametrize("preset", ["flemish", "french", "malilla"])
def test_heuristic_beats_random_over_100_duplicate_deals(preset):
    # Each deal is played twice with the teams swapped, so the cards even out.
    own = other = net = 0
    for k in range(1, 101):
        for team in (0, 1):
            mine, theirs, written = _duplicate_deal("duel", k, team, preset)
            own += mine
            other += theirs
            net += written[team] - written[1 - team]
    assert own > other * 1.1, (own, other)
    assert own / 200 > (33 if preset != "french" else 37)
    assert net > 0
