"""Rankings: standings, tournament matchpoints and travellers, recomputed from scratch.

Run by the "rankings" Celery task (tournaments.tasks.recompute_rankings) after an entry
finishes, a score is corrected, an entry is removed or the tournament closes.
Recomputing everything is idempotent and cheap (a tournament has tens of entries).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from . import replays, scoring
from .models import DealResult, Entry, Tournament, TournamentDeal

# Requests are stamped by one process and runs by another: allow for clock skew.
CLOCK_MARGIN = 2.0


def recompute(tournament_id: int, requested_at: float | None = None) -> int | None:
    """Recompute and store every ranking figure; returns the new rankings_version.

    `requested_at` (epoch seconds, taken after the triggering commit): if a run that
    started later already finished, it saw that commit, so this one is skipped
    (returns None). A burst of finishes on a big day list then costs a few runs.
    """
    with transaction.atomic():
        try:
            t = Tournament.objects.select_for_update().get(pk=tournament_id)
        except Tournament.DoesNotExist:
            return None
        if (
            requested_at is not None
            and t.rankings_computed_at is not None
            and t.rankings_computed_at.timestamp() >= requested_at + CLOCK_MARGIN
        ):
            return None
        # Taken under the lock, before reading: every commit before it is included.
        started = timezone.now()
        entries = list(
            Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED).order_by("pk")
        )
        field = len(entries)
        scores = [e.score or 0 for e in entries]
        mp = scoring.matchpoints(scores)
        pct = scoring.percentage(mp, field)

        by_deal: dict[int, list[DealResult]] = defaultdict(list)
        results = DealResult.objects.filter(entry__in=entries).order_by("number", "entry_id")
        for r in results:
            by_deal[r.number].append(r)
        deal_total: dict[int, float] = defaultdict(float)
        changed: list[DealResult] = []
        for rows in by_deal.values():
            deal_mp = scoring.matchpoints([r.card_points[0] for r in rows])
            scaled = scoring.neuberg(deal_mp, field)
            for r, m, s in zip(rows, deal_mp.tolist(), scaled.tolist(), strict=True):
                deal_total[r.entry_id] += s
                if (r.matchpoints, r.neuberg) != (m, round(s, 4)):
                    r.matchpoints, r.neuberg = m, round(s, 4)
                    changed.append(r)
        DealResult.objects.bulk_update(changed, ["matchpoints", "neuberg"])

        totals = [round(deal_total[e.pk], 4) for e in entries]
        _, ranks = scoring.standings_order(scores, totals, [e.deals_played for e in entries])
        for i, e in enumerate(entries):
            e.rank = ranks[i]
            e.matchpoints = float(mp[i])
            e.matchpoints_pct = round(float(pct[i]), 2)
            e.deal_matchpoints = totals[i]
        Entry.objects.bulk_update(
            entries, ["rank", "matchpoints", "matchpoints_pct", "deal_matchpoints"]
        )
        Entry.objects.filter(tournament=t).exclude(status=Entry.Status.FINISHED).update(rank=None)

        _fill_par(t, max(by_deal, default=0))
        Tournament.objects.filter(pk=t.pk).update(
            rankings_version=F("rankings_version") + 1, rankings_computed_at=started
        )
        t.refresh_from_db(fields=["rankings_version"])
        version = t.rankings_version
        transaction.on_commit(lambda: push_standings(tournament_id))
        if t.is_closed:
            from .tasks import build_records_zip

            transaction.on_commit(lambda: build_records_zip.delay(tournament_id))
    return version


def _fill_par(t: Tournament, up_to: int) -> None:
    missing = TournamentDeal.objects.filter(tournament=t, number__lte=up_to, par__isnull=True)
    for deal in missing:
        deal.par = replays.par(t.seed, t.rules, deal.number, t.bot_level)
        deal.save(update_fields=["par"])


# --- what pages, exports and the live socket show -------------------------------------------


def standings(t: Tournament) -> list[dict[str, Any]]:
    rows = (
        Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
        .select_related("player")
        .order_by("rank", "pk")
    )
    corrected = set(t.audit.filter(action="correct_score").values_list("entry_id", flat=True))
    return [
        {
            "rank": e.rank,
            "entry": e.pk,
            "player": e.player.get_username(),
            "score": e.score,
            "game_score": e.game_score,
            "corrected": e.pk in corrected,
            "matchpoints": e.matchpoints,
            "matchpoints_pct": e.matchpoints_pct,
            "deal_matchpoints": e.deal_matchpoints,
            "deals_played": e.deals_played,
            "finish_mode": e.finish_mode,
        }
        for e in rows
    ]


def traveller(t: Tournament, number: int) -> list[dict[str, Any]]:
    rows = (
        DealResult.objects.filter(
            entry__tournament=t, entry__status=Entry.Status.FINISHED, number=number
        )
        .select_related("entry__player")
        .order_by("entry_id")
    )
    out = [
        {
            "entry": r.entry_id,
            "player": r.entry.player.get_username(),
            "deal": r.number,
            "dealer": r.dealer,
            "trump": r.trump or ("none" if r.no_trump else ""),
            "card_points": r.card_points,
            "multiplier": r.multiplier,
            "written": r.written,
            "matchpoints": r.matchpoints,
            "neuberg": r.neuberg,
        }
        for r in rows
    ]
    out.sort(key=lambda row: (-(row["neuberg"] or 0), row["player"]))
    return out


def played_deal_numbers(t: Tournament) -> list[int]:
    return list(
        DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
        .values_list("number", flat=True)
        .distinct()
        .order_by("number")
    )


def push_standings(tournament_id: int) -> None:
    """Live update to the standings socket group (only viewers allowed to see join it)."""
    layer = get_channel_layer()
    if layer is None:
        return
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    message = {
        "type": "standings",
        "version": t.rankings_version,
        "status": t.status,
        "rows": standings(t),
    }
    async_to_sync(layer.group_send)(t.group_name, {"type": "standings.update", "payload": message})
