from django.contrib import admin

from .models import Game, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = (
        "index",
        "user",
        "bot_level",
        "bot_control",
        "bot_reason",
        "left",
        "timeouts",
        "final_score",
    )
    readonly_fields = fields
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    inlines = [SeatInline]
    list_display = (
        "public_id",
        "owner",
        "rules",
        "bot_level",
        "status",
        "seq",
        "final_score",
        "created",
    )
    list_filter = ("status", "rules", "bot_level")
    search_fields = ("public_id", "owner__username", "seed")
    readonly_fields = (
        "public_id",
        "seed",
        "rules",
        "actions",
        "seq",
        "state",
        "record",
        "final_score",
        "created",
        "updated",
    )
