"""Admin: read-mostly. Corrections and removals go through the organizer panel
(tournaments/actions.py) so that they are logged; the seed stays read-only."""

from django.contrib import admin

from .models import AuditLog, Club, DealResult, Entry, Tournament, TournamentDeal


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created")
    search_fields = ("name", "slug")
    filter_horizontal = ("organizers", "members")


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ("player", "status", "score", "game_score", "rank", "deals_played", "finished_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "club", "status", "rules", "day", "capacity", "starts_at", "ends_at")
    list_filter = ("status", "rules", "format")
    search_fields = ("name", "club__name")
    readonly_fields = ("seed", "seed_commitment", "rankings_version", "rankings_computed_at")
    inlines = [EntryInline]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("player", "tournament", "status", "score", "rank", "finished_at")
    list_filter = ("status",)
    search_fields = ("player__username", "tournament__name")
    readonly_fields = ("game", "game_score", "score", "matchpoints", "deal_matchpoints")


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("created", "tournament", "actor", "action", "reason")
    readonly_fields = ("tournament", "entry", "actor", "action", "before", "after", "reason")


admin.site.register(TournamentDeal)
admin.site.register(DealResult)
