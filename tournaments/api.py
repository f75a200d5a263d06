"""The public read API (JSON, version 1): tournaments, standings and travellers.

Every request is answered as for a visitor who is not logged in: the session and its
cookies are ignored, so the answer depends only on the URL and the data (no organizer
is ruled out by "looking", nobody sees more through the API than on the public pages).
Results (standings, travellers, the seed) are published only when a tournament is
closed: before that a tournament's own page keeps them for its finished players. A
club's tournament is published at close only if its organizer chose "everyone"
(`results_audience`); by default it stays with the club's members and its players.

The payloads reuse what the pages and the JSON exports show (tournaments/rankings.py,
tournaments/exports.py), so one change of a column shows everywhere. Documented in
docs/api.md; field names are part of the contract of /api/v1/.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve, reverse
from django.views.decorators.csrf import csrf_exempt

from . import actions, exports, rankings
from .models import DealResult, Entry, Tournament, TournamentDeal

API_VERSION = "1"
# Page sizes: (default, largest accepted). A larger `limit` is lowered to the largest.
LIST_LIMITS = (20, 100)
ROWS_LIMITS = (100, 1000)
ALLOWED_METHODS = ("GET", "HEAD")
INTEGER = re.compile(r"-?[0-9]+")  # digits only (and a sign, refused by its minimum)
MAX_OFFSET = 10**9  # past every list: a larger offset is the same empty page
PUBLIC = AnonymousUser()


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _json(request: HttpRequest, data: dict[str, Any], status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status, json_dumps_params={"ensure_ascii": False})
    # No cookie is ever read, so any site may read the answers.
    response["Access-Control-Allow-Origin"] = "*"
    response["X-API-Version"] = API_VERSION
    return response


def error_response(request: HttpRequest, status: int, code: str, message: str) -> JsonResponse:
    body = {"error": {"status": status, "code": code, "message": message}}
    response = _json(request, body, status=status)
    if status == 405:
        response["Allow"] = ", ".join(ALLOWED_METHODS)
    return response


def endpoint(view: Callable[..., dict[str, Any]]) -> Callable[..., JsonResponse]:
    """GET/HEAD only, JSON errors, no CSRF (nothing is ever changed: a POST gets 405)."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> JsonResponse:
        if request.method not in ALLOWED_METHODS:
            return error_response(
                request, 405, "method_not_allowed", "This API is read-only: use GET."
            )
        try:
            return _json(request, view(request, *args, **kwargs))
        except ApiError as exc:
            return error_response(request, exc.status, exc.code, exc.message)

    return wrapper


# --- parameters and pagination ----------------------------------------------------------


def _int_param(request: HttpRequest, name: str, default: int, minimum: int) -> int:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    if not INTEGER.fullmatch(raw):  # int() would take " 1", "+1" and "1_000" too
        raise ApiError(400, "bad_parameter", f"'{name}' must be an integer.")
    value = int(raw[:40])  # beyond that, only "very large" matters
    if value < minimum:
        raise ApiError(400, "bad_parameter", f"'{name}' must be at least {minimum}.")
    return value


def _page_bounds(request: HttpRequest, limits: tuple[int, int]) -> tuple[int, int]:
    """The page asked for; an offset past any list there can be is taken as the end
    (an empty page), never handed to the database as it is."""
    default, largest = limits
    limit = min(_int_param(request, "limit", default, 1), largest)
    offset = min(_int_param(request, "offset", 0, 0), MAX_OFFSET)
    return limit, offset


def _page_url(request: HttpRequest, limit: int, offset: int) -> str:
    params = request.GET.copy()
    params["limit"], params["offset"] = str(limit), str(offset)
    return request.build_absolute_uri(f"{request.path}?{urlencode(sorted(params.items()))}")


def _page(request: HttpRequest, count: int, limit: int, offset: int) -> dict[str, Any]:
    has_next = offset + limit < count
    previous = None
    if offset > 0:
        previous = _page_url(request, limit, max(0, min(offset, count) - limit))
    return {
        "count": count,
        "limit": limit,
        "offset": offset,
        "next": _page_url(request, limit, offset + limit) if has_next else None,
        "previous": previous,
    }


# --- what is public ---------------------------------------------------------------------


def public_tournaments() -> QuerySet[Tournament]:
    """What a visitor without an account may open (actions.can_view_tournament for an
    anonymous user): every public tournament and day list once opened, and a club's
    tournaments once closed if their results are for everyone."""
    return Tournament.objects.exclude(status=Tournament.Status.DRAFT).filter(
        Q(club__isnull=True)
        | Q(status=Tournament.Status.CLOSED, results_audience=Tournament.Audience.EVERYONE)
    )


