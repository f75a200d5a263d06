"""Create a tournament through tournaments.actions (create_tournament for the solo
format, create_tables_tournament for rounds and tables)."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from engine.rules import MAX_FIXED_DEALS
from tournaments import actions
from tournaments.models import Club, Tournament

FORMATS = {
    "solo": Tournament.Format.SOLO_DUPLICATE,
    "rotating": Tournament.Format.ROTATING,
    "writer-stays": Tournament.Format.WRITER_STAYS,
    "pairs": Tournament.Format.PAIRS,
}

# The option that sets what a refusal names (TournamentError.field).
OPTIONS = {
    "players": "--players",
    "rounds": "--rounds",
    "sets": "--sets",
    "deals": "--deals",
    "cut": "--cut",
    "cut_fraction": "--cut-fraction",
    "redraw": "--redraw",
    "clock": "--clock",
    "format": "--format",
    "set_minutes": "--set-minutes",
    "round_break": "--round-break",
    "capacity": "--capacity",
}


class Command(BaseCommand):
    help = "Create a duplicate tournament; prints its id and seed commitment."

    def add_arguments(self, parser):
        parser.add_argument("--name", default=None, help="default: a name from the format")
        parser.add_argument("--club", help="club slug or id (default: a public tournament)")
        parser.add_argument("--rules", default="flemish")
        parser.add_argument(
            "--deals",
            type=int,
            default=None,
            metavar="D",
            help="every game is exactly deals 1..D (default: to 101; tables: 8)",
        )
        parser.add_argument(
            "--tie",
            choices=("carry", "own"),
            default="carry",
            help="after a tie: as the rules say (carry, default: flemish doubles the next"
            " deal, french and malilla double nothing) or each deal stands on its own (own)",
        )
        parser.add_argument("--capacity", type=int, default=10)
        parser.add_argument("--seed", default=None, help="secret seed (default: random)")
        parser.add_argument("--open", action="store_true", help="open it right away")
        parser.add_argument("--organizer", help="username of the acting organizer")
        # Rounds and tables (issue 12): every format but solo.
        parser.add_argument(
            "--format", default="solo", help="solo, rotating, writer-stays or pairs (default solo)"
        )
        parser.add_argument("--players", type=int, default=None, help="the field (the capacity)")
        parser.add_argument("--rounds", type=int, default=1)
        parser.add_argument("--sets", type=int, default=3, help="sets per round")
        parser.add_argument(
            "--duplicate", action="store_true", help="every table of a set plays the same deals"
        )
        parser.add_argument(
            "--in-room",
            action="store_true",
            help="a club night with real cards: printed deals, scores entered per table",
        )
        parser.add_argument(
            "--cut", type=int, default=None, help="after each round the top K go on"
        )
        parser.add_argument(
            "--cut-fraction", type=float, default=None, help="after each round the top fraction"
        )
        parser.add_argument("--redraw", default="standing", help="standing or random")
        parser.add_argument("--clock", type=int, default=0, help="seconds per move at the tables")
        parser.add_argument("--set-minutes", type=int, default=None, help="a set's deadline")
        parser.add_argument(
            "--starts-in",
            type=int,
            default=None,
            metavar="SECONDS",
            help="live start: round 1 is drawn and starts this many seconds from now",
        )
        parser.add_argument(
            "--round-break", type=int, default=0, help="minutes between rounds (0: at once)"
        )

    def handle(self, *args, **opts):
        fmt = FORMATS.get(opts["format"])
        if fmt is None:
            raise CommandError(f"unknown --format {opts['format']!r}: choose {', '.join(FORMATS)}")
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
        capacity = opts["players"] if opts["players"] is not None else opts["capacity"]
        if capacity < 1:
            raise CommandError("--players (or --capacity) must be at least 1")
        if opts["deals"] is not None and not 1 <= opts["deals"] <= MAX_FIXED_DEALS:
            raise CommandError(
                f"--deals must be 1 to {MAX_FIXED_DEALS} (a game of D deals), got {opts['deals']}"
            )
        name = opts["name"] or f"{opts['format']} tournament"
        common = dict(
            name=name, club=club, rules=opts["rules"], seed=opts["seed"], open_now=opts["open"]
        )
        if opts["starts_in"] is not None:
            if fmt == Tournament.Format.SOLO_DUPLICATE:
                raise CommandError("--starts-in is the live start of a tournament of tables")
            if opts["starts_in"] < 0:
                raise CommandError("--starts-in is a number of seconds from now, 0 or more")
            common["starts_at"] = timezone.now() + dt.timedelta(seconds=opts["starts_in"])
            common["live_start"] = True
        try:
            if fmt == Tournament.Format.SOLO_DUPLICATE:
                t = actions.create_tournament(
                    actor,
                    capacity=capacity,
                    deals=opts["deals"],
                    tie_carry=opts["tie"] == "carry",
                    **common,
                )
            else:
                t = actions.create_tables_tournament(
                    actor,
                    fmt=fmt,
                    players=capacity,
                    rounds=opts["rounds"],
                    sets=opts["sets"],
                    deals=8 if opts["deals"] is None else opts["deals"],
                    tie_carry=opts["tie"] == "carry",
                    duplicate=opts["duplicate"],
                    cut=opts["cut"],
                    cut_fraction=opts["cut_fraction"],
                    redraw=opts["redraw"],
                    clock=opts["clock"],
                    set_minutes=opts["set_minutes"],
                    round_break=opts["round_break"],
                    in_room=opts["in_room"],
                    **common,
                )
        except actions.TournamentError as exc:
            option = OPTIONS.get(exc.field or "")
            raise CommandError(f"{exc} [{option}]" if option else str(exc)) from exc
        except ValueError as exc:
            raise CommandError(f"invalid value: {exc}") from exc
        self.stdout.write(f"id: {t.pk}")
        self.stdout.write(f"status: {t.status}")
        self.stdout.write(f"seed commitment: {t.seed_commitment}")
