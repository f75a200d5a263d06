"""Periodic operations tasks (CELERY_BEAT_SCHEDULE in config/settings.py)."""

from celery import shared_task

from . import sweeper


@shared_task(name="ops.tasks.sweep_stuck_games", ignore_result=True)
def sweep_stuck_games() -> int:
    return sweeper.sweep()
