"""/healthz and the rate-limited login view."""

from __future__ import annotations

from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from . import health, ratelimit


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    ok, body = health.report()
    return JsonResponse(body, status=200 if ok else 503)


class RateLimitedLoginView(LoginView):
    """Django's LoginView, refusing (429) an (address, username) after LOGIN_RATE_LIMIT
    failed attempts within LOGIN_RATE_WINDOW seconds, and an address after
    LOGIN_RATE_LIMIT_ADDRESS (ops/ratelimit.py); the message says how long to wait."""

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")[:150]
        wait = ratelimit.login_blocked(request, username)
        if wait:
            # An unbound form: no password is checked (nor hashed) while blocked.
            form = self.get_form_class()(request)
            form.cleaned_data = {}
            form.add_error(None, ratelimit.wait_message(wait))
            response = self.render_to_response(self.get_context_data(form=form))
            response.status_code = 429
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        ratelimit.login_failed(self.request, self.request.POST.get("username", "")[:150])
        return super().form_invalid(form)

    def form_valid(self, form):
        ratelimit.login_succeeded(self.request, form.get_user().get_username())
        return super().form_valid(form)


def admin_login(request: HttpRequest):
    """The admin's login page (`admin.site.login`) under the same failed-attempt limit as
    the site's login: the admin is the more valuable target, not an unguarded side door."""
    from django.contrib import admin
    from django.contrib.admin.forms import AdminAuthenticationForm
    from django.template.response import TemplateResponse

    if request.method != "POST":
        return admin.site.login(request)
    username = request.POST.get("username", "")[:150]
    wait = ratelimit.login_blocked(request, username)
    if wait:
        form = AdminAuthenticationForm(request)
        form.cleaned_data = {}
        form.add_error(None, ratelimit.wait_message(wait))
        context = {
            **admin.site.each_context(request),
            "title": _("Log in"),
            "subtitle": None,
            "app_path": request.get_full_path(),
            "username": username,
            "form": form,
        }
        return TemplateResponse(request, "admin/login.html", context, status=429)
    response = admin.site.login(request)
    if request.user.is_authenticated and request.user.is_staff:
        ratelimit.login_succeeded(request, request.user.get_username())
    elif response.status_code == 200:  # the form again: a failed attempt
        ratelimit.login_failed(request, username)
    return response


# The site's icon (a spade), the one base.html gives inline: what browsers ask for at
# /favicon.ico on pages that name none (the admin's, a PDF opened in the browser).
FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<text y="14" font-size="15">\u2660</text></svg>'
)


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(FAVICON_SVG, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
