"""Issue #10 item 29: the public API's hot path stays lean, and the parts of an
observation that cannot change are built once, shared read-only, and unchanged.

Timings on a shared machine are noise, so the hot path is held by the number of
Python-level calls it makes (deterministic); bench/engine.py measures the time.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import sys

import pytest

from engine import CARDS, Card, Deal, DealResult, Game, deal_for
from engine.deal import _new_result
from engine.frozen import FrozenDict, FrozenList

ENGINE_DIR = os.path.dirname(sys.modules["engine"].__file__)
DECK = [str(c) for c in CARDS]


def engine_calls(fn) -> int:
    """Python-level calls into engine/ made while running ``fn``."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call" and frame.f_code.co_filename.startswith(ENGINE_DIR):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def shuffled_hands(rng: random.Random) -> list[list[str]]:
    cards = list(DECK)
    rng.shuffle(cards)
    return [cards[k * 8 : k * 8 + 8] for k in range(4)]


def test_a_deal_through_the_public_api_makes_few_calls_per_card():
    # Was 40 calls to build a deal from texts (a Card.parse per card) and ~6 per card
    # played (legal_moves -> _legal_mask -> obliged_mask, mask_cards; play -> _play;
    # a NamedTuple and a frozen dataclass __init__ per trick and deal).
    rng = random.Random(29)
    for i in range(100):
        hands = shuffled_hands(rng)
        made = []
        dealer = i % 4
        assert engine_calls(lambda h=hands, m=made, s=dealer: m.append(Deal.from_hands(h, s))) <= 6
        d = made[0]
        d.choose_trump(None if i % 5 == 0 else "SHDC"[i % 4])

        def play_out(d=d):
            while d.to_move is not None:
                moves = d.legal_moves()
                d.play(moves[int(rng.random() * len(moves))])

        assert engine_calls(play_out) <= 3 * 32
        assert d.result is not None and sum(d.result.card_points) == 60


def test_from_hands_reads_texts_cards_and_other_notations_alike():
    rng = random.Random(1)
    for _ in range(50):
        hands = shuffled_hands(rng)
        dealer = rng.randrange(4)
        ref = Deal.from_hands(hands, dealer)
        for variant in (
            [tuple(h) for h in hands],
            [[Card.parse(c) for c in h] for h in hands],
            [[c.lower() for c in h] for h in hands],
            [[c.replace("T", "10") for c in h] for h in hands],
            [iter(h) for h in hands],
        ):
            d = Deal.from_hands(variant, dealer)
            assert d.hands == ref.hands and d.initial_hands == ref.initial_hands


def test_from_hands_still_names_the_problem_of_a_wrong_deal():
    hands = shuffled_hands(random.Random(2))
    twice = [list(h) for h in hands]
    twice[3][5] = twice[1][2]
    with pytest.raises(ValueError, match=f"card {twice[1][2]} is dealt twice"):
        Deal.from_hands(twice, 0)
    with pytest.raises(ValueError, match="seat 1 holds 9 cards"):
        Deal.from_hands([hands[0], hands[1] + ["7S"], hands[2], hands[3]], 0)
    with pytest.raises(ValueError, match="a card is written as text"):
        Deal.from_hands([[5, *hands[0][1:]], *hands[1:]], 0)


def test_a_deal_result_is_the_frozen_dataclass_with_every_field():
    d = Deal.from_spec(deal_for("result", 3))
    d.choose_trump("H")
    while d.to_move is not None:
        d.play(d.legal_moves()[0])
    res = d.result
    fields = {f: getattr(res, f) for f in DealResult.__dataclass_fields__}
    assert res == DealResult(**fields) == _new_result(dict(fields))
    assert hash(res) == hash(DealResult(**fields))
    with pytest.raises(AttributeError):
        res.written = (0, 0)  # type: ignore[misc]


def test_search_code_can_still_play_unchecked_with_plain_ints():
    d = Deal.from_spec(deal_for("unchecked", 1))
    d.choose_trump("S")
    e = d.clone()
    while d.to_move is not None:
        card = d.legal_moves()[-1]
        d._play(int(card))
        e.play(str(card))
    assert d.actions == e.actions and d.result == e.result


# ------------------------------------------------------------ observations


