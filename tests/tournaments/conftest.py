"""Fixtures for the tournaments suite: players, tournaments, entries played to the end.

Entries are played through game/actions (South's moves chosen by the same heuristic
bot, seeded like the table's bots) so the tournament path is the one people use.
"""

from __future__ import annotations

import pytest

from engine.bots import bot_seed, get_bot
from game import actions as game_actions
from game.models import Game
from tests.helpers import PRODUCTION_STACK, wait_for_turn
from tournaments import actions

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def tournament_tasks_in_process(monkeypatch):
    """Production stack: the test worker consumes only its own bots queue, so the
    rankings and exports tasks (queues "rankings", "exports") run here, right after
    commit, instead of waiting for a worker that is not listening. Embedded mode runs
    them eagerly anyway."""
    if not PRODUCTION_STACK:
        return
    from tournaments import tasks

    for task in (tasks.recompute_rankings, tasks.build_records_zip, tasks.notify_tables_closed):
        monkeypatch.setattr(task, "delay", lambda *args, _task=task: _task.apply(args=args))


@pytest.fixture
def make_user(django_user_model):
    def make(name: str, **extra):
        return django_user_model.objects.create_user(name, password=f"pw-{name}-123", **extra)

    return make


@pytest.fixture
def organizer(make_user):
    return make_user("organizer")


@pytest.fixture
def club(organizer):
    return actions.create_club(organizer, "De Zwarte Manille")


@pytest.fixture
def make_tournament(club, organizer):
    def make(**kwargs):
        kwargs.setdefault("name", "Clubavond")
        kwargs.setdefault("club", club)
        kwargs.setdefault("open_now", True)
        return actions.create_tournament(organizer, **kwargs)

    return make


def play_to_end(entry, user, max_moves: int = 2000, bot: str = "heuristic") -> Game:
    """South plays with the heuristic bot (or `bot`), move by move, through game.actions."""
    bot = get_bot(bot)
    game = wait_for_turn(entry.game.public_id)
    for _ in range(max_moves):
        state = game.state
        if state["game_over"]:
            return game
        action = bot.act(state, bot_seed(game.seed, state["deal_number"], 0))
        game_actions.apply_action(game.public_id, user, action, game.seq)
        game = wait_for_turn(game.public_id)
    raise AssertionError("game did not finish")


def play_moves(entry, user, count: int) -> Game:
    """South plays `count` moves (not to the end): an entry left half-way."""
    bot = get_bot("heuristic")
    game = wait_for_turn(entry.game.public_id)
    for _ in range(count):
        state = game.state
        action = bot.act(state, bot_seed(game.seed, state["deal_number"], 0))
        game_actions.apply_action(game.public_id, user, action, game.seq)
        game = wait_for_turn(game.public_id)
    return game


def finish(entry) -> Game:
    """Quick: the bot plays every seat to the end in one go (game.actions.autoplay, the
    same `_apply` path and the same game-finished hook as a move from the table)."""
    game_actions.autoplay(entry.game_id)
    entry.refresh_from_db()
    return Game.objects.get(pk=entry.game_id)


def joined(tournament, *users):
    """Club members who joined the tournament, in order."""
    entries = []
    for u in users:
        if tournament.club is not None:
            tournament.club.members.add(u)
        entries.append(actions.join(tournament.pk, u))
    return entries


@pytest.fixture
def fake_entry(make_user):
    """A finished entry with hand-made results (no play): for the numbers of rankings."""
    from django.utils import timezone

    from tournaments.models import DealResult, Entry

    def make(tournament, name: str, score: int, points: dict[int, int]):
        user = make_user(name)
        game = Game.objects.create(owner=user, seed=tournament.seed, rules=tournament.rules)
        entry = Entry.objects.create(
            tournament=tournament, player=user, game=game, status=Entry.Status.FINISHED,
            score=score, game_score=score, deals_played=len(points), finished_at=timezone.now(),
        )  # fmt: skip
        for number, wij in points.items():
            DealResult.objects.create(
                entry=entry, number=number, dealer=0, trump="H", card_points=[wij, 60 - wij],
                written=[max(0, wij - 30), max(0, 30 - wij)], multiplier=1,
            )  # fmt: skip
        return entry

    return make
