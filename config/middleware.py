"""Dutch first: the language is the visitor's own choice, never the browser's guess.

Django's LocaleMiddleware also reads Accept-Language, so a browser set to English
would get English pages although nobody chose them. This middleware follows it and
activates the language of the language cookie (set by /i18n/setlang/, the switcher in
the header) if it names one of LANGUAGES, else settings.LANGUAGE_CODE (nl-be).
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation


def chosen_language(cookies) -> str:
    """The supported language of the language cookie, else LANGUAGE_CODE's variant."""
    for candidate in (cookies.get(settings.LANGUAGE_COOKIE_NAME), settings.LANGUAGE_CODE):
        if candidate:
            try:
                return translation.get_supported_language_variant(candidate)
            except LookupError:
                continue
    return settings.LANGUAGE_CODE


class ChosenLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = chosen_language(request.COOKIES)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
