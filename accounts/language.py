"""An account's language follows it: chosen while logged in (or on the device before a
login), it is stored with the account (accounts.models.Preferences) and put in the
session at every login, so that a device where nobody chose a language speaks it
(config/middleware.py reads it there when there is no language cookie, and then writes
the cookie)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_protect
from django.views.i18n import set_language as django_set_language

from config.middleware import SESSION_LANGUAGE, supported_language

from .models import Preferences


def remember(user, language: str) -> None:
    Preferences.objects.update_or_create(user=user, defaults={"language": language})


@csrf_protect
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's /i18n/setlang/ (the header's language menu), which also stores the choice
    with a logged-in account and its session."""
    response = django_set_language(request)
    language = supported_language(request.POST.get("language"))
    if request.method == "POST" and language and request.user.is_authenticated:
        remember(request.user, language)
        request.session[SESSION_LANGUAGE] = language
    return response


@receiver(user_logged_in, dispatch_uid="accounts.language.on_login")
def on_login(sender, request, user, **kwargs) -> None:
    """At a login the account's language comes along to a device where nobody chose one;
    on a device where a language was chosen (the cookie), that choice, the newest, is
    the account's from now on."""
    if request is None or not hasattr(request, "session"):
        return
    chosen = supported_language(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
    stored = Preferences.objects.filter(user=user).values_list("language", flat=True).first()
    if chosen is not None and chosen != stored:
        remember(user, chosen)
    language = chosen or supported_language(stored)
    if language is not None:
        request.session[SESSION_LANGUAGE] = language
