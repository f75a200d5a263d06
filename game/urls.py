from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("game/<uuid:game_id>/", views.table, name="game"),
    path("game/<uuid:game_id>/record.txt", views.record, name="game-record"),
    path("game/<uuid:game_id>/state.json", views.state, name="game-state"),
    path("game/<uuid:game_id>/replay/", views.replay, name="game-replay"),
    path("game/<uuid:game_id>/fast/", views.fast_play, name="game-fast"),
]
