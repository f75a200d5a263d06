"""game/actions.py: the single mutation path, for human and bot moves alike."""

from __future__ import annotations

import pytest

import engine
from engine.bots import bot_seed, get_bot
from game import actions
from game.models import Game
from tests.helpers import wait_for_turn

pytestmark = pytest.mark.usefixtures("live_game_db")


def _seed_where_first_mover_is(seat_test) -> str:
    for i in range(200):
        seed = f"actions-test-{i}"
        if seat_test(engine.Game(seed, "flemish").to_move):
            return seed
    raise AssertionError("no such seed in 200 tries")


def _new_game(user, seed: str | None = None) -> Game:
    game = actions.create_game(user, seed=seed or "actions-test-fixed")
    return wait_for_turn(game.public_id)


def _illegal_card(state: dict) -> str:
    hand, legal = state["hand"], state["legal"]
    candidates = [c for c in hand if c not in legal]
    if not candidates:
        pytest.skip("every card in hand is legal here")
    return candidates[0]


def _play_until_a_card_is_illegal(game: Game, user) -> Game:
    """Play South's first legal action until South holds a card it may not play."""
    for _ in range(200):
        state = game.state
        if state["phase"] == "play" and state["hand"] and set(state["hand"]) - set(state["legal"]):
            return game
        actions.apply_action(game.public_id, user, state["legal"][0], game.seq)
        game = wait_for_turn(game.public_id)
        assert not game.state["game_over"]
    raise AssertionError("no position with an illegal card found")


def test_new_game_is_waiting_for_south_after_bots_moved(user):
    game = _new_game(user)
    assert game.owner == user
    assert game.seq == len(game.actions)
    assert game.state["to_move"] == 0
    assert game.state["legal"]


def test_illegal_card_is_refused_with_the_rule_and_nothing_changes(user):
    game = _play_until_a_card_is_illegal(_new_game(user), user)
    card = _illegal_card(game.state)
    before = (game.seq, list(game.actions), game.state)
    expected = engine.Game.replay(game.seed, game.rules, game.actions)
    with pytest.raises(engine.IllegalMove) as engine_error:
        expected.apply_action(card)
    with pytest.raises(actions.IllegalAction) as refused:
        actions.apply_action(game.public_id, user, card, game.seq)
    assert refused.value.code == "illegal"
    assert str(refused.value) == str(engine_error.value)  # the engine's words, unchanged
    game.refresh_from_db()
    assert (game.seq, game.actions, game.state) == before


def test_nonsense_action_is_refused_as_illegal(user):
    game = _new_game(user)
    with pytest.raises(actions.IllegalAction):
        actions.apply_action(game.public_id, user, "ZZ", game.seq)
    game.refresh_from_db()
    assert game.seq == len(game.actions)


def test_stale_seq_is_refused_and_nothing_changes(user):
    game = _new_game(user)
    legal = game.state["legal"][0]
    for stale in (game.seq - 1, game.seq + 1):
        with pytest.raises(actions.StaleSeq) as refused:
            actions.apply_action(game.public_id, user, legal, stale)
        assert refused.value.code == "stale"
    game.refresh_from_db()
    assert game.seq == len(game.actions)
    assert game.state["to_move"] == 0


def test_moving_when_a_bot_is_to_move_is_not_your_turn(user):
    seed = _seed_where_first_mover_is(lambda seat: seat != 0)
    eng = engine.Game(seed, "flemish")
    # A row whose bots have not moved yet (as if the worker had not picked it up).
    game = Game.objects.create(owner=user, seed=seed, rules="flemish", state=eng.observation(0))
    with pytest.raises(actions.NotYourTurn) as refused:
        actions.apply_action(game.public_id, user, "trump:H", 0)
    assert refused.value.code == "not_your_turn"
    game.refresh_from_db()
    assert game.seq == 0 and game.actions == []


def test_someone_elses_game_is_not_found(user, other_user):
    game = _new_game(user)
    with pytest.raises(actions.GameNotFound):
        actions.apply_action(game.public_id, other_user, game.state["legal"][0], game.seq)
    with pytest.raises(actions.GameNotFound):
        actions.snapshot(game.public_id, other_user)


def test_bots_reply_through_the_same_path_deterministically(user):
    game = _new_game(user)
    seq_before = game.seq
    actions.apply_action(game.public_id, user, game.state["legal"][0], game.seq)
    game = wait_for_turn(game.public_id)
    assert game.seq == len(game.actions) > seq_before
    # Every stored bot move is exactly what the bot answers to its own observation
    # and the deal's seed: the stored list replays to the stored state.
    bot = get_bot(game.bot_level)
    replay = engine.Game(game.seed, game.rules)
    for action in game.actions:
        seat = replay.to_move
        if seat != 0:
            obs = replay.observation(seat)
            assert action == bot.act(obs, bot_seed(game.seed, replay.deal_number, seat))
        replay.apply_action(action)
    assert replay.observation(0) == game.state


def test_bot_task_is_idempotent_for_a_stale_seq(user):
    game = _new_game(user)
    before = (game.seq, list(game.actions))
    assert actions.play_bots(game.pk, game.seq - 1) == 0
    assert actions.play_bots(game.pk, game.seq) == 0  # South to move: nothing to do
    game.refresh_from_db()
    assert (game.seq, game.actions) == before


def test_a_whole_game_is_played_to_the_end_through_actions(user):
    game = _new_game(user, seed="whole-game-1")
    south = get_bot("heuristic")
    for _ in range(2000):
        state = game.state
        if state["game_over"]:
            break
        choice = south.act(state, bot_seed(game.seed, state["deal_number"], 0))
        actions.apply_action(game.public_id, user, choice, game.seq)
        game = wait_for_turn(game.public_id)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    assert eng.is_terminal()
    assert game.final_score == eng.score_for(0)
    assert game.seq == len(game.actions)
    assert max(eng.scores) >= 101 or eng.deal_number >= 40
    with pytest.raises(actions.NotYourTurn):
        actions.apply_action(game.public_id, user, "TS", game.seq)


def test_fast_play_toggles_and_can_be_set(user):
    game = _new_game(user)
    assert actions.set_fast_play(game.public_id, user).fast_play is True
    assert actions.set_fast_play(game.public_id, user).fast_play is False
    assert actions.set_fast_play(game.public_id, user, True).fast_play is True
