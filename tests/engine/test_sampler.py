"""Hidden-card sampling: every sampled deal could really have been dealt.

The proof is a replay: the sampled hands plus the cards each seat has played make four
starting hands; the engine's own Deal must accept every action of the real deal from
them (so no sampled card contradicts a void or an obligation), and the real hands must
satisfy the inferred constraints (so nothing possible is excluded).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Deal, Game
from engine.bots import get_bot
from engine.bots.sampler import analyse, sample_deals, trick_constraints
from engine.cards import CARD_BY_TEXT, FULL_DECK
from engine.rules import get_rules

PRESETS = ["flemish", "flemish-table", "french", "malilla"]


def played_by_seat(obs: dict) -> list[int]:
    out = [0, 0, 0, 0]
    for t in obs["tricks"] + [obs["current_trick"]]:
        for s, c in t["cards"]:
            out[s] |= 1 << CARD_BY_TEXT[c]
    return out


def replay_accepts(deal: Deal, obs: dict, hands: list[int]) -> bool:
    played = played_by_seat(obs)
    start = [hands[s] | played[s] for s in range(4)]
    try:
        d = Deal(start, deal.dealer, deal.rules, turned=deal.turned)
        for a in deal.actions:
            d.apply_action(a)
    except ValueError:
        return False
    return True


def positions(rules: str, games: int, seed: str):
    """(deal, observation) at many play decisions of random and heuristic games."""
    bots = [get_bot("random"), get_bot("heuristic")]
    rng = random.Random(seed)
    for gi in range(games):
        g = Game(f"{seed}-{gi}", rules)
        steps = 0
        while not g.is_terminal() and steps < 40:
            seat = g.to_move
            obs = g.observation(seat)
            if obs["phase"] == "play" and rng.random() < 0.5:
                viewer = rng.randrange(4)
                yield g.deal, g.observation(viewer)
            g.apply_action(bots[gi % 2].act(obs, b"s%d" % steps))
            steps += 1


@pytest.mark.parametrize("rules", PRESETS)
def test_samples_replay_and_the_truth_is_never_excluded(rules):
    rng = random.Random("sampler/" + rules)
    n = 0
    for deal, obs in positions(rules, 6, "samp-" + rules):
        seat = obs["seat"]
        h = analyse(obs)
        truth = list(deal.hands)
        for s in range(4):
            if s != seat:
                assert not (truth[s] & h.forbid[s] & h.unseen), (s, deal.actions)
        assert h.count() >= 1
        for hands in sample_deals(obs, 4, rng):
            assert hands[seat] == truth[seat]
            assert [bin(m).count("1") for m in hands] == obs["hand_sizes"]
            union = 0
            for m in hands:
                assert not (union & m)
                union |= m
            played = played_by_seat(obs)
            assert union | played[0] | played[1] | played[2] | played[3] == FULL_DECK
            assert replay_accepts(deal, obs, hands), (rules, deal.actions, hands)
        n += 1
    assert n > 50


def test_sampling_is_deterministic_and_uniform_on_a_small_endgame():
    rules = get_rules("flemish")
    bot = get_bot("random")
    g = Game("uniform", rules)
    while not (g.deal.phase == "play" and len(g.deal.tricks) == 6 and not g.deal.current_trick):
        g.apply_action(bot.act(g.observation(g.to_move), b"u"))
    obs = g.observation(g.to_move)
    h = analyse(obs)
    every = h.enumerate_deals(10_000)
    assert every is not None and len(every) == h.count()
    assert len({tuple(x) for x in every}) == len(every)
    a = sample_deals(obs, 50, random.Random(7))
    b = sample_deals(obs, 50, random.Random(7))
    assert a == b
    counts = Counter(tuple(x) for x in sample_deals(obs, 200 * len(every), random.Random(1)))
    assert set(counts) <= {tuple(x) for x in every}
    # every deal appears, none far from its share (loose: 200 expected each)
    assert len(counts) == len(every)
    assert min(counts.values()) > 120 and max(counts.values()) < 290


def _obs(hand, tricks, current, trump, rules="flemish", seat=0, sizes=None, dealer=3):
    played = sum(len(t) for t in tricks) + len(current)
    if sizes is None:
        sizes = [8 - played // 4 - (1 if (s in [x for x, _ in current]) else 0) for s in range(4)]
    return {
        "seat": seat,
        "rules": rules,
        "dealer": dealer,
        "hand": hand,
        "hand_sizes": sizes,
        "trump": trump,
        "turned_card": None,
        "tricks": [{"cards": t} for t in tricks],
        "current_trick": {"cards": current},
    }


def _mask(texts):
    return sum(1 << CARD_BY_TEXT[t] for t in texts.split())


def test_what_each_obligation_proves():
    # Hearts trump. West leads K spades, North (partner of South... here seat 2) follows
    # 7S under an opponent's king: North holds no spade above the king.
    h = analyse(_obs("7C 8C 9C JC QC KC AC TC".split(), [], [[1, "KS"], [2, "7S"], [3, "8H"]], "H"))
    assert h.forbid[2] & _mask("AS TS") == _mask("AS TS")
    # East (3) trumped with 8H while West (his partner) was winning: allowed, proves
    # only the void in spades.
    assert h.forbid[3] == _mask("7S 8S 9S JS QS KS AS TS")
    # West leads AC; North discards a diamond: void in clubs and no trump at all.
    h = analyse(_obs("7S 8S 9S JS QS KS AS TS".split(), [], [[1, "AC"], [2, "7D"]], "H"))
    assert h.forbid[2] & _mask("7C AH TH 7H") == _mask("7C AH TH 7H")
    # West AC, North trumps 9H, East (no clubs) under-trumps 7H: East holds nothing
    # but hearts below the 9 (flemish forbids under-trumping otherwise).
    trick = [(1, CARD_BY_TEXT["AC"]), (2, CARD_BY_TEXT["9H"]), (3, CARD_BY_TEXT["7H"])]
    forbid = [0, 0, 0, 0]
    trick_constraints(trick, 1, get_rules("flemish"), forbid)
    assert forbid[3] == FULL_DECK & ~_mask("7H 8H 9H")
    # Same in malilla (forced): under-trumping proves only the void and no higher trump.
    forbid = [0, 0, 0, 0]
    trick_constraints(trick, 1, get_rules("malilla"), forbid)
    assert forbid[3] == _mask("7C 8C 9C JC QC KC AC TC JH QH KH AH TH")
    # Allowed (french): the same.
    forbid = [0, 0, 0, 0]
    trick_constraints(trick, 1, get_rules("french"), forbid)
    assert forbid[3] == _mask("7C 8C 9C JC QC KC AC TC JH QH KH AH TH")
    # No trump: a discard proves only the void.
    h = analyse(_obs("7S 8S 9S JS QS KS AS TS".split(), [], [[1, "AC"], [2, "7D"]], None))
    assert h.forbid[2] == _mask("7C 8C 9C JC QC KC AC TC")


def test_the_turned_card_stays_with_the_dealer():
    g = Game("turned", "french")
    bot = get_bot("heuristic")
    rng = random.Random(3)
    dealer = g.deal.dealer
    seat = (dealer + 1) % 4
    while g.deal.phase == "play" and len(g.deal.tricks) < 2:
        obs = g.observation(seat)
        turned = CARD_BY_TEXT[obs["turned_card"]]
        still_held = g.deal.hands[dealer] >> turned & 1
        for hands in sample_deals(obs, 5, rng):
            if still_held:
                assert hands[dealer] >> turned & 1
        g.apply_action(bot.act(g.observation(g.to_move), b"t"))
