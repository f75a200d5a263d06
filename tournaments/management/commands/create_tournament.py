"""Create a tournament through tournaments.actions.create_tournament."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from engine.rules import MAX_FIXED_DEALS
from tournaments import actions
from tournaments.models import Club


class Command(BaseCommand):
    help = "Create a duplicate tournament; prints its id and seed commitment."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--club", help="club slug or id (default: a public tournament)")
        parser.add_argument("--rules", default="flemish")
        parser.add_argument(
            "--deals",
            type=int,
            default=None,
            metavar="D",
            help="every game is exactly deals 1..D (default: to 101)",
        )
        parser.add_argument(
            "--tie",
            choices=("carry", "own"),
            default="carry",
            help="after a tie the next deal counts double (carry, default) or each deal"
            " stands on its own (own)",
        )
        parser.add_argument("--capacity", type=int, default=10)
        parser.add_argument("--seed", default=None, help="secret seed (default: random)")
        parser.add_argument("--open", action="store_true", help="open it right away")
        parser.add_argument("--organizer", help="username of the acting organizer")

    def handle(self, *args, **opts):
        club = None
        if opts["club"]:
            ref = opts["club"]
            club = Club.objects.filter(slug=ref).first()
            if club is None and ref.isdigit():
                club = Club.objects.filter(pk=int(ref)).first()
            if club is None:
                raise CommandError(f"unknown club: {ref!r}")
        actor = None
        if opts["organizer"]:
            User = get_user_model()
            try:
                actor = User.objects.get(**{User.USERNAME_FIELD: opts["organizer"]})
            except User.DoesNotExist:
                raise CommandError(f"unknown user: {opts['organizer']!r}") from None
        if opts["capacity"] < 1:
            raise CommandError("--capacity must be at least 1")
        if opts["deals"] is not None and not 1 <= opts["deals"] <= MAX_FIXED_DEALS:
            raise CommandError(
                f"--deals must be 1 to {MAX_FIXED_DEALS} (a game of D deals), got {opts['deals']}"
            )
        try:
            t = actions.create_tournament(
                actor,
                name=opts["name"],
                club=club,
                rules=opts["rules"],
                deals=opts["deals"],
                tie_carry=opts["tie"] == "carry",
                capacity=opts["capacity"],
                seed=opts["seed"],
                open_now=opts["open"],
            )
        except actions.TournamentError as exc:
            raise CommandError(str(exc)) from exc
        except ValueError as exc:
            raise CommandError(f"invalid value: {exc}") from exc
        self.stdout.write(f"id: {t.pk}")
        self.stdout.write(f"status: {t.status}")
        self.stdout.write(f"seed commitment: {t.seed_commitment}")
