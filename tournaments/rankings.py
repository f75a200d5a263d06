"""Rankings: standings, tournament matchpoints and travellers, recomputed from scratch.

Run by the "rankings" Celery task (tournaments.tasks.recompute_rankings) after an entry
finishes, a score is corrected, an entry is removed or the tournament closes.
Recomputing everything is idempotent; the figures come from scoring.rank (numpy, no
ORM) and only the rows whose figures changed are written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import IntegerField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
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

    The figures come from `scoring.rank` (plain arrays, no ORM); here only the columns
    it needs are read and only the rows whose figures changed are written.
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
        field = read_field(t)
        figures = field.rank()
        write_figures(field, figures)
        Entry.objects.filter(tournament=t, rank__isnull=False).exclude(
            status=Entry.Status.FINISHED
        ).update(rank=None)

        _fill_par(t, max(field.result_deal, default=0))
        # The row is locked: nobody else bumps the version meanwhile.
        version = t.rankings_version + 1
        Tournament.objects.filter(pk=t.pk).update(
            rankings_version=version, rankings_computed_at=started
        )
        transaction.on_commit(lambda: push_standings(tournament_id))
        if t.is_closed:
            from .tasks import build_records_zip

            transaction.on_commit(lambda: build_records_zip.delay(tournament_id))
    return version


# Stored figures, in the order scoring.rank gives them.
_ENTRY_FIGURES = ("rank", "matchpoints", "matchpoints_pct", "deal_matchpoints")
_RESULT_FIGURES = ("matchpoints", "neuberg")
# WIJ's card points without decoding the JSON (nor loading tricks and actions).
_WIJ_POINTS = Cast(KeyTextTransform(0, "card_points"), IntegerField())


@dataclass
class Field:
    """The finished entries of a tournament and their deal results, as columns: what
    scoring.rank needs, the row ids and the figures stored now (None = not yet)."""

    entry_pk: list[int]
    score: list[int]
    deals_played: list[int]
    entry_stored: list[list]  # one column per _ENTRY_FIGURES
    result_pk: list[int]
    result_entry: np.ndarray  # index into entry_pk
    result_deal: list[int]
    result_points: list[int]
    result_stored: list[list]  # one column per _RESULT_FIGURES

    def rank(self) -> scoring.Rankings:
        return scoring.rank(
            scores=self.score,
            deals_played=self.deals_played,
            result_entry=self.result_entry,
            result_deal=self.result_deal,
            result_points=self.result_points,
        )


def read_field(t: Tournament) -> Field:
    """Two queries, only the columns needed (no JSON decoded, no tricks or actions)."""
    finished = Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
    entries = list(
        finished.order_by("pk").values_list("pk", "score", "deals_played", *_ENTRY_FIGURES)
    )
    results = list(
        DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
        .order_by()
        .values_list("pk", "entry_id", "number", _WIJ_POINTS, *_RESULT_FIGURES)
    )
    e_pk, e_score, e_played, *e_stored = _columns(entries, 3 + len(_ENTRY_FIGURES))
    # Index of each result's entry. A result of an entry that finished after the
    # entries were read (read committed) is left for the next run.
    pks = np.array(e_pk, dtype=np.int64)
    res_entry = np.array([r[1] for r in results], dtype=np.int64)
    index = np.searchsorted(pks, res_entry)
    known = index < pks.size
    known[known] = pks[index[known]] == res_entry[known]
    if not known.all():
        results = [r for r, k in zip(results, known.tolist(), strict=True) if k]
        index = index[known]
    r_pk, _, r_deal, r_points, *r_stored = _columns(results, 4 + len(_RESULT_FIGURES))
    return Field(
        entry_pk=e_pk,
        score=[s or 0 for s in e_score],
        deals_played=e_played,
        entry_stored=e_stored,
        result_pk=r_pk,
        result_entry=index,
        result_deal=r_deal,
        result_points=r_points,
        result_stored=r_stored,
    )


def write_figures(field: Field, figures: scoring.Rankings) -> tuple[int, int]:
    """Store the figures that changed; returns (entries, results) written."""
    entry_figures = (
        np.asarray(figures.rank, dtype=np.int64),
        figures.matchpoints,
        figures.matchpoints_pct,
        figures.deal_matchpoints,
    )
    result_figures = (figures.result_matchpoints, figures.result_neuberg)
    return (
        _store(Entry, _ENTRY_FIGURES, field.entry_pk, field.entry_stored, entry_figures),
        _store(DealResult, _RESULT_FIGURES, field.result_pk, field.result_stored, result_figures),
    )


def _columns(rows: list[tuple], width: int) -> list[list]:
    """Rows of values_list as `width` columns (empty columns for no rows)."""
    return [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]


def _store(model, columns, pks, stored, figures) -> int:
    """Write the rows whose figures differ from the stored ones; returns how many.

    `stored` and `figures` are columns (in the order of `columns`), row i is pks[i]."""
    mask = np.zeros(len(pks), dtype=bool)
    for old, new in zip(stored, figures, strict=True):
        mask |= scoring.changed(old, new)
    rows = np.flatnonzero(mask)
    if not rows.size:
        return 0
    ids = np.asarray(pks, dtype=np.int64)[rows].tolist()
    values = [np.asarray(new)[rows].tolist() for new in figures]
    table = connection.ops.quote_name(model._meta.db_table)
    pk = connection.ops.quote_name(model._meta.pk.column)
    names = [connection.ops.quote_name(model._meta.get_field(c).column) for c in columns]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One statement for every row: the values travel as arrays.
            types = [model._meta.get_field(c).db_type(connection) for c in columns]
            cursor.execute(
                f"UPDATE {table} AS t SET "
                + ", ".join(f"{n} = v.c{i}" for i, n in enumerate(names))
                + " FROM unnest(%s::bigint[], "
                + ", ".join(f"%s::{ty}[]" for ty in types)
                + ") AS v(id, "
                + ", ".join(f"c{i}" for i in range(len(names)))
                + f") WHERE t.{pk} = v.id",
                [ids, *values],
            )
        else:
            sql = (
                f"UPDATE {table} SET " + ", ".join(f"{n} = %s" for n in names) + f" WHERE {pk} = %s"
            )
            cursor.executemany(sql, [(*v, i) for i, *v in zip(ids, *values, strict=True)])
    return rows.size


def _fill_par(t: Tournament, up_to: int) -> None:
    missing = TournamentDeal.objects.filter(tournament=t, number__lte=up_to, par__isnull=True)
    for deal in missing:
        deal.par = replays.par(t.seed, t.rules, deal.number, t.bot_level)
        deal.save(update_fields=["par"])


# --- what pages, exports and the live socket show -------------------------------------------


def standings(t: Tournament) -> list[dict[str, Any]]:
    # Plain values, no model instances: a day list has thousands of rows, pushed live.
    rows = (
        Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
        .order_by("rank", "pk")
        .values_list(
            "rank", "pk", "player__" + get_user_model().USERNAME_FIELD, "score", "game_score",
            "matchpoints", "matchpoints_pct", "deal_matchpoints", "deals_played", "finish_mode",
        )
    )  # fmt: skip
    corrected = set(t.audit.filter(action="correct_score").values_list("entry_id", flat=True))
    return [
        {
            "rank": rank,
            "entry": pk,
            "player": player,
            "score": score,
            "game_score": game_score,
            "corrected": pk in corrected,
            "matchpoints": mp,
            "matchpoints_pct": pct,
            "deal_matchpoints": deal_mp,
            "deals_played": played,
            "finish_mode": finish_mode,
        }
        for rank, pk, player, score, game_score, mp, pct, deal_mp, played, finish_mode in rows
    ]


def traveller(t: Tournament, number: int) -> list[dict[str, Any]]:
    # Only the columns shown: a day list's deal has thousands of rows, and tricks and
    # actions (a whole deal each) are not needed here.
    username = "entry__player__" + get_user_model().USERNAME_FIELD
    rows = (
        DealResult.objects.filter(
            entry__tournament=t, entry__status=Entry.Status.FINISHED, number=number
        )
        .order_by("entry_id")
        .values_list(
            "entry_id", username, "number", "dealer", "trump", "no_trump", "card_points",
            "multiplier", "written", "matchpoints", "neuberg",
        )
    )  # fmt: skip
    out = [
        {
            "entry": entry,
            "player": player,
            "deal": deal,
            "dealer": dealer,
            "trump": trump or ("none" if no_trump else ""),
            "card_points": card_points,
            "multiplier": multiplier,
            "written": written,
            "matchpoints": mp,
            "neuberg": nb,
        }
        for (entry, player, deal, dealer, trump, no_trump, card_points, multiplier, written,
             mp, nb) in rows
    ]  # fmt: skip
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
