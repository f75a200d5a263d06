from django.urls import path

from . import season_views, views

app_name = "clubs"

urlpatterns = [
    path("", views.club_list, name="list"),
    path("new/", views.club_create, name="create"),
    path("join/", views.club_join, name="join"),
    path("<slug:slug>/", views.club_detail, name="detail"),
    path("<slug:slug>/seasons/new/", season_views.season_create, name="season-create"),
    path("<slug:slug>/seasons/<int:pk>/", season_views.season_detail, name="season"),
    path("<slug:slug>/seasons/<int:pk>/standing.csv", season_views.season_csv, name="season-csv"),
    path("<slug:slug>/seasons/<int:pk>/delete/", season_views.season_delete, name="season-delete"),
]
