"""The ratings page: every player who ranked in a closed tournament, best first; with
?club=SLUG (for the club's members) only the club's members and organizers; with
?format=csv the same list as a CSV file."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from . import ratings
from .exports import _csv as csv_file
from .exports import csv_style
from .models import Club, Rating

PAGE = 50


def ratings_list(request: HttpRequest) -> HttpResponse:
    rows = Rating.objects.filter(events__gt=0, player__is_active=True)
    club = None
    slug = request.GET.get("club")
    if slug:
        club = Club.objects.filter(slug=slug).first()
        if club is None or not club.is_member(request.user):
            raise Http404("no such club")
        rows = rows.filter(Q(player__clubs=club) | Q(player__organized_clubs=club)).distinct()
    rows = rows.select_related("player").order_by("-value", "player__username")
    if request.GET.get("format") == "csv":
        return _csv(request, rows, club)
    page = Paginator(rows, PAGE).get_page(request.GET.get("page"))
    page.first_rank = (page.number - 1) * PAGE + 1
    mine = None
    if request.user.is_authenticated:
        mine = Rating.objects.filter(player=request.user, events__gt=0).first()
    context = {
        "page": page, "mine": mine, "start": ratings.START, "k": ratings.K, "club": club,
        "page_query": f"club={club.slug}&" if club else "",
    }  # fmt: skip
    return render(request, "tournaments/ratings.html", context)


def _csv(request: HttpRequest, rows, club) -> HttpResponse:
    """The whole list (or the club's) as CSV in the reader's spreadsheet style."""
    style = csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
    table = [["rank", "player", "rating", "tournaments"]]
    for rank, r in enumerate(rows.iterator(), start=1):
        table.append([rank, r.player.get_username(), round(r.value, 1), r.events])
    name = f"ratings-{club.slug}.csv" if club else "ratings.csv"
    response = HttpResponse(csv_file(table, style), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
