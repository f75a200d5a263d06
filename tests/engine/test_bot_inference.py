"""Inference for the PIMC expert: the plausibility weights of sampled deals."""

from __future__ import annotations

import random

import pytest

from engine import Game
from engine.bots import bot_seed, get_bot
from engine.bots.base import texts_mask
from engine.bots.inference import InferenceConfig, PlayModel, legal_mask, model_trump
from engine.bots.sampler import analyse
from engine.cards import CARD_BY_TEXT, SUITS
from engine.rules import get_rules


@pytest.mark.parametrize("preset", ["flemish", "flemish-table", "french", "malilla"])
def test_legal_mask_agrees_with_the_engine(preset):
    rules = get_rules(preset)
    h = get_bot("heuristic")
    checked = 0
    for k in range(3):
        g = Game(f"legal-{preset}-{k}", preset)
        while g.deal_number == 1 and not g.is_terminal():
            obs = g.observation(g.to_move)
            if obs["phase"] == "play":
                trump = None if obs["trump"] is None else SUITS.index(obs["trump"])
                trick = [(s, CARD_BY_TEXT[c]) for s, c in obs["current_trick"]["cards"]]
                lm = legal_mask(texts_mask(obs["hand"]), trick, trump, obs["seat"], rules)
                assert lm == texts_mask(obs["legal"])
                checked += 1
            g.apply_action(h.act(obs, b"l"))
    assert checked >= 90


def test_the_dealers_trump_makes_deals_with_long_trumps_likelier():
    # The dealer (seat 3) named spades; we are seat 0 and have seen nothing else.
    obs = {
        "seat": 0, "rules": "flemish", "dealer": 3, "phase": "play", "trump": "S",
        "trump_chosen": True, "blind": False, "no_trump": False, "turned_card": None,
        "hand": "7H 8H 9H 7D 8D 9D 7C 8C".split(), "hand_sizes": [8, 8, 8, 8],
        "tricks": [], "current_trick": {"leader": 0, "cards": []},
        "legal": "7H 8H 9H 7D 8D 9D 7C 8C".split(), "deal_number": 1,
    }  # fmt: skip
    rules = get_rules("flemish")
    model = PlayModel(obs, rules, InferenceConfig())
    assert model.informative
    hidden = analyse(obs, rules)
    rng = random.Random(5)
    spades = {1.0: [], InferenceConfig().eps_trump: []}
    for _ in range(300):
        hands = hidden.sample(rng)
        w = model.weight(hands)
        spades[w].append(bin(hands[3] & 0xFF).count("1"))
    mean = {w: sum(v) / len(v) for w, v in spades.items()}
    assert mean[1.0] > mean[InferenceConfig().eps_trump] + 1
    assert "trump:S" in model_trump(texts_mask("TS AS KS QS 9S 7H 8D 7C".split()), ["trump:S"])


def test_nothing_to_infer_for_the_dealer_before_any_play():
    obs = {
        "seat": 3, "rules": "flemish", "dealer": 3, "phase": "play", "trump": "S",
        "trump_chosen": True, "blind": False, "hand": "7H 8H 9H 7D 8D 9D 7C 8C".split(),
        "hand_sizes": [8, 8, 8, 8], "tricks": [], "current_trick": {"leader": 0, "cards": []},
        "legal": [], "deal_number": 1,
    }  # fmt: skip
    assert not PlayModel(obs, get_rules("flemish"), InferenceConfig()).informative


def test_weights_stay_positive_along_a_deal():
    g = Game("weights", "flemish")
    h = get_bot("heuristic")
    rules = get_rules("flemish")
    rng = random.Random(1)
    while g.deal_number == 1:
        obs = g.observation(g.to_move)
        if obs["phase"] == "play":
            model = PlayModel(obs, rules, InferenceConfig())
            hidden = analyse(obs, rules)
            for _ in range(5):
                assert model.weight(hidden.sample(rng)) > 0
        g.apply_action(h.act(obs, bot_seed(g.seed, 1, g.to_move)))
