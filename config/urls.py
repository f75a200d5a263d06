from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("ops.urls")),  # /healthz, rate-limited login (before auth.urls)
    path("", include("accounts.urls")),  # /accounts/signup/ (and guests claiming an account)
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("tournaments/", include("tournaments.urls")),
    path("clubs/", include("tournaments.club_urls")),
    path("", include("game.urls")),
]