def _visible_tournament(pk: int) -> Tournament:
    t = Tournament.objects.select_related("club").filter(pk=pk).first()
    # Drafts, running club tournaments and closed members-only ones are as absent as
    # unknown ids.
    if t is None or not actions.can_view_tournament(PUBLIC, t):
        raise ApiError(404, "not_found", f"No public tournament with id {pk}.")
    return t


def _closed_tournament(pk: int) -> Tournament:
    t = _visible_tournament(pk)
    if not (t.is_closed and actions.can_see_results(PUBLIC, t)):
        raise ApiError(
            403,
            "results_not_public",
            "Standings and travellers are published when the tournament closes "
            f"(status: {t.status}).",
        )
    return t


def _kind(t: Tournament) -> str:
    if t.is_day:
        return "day"
    return "club" if t.club_id else "public"


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def _links(request: HttpRequest, t: Tournament) -> dict[str, str | None]:
    url = request.build_absolute_uri
    closed = t.results_public
    return {
        "self": url(reverse("api:tournament", args=[t.pk])),
        "html": url(reverse("tournaments:detail", args=[t.pk])),
        "verify": url(reverse("tournaments:verify", args=[t.pk])),
        "standings": url(reverse("api:standings", args=[t.pk])) if closed else None,
        # A tournament of tables has its travellers per set (its JSON export), not here.
        "travellers": (
            url(reverse("api:travellers", args=[t.pk])) if closed and not t.has_tables else None
        ),
    }


def _tables_info(t: Tournament) -> dict[str, Any]:
    """A tournament of tables plays its structure's rules, not the solo fields': the
    rules every table plays (with its deals per set), and the structure."""
    s = t.structure
    return {
        "deals": s.deals,
        "tie_carry": s.ties_double,
        "game_rules": s.rules_spec,
        "structure": {
            "rounds": s.rounds,
            "sets": s.sets,
            "deals": s.deals,
            "duplicate": s.duplicate,
            "in_room": s.in_room,
        },
    }


def tournament_summary(request: HttpRequest, t: Tournament, entries: int) -> dict[str, Any]:
    """One tournament as the list and the detail show it. The seed is in it only once
    the tournament is closed (exports._info decides, as for the JSON exports)."""
    info = exports._info(t)
    info["structure"] = None
    if t.has_tables:
        info.update(_tables_info(t))
    info.update(
        {
            "kind": _kind(t),
            "day": _iso(t.day),
            "capacity": t.capacity,
            "entries": entries,
            "live_start": t.live_start,
            "starts_at": _iso(t.starts_at),
            "ends_at": _iso(t.ends_at),
            "opened_at": _iso(t.opened_at),
            "results_visibility": t.results_visibility,
            "results_public": t.results_public,
            "results_audience": t.results_audience,
            "links": _links(request, t),
        }
    )
    return info


def _summary(request: HttpRequest, t: Tournament) -> dict[str, Any]:
    entries = t.entries.exclude(status=Entry.Status.REMOVED).count()
    return tournament_summary(request, t, entries)


# --- endpoints ----------------------------------------------------------------------------


@endpoint
def index(request: HttpRequest) -> dict[str, Any]:
    base = request.build_absolute_uri(reverse("api:tournaments"))
    return {
        "api_version": API_VERSION,
        "documentation": "docs/api.md in the source repository",
        "endpoints": {
            "tournaments": base,
            "tournament": base + "{id}/",
            "standings": base + "{id}/standings/",
            "travellers": base + "{id}/travellers/",
            "traveller": base + "{id}/travellers/{deal}/",
        },
    }


KINDS = {
    "day": Q(day__isnull=False),
    "club": Q(day__isnull=True, club__isnull=False),
    "public": Q(day__isnull=True, club__isnull=True),
}
STATUSES = {Tournament.Status.OPEN, Tournament.Status.RUNNING, Tournament.Status.CLOSED}


@endpoint
def tournament_list(request: HttpRequest) -> dict[str, Any]:
    qs = public_tournaments()
    status = request.GET.get("status")
    if status:
        if status not in STATUSES:
            raise ApiError(400, "bad_parameter", "'status' must be open, running or closed.")
        qs = qs.filter(status=status)
    kind = request.GET.get("kind")
    if kind:
        if kind not in KINDS:
            raise ApiError(400, "bad_parameter", "'kind' must be day, club or public.")
        qs = qs.filter(KINDS[kind])
    limit, offset = _page_bounds(request, LIST_LIMITS)
    count = qs.count()
    page = list(
        qs.select_related("club", "structure").order_by("-created", "-pk")[offset : offset + limit]
    )
    # Counted for this page only: a join over every day list's entries would not scale.
    entries = dict(
        Entry.objects.filter(tournament__in=page)
        .exclude(status=Entry.Status.REMOVED)
        .values_list("tournament_id")
        .annotate(n=Count("pk"))
    )
    return {
        "api_version": API_VERSION,
        "tournaments": [tournament_summary(request, t, entries.get(t.pk, 0)) for t in page],
        "page": _page(request, count, limit, offset),
    }


