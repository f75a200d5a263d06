"""Games stuck on a bot's turn get their bot task again.

A bot turn is one idempotent, seq-checked task (game.tasks.play_bots), acknowledged
only after it ran (CELERY_TASK_ACKS_LATE). If the worker dies mid-turn, its
transaction rolls back and, on Redis, the unacknowledged message comes back only after
the broker's visibility timeout (an hour by default). If Redis lost the message
(restart without persistence) or the enqueue after commit failed, it never comes back.
So: any active game whose seat to move is played by a bot (`awaiting_bot`) and whose
row has not changed for SWEEP_STUCK_AFTER seconds gets a fresh task for its current
seq. The same holds for a person's clock whose task was lost: a deadline passed by
more than SWEEP_STUCK_AFTER gets its clock task again. Duplicates are
harmless: the second task finds the seq moved on and does nothing, so the bot move is
played exactly once.

Two triggers: the periodic `ops.tasks.sweep_stuck_games` (Celery beat), and
`kick_if_stuck` when a client (re)connects or asks for a snapshot.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from game.models import Game

logger = logging.getLogger(__name__)

def _stuck(older_than: float):
    cutoff = timezone.now() - dt.timedelta(seconds=older_than)
    return Game.objects.filter(status=Game.Status.ACTIVE, updated__lt=cutoff, awaiting_bot=True)


def _late_clocks(older_than: float):
    cutoff = timezone.now() - dt.timedelta(seconds=older_than)
    return Game.objects.filter(status=Game.Status.ACTIVE, deadline__lt=cutoff)


def _enqueue(pk: int, seq: int) -> None:
    from game.tasks import play_bots

    play_bots.apply_async((pk, seq), queue=settings.GAME_BOTS_QUEUE)


def sweep(older_than: float | None = None, limit: int = 500) -> int:
    """Re-enqueue the bot task of every stuck game; returns how many."""
    older_than = settings.SWEEP_STUCK_AFTER if older_than is None else older_than
    rows = list(_stuck(older_than).order_by("updated").values_list("pk", "seq")[:limit])
    for pk, seq in rows:
        _enqueue(pk, seq)
    from game.tasks import clock_expired

    late = list(_late_clocks(older_than).values_list("pk", "seq")[:limit])
    for pk, seq in late:
        clock_expired.apply_async((pk, seq), queue=settings.GAME_BOTS_QUEUE)
    if rows:
        logger.warning("sweeper: re-enqueued bots for %d stuck game(s)", len(rows))
    return len(rows)


def kick_if_stuck(public_id, older_than: float | None = None) -> bool:
    """The same for one game (a client that reconnects or asks for a snapshot)."""
    older_than = settings.SWEEP_STUCK_AFTER if older_than is None else older_than
    try:
        row = _stuck(older_than).filter(public_id=public_id).values_list("pk", "seq").first()
    except (ValueError, TypeError, ValidationError):  # not a game id at all
        return False
    if row is None:
        return False
    _enqueue(*row)
    logger.warning("sweeper: re-enqueued bots for stuck game %s at seq %d", public_id, row[1])
    return True
