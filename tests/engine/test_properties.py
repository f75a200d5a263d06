"""Property tests (hypothesis) over random games of every preset."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Card, Deal, Game, deal_for, get_rules
from tests.engine.support import ALL_TEXTS

PRESETS = ["flemish", "flemish-table", "french", "malilla"]
CARD_SET = set(ALL_TEXTS)

SETTINGS = settings(
    max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def card_tokens(obj) -> set[str]:
    """Every card text anywhere in a JSON-like structure."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, str) and x in CARD_SET:
            found.add(x)
    return found


def deal_total(rules) -> callable:
    rs = get_rules(rules)

    def total(d: Deal) -> int:
        t = 60 + 8 * rs.trick_bonus + rs.last_trick_bonus
        if rs.turned_card_points and d.turned is not None:
            t += d.turned.points
        return t

    return total


def check_deal_invariants(d: Deal) -> None:
    played = [c for t in d.tricks for _, c in t.cards] + [c for _, c in d.current_trick]
    held = [c for s in range(4) for c in d.hand(s)]
    assert sorted(played + held) == list(range(32)), "all 32 cards accounted for"
    sizes = [len(d.hand(s)) for s in range(4)]
    assert max(sizes) - min(sizes) <= 1
    if d.phase == "play":
        legal = d.legal_moves()
        hand = set(d.hand(d.to_move))
        assert legal, "the player to move always has a legal card"
        assert set(legal) <= hand
        assert len(set(legal)) == len(legal)


def check_observations(g: Game) -> None:
    d = g.deal
    played = {str(c) for t in d.tricks for _, c in t.cards} | {str(c) for _, c in d.current_trick}
    public = set(played)
    if d.turned is not None:
        public.add(str(d.turned))  # the turned card is shown to everyone
    for seat in range(4):
        obs = g.observation(seat)
        own = {str(c) for c in d.hand(seat)}
        visible = d.hand_visible(seat)
        if obs["hand"] is not None:
            assert set(obs["hand"]) == own
        seen = card_tokens(obs)
        allowed = public | (own if obs["hand"] is not None else set())
        assert seen <= allowed, (seat, seen - allowed)
        assert set(obs["legal"]) & CARD_SET <= (own if obs["hand"] is not None else set())
        if seat != g.to_move:
            assert obs["legal"] == []
        else:
            assert obs["legal"] == g.legal_actions()
        assert (obs["hand"] is None) == (not visible)
        if not d.trump_chosen and seat == (d.dealer + 2) % 4:
            assert obs["hand"] is None, "the dealer's partner may not look before trump"
        if d.phase == "blind" and seat == d.dealer:
            assert obs["hand"] is None, "the dealer has not looked yet"


def play_checked(preset, rules, seed: int, choice_seed: int, observe_every: int = 1) -> Game:
    rng = random.Random(choice_seed)
    g = Game(seed, rules)
    total = deal_total(rules)
    results_seen = 0
    step = 0
    while not g.is_terminal():
        d = g.deal
        acts = g.legal_actions()
        assert acts, "a live game always offers an action"
        if step % observe_every == 0:
            check_observations(g)
        check_deal_invariants(d)
        g.apply_action(rng.choice(acts))
        step += 1
        if len(g.results) > results_seen:
            finished = d
            r = g.results[-1]
            results_seen = len(g.results)
            assert finished.is_terminal() and finished.result == r
            assert sum(r.card_points) == total(finished)
            assert min(r.written) >= 0
            assert r.written[0] == 0 or r.written[1] == 0, "only one team writes"
            a, b = r.card_points
            if a == b:
                assert r.written == (0, 0)
            winner = 0 if a > b else 1
            if a != b:
                assert r.written[1 - winner] == 0
                rs = get_rules(rules)
                assert (
                    r.written[winner] == max(0, r.card_points[winner] - rs.threshold) * r.multiplier
                )
            assert sum(r.tricks_won) == 8
    check_observations(g)
    # Totals: the written scores of the current game add up.
    per_game = g.game_results[-1]
    assert [sum(r.written[t] for r in per_game) for t in (0, 1)] == list(g.outcome.scores)
    assert g.score_for(0) == -g.score_for(1) == g.score_for(2) == -g.score_for(3)
    return g


@SETTINGS
@given(
    seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS)
)
def test_random_games_keep_every_invariant(seed, choice_seed, preset):
    g = play_checked(preset, preset, seed, choice_seed, observe_every=3)
    h = Game.replay(seed, preset, g.actions)
    assert h.board == g.board and h.outcome == g.outcome
    assert [h.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]


@settings(max_examples=4, deadline=None, database=None)
@given(seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32))
def test_malilla_with_last_trick_bonus_has_61_points_per_deal(seed, choice_seed):
    rules = get_rules("malilla").replace(last_trick_bonus=1)
    play_checked("malilla", rules, seed, choice_seed, observe_every=50)


@settings(max_examples=60, deadline=None, database=None)
@given(
    seed=st.text(min_size=0, max_size=12),
    number=st.integers(1, 500),
    preset=st.sampled_from(PRESETS),
    choice_seed=st.integers(0, 2**32),
)
def test_random_single_deals_keep_every_invariant(seed, number, preset, choice_seed):
    rng = random.Random(choice_seed)
    d = Deal.from_spec(deal_for(seed, number, preset), preset)
    total = deal_total(preset)
    while not d.is_terminal():
        check_deal_invariants(d)
        before = list(d.team_points)
        d.apply_action(rng.choice(d.legal_actions()))
        assert all(x >= y for x, y in zip(d.team_points, before, strict=True)), (
            "points never go down"
        )
    r = d.result
    assert sum(r.card_points) == total(d)
    assert min(r.written) == 0 and r.multiplier >= 1
    won = [0, 0]
    for t in d.tricks:
        won[t.winner % 2] += 1
    assert tuple(won) == r.tricks_won


@settings(max_examples=30, deadline=None, database=None)
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS), cut=st.integers(0, 120))
def test_replay_of_any_prefix_gives_the_same_position(seed, preset, cut):
    rng = random.Random(seed)
    g = Game(seed, preset)
    while not g.is_terminal() and len(g.actions) < cut:
        g.apply_action(rng.choice(g.legal_actions()))
    h = Game.replay(seed, preset, g.actions)
    assert h.legal_actions() == g.legal_actions()
    assert [h.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]


@settings(max_examples=40, deadline=None, database=None)
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS), cut=st.integers(0, 40))
def test_clone_then_play_never_touches_the_original(seed, preset, cut):
    rng = random.Random(seed)
    d = Deal.from_spec(deal_for(seed, 1, preset), preset)
    while not d.is_terminal() and len(d.actions) < cut:
        d.apply_action(rng.choice(d.legal_actions()))
    before = [d.observation(s) for s in range(4)]
    c = d.clone()
    while not c.is_terminal():
        c.apply_action(rng.choice(c.legal_actions()))
    assert [d.observation(s) for s in range(4)] == before


def test_turned_card_is_public_only_in_the_turned_card_presets():
    for preset in PRESETS:
        spec = deal_for("turned", 1, preset)
        d = Deal.from_spec(spec, preset)
        obs = d.observation((spec.dealer + 1) % 4)
        if get_rules(preset).trump_by_turned_card:
            assert obs["turned_card"] == str(spec.turned)
            assert Card.parse(obs["turned_card"]) in spec.hands[spec.dealer]
        else:
            assert obs["turned_card"] is None