@endpoint
def tournament_detail(request: HttpRequest, pk: int) -> dict[str, Any]:
    t = _visible_tournament(pk)
    data = _summary(request, t)
    if t.is_closed:
        data.update(
            {
                "finished": t.entries.filter(status=Entry.Status.FINISHED).count(),
                "deal_numbers": [] if t.has_tables else rankings.played_deal_numbers(t),
                "rankings_version": t.rankings_version,
                "rankings_computed_at": _iso(t.rankings_computed_at),
            }
        )
    return {"api_version": API_VERSION, "tournament": data}


@endpoint
def standings(request: HttpRequest, pk: int) -> dict[str, Any]:
    """The rows of rankings.standings (as on the page and in standings.json); for a
    tournament of tables, the rows of tables.standings (as its page and JSON export)."""
    t = _closed_tournament(pk)
    limit, offset = _page_bounds(request, ROWS_LIMITS)
    rows = _table_rows(t) if t.has_tables else rankings.standings(t)
    return {
        "api_version": API_VERSION,
        "tournament": _summary(request, t),
        "rankings_version": t.rankings_version,
        "standings": rows[offset : offset + limit],
        "corrections": exports.corrections(t),
        "page": _page(request, len(rows), limit, offset),
    }


def _table_rows(t: Tournament) -> list[dict[str, Any]]:
    from . import tables

    return [
        {
            "rank": r["rank"],
            "entry": r["entry"],
            "player": r["player"],
            "score": r["raw"],
            "dup_mp": r["dup_mp"] if t.structure.duplicate else None,
            "dup_diff": r["dup_diff"] if t.structure.duplicate else None,
            "sets": r["sets"],
            "out_after": r["out_after"],
            "played_before": r["before"],
            "no_show": r["no_show"],
        }
        for r in tables.standings(t)
    ]


def _solo_only(t: Tournament) -> None:
    if t.has_tables:
        raise ApiError(
            404,
            "not_found",
            f"Tournament {t.pk} is a tournament of tables: its travellers are per set, "
            "in its JSON export (docs/tournament-export.md).",
        )


@endpoint
def travellers(request: HttpRequest, pk: int) -> dict[str, Any]:
    """The index of travellers: every deal number somebody finished, with its size."""
    t = _closed_tournament(pk)
    _solo_only(t)
    played = (
        DealResult.objects.filter(entry__tournament=t, entry__status=Entry.Status.FINISHED)
        .values("number")
        .annotate(n=Count("pk"))
        .order_by("number")
    )
    url = request.build_absolute_uri
    return {
        "api_version": API_VERSION,
        "tournament": _summary(request, t),
        "deals": [
            {
                "deal": row["number"],
                "played_by": row["n"],
                "url": url(reverse("api:traveller", args=[t.pk, row["number"]])),
            }
            for row in played
        ],
    }


@endpoint
def traveller(request: HttpRequest, pk: int, number: int) -> dict[str, Any]:
    """Deal `number` (its cards, the bots' par) and the rows of rankings.traveller."""
    t = _closed_tournament(pk)
    _solo_only(t)
    deal = TournamentDeal.objects.filter(tournament=t, number=number).first()
    if deal is None:
        raise ApiError(404, "not_found", f"Tournament {pk} has no deal {number}.")
    limit, offset = _page_bounds(request, ROWS_LIMITS)
    rows = rankings.traveller(t, number)
    return {
        "api_version": API_VERSION,
        "tournament": _summary(request, t),
        "deal": {
            "number": deal.number,
            "dealer": deal.dealer,
            "hands": deal.hands,
            "turned": deal.turned or None,
            "par": deal.par,
        },
        "field": t.entries.filter(status=Entry.Status.FINISHED).count(),
        "results": rows[offset : offset + limit],
        "page": _page(request, len(rows), limit, offset),
    }


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """An unknown address under /api/: JSON, as every answer of the API. An endpoint
    written without its closing slash is sent to it (as Django's APPEND_SLASH does for
    the pages)."""
    if not request.path.endswith("/") and request.method in ALLOWED_METHODS:
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found:
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(
                request.path + "/" + (f"?{query}" if query else "")
            )
    return error_response(request, 404, "not_found", "No such API endpoint.")
