from django.urls import path

from . import views

app_name = "clubs"

urlpatterns = [
    path("", views.club_list, name="list"),
    path("new/", views.club_create, name="create"),
    path("join/", views.club_join, name="join"),
    path("<slug:slug>/", views.club_detail, name="detail"),
]
