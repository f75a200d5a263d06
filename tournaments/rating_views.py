"""The ratings page: every player who ranked in a closed tournament, best first; with
?club=SLUG (for the club's members) only the club's members and organizers; with
?format=csv the same list as a CSV file."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from . import actions, ratings
from .exports import csv_style, ratings_csv
from .models import Club, Rating
from .views import _download

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
    # A rating that counts a tournament whose results the viewer may not see (a club's
    # members-only night) would tell its results: not listed (their own is).
    hidden = actions.ratings_hidden_from(request.user)
    own = Q(player=request.user) if request.user.is_authenticated else Q(pk__in=[])
    some_hidden = rows.filter(player__in=hidden).exclude(own).exists()
    rows = rows.exclude(Q(player__in=hidden) & ~own)
    rows = rows.select_related("player").order_by("-value", "player__username")
    if request.GET.get("format") == "csv":
        style = csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
        name = f"ratings-{club.slug}.csv" if club else "ratings.csv"
        return _download(ratings_csv(rows.iterator(), style), "text/csv; charset=utf-8", name)
    page = Paginator(rows, PAGE).get_page(request.GET.get("page"))
    # Each row's place: an equal rating shares the place of the first with it (also
    # across a page's start), as in the CSV.
    page.object_list = shown = list(page.object_list)
    if shown:
        first = rows.filter(value__gt=shown[0].value).count() + 1
        for rank, r in ratings.with_places(shown, page.start_index(), first):
            r.rank = rank
    mine = None
    if request.user.is_authenticated:
        mine = Rating.objects.filter(player=request.user, events__gt=0).first()
    context = {
        "page": page, "mine": mine, "start": ratings.START, "k": ratings.K, "club": club,
        "page_query": f"club={club.slug}&" if club else "",
        "some_hidden": some_hidden,
    }  # fmt: skip
    return render(request, "tournaments/ratings.html", context)
