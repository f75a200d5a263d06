"""Celery tasks: take ids, idempotent, short. Queues: "rankings" and "exports"
(CELERY_TASK_ROUTES); the periodic ones are in CELERY_BEAT_SCHEDULE."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import actions, exports, rankings

# A run cut short is run again: on a dropped database connection (retried, with a
# back-off), and on a worker killed under it (given back to the queue). Both are
# idempotent. The tick also asks again for rankings whose run was lost all the same
# (actions.rerank_stuck).
RUN_AGAIN = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "max_retries": 5,
    "acks_late": True,
    "reject_on_worker_lost": True,
}


@shared_task(name="tournaments.tasks.recompute_rankings", ignore_result=True, **RUN_AGAIN)
def recompute_rankings(tournament_id: int, requested_at: float | None = None) -> int | None:
    return rankings.recompute(tournament_id, requested_at)


@shared_task(name="tournaments.tasks.open_day_tournament", ignore_result=True)
def open_day_tournament() -> int:
    return actions.day_tournament().pk


@shared_task(name="tournaments.tasks.tick", ignore_result=True)
def tick() -> dict:
    return actions.tick()


@shared_task(name="tournaments.tasks.build_records_zip", ignore_result=True)
def build_records_zip(tournament_id: int) -> int | None:
    return exports.build_records_zip(tournament_id)


@shared_task(name="tournaments.tasks.build_results_pdf", ignore_result=True)
def build_results_pdf(tournament_id: int, language: str) -> int | None:
    from . import results_pdf

    data = results_pdf.build_and_store(tournament_id, language)
    return len(data) if data is not None else None


@shared_task(name="tournaments.tasks.advance_set", ignore_result=True, **RUN_AGAIN)
def advance_set(set_id: int) -> str:
    return actions.advance_set(set_id)


@shared_task(name="tournaments.tasks.notify_tables_closed", ignore_result=True)
def notify_tables_closed(tournament_id: int) -> int:
    return actions.notify_tables_closed(tournament_id)
