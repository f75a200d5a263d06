from django.urls import path

from . import rating_views, room_views, table_views, views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.create, name="create"),
    path("today/", views.day_today, name="today"),
    path("ratings/", rating_views.ratings_list, name="ratings"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/join/", views.join, name="join"),
    path("<int:pk>/calendar.ics", views.calendar, name="calendar"),
    path("<int:pk>/standings/", views.standings, name="standings"),
    path("<int:pk>/look/", views.look, name="look"),
    path("<int:pk>/deal/<int:number>/", views.traveller, name="traveller"),
    path("<int:pk>/compare/", views.compare, name="compare"),
    path("<int:pk>/compare/<int:number>/", views.compare_deal, name="compare-deal"),
    path("<int:pk>/verify/", views.verify, name="verify"),
    path("<int:pk>/results/", views.results_print, name="results"),
    path("<int:pk>/results.pdf", views.results_pdf, name="results-pdf"),
    path("<int:pk>/export/<str:kind>", views.export, name="export"),
    path("<int:pk>/manage/", views.manage, name="manage"),
    path("<int:pk>/manage/deals/", views.manage_deals, name="manage-deals"),
    path("<int:pk>/manage/edit/", views.manage_edit, name="manage-edit"),
    path(
        "<int:pk>/manage/entry/<int:entry_id>/<str:what>/", views.manage_entry, name="manage-entry"
    ),
    path("<int:pk>/manage/<str:what>/", views.manage_action, name="manage-action"),
    # Tournaments of rounds and tables (issue 12).
    path("<int:pk>/tables/", table_views.overview, name="tables"),
    path("<int:pk>/tables/screen/", table_views.screen, name="tables-screen"),
    path("<int:pk>/tables/organize/", table_views.organize, name="tables-organize"),
    path("<int:pk>/tables/start/", table_views.start, name="tables-start"),
    path("<int:pk>/tables/withdraw/", table_views.withdraw, name="tables-withdraw"),
    path("<int:pk>/tables/rotating/", table_views.play_as_rotating, name="tables-rotating"),
    path("<int:pk>/tables/move-start/", table_views.move_start, name="tables-move-start"),
    path("<int:pk>/tables/replace/", table_views.replace, name="tables-replace"),
    path("<int:pk>/tables/correct/", table_views.correct, name="tables-correct"),
    path("<int:pk>/tables/seat-to-bot/", table_views.seat_to_bot, name="tables-seat-to-bot"),
    path("<int:pk>/tables/results/", table_views.results_print, name="tables-results"),
    path("<int:pk>/tables/results.pdf", table_views.results_pdf, name="tables-results-pdf"),
    path("<int:pk>/tables/export/<str:kind>", table_views.export, name="tables-export"),
    path(
        "<int:pk>/tables/<int:round_number>/<int:set_number>/table/<int:number>/",
        table_views.table_replay,
        name="tables-table",
    ),
    # A night in the room with real cards: a table's score sheet, the deals to print.
    path(
        "<int:pk>/tables/<int:round_number>/<int:set_number>/table/<int:number>/sheet/",
        room_views.sheet,
        name="tables-sheet",
    ),
    path("<int:pk>/tables/deals/", room_views.deals, name="tables-deals"),
    path("<int:pk>/tables/paper/", room_views.paper, name="tables-paper"),
    path(
        "<int:pk>/tables/<int:round_number>/<int:set_number>/deal/<int:number>/",
        table_views.traveller,
        name="tables-traveller",
    ),
]
