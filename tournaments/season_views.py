"""A club's seasons: the standing over its tournaments between two dates (for the
club's members), made and removed by its organizers. Reads and writes: seasons.py."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.views.decorators.http import require_POST

from . import exports, seasons
from .actions import TournamentError
from .forms import SeasonForm
from .models import Club, Season
from .views import _download


def _member_club(request: HttpRequest, slug: str) -> Club:
    club = get_object_or_404(Club, slug=slug)
    if not club.is_member(request.user):
        raise Http404("no such club")
    return club


def season_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _member_club(request, slug)
    season = get_object_or_404(Season, club=club, pk=pk)
    data = seasons.standings(season)
    context = {
        "club": club,
        "season": season,
        "rows": data["rows"],
        "tournaments": data["tournaments"],
        "is_organizer": club.is_organizer(request.user),
    }
    return render(request, "tournaments/season.html", context)


def season_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The season's standing as CSV (the spreadsheet style of the reader's language, or
    ?sep=comma|semicolon), for the club's members like the page."""
    club = _member_club(request, slug)
    season = get_object_or_404(Season, club=club, pk=pk)
    style = exports.csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
    body = exports.season_csv(season, style)
    return _download(body, "text/csv; charset=utf-8", f"{club.slug}-season-{season.pk}.csv")


@login_required
@require_POST
def season_create(request: HttpRequest, slug: str) -> HttpResponse:
    club = _member_club(request, slug)
    form = SeasonForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            season = seasons.create_season(
                request.user, club, data["name"], data["starts_on"], data["ends_on"]
            )
        except TournamentError as exc:
            messages.error(request, capfirst(exc.translated()))
        else:
            return redirect("clubs:season", slug=club.slug, pk=season.pk)
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    return redirect("clubs:detail", slug=club.slug)


@login_required
@require_POST
def season_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _member_club(request, slug)
    season = get_object_or_404(Season, club=club, pk=pk)
    try:
        seasons.delete_season(request.user, season)
    except TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    return redirect("clubs:detail", slug=club.slug)
