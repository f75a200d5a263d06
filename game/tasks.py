"""Celery tasks take ids, are idempotent and short (see actions.play_bots)."""

from celery import shared_task

from . import actions


# Routed to the "bots" queue by CELERY_TASK_ROUTES in settings.
@shared_task(name="game.tasks.play_bots", ignore_result=True)
def play_bots(game_pk: int, expected_seq: int) -> int:
    return actions.play_bots(game_pk, expected_seq)


# Queued with a countdown of the table's clock; acts only if (seq, deadline) still hold.
@shared_task(name="game.tasks.clock_expired", ignore_result=True)
def clock_expired(game_pk: int, expected_seq: int) -> int:
    return actions.clock_expired(game_pk, expected_seq)


# Queued when a person's last socket closes; acts only if they are still away.
@shared_task(name="game.tasks.disconnect_expired", ignore_result=True)
def disconnect_expired(game_pk: int, index: int, stamp: str) -> int:
    return actions.disconnect_expired(game_pk, index, stamp)


# Queued at a tournament table's start for its grace (TABLES_ABSENT_GRACE): the people
# who have not opened the table by then are played by the bot until they arrive.
@shared_task(name="game.tasks.absence_expired", ignore_result=True)
def absence_expired(game_pk: int) -> int:
    return actions.absence_expired(game_pk)
