"""/api/v1/: the public read API (tournaments/api.py, documented in docs/api.md).

A new, incompatible version gets its own prefix (/api/v2/) beside this one.
"""

from django.urls import path, re_path

from . import api

app_name = "api"

urlpatterns = [
    path("", api.index, name="index"),
    path("tournaments/", api.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", api.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/standings/", api.standings, name="standings"),
    path("tournaments/<int:pk>/travellers/", api.travellers, name="travellers"),
    path("tournaments/<int:pk>/travellers/<int:number>/", api.traveller, name="traveller"),
    # Anything else under /api/v1/ (a bad id such as "abc" included) is a JSON 404.
    re_path(r"^(?P<path>.*)$", api.not_found),
]
