"""Demo: N simulated players join a tournament and play their games to the end.

South is played by a bot "style" per player (cycled from --south: e.g. a beginner, a
club player, a random clicker), seeded by the player's name, so the field spreads like
a real one instead of ten identical entries. Every South card goes through
`game.actions.apply_action` (the table's own path) and the bot seats through
`game.actions.play_bots`, exactly as when a person plays.
"""

from __future__ import annotations

import secrets
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from engine.bots import available, bot_seed, get_bot
from game import actions as game_actions
from game.models import Game
from tournaments import actions
from tournaments.models import Entry, Tournament

HUMAN_SEAT = 0


class Command(BaseCommand):
    help = "Create N players, join them to the tournament and play every entry to the end."

    def add_arguments(self, parser):
        parser.add_argument("tournament_id", type=int)
        parser.add_argument(
            "--players", type=int, default=None, help="default: the tournament's capacity"
        )
        parser.add_argument("--prefix", default="bot-player")
        parser.add_argument(
            "--wait-draw",
            action="store_true",
            help="tables: after joining, wait for the organizer to draw and start each round"
            " (or the live start, the end of a round break) instead of starting it",
        )
        parser.add_argument(
            "--play-all",
            action="store_true",
            help="tables: also play the seats of entrants who joined otherwise (people who"
            " are away), with their accounts",
        )
        parser.add_argument(
            "--south",
            default="heuristic,club,random",
            help="bots that play South, cycled over the players (default: heuristic,club,random)",
        )

    def handle(self, *args, **opts):
        pk, n, prefix = opts["tournament_id"], opts["players"], opts["prefix"]
        t = Tournament.objects.filter(pk=pk).first()
        if n is None:
            n = t.capacity if t is not None else 0
        if n < 1:
            raise CommandError("--players must be at least 1")
        styles = [s.strip() for s in opts["south"].split(",") if s.strip()]
        unknown = [s for s in styles if s not in available()]
        if not styles or unknown:
            raise CommandError(
                f"--south: unknown bot {', '.join(unknown) or '(none)'}; "
                f"choose from {', '.join(available())}"
            )
        t = Tournament.objects.select_related("club").filter(pk=pk).first()
        if t is None:
            raise CommandError(f"no tournament with id {pk}")
        if t.is_closed:
            raise CommandError(f"tournament {pk} is closed")
        if t.status == Tournament.Status.DRAFT:
            raise CommandError(f"tournament {pk} is a draft: open it first")
        User = get_user_model()
        if t.has_tables and t.rounds.exists():
            raise CommandError(f"tournament {pk} has been drawn already: nobody can join")
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
        if t.has_tables:
            if opts["play_all"]:
                entries = list(Entry.objects.filter(tournament=t))
            self._play_tables(t, styles, {e.pk for e in entries}, opts["wait_draw"])
            return
        for i, entry in enumerate(entries):
            style = styles[i % len(styles)]
            moves = self._play(entry, style)
            entry.refresh_from_db()
            status = "finished" if entry.status == Entry.Status.FINISHED else entry.status
            name = entry.player.get_username()
            self.stdout.write(
                f"{name} (South: {style}): {status}, score {entry.score}, {moves} moves"
            )
        self.stdout.write(f"{len(entries)} entries played in tournament {t.pk}")

    def _play(self, entry: Entry, style: str) -> int:
        """Play the entry's game to its end; returns South's number of moves."""
        bot, user = get_bot(style), entry.player
        seed_base = f"simulate/{entry.game.seed}/{user.get_username()}"
        moves = 0
        while True:
            game = Game.objects.get(pk=entry.game_id)
            if game.status != Game.Status.ACTIVE:
                return moves
            eng = game_actions.replay(game)
            if eng.is_terminal():
                return moves
            if eng.to_move != HUMAN_SEAT:
                # Normally a Celery task; playing the turn here is the same idempotent
                # call (the queued task then finds the game moved on and does nothing).
                if game_actions.play_bots(game.pk, game.seq) == 0:
                    game.refresh_from_db()
                    if game.seq == len(eng.actions) and game.status == Game.Status.ACTIVE:
                        raise CommandError(f"game {game.public_id} does not move on")
                continue
            obs = eng.observation(HUMAN_SEAT)
            action = bot.act(obs, bot_seed(seed_base, eng.deal_number, HUMAN_SEAT))
            try:
                game_actions.apply_action(game.public_id, user, action, game.seq)
            except game_actions.ActionError as exc:
                # A stopped game (window over, tournament closed) or a lost race: say so.
                raise CommandError(f"{user.get_username()}: {exc}") from exc
            moves += 1

    def _play_tables(
        self, t: Tournament, styles: list[str], own: set[int], wait_draw: bool = False
    ) -> None:
        """Draw and play every round of a tournament of tables: each simulated entrant's
        move goes through apply_action with their account, the bots' through play_bots
        (also run by the workers: both are idempotent), until the tournament closes.
        Entrants who are real people (not made here) play their own seats; a live start
        is waited for (the simulation draws at the start time, as the tick would)."""
        from django.utils import timezone

        from tournaments import tables as tables_read
        from tournaments.models import TableSeat

        if wait_draw:
            # The organizer starts it (their page's "Draw and start now"), or the tick
            # at the live start: the entrants play from the draw on.
            self.stdout.write("joined: waiting for the draw")
            deadline = time.monotonic() + 900
            while not t.rounds.exists():
                if time.monotonic() > deadline:
                    raise CommandError(f"tournament {t.pk} was not drawn within 900 s")
                time.sleep(0.2)
        else:
            if t.starts_at and timezone.now() < t.starts_at:
                wait = (t.starts_at - timezone.now()).total_seconds()
                self.stdout.write(f"live start: waiting {wait:.0f} s for the draw")
                time.sleep(wait)
            try:
                actions.start_tables(t.pk)
            except actions.TournamentError as exc:
                raise CommandError(str(exc)) from exc
        people = Entry.objects.filter(tournament=t).exclude(pk__in=own).exists()
        patience = 900 if people else 120  # people think; simulated players do not
        bots = {}
        arrived: set[int] = set()  # games whose simulated players opened their table
        moves, idle_since = 0, time.monotonic()
        while True:
            t.refresh_from_db()
            if t.is_closed:
                break
            tset = tables_read.current_set(t)
            if tset.status == tset.Status.DONE:
                if wait_draw and t.rounds.filter(status="waiting").exists():
                    idle_since = time.monotonic()  # the organizer starts it (or the tick)
                    time.sleep(0.2)
                    continue
                if not wait_draw and actions.start_next_round(t.pk):
                    continue  # a round waiting for its start time: started now
            if t.structure.in_room:
                # Real cards: the simulated players play their table's deals (the
                # engine, their bots) and write them on the sheet; people enter theirs.
                progressed = False
                for tab in tset.tables.filter(finished=False).order_by("number"):
                    progressed |= self._step_room(t, tab, styles, bots, own)
                if progressed:
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since > patience:
                    raise CommandError(f"tournament {t.pk} does not move on (set {tset})")
                else:
                    time.sleep(0.05)
                continue
            seats = (
                TableSeat.objects.filter(table__table_set=tset, table__finished=False)
                .select_related("table__game", "entry__player")
                .order_by("table__number", "index")
            )
            by_game: dict[int, dict[int, TableSeat]] = {}
            for seat in seats:
                by_game.setdefault(seat.table.game_id, {})[seat.index] = seat
            progressed = False
            for game_id, table_seats in by_game.items():
                if game_id not in arrived:
                    # Each simulated player opens their table (a socket, as a browser
                    # does): present, so the absence takeover leaves their seat alone.
                    arrived.add(game_id)
                    for seat in table_seats.values():
                        if seat.entry_id in own:
                            game_actions.connect(seat.table.game.public_id, seat.entry.player)
                progressed |= self._step(game_id, table_seats, styles, bots, own)
            if progressed:
                moves += 1
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > patience:
                raise CommandError(f"tournament {t.pk} does not move on (set {tset})")
            else:
                time.sleep(0.05)  # the workers finish a set / start the next one
        rounds = t.rounds.count()
        self.stdout.write(f"tournament {t.pk}: {rounds} rounds played, closed")
        self.write_tables_standing(t)

    def write_tables_standing(self, t: Tournament) -> None:
        """The first ten of a tournament of tables; an entry without a rank (no set of
        its own finished, or its person never came) as "—"."""
        from tournaments import tables as tables_read

        for row in tables_read.standings(t)[:10]:
            rank = "  —" if row["rank"] is None else f"{row['rank']:>3}."
            self.stdout.write(f"{rank} {row['player']}: {row['raw']} (dup {row['dup_mp']})")

    def _step_room(self, t: Tournament, tab, styles: list[str], bots: dict, own: set) -> bool:
        """A table of a night in the room: simulated players write the whole sheet when
        nobody real sits there, and agree for their side once it is complete; True if
        anything changed."""
        import engine
        from engine.scoresheet import Line
        from tournaments import room
        from tournaments import tables as tables_read

        seats = {x.index: x for x in tab.seats.select_related("entry__player")}
        simulated = {i: x for i, x in seats.items() if x.entry_id in own}
        people = any(x.entry_id is not None and x.entry_id not in own for x in seats.values())
        where = (t.pk, tab.table_set.round.number, tab.table_set.number, tab.number)
        s = t.structure
        if not tab.sheet and not people and simulated:
            seed, rules = tables_read.deal_source(tab, s)
            game = engine.Game(seed, rules)
            players = []
            for i in range(4):
                style = styles[seats[i].entry_id % len(styles)] if i in simulated else t.bot_level
                players.append(bots.setdefault(style, get_bot(style)))
            while not game.is_terminal():
                seat = game.to_move
                action = players[seat].act(
                    game.observation(seat), bot_seed(f"room/{seed}", game.deal_number, seat)
                )
                game.apply_action(action)
            writer = simulated[min(simulated)].entry.player
            for result in game.results:
                room.enter_deal(*where, writer, result.number, Line.of(result))
            return True
        if len(tab.sheet) < s.deals:
            return False  # people at the table enter it from their phones
        changed = False
        for side in (0, 1):
            agreeing = next((x for i, x in sorted(simulated.items()) if i % 2 == side), None)
            if agreeing is not None and str(side) not in (tab.agreed or {}):
                tab = room.agree(*where, agreeing.entry.player)
                changed = True
        return changed

    def _step(self, game_id: int, seats: dict, styles: list[str], bots: dict, own: set) -> bool:
        """Play the game's moves until a person's seat is not to move; True if it moved."""
        game = Game.objects.get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            return False
        eng = game_actions.replay(game)
        if eng.is_terminal():
            return False
        seat = seats.get(eng.to_move)
        game_seat = game.seats.get(index=eng.to_move)
        if seat is None or seat.entry_id is None or game_seat.played_by_bot:
            return game_actions.play_bots(game.pk, game.seq) > 0
        if seat.entry_id not in own:
            return False  # a real person's turn: they play it from their browser
        user = seat.entry.player
        style = styles[seat.entry_id % len(styles)]
        bot = bots.setdefault(style, get_bot(style))
        seed_base = f"simulate/{game.seed}/{user.get_username()}"
        action = bot.act(
            eng.observation(eng.to_move), bot_seed(seed_base, eng.deal_number, eng.to_move)
        )
        try:
            game_actions.apply_action(game.public_id, user, action, game.seq)
        except (game_actions.StaleSeq, game_actions.BotPlaying):
            return True  # a worker's bot moved first, or took the seat: look again
        except game_actions.ActionError as exc:
            raise CommandError(f"{user.get_username()}: {exc}") from exc
        return True