def fresh_observation(g: Game, seat: int) -> dict:
    """What observation() returned before anything was cached: every row rebuilt."""
    obs = copy.deepcopy(g.observation(seat))
    obs["tricks"] = [t.to_dict() for t in g.deal.tricks]
    obs["board"] = [r.to_dict() for r in g.game_results[-1]]
    return obs


@pytest.mark.parametrize("rules", ["flemish", "flemish-table", "french"])
def test_observations_are_unchanged_at_every_action_of_a_match(rules):
    rng = random.Random(rules)
    g = Game(f"obs-{rules}", rules)
    games_seen = set()
    while not g.is_terminal():
        acts = g.legal_actions()
        g.apply_action(acts[int(rng.random() * len(acts))])
        seat = rng.randrange(4)
        obs = g.observation(seat)
        assert obs == fresh_observation(g, seat)
        assert json.dumps(obs, sort_keys=True) == json.dumps(
            fresh_observation(g, seat), sort_keys=True
        )
        if rng.random() < 0.02:  # a clone and a replay see the same
            assert g.clone().observation(seat) == obs
            assert Game.replay(g.seed, rules, g.actions).observation(seat) == obs
        games_seen.add(g.game_index)
    if rules != "flemish":
        assert len(games_seen) >= 2  # the board started again for the next game


def test_finished_tricks_and_board_rows_are_built_once():
    g = Game("built-once")
    rng = random.Random(0)
    while g.deal_number < 3 or len(g.deal.tricks) < 2:
        acts = g.legal_actions()
        g.apply_action(acts[int(rng.random() * len(acts))])
    before = g.observation(0)
    while len(g.deal.tricks) < 3:  # one more trick, same deal
        acts = g.legal_actions()
        g.apply_action(acts[int(rng.random() * len(acts))])
    after = g.observation(2)
    assert len(after["tricks"]) == len(before["tricks"]) + 1
    assert all(a is b for a, b in zip(before["tricks"], after["tricks"], strict=False))
    assert after["board"] is before["board"]  # no deal finished in between
    assert g.clone().observation(1)["board"] is before["board"]


def test_the_shared_parts_of_an_observation_cannot_be_changed_by_a_caller():
    g = Game("read-only")
    rng = random.Random(3)
    while g.deal_number < 2 or len(g.deal.tricks) < 2:
        acts = g.legal_actions()
        g.apply_action(acts[int(rng.random() * len(acts))])
    obs = g.observation(0)
    expected = fresh_observation(g, 0)
    tricks, board = obs["tricks"], obs["board"]
    attempts = [
        lambda: tricks.append({}),
        lambda: tricks.pop(),
        lambda: tricks.__setitem__(0, {}),
        lambda: tricks.__delitem__(0),
        lambda: tricks.extend([{}]),
        lambda: tricks.sort(),
        lambda: tricks[0].__setitem__("winner", 9),
        lambda: tricks[0].update(winner=9),
        lambda: tricks[0].pop("winner"),
        lambda: tricks[0]["cards"].append([0, "7S"]),
        lambda: tricks[0]["cards"][0].__setitem__(1, "7S"),
        lambda: board.clear(),
        lambda: board[0].setdefault("extra", 1),
        lambda: board[0]["written"].__setitem__(0, 999),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="read-only"):
            attempt()
    with pytest.raises(TypeError):
        obs["tricks"] += [{}]
    with pytest.raises(TypeError):
        board[0]["written"] *= 2
    assert g.observation(0) == expected
    assert g.board == expected["board"]
    # The top level is the caller's own; copies of the shared parts are plain and free.
    obs["phase"] = "mine"
    mine = copy.deepcopy(obs["tricks"])
    mine[0]["cards"].append([0, "7S"])
    assert type(mine) is list and type(mine[0]) is dict and type(mine[0]["cards"]) is list
    assert type(copy.copy(board)) is list and type(dict(board[0])) is dict
    for back in (pickle.loads(pickle.dumps(g.observation(0))),):
        assert back == expected and type(back["tricks"]) is list
        assert type(back["tricks"][0]) is dict and type(back["board"][0]["written"]) is list
    assert g.observation(0) == expected
    assert isinstance(g.observation(0)["tricks"], FrozenList)
    assert isinstance(g.observation(0)["board"][0], FrozenDict)
