"""The ratings page: every player who ranked in a closed tournament, best first."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from . import ratings
from .models import Rating

PAGE = 50


def ratings_list(request: HttpRequest) -> HttpResponse:
    rows = (
        Rating.objects.filter(events__gt=0, player__is_active=True)
        .select_related("player")
        .order_by("-value", "player__username")
    )
    page = Paginator(rows, PAGE).get_page(request.GET.get("page"))
    page.first_rank = (page.number - 1) * PAGE + 1
    mine = None
    if request.user.is_authenticated:
        mine = Rating.objects.filter(player=request.user, events__gt=0).first()
    context = {"page": page, "mine": mine, "start": ratings.START, "k": ratings.K}
    return render(request, "tournaments/ratings.html", context)
