"""The question a results page asks first (tournaments.views.LookFirst): looking at an
open solo tournament's results rules someone without an entry out of entering it."""

from __future__ import annotations

from django.shortcuts import render

from .views import LookFirst


class LookFirstMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, LookFirst):
            return None
        context = {"t": exception.tournament, "next": request.get_full_path()}
        return render(request, "tournaments/look_first.html", context)
