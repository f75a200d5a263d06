"""Rankings: standings, tournament matchpoints and travellers, recomputed from scratch.

Run by the "rankings" Celery task (tournaments.tasks.recompute_rankings) after an entry
finishes, a score is corrected, an entry is removed or the tournament closes.
Recomputing everything is idempotent; the figures come from scoring.rank (numpy, no
ORM) and only the entries whose figures changed are written. Per-deal matchpoints and
Neuberg values are not stored (one finished entry changes nearly all of them: on a day
list, 358,000 of 360,000): `traveller` computes them from the deal's results when read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

import numpy as np
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, IntegerField, Subquery
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
    it needs are read and only the entries whose figures changed are written.
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
        if t.has_tables:
            # Rounds and tables have their own standing (tables.standings): the same one
            # a finished set writes, not the solo field's (an account deleted lands here).
            from . import tables
            from .actions import write_standings

            rows = write_standings(t)
            transaction.on_commit(lambda: tables.push_standings(tournament_id, rows))
            return t.rankings_version
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
            from . import ratings
            from .tasks import build_records_zip

            transaction.on_commit(lambda: build_records_zip.delay(tournament_id))
            transaction.on_commit(lambda: ratings.revise(tournament_id))  # a correction
    return version


# Stored figures, in the order scoring.rank gives them.
_ENTRY_FIGURES = (
    "rank", "matchpoints", "matchpoints_pct", "deal_matchpoints", "deal_matchpoints_pct",
)  # fmt: skip


def _int_at(field: str, i: int) -> Cast:
    """Element i of a JSON list of integers, as an integer column (no JSON decoded)."""
    return Cast(KeyTextTransform(i, field), IntegerField())


# WIJ's card points without decoding the JSON.
_WIJ_POINTS = _int_at("card_points", 0)


@dataclass
class Field:
    """The finished entries of a tournament and their deal results, as columns: what
    scoring.rank needs, the entries' ids and their figures stored now (None = not yet)."""

    entry_pk: list[int]
    score: list[int]
    deals_played: list[int]
    entry_stored: list[list]  # one column per _ENTRY_FIGURES
    result_entry: np.ndarray  # index into entry_pk
    result_deal: np.ndarray
    result_points: np.ndarray
    by: str = scoring.BY_SCORE  # Tournament.ranking

    def rank(self) -> scoring.Rankings:
        return scoring.rank(
            scores=self.score,
            deals_played=self.deals_played,
            result_entry=self.result_entry,
            result_deal=self.result_deal,
            result_points=self.result_points,
            by=self.by,
        )


def read_field(t: Tournament) -> Field:
    """Two queries, only the columns needed (no JSON decoded, no tricks or actions)."""
    finished = Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
    entries = list(
        finished.order_by("pk").values_list("pk", "score", "deals_played", *_ENTRY_FIGURES)
    )
    res_entry, r_deal, r_points = _result_columns(
        DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
    )
    e_pk, e_score, e_played, *e_stored = _columns(entries, 3 + len(_ENTRY_FIGURES))
    # Index of each result's entry. A result of an entry that finished after the
    # entries were read (read committed) is left for the next run.
    pks = np.array(e_pk, dtype=np.int64)
    index = np.searchsorted(pks, res_entry)
    known = index < pks.size
    known[known] = pks[index[known]] == res_entry[known]
    if not known.all():
        index, r_deal, r_points = index[known], r_deal[known], r_points[known]
    return Field(
        entry_pk=e_pk,
        score=[s or 0 for s in e_score],
        deals_played=e_played,
        entry_stored=e_stored,
        result_entry=index,
        result_deal=r_deal,
        result_points=r_points,
        by=t.ranking,
    )


def _result_columns(results) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(entry id, deal number, WIJ card points) of these deal results, as int64 arrays.

    On PostgreSQL one row of three arrays (array_agg over the same query): a day list
    has 360,000 results, and one row per result costs ~1 s of Python to fetch."""
    qs = results.order_by().annotate(wij=_WIJ_POINTS).values_list("entry_id", "number", "wij")
    if connection.vendor == "postgresql":
        sql, params = qs.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT array_agg(r.entry_id), array_agg(r.number), array_agg(r.wij) "
                f"FROM ({sql}) AS r",
                params,
            )
            columns = cursor.fetchone()
        return tuple(np.array(c or [], dtype=np.int64) for c in columns)
    rows = list(qs)
    return tuple(np.array(c, dtype=np.int64) for c in _columns(rows, 3))


def write_figures(field: Field, figures: scoring.Rankings) -> int:
    """Store the entries' figures that changed; returns how many entries were written."""
    entry_figures = (
        np.asarray(figures.rank, dtype=np.int64),
        figures.matchpoints,
        figures.matchpoints_pct,
        figures.deal_matchpoints,
        figures.deal_matchpoints_pct,
    )
    return _store(Entry, _ENTRY_FIGURES, field.entry_pk, field.entry_stored, entry_figures)


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
    # NaN (a figure that has no value, e.g. a percentage over no deal) is stored as NULL.
    values = [[None if v != v else v for v in np.asarray(new)[rows].tolist()] for new in figures]
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


