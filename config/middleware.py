"""Dutch first: the language is the visitor's own choice, never the browser's guess.

Django's LocaleMiddleware also reads Accept-Language, so a browser set to English
would get English pages although nobody chose them. This middleware follows it and
activates the language chosen: by a link that carries it (?lang=), by the logged-in
account (accounts/language.py), or with the language cookie (set by /i18n/setlang/, the
switcher in the header), if it names one of LANGUAGES, else settings.LANGUAGE_CODE (nl-be).
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


# The language of a logged-in account (accounts.models.Preferences), kept in its session
# from the login on: it follows the account to every device and browser.
SESSION_LANGUAGE = "language"


def supported_language(code) -> str | None:
    """`code` as one of LANGUAGES' variants, or None."""
    if not code or not isinstance(code, str):
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


class ChosenLanguageMiddleware:
    """The language of, in order: a link that carries its reader's (``?lang=``, in a
    password reset e-mail), this device's choice (the language cookie), the logged-in
    account's (put in its session at the login, accounts/language.py: a new device
    speaks the account's language), else nl-be. One that is not the cookie's is written
    to the cookie, so that it stays on this device after a logout too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        language = (
            supported_language(request.GET.get("lang"))
            or supported_language(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
            or supported_language(session.get(SESSION_LANGUAGE) if session is not None else None)
            or chosen_language({})
        )
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        if language != chosen_language(request.COOKIES):
            if settings.LANGUAGE_COOKIE_NAME not in response.cookies:  # setlang's own wins
                response.set_cookie(
                    settings.LANGUAGE_COOKIE_NAME, language,
                    max_age=settings.LANGUAGE_COOKIE_AGE, path=settings.LANGUAGE_COOKIE_PATH,
                    domain=settings.LANGUAGE_COOKIE_DOMAIN,
                    secure=settings.LANGUAGE_COOKIE_SECURE,
                    httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                    samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                )  # fmt: skip
        return response


class ContentSecurityPolicyMiddleware:
    """A Content-Security-Policy on every response: scripts only from this site's own
    files (no inline script, no eval), so markup that slipped past escaping cannot run;
    no plugins, no framing, forms post here only, sockets to this host only.

    Styles allow inline: the bare 400/500 pages carry theirs (no static files there) and
    the admin uses style attributes; a style cannot run code. A view may set its own
    header, which is kept."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" in response:
            return response
        if settings.DEBUG and response.status_code >= 500:
            return response  # Django's technical 500 page runs inline scripts (DEBUG only)
        response["Content-Security-Policy"] = content_security_policy(request)
        return response


def content_security_policy(request) -> str:
    # 'self' covers ws(s) to this host in CSP 3; older Safari needs the host named.
    host = request.get_host() if _host_is_valid(request) else ""
    sockets = f" wss://{host} ws://{host}" if host else ""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            f"connect-src 'self'{sockets}",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def _host_is_valid(request) -> bool:
    from django.core.exceptions import DisallowedHost

    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


class RefuseNulBytesMiddleware:
    """A request whose address, query or form holds a NUL byte is refused (400): no name,
    slug or code contains one, and PostgreSQL refuses it in a text lookup, so that it
    became a 500 (and a log entry) for anyone who typed %00."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            "\x00" in request.path
            or _holds_nul(request.GET)
            or (
                request.method == "POST"
                and request.content_type
                in ("application/x-www-form-urlencoded", "multipart/form-data")
                and _holds_nul(request.POST)
            )
        ):
            from django.core.exceptions import BadRequest
            from django.views.defaults import bad_request

            # The site's own 400 page, without the traceback a raised error would log.
            return bad_request(request, BadRequest("a NUL byte in the request"))
        return self.get_response(request)


def _holds_nul(data) -> bool:
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in data.lists())
