"""Celery tasks take ids, are idempotent and short (see actions.play_bots)."""

from celery import shared_task

from . import actions


# Routed to the "bots" queue by CELERY_TASK_ROUTES in settings.
@shared_task(name="game.tasks.play_bots", ignore_result=True)
def play_bots(game_pk: int, expected_seq: int) -> int:
    return actions.play_bots(game_pk, expected_seq)
