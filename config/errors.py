"""The page a refused form (a CSRF failure) shows: the site's own, in the visitor's
language, saying what to do (Django's default is a bare page outside the layout)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Mostly a form sent from a page left open too long (or from before a log-in or
    log-out in another tab): reloading the page and sending again works."""
    back = request.META.get("HTTP_REFERER", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = ""  # no page of ours to go back to
    return render(request, "403_csrf.html", {"reason": reason, "back": back}, status=403)
