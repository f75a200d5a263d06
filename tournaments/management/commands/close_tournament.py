"""Close a tournament through tournaments.actions.close_tournament."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments import actions
from tournaments.models import Tournament

UNFINISHED = {"bot": Tournament.Unfinished.BOT, "as-played": Tournament.Unfinished.AS_PLAYED}


class Command(BaseCommand):
    help = "Close a tournament (unfinished games: bot or as played) and reveal its seed."

    def add_arguments(self, parser):
        parser.add_argument("tournament_id", type=int)
        parser.add_argument(
            "--unfinished",
            choices=sorted(UNFINISHED),
            help="rule for unfinished games (default: the tournament's own rule)",
        )

    def handle(self, *args, **opts):
        pk = opts["tournament_id"]
        t = Tournament.objects.filter(pk=pk).first()
        if t is None:
            raise CommandError(f"no tournament with id {pk}")
        if t.is_closed:
            raise CommandError(f"tournament {pk} is already closed")
        try:
            # The organizer panel's path: the rule, if given, is stored and logged by the
            # action itself, under the same lock as the close.
            t = actions.close_tournament(
                pk, None, unfinished_rule=UNFINISHED.get(opts["unfinished"] or "")
            )
        except actions.TournamentError as exc:
            raise CommandError(str(exc)) from exc
        if t.has_tables:
            if opts["unfinished"]:
                self.stderr.write(
                    "--unfinished is for solo tournaments: a tournament of tables stops "
                    "its unfinished sets where they stand"
                )
            # Its sets still being played stop, unscored (actions._close_tables).
            self.stdout.write(f"closed tournament {t.pk} (unfinished sets: stopped, not scored)")
        else:
            self.stdout.write(f"closed tournament {t.pk} (unfinished games: {t.unfinished_rule})")
        self.stdout.write(f"seed: {t.seed}")
        self.stdout.write(f"seed commitment: {t.seed_commitment}")
