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

Three triggers: the periodic `ops.tasks.sweep_stuck_games` (Celery beat), for games
nobody watches; `kick_if_stuck` when a client (re)connects or asks for a snapshot; and
`BotTurnWatch`, for a game somebody is waiting on: each game socket knows the state it
last sent, and while a bot is to move and no new event has come for
GAME_BOT_TURN_TIMEOUT_MS (3 s; a bot turn takes well under 2 s on a healthy system) it
re-enqueues the turn if the row has not changed since, then waits twice as long before
looking again (up to SWEEP_STUCK_AFTER). On a healthy system the event comes first and
the timer is dropped: no query, no task. So a turn lost with a worker or a web process
is played again within ~3-4 s of the table (re)connecting, not after the sweeper's 30 s.
"""

from __future__ import annotations

import asyncio
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
    reset_stale_counts()
    take_over_lost_seats(older_than)
    return len(rows)


def reset_stale_counts(now=None) -> int:
    """Seats counted "connected" whose sockets have not beaten for three heartbeats
    (game.consumers): their web process died without closing them (kill -9, a crash),
    so the count can never come down. Away since the last beat: the count goes to 0 and
    `take_over_lost_seats` gives the bot the seat once the takeover delay has passed."""
    from django.db.models import Q
    from django.db.models.functions import Coalesce

    from game.models import Seat

    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=3 * settings.GAME_SEAT_HEARTBEAT)
    stale = Seat.objects.filter(
        game__status=Game.Status.ACTIVE, user__isnull=False, connections__gt=0
    ).filter(Q(seen_at__lt=cutoff) | Q(seen_at__isnull=True))
    count = stale.update(connections=0, disconnected_at=Coalesce("seen_at", now))
    if count:
        logger.warning("sweeper: %d seat(s) counted connected with no live socket", count)
    return count


def take_over_lost_seats(older_than: float, now=None) -> int:
    """The bot takes the seats whose takeover task was lost (a bot worker killed while
    holding its countdown: Redis gives it back only after an hour, or never): a person
    away for the takeover delay and some more, and at a tournament's table whoever has
    not arrived well after its start. The same idempotent actions the tasks run."""
    from game import actions
    from game.models import Seat

    now = now or timezone.now()
    away_since = now - dt.timedelta(seconds=settings.GAME_DISCONNECT_TAKEOVER + older_than)
    away = list(
        Seat.objects.filter(
            game__status=Game.Status.ACTIVE,
            user__isnull=False,
            bot_control=False,
            connections=0,
            disconnected_at__lt=away_since,
        ).values_list("game_id", "index", "disconnected_at")[:500]
    )
    taken = sum(
        actions.disconnect_expired(pk, index, since.isoformat()) for pk, index, since in away
    )
    late = (
        Seat.objects.filter(
            game__status=Game.Status.ACTIVE,
            game__arrive_by__lt=now - dt.timedelta(seconds=older_than),
            user__isnull=False,
            bot_control=False,
            connections=0,
            disconnected_at__isnull=True,
        )
        .values_list("game_id", flat=True)
        .distinct()[:500]
    )
    taken += sum(actions.absence_expired(pk) for pk in list(late))
    if taken:
        logger.warning("sweeper: the bot took %d seat(s) whose takeover was lost", taken)
    return taken


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


class BotTurnWatch:
    """One game socket's watch on a bot turn (see the module docstring). Feed it every
    message the socket sends (`seen`); `stop` when the socket goes."""

    def __init__(self, public_id) -> None:
        self.public_id = public_id
        self.seq: int | None = None
        self.task: asyncio.Task | None = None
        # The seats a bot plays, from the table facts of snapshots and table notices
        # (a solo game's until told otherwise).
        self.bots: set[int] = {1, 2, 3}

    def seen(self, message: dict) -> None:
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "closed":
            self.stop()
            return
        table = message.get("table") if kind in ("snapshot", "table") else None
        if isinstance(table, dict) and isinstance(table.get("players"), list):
            self.bots = {i for i, p in enumerate(table["players"]) if p.get("bot")}
        if kind not in ("snapshot", "event"):
            return
        state, seq = message.get("state") or {}, message.get("seq")
        if seq == self.seq and self.task is not None:
            return  # the same position again (a snapshot asked for): keep the clock
        self.stop()
        self.seq = seq
        if not state.get("game_over") and state.get("to_move") in self.bots:
            self.task = asyncio.ensure_future(self._watch())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    async def _watch(self) -> None:
        from asgiref.sync import sync_to_async

        delay = settings.GAME_BOT_TURN_TIMEOUT_MS / 1000
        while True:
            await asyncio.sleep(delay)
            try:
                # Unchanged for (most of) the time we waited: nothing is playing it.
                await sync_to_async(kick_if_stuck, thread_sensitive=False)(
                    self.public_id, older_than=delay * 0.8
                )
            except Exception:  # a database blip: look again later
                logger.warning("bot turn watch of %s failed", self.public_id, exc_info=True)
            delay = min(delay * 2, max(settings.SWEEP_STUCK_AFTER, delay))
