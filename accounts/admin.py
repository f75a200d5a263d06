"""The admin's users: deleting one that played would take its entries and games along
and change everybody's rankings (Entry.player cascades). An account with results is
made anonymous instead, as the player's own "delete my account" does
(accounts/actions.py), with the same refusals."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _

from game.models import Seat
from tournaments.models import Entry

from . import actions

User = get_user_model()


def _has_played(user) -> bool:
    return (
        Entry.objects.filter(player=user).exists()
        or Seat.objects.filter(user=user).exclude(game__owner=user).exists()
        or Seat.objects.filter(game__owner=user).exclude(user=user).exclude(user=None).exists()
    )


@admin.action(description=_("Delete the account (anonymous; results stay)"))
def anonymize(modeladmin, request, queryset):
    done = 0
    for user in queryset:
        try:
            actions.delete_account(user)
        except actions.AccountError as exc:
            modeladmin.message_user(request, f"{user.get_username()}: {exc}", messages.ERROR)
        else:
            done += 1
    if done:
        modeladmin.message_user(request, _("%(n)s account(s) made anonymous.") % {"n": done})


if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    actions = [anonymize]

    def get_actions(self, request):
        found = super().get_actions(request)
        found.pop("delete_selected", None)  # one by one, where nobody else's results hang on it
        return found

    def has_delete_permission(self, request, obj=None):
        if obj is not None and _has_played(obj):
            return False
        return super().has_delete_permission(request, obj)
