"""The page a refused form (a CSRF failure) shows: the site's own, in the visitor's
language, saying what to do (Django's default is a bare page outside the layout).

Two causes, two pages:
- the token: mostly a form sent from a page left open too long (or from before a log-in
  or log-out in another tab); reloading the page and sending again works;
- the Origin (or, over https without Origin, the Referer) is not one this site trusts:
  reloading never helps. With a browser at the site's own address that is the server's
  setting (CSRF_TRUSTED_ORIGINS, or the proxy's Host/X-Forwarded-Proto), so the page
  says so instead of "reload and send again" forever. Django logs the reason
  (django.security.csrf) with the origin it refused.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

# Django's reasons (django.middleware.csrf.REASON_BAD_ORIGIN, REASON_BAD_REFERER).
_ORIGIN_REASONS = ("Origin checking failed", "Referer checking failed")


def is_origin_failure(reason: str) -> bool:
    """The Origin or Referer does not match the site (not a missing or stale token).
    A missing Referer ("no Referer.") is the browser's privacy setting: not this."""
    return reason.startswith(_ORIGIN_REASONS) and "does not match" in reason


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if is_origin_failure(reason):  # no page to go back to: sending again will not help
        return render(request, "403_csrf.html", {"origin": True}, status=403)
    back = request.META.get("HTTP_REFERER", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = ""  # no page of ours to go back to
    return render(request, "403_csrf.html", {"reason": reason, "back": back}, status=403)
