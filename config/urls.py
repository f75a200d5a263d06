from django.contrib import admin
from django.urls import include, path, re_path

from accounts.language import set_language
from ops.views import admin_login
from tournaments import api

urlpatterns = [
    # Before admin.site.urls: the admin's login under the site's failed-login limit.
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("", include("ops.urls")),  # /healthz, rate-limited login (before auth.urls)
    path("", include("accounts.urls")),  # /accounts/signup/ (and guests claiming an account)
    path("accounts/", include("django.contrib.auth.urls")),
    # The language menu: Django's, which also stores the choice with a logged-in account.
    path("i18n/setlang/", set_language, name="set_language"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("tournaments/", include("tournaments.urls")),
    path("clubs/", include("tournaments.club_urls")),
    path("api/v1/", include("tournaments.api_urls")),  # public read API, docs/api.md
    re_path(r"^api/(?P<path>.*)$", api.not_found),  # another version: a JSON 404 too
    path("", include("game.urls")),
]