def per_deal(total: float | None, deals: int) -> float | None:
    """A total over the deals an entry played, per deal (2 decimals; None without deals)."""
    if total is None or not deals:
        return None
    return round(total / deals, 2)


def standings(t: Tournament) -> list[dict[str, Any]]:
    """The finished entries' rows, best first. Totals and per-deal figures are named as
    such: `score` and `deal_matchpoints` are totals over the entry's game,
    `score_per_deal` and `deal_matchpoints_pct` hold per deal what the names say."""
    # Plain values, no model instances: a day list has thousands of rows, pushed live.
    rows = (
        Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
        .order_by("rank", "pk")
        .values_list(
            "rank", "pk", "player__" + get_user_model().USERNAME_FIELD, "score", "game_score",
            "matchpoints", "matchpoints_pct", "deal_matchpoints", "deal_matchpoints_pct",
            "deals_played", "finish_mode",
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
            "deal_matchpoints_pct": deal_pct,
            "deals_played": played,
            "score_per_deal": per_deal(score, played),
            "finish_mode": finish_mode,
        }
        for rank, pk, player, score, game_score, mp, pct, deal_mp, deal_pct, played, finish_mode
        in rows
    ]  # fmt: skip


def pending(rows: list[dict[str, Any]]) -> bool:
    """Whether standings rows wait for the rankings task: an entry finished (or finished
    by the bot at the close) since its last run has no place yet, and the others' figures
    are still those of the smaller field. The pages say so rather than show them as
    final."""
    return any(r["rank"] is None for r in rows)


def traveller(t: Tournament, number: int) -> list[dict[str, Any]]:
    """Every finished entry's result on deal `number`, best first, with its matchpoints
    and Neuberg value (computed here, as the rankings task does: scoring.deal_figures)."""
    return travellers(t, number).get(number, [])


def travellers(t: Tournament, number: int | None = None) -> dict[int, list[dict[str, Any]]]:
    """The travellers of every deal somebody finished (or of deal `number` only), by deal
    number: one query for all of them (an export of 32 deals made 32)."""
    # Only the columns shown: a day list's deal has thousands of rows.
    username = "entry__player__" + get_user_model().USERNAME_FIELD
    finished = Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
    # The field size E in the same statement as the rows, so the two agree.
    field = finished.order_by().values("tournament").annotate(n=Count("pk")).values("n")
    results = DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
    if number is not None:
        results = results.filter(number=number)
    rows = list(
        results.order_by("number", "entry_id")
        .annotate(
            field=Subquery(field),
            # [wij, zij] lists as integers: decoding 2 JSON values per row in Python was
            # most of a day-list traveller's time.
            cp0=_int_at("card_points", 0), cp1=_int_at("card_points", 1),
            w0=_int_at("written", 0), w1=_int_at("written", 1),
        )
        .values_list(
            "number", "entry_id", username, "dealer", "trump", "no_trump", "cp0", "cp1",
            "multiplier", "w0", "w1", "field",
        )
    )  # fmt: skip
    # Rows come grouped by deal number.
    return {k: _traveller_rows(list(deal)) for k, deal in groupby(rows, key=itemgetter(0))}


def _traveller_rows(rows: list[tuple]) -> list[dict[str, Any]]:
    """One deal's rows (as `travellers` reads them) with their figures, best first."""
    mps, nbs = scoring.deal_figures([r[6] for r in rows], entries=rows[0][-1])
    out = [
        {
            "entry": entry,
            "player": player,
            "deal": number,
            "dealer": dealer,
            "trump": trump or ("none" if no_trump else ""),
            "card_points": [cp0, cp1],
            "multiplier": multiplier,
            "written": [w0, w1],
            "matchpoints": mp,
            "neuberg": nb,
        }
        for (number, entry, player, dealer, trump, no_trump, cp0, cp1, multiplier, w0, w1, _),
        mp, nb in zip(rows, mps.tolist(), nbs.tolist(), strict=True)
    ]  # fmt: skip
    out.sort(key=lambda row: (-row["neuberg"], row["player"]))
    return out


def field_points(t: Tournament) -> tuple[int, dict[int, np.ndarray]]:
    """The field size E and, per deal number, WIJ's card points of every finished
    entry's result (what the compare page sets a result beside; narrow columns only)."""
    field = Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED).count()
    _, numbers, points = _result_columns(
        DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
    )
    order = np.argsort(numbers, kind="stable")
    numbers, points = numbers[order], points[order]
    starts = np.flatnonzero(np.diff(numbers, prepend=-1))
    return field, {
        int(numbers[a]): points[a:b]
        for a, b in zip(starts.tolist(), [*starts[1:].tolist(), numbers.size], strict=True)
    }


def neuberg_of(points: np.ndarray, mine: int, field: int) -> float | None:
    """The Neuberg value of a result of `mine` WIJ points among a deal's `points` (which
    include it), as `traveller` and the rankings task compute it."""
    at = np.flatnonzero(np.asarray(points) == mine)
    if not at.size:
        return None
    return float(scoring.deal_figures(points, field)[1][at[0]])


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
