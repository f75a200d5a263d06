"""A club's seasons: the standing over its tournaments between two dates (for the
club's members), made and removed by its organizers. Reads and writes: seasons.py.

The club page's "New season" form posts to `season_create`; a refused one comes back on
the season form's own page (GET of the same address), open, with the values entered and
each remark at its field: the post keeps them in the session for that one page.
"""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from . import exports, seasons
from .actions import TournamentError
from .forms import SeasonForm
from .models import Club, Season
from .views import _download

logger = logging.getLogger(__name__)

# The session key of a refused season form: its club, what was entered, the remarks of
# seasons.create_season that the form itself does not make.
DRAFT_KEY = "season_draft"
DRAFT_FIELDS = ("name", "starts_on", "ends_on")


def _member_club(request: HttpRequest, slug: str) -> Club:
    club = get_object_or_404(Club, slug=slug)
    if not club.is_member(request.user):
        raise Http404("no such club")
    return club


def season_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _member_club(request, slug)
    season = get_object_or_404(Season, club=club, pk=pk)
    try:
        data = seasons.standings(season)
    except OverflowError:  # days no date arithmetic reaches: the page still offers removal
        logger.exception("season %s cannot be read", season.pk)
        data, unreadable = {"rows": [], "tournaments": []}, True
    else:
        unreadable = False
    context = {
        "club": club,
        "season": season,
        "rows": data["rows"],
        "tournaments": data["tournaments"],
        "unreadable": unreadable,
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
@require_http_methods(["GET", "POST"])
def season_create(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: make the season (then its page). Refused: back to this address's GET, the
    season form with what was entered and the remarks at the fields."""
    club = _member_club(request, slug)
    if not club.is_organizer(request.user):
        messages.error(request, capfirst(_(seasons.ORGANIZERS_ONLY)))
        return redirect("clubs:detail", slug=club.slug)
    if request.method == "GET":
        return _season_form_page(request, club)
    form = SeasonForm(request.POST)
    remarks: list[tuple[str | None, str]] = []
    if form.is_valid():
        data = form.cleaned_data
        try:
            season = seasons.create_season(
                request.user, club, data["name"], data["starts_on"], data["ends_on"]
            )
        except TournamentError as exc:
            field = exc.field if exc.field in form.fields else None
            remarks.append((field, capfirst(exc.translated())))
        else:
            return redirect("clubs:season", slug=club.slug, pk=season.pk)
    request.session[DRAFT_KEY] = {
        "club": club.pk,
        # What was typed, as typed (kept short: it only goes back into the form).
        "data": {name: str(request.POST.get(name, ""))[:200] for name in DRAFT_FIELDS},
        "remarks": remarks,
    }
    return redirect("clubs:season-create", slug=club.slug)


def _season_form_page(request: HttpRequest, club: Club) -> HttpResponse:
    """The season form on its own page: empty, or the refused one kept in the session
    (once: a reload afterwards shows it empty)."""
    draft = request.session.pop(DRAFT_KEY, None)
    if isinstance(draft, dict) and draft.get("club") == club.pk:
        form = SeasonForm(draft.get("data") or {})
        form.is_valid()  # the remarks at their fields, in the reader's language
        for field, text in draft.get("remarks") or ():
            form.add_error(field if field in form.fields else None, text)
    else:
        form = SeasonForm()
    return render(request, "tournaments/club_season_new.html", {"club": club, "form": form})


@login_required
@require_POST
def season_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _member_club(request, slug)
    season = get_object_or_404(Season, club=club, pk=pk)
    name = season.name
    try:
        seasons.delete_season(request.user, season)
    except TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    else:
        messages.success(request, _("Season “%(name)s” removed.") % {"name": name})
    return redirect("clubs:detail", slug=club.slug)
