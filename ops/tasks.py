"""Periodic operations tasks (CELERY_BEAT_SCHEDULE in config/settings.py)."""

from celery import shared_task

from . import sweeper


@shared_task(name="ops.tasks.sweep_stuck_games", ignore_result=True)
def sweep_stuck_games() -> int:
    from .health import beat_seen

    beat_seen()  # /healthz: beat schedules and a worker of the celery queue runs it
    return sweeper.sweep()
