"""A club's season: its tournaments played between two dates make one standing.

A tournament belongs to the day it began (its start time, else the moment it opened):
a night that runs past midnight, or that is closed a day late, still counts in the
season of the evening it was played.

Each tournament gives each of its ranked players a score out of 100: the share of the
rest of the field they finished above (a tie with somebody counts half), so a night of
8 and a day of 80 weigh the same and every format counts alike. A player's season is
the sum over the season's tournaments (coming more often counts, as in a club's
season), then the average, then the name.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_noop as N_

from .actions import NotAllowed, TournamentError, _one_line_name
from .models import Club, Entry, Season, Tournament
from .ratings import pair_results, unscored_entries
from .scoring import half_up


def field_scores(ranks: dict[Any, int]) -> dict[Any, float]:
    """Per player, 100 x the share of the others ranked below (ties half).

    >>> field_scores({"a": 1, "b": 2, "c": 2})
    {'a': 100.0, 'b': 25.0, 'c': 25.0}
    """
    n = len(ranks)
    if n < 2:
        return {}
    above = pair_results(list(ranks.values())).sum(axis=1)
    return {player: float(100.0 * x / (n - 1)) for player, x in zip(ranks, above, strict=True)}


# The days a season may cover: a date picker's 0001-01-01 or 9999-12-31 is a slip, and
# its season could not be read (no day after 9999-12-31, no UTC for 0001-01-01 00:00).
FIRST_DAY = dt.date(2000, 1, 1)
LAST_DAY = dt.date(2100, 12, 31)


def days_of(season: Season) -> tuple[dt.date, dt.date]:
    """The season's first and last day, cut to FIRST_DAY..LAST_DAY: a season stored
    before its days were checked still reads (no tournament is played outside them;
    one wholly outside gets a first day after its last, and so no tournament)."""
    return max(season.starts_on, FIRST_DAY), min(season.ends_on, LAST_DAY)


def tournaments_of(season: Season):
    """The club's closed tournaments begun within the season's dates (the club's time
    zone being the site's), each with `played_at`, in the order they were played."""
    tz = timezone.get_current_timezone()
    first, last = days_of(season)
    start = dt.datetime.combine(first, dt.time.min, tzinfo=tz)
    end = dt.datetime.combine(last + dt.timedelta(days=1), dt.time.min, tzinfo=tz)
    return (
        Tournament.objects.filter(club=season.club, status=Tournament.Status.CLOSED)
        .annotate(played_at=Coalesce("starts_at", "opened_at", "closed_at"))
        .filter(played_at__gte=start, played_at__lt=end)
        .order_by("played_at", "pk")
    )


def standings(season: Season) -> dict[str, Any]:
    """The season's standing: rows (rank, player, events, total, average, best) and the
    tournaments it counts."""
    tournaments = list(tournaments_of(season))
    ranked = (
        Entry.objects.filter(tournament__in=tournaments, rank__isnull=False)
        .exclude(status=Entry.Status.REMOVED)
        .values_list("tournament_id", "pk", "player_id", "player__username", "rank")
    )
    unscored = unscored_entries(tournaments)  # in the field, but nobody's score
    per_tournament: dict[int, dict[int, int]] = defaultdict(dict)
    player_of: dict[int, int] = {}
    names: dict[int, str] = {}
    for tournament_id, entry, player, name, rank in ranked:
        per_tournament[tournament_id][entry] = rank
        player_of[entry] = player
        names[player] = name
    scores: dict[int, list[float]] = defaultdict(list)
    for ranks in per_tournament.values():
        for entry, score in field_scores(ranks).items():
            if entry not in unscored:
                scores[player_of[entry]].append(score)
    rows = [
        {
            "player": names[p],
            "events": len(s),
            # Halves up, as every page and export rounds (81.25 → 81.3).
            "total": half_up(sum(s)),
            "average": half_up(sum(s) / len(s)),
            "best": half_up(max(s)),
        }
        for p, s in scores.items()
    ]
    rows.sort(key=lambda r: (-r["total"], -r["average"], r["player"]))
    for i, row in enumerate(rows):
        key = (row["total"], row["average"])
        same = i > 0 and key == (rows[i - 1]["total"], rows[i - 1]["average"])
        row["rank"] = rows[i - 1]["rank"] if same else i + 1
    return {"rows": rows, "tournaments": tournaments}


ORGANIZERS_ONLY = N_("only the club's organizers can make its seasons")


def create_season(actor, club: Club, name: str, starts_on, ends_on) -> Season:
    """A new season of `club` (its organizers only)."""
    if not club.is_organizer(actor):
        raise NotAllowed(ORGANIZERS_ONLY)
    name = (name or "").strip()
    if not name:
        raise TournamentError(N_("a season needs a name"), field="name")
    _one_line_name(name)
    if starts_on is None or ends_on is None:
        raise TournamentError(N_("a season needs a first and a last day"), field="starts_on")
    for field, day in (("starts_on", starts_on), ("ends_on", ends_on)):
        if not FIRST_DAY <= day <= LAST_DAY:
            raise TournamentError(
                N_("a season's days lie between %(first)s and %(last)s"),
                params={"first": FIRST_DAY.isoformat(), "last": LAST_DAY.isoformat()},
                field=field,
            )
    if ends_on < starts_on:
        raise TournamentError(N_("a season ends on or after the day it starts"), field="ends_on")
    # Two seasons of one name would read alike in the club's list and the page titles.
    if Season.objects.filter(club=club, name__iexact=name).exists():
        raise TournamentError(
            N_("the club already has a season called %(name)s: choose another name"),
            {"name": name},
            field="name",
        )
    return Season.objects.create(club=club, name=name, starts_on=starts_on, ends_on=ends_on)


def delete_season(actor, season: Season) -> None:
    """A season is only a view of the club's tournaments: deleting it loses nothing (and
    reads nothing, so that any season stored can go)."""
    if not season.club.is_organizer(actor):
        raise NotAllowed(ORGANIZERS_ONLY)
    season.delete()
