"""Demo: N bot players join a tournament and play to the end (game.actions.autoplay)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from game import actions as game_actions
from tournaments import actions
from tournaments.models import Entry, Tournament


class Command(BaseCommand):
    help = "Create N players, join them to the tournament and play every entry to the end."

    def add_arguments(self, parser):
        parser.add_argument("tournament_id", type=int)
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--prefix", default="bot-player")

    def handle(self, *args, **opts):
        pk, n, prefix = opts["tournament_id"], opts["players"], opts["prefix"]
        if n < 1:
            raise CommandError("--players must be at least 1")
        t = Tournament.objects.select_related("club").filter(pk=pk).first()
        if t is None:
            raise CommandError(f"no tournament with id {pk}")
        if t.is_closed:
            raise CommandError(f"tournament {pk} is closed")
        if t.status == Tournament.Status.DRAFT:
            raise CommandError(f"tournament {pk} is a draft: open it first")
        User = get_user_model()
        entries = []
        for i in range(1, n + 1):
            username = f"{prefix}-{i}"
            user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
            if user is None:
                user = User.objects.create_user(username, password=secrets.token_urlsafe(16))
            try:
                if t.club is not None:
                    actions.join_club(user, t.club.invite_code)
                entries.append(actions.join(t.pk, user))
            except actions.TournamentError as exc:
                raise CommandError(f"{username} cannot join: {exc}") from exc
        for entry in entries:
            game_actions.autoplay(entry.game_id)
            entry.refresh_from_db()
            status = "finished" if entry.status == Entry.Status.FINISHED else entry.status
            self.stdout.write(f"{entry.player.get_username()}: {status}, score {entry.score}")
        self.stdout.write(f"{len(entries)} entries played in tournament {t.pk}")
