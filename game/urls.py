from django.urls import path

from . import tables, views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("game/<uuid:game_id>/", views.table, name="game"),
    path("game/<uuid:game_id>/record.txt", views.record, name="game-record"),
    path("game/<uuid:game_id>/state.json", views.state, name="game-state"),
    path("game/<uuid:game_id>/replay/", views.replay, name="game-replay"),
    path("game/<uuid:game_id>/fast/", views.fast_play, name="game-fast"),
    path("tables/", tables.lobby, name="lobby"),
    path("tables/new/", tables.new_table, name="table-new"),
    path("tables/<uuid:game_id>/", tables.table, name="table"),
    path("tables/<uuid:game_id>/sit/", tables.sit, name="table-sit"),
    path("tables/<uuid:game_id>/bot/", tables.add_bot, name="table-bot"),
    path("tables/<uuid:game_id>/free/", tables.free_seat, name="table-free"),
    path("tables/<uuid:game_id>/start/", tables.start, name="table-start"),
    path("tables/<uuid:game_id>/leave/", tables.leave, name="table-leave"),
    path("tables/<uuid:game_id>/back/", tables.take_back, name="table-back"),
    path("tables/<uuid:game_id>/rematch/", tables.rematch, name="table-rematch"),
    path("tables/<uuid:game_id>/chat/", tables.chat_switch, name="table-chat"),
]
