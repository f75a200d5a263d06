"""Clubs, duplicate tournaments, entries and their results.

Models never change themselves: every mutation goes through tournaments/actions.py.
The only format built today is "solo-duplicate" (each entry plays the tournament's
deals against the same deterministic bots); `format` leaves room for rounds and
tables later without touching the entry/deal-result shape.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

import engine


def new_invite_code() -> str:
    return secrets.token_urlsafe(6)


class Club(models.Model):
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organized_clubs", blank=True
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="clubs", blank=True)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def is_organizer(self, user) -> bool:
        return bool(user and user.is_authenticated) and self.organizers.filter(pk=user.pk).exists()

    def is_member(self, user) -> bool:
        if not (user and user.is_authenticated):
            return False
        return self.members.filter(pk=user.pk).exists() or self.is_organizer(user)


def protect_opened_tournaments(collector, field, sub_objs, using):
    """on_delete of Tournament.club: deleting a club takes its drafts along, but a club
    with a tournament that was ever opened (a published commitment, entries, results)
    cannot be deleted: ProtectedError, shown by the admin as the list of those
    tournaments. Results are never destroyed with their club."""
    opened = list(sub_objs.exclude(status="draft"))
    if opened:
        # Django gathers the protected objects of every relation into one error.
        raise models.ProtectedError("a club with opened tournaments is kept", set(opened))
    models.CASCADE(collector, field, sub_objs, using)


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        OPEN = "open", _("open")
        RUNNING = "running", _("running")
        CLOSED = "closed", _("closed")

    class Visibility(models.TextChoices):
        AFTER_FINISH = "after_finish", _("after you finish your game")
        AFTER_CLOSE = "after_close", _("after the tournament closes")

    class Audience(models.TextChoices):
        # Who sees a club tournament's page and results once it is closed. A tournament
        # without a club (and the day list) is public anyway: stored as EVERYONE.
        MEMBERS = "members", _("club members and its players only")
        EVERYONE = "everyone", _("everyone")

    class Unfinished(models.TextChoices):
        BOT = "bot", _("finished by the bot")
        AS_PLAYED = "as_played", _("scored as played so far")

    class Ranking(models.TextChoices):
        SCORE = "score", _("by score (our points − their points)")
        MATCHPOINTS = "matchpoints", _("by matchpoint percentage (Neuberg, per deal played)")

    class Format(models.TextChoices):
        SOLO_DUPLICATE = "solo-duplicate", _("solo duplicate (against bots)")
        # Tables of four (people, bots filling free seats): rounds of sets of N deals.
        ROTATING = "rotating", _("rotating partners")
        WRITER_STAYS = "writer-stays", _("one writer stays")
        PAIRS = "pairs", _("fixed pairs (team cup)")

    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=protect_opened_tournaments,
        related_name="tournaments",
    )  # fmt: skip
    name = models.CharField(max_length=120)
    format = models.CharField(max_length=32, choices=Format.choices, default=Format.SOLO_DUPLICATE)
    rules = models.CharField(max_length=32, default="flemish")  # the engine preset
    # The game options (engine "Game options"): a game of exactly `fixed_deals` deals,
    # the same deals 1..N for every entry (null: to the preset's target, 101); with
    # `tie_carry` off each deal stands on its own (no doubling after a tie).
    fixed_deals = models.PositiveSmallIntegerField(null=True, blank=True)
    tie_carry = models.BooleanField(default=True)
    bot_level = models.CharField(max_length=32, default="heuristic")
    # Secret until close; only its commitment is public while the tournament runs.
    seed = models.CharField(max_length=100)
    seed_commitment = models.CharField(max_length=64)
    capacity = models.PositiveIntegerField(default=10)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    # Live start: everybody begins at starts_at (no joining early play).
    live_start = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    results_visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.AFTER_FINISH
    )
    # After close. Members (the default, and what existing rows get): a club's members
    # and organizers and whoever entered; everyone: the page, the results and the API.
    results_audience = models.CharField(
        max_length=16, choices=Audience.choices, default=Audience.MEMBERS
    )
    unfinished_rule = models.CharField(
        max_length=16, choices=Unfinished.choices, default=Unfinished.BOT
    )
    # What orders the standings (scoring.standings_order): the dagscore, as the source
    # texts rank a game to 101, or the Neuberg matchpoint percentage, fair when entries
    # play different numbers of deals.
    ranking = models.CharField(max_length=16, choices=Ranking.choices, default=Ranking.SCORE)
    invite_code = models.CharField(max_length=32, blank=True, default="")
    # The automatic day tournament of this date (the daglijst); null for all others.
    day = models.DateField(null=True, blank=True, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_tournaments",
    )
    # Whoever has looked at the stored deals (or at results before playing) may not enter.
    deals_seen_by = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="seen_tournament_deals", blank=True
    )
    # Bumped by every rankings recomputation; live clients compare it.
    rankings_version = models.PositiveIntegerField(default=0)
    rankings_computed_at = models.DateTimeField(null=True, blank=True)
    # When this closed tournament's final ranks went into the players' ratings
    # (tournaments/ratings.py); null until then.
    rated_at = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["status", "-created"])]

    def __str__(self) -> str:
        return self.name

    @property
    def title(self) -> str:
        """The name to show a reader: a day list's in their language (its stored name,
        kept as written in exports and the API, is Dutch)."""
        if self.day is not None:
            return gettext("Day list %(date)s") % {
                "date": date_format(self.day, "SHORT_DATE_FORMAT")
            }
        return self.name

    @property
    def is_closed(self) -> bool:
        return self.status == self.Status.CLOSED

    @property
    def has_tables(self) -> bool:
        """A tournament of rounds and tables (not the solo format)."""
        return self.format != self.Format.SOLO_DUPLICATE

    @property
    def results_public(self) -> bool:
        """Closed, and its page and results are open to everyone (the API publishes it)."""
        return self.is_closed and (
            self.club_id is None or self.results_audience == self.Audience.EVERYONE
        )

    @property
    def is_day(self) -> bool:
        return self.day is not None

    def window_open(self, now=None) -> bool:
        now = now or timezone.now()
        if self.status not in (self.Status.OPEN, self.Status.RUNNING):
            return False
        if self.starts_at and now < self.starts_at:
            return False
        return not (self.ends_at and now >= self.ends_at)

    def play_over(self, now=None) -> bool:
        """No more moves count: closed, or the play window has ended (the periodic
        close follows within a minute)."""
        if self.is_closed:
            return True
        return bool(self.ends_at and (now or timezone.now()) >= self.ends_at)

    @property
    def group_name(self) -> str:
        return f"tournament-{self.pk}"

    @property
    def game_rules(self) -> str:
        """The engine rules text of its games: the preset and the game options
        (``"flemish deals=12 tie=own"``); a game row stores exactly this."""
        return game_rules(self.rules, self.fixed_deals, self.tie_carry)

    @property
    def ties_double(self) -> bool:
        """Whether a tie doubles the next deal in its games (`TournamentStructure.ties_double`)."""
        return engine.get_rules(self.game_rules).tie_doubles_next


def game_rules(rules: str, deals: int | None, tie_carry: bool) -> str:
    """The rules text of a tournament's games; ValueError for a bad preset or count.
    `tie_carry` keeps the preset's rule after a tie (a tie doubles the next deal in
    flemish, nothing in french and malilla); off, each deal stands on its own."""
    return engine.get_rules(rules, deals=deals, tie_carry=None if tie_carry else False).spec


class TournamentDeal(models.Model):
    """Deal k of the tournament, generated from the seed at open and stored."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    hands = models.JSONField()  # 4 lists of card texts, seat 0..3
    turned = models.CharField(max_length=2, blank=True, default="")
    # "Bot in your seat": the bots playing all four seats from the same start.
    par = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_deal_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} #{self.number}"


class Entry(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        REMOVED = "removed", _("removed")
        # Closed before the player finished a single deal: no result, so not ranked,
        # rated or counted in a season (actions.close_tournament).
        ABSENT = "absent", _("did not play")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    # RESTRICT: a game alone cannot be deleted from under its entry, but deleting the
    # player's account removes both (they cascade from the same user).
    # The solo format's one game; null in a tournament of tables (its games are Tables).
    game = models.OneToOneField(
        "game.Game", null=True, blank=True, on_delete=models.RESTRICT,
        related_name="tournament_entry",
    )  # fmt: skip
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLAYING)
    # The game's dagscore (wij - zij); `score` is what counts (differs after a correction).
    game_score = models.IntegerField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    # How the entry ended: "played", "bot" (finished by the bot at close), "as_played".
    finish_mode = models.CharField(max_length=16, blank=True, default="")
    deals_played = models.PositiveIntegerField(default=0)
    # Filled by the rankings task.
    rank = models.PositiveIntegerField(null=True, blank=True)
    matchpoints = models.FloatField(null=True, blank=True)  # on the score: 2 per beaten
    matchpoints_pct = models.FloatField(null=True, blank=True)
    deal_matchpoints = models.FloatField(null=True, blank=True)  # sum of Neuberg deal MPs
    # Tournaments of tables: the summed difference from the field's average per deal
    # (duplicate), and the round after which a cut left the entry out (null: still in).
    field_diff = models.FloatField(null=True, blank=True)
    out_after = models.PositiveSmallIntegerField(null=True, blank=True)
    # That sum as a percentage of a top on each deal played (None: no deal played).
    deal_matchpoints_pct = models.FloatField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["rank", "joined_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="one_entry_per_player_per_tournament"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def play_over(self) -> bool:
        """Its game takes no more moves: removed, or the tournament's play is over."""
        return self.status == self.Status.REMOVED or self.tournament.play_over()


class DealResult(models.Model):
    """One entry's result on deal k (seat 0 = the player; team 0 = WIJ)."""

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="deal_results")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    trump = models.CharField(max_length=1, blank=True, default="")  # "" = no trump
    no_trump = models.BooleanField(default=False)
    card_points = models.JSONField()  # [wij, zij]
    multiplier = models.PositiveIntegerField(default=1)
    written = models.JSONField()  # [wij, zij]
    # Narrow on purpose: the rankings task reads every result of a tournament (360,000
    # on a day list) and a traveller every result of a deal. The play (tricks, actions:
    # ~2 KB) is in DealPlay; per-deal matchpoints and Neuberg values are not stored but
    # computed when read (rankings.traveller, scoring.deal_figures): one finished entry
    # changes nearly all of them.

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "number"], name="unique_entry_deal")
        ]

    def __str__(self) -> str:
        return f"{self.entry} deal {self.number}"


class DealPlay(models.Model):
    """How a deal result was played, for replay and compare: kept out of DealResult so
    that reading results does not read whole deals."""

    result = models.OneToOneField(
        DealResult, on_delete=models.CASCADE, primary_key=True, related_name="play"
    )
    tricks = models.JSONField(default=list)  # engine Trick.to_dict() list
    actions = models.JSONField(default=list)  # the deal's actions, for replay/compare

    def __str__(self) -> str:
        return f"play of {self.result}"


class AuditLog(models.Model):
    """Organizer corrections and removals: who, what, why, when. Shown in exports."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    entry = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=32)  # correct_score, remove_entry, close, ...
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created"]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor} ({self.created:%Y-%m-%d %H:%M})"


class ExportArchive(models.Model):
    """A built export (the records zip of a closed tournament, the results PDF), made on
    the "exports" queue so that a download is a read, not a replay of every game."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="archives")
    kind = models.CharField(max_length=32)  # "records.zip", "results.pdf:nl"
    # The rankings it was built from; a newer recomputation makes it stale.
    rankings_version = models.PositiveIntegerField()
    # What else it shows, where more than the rankings count (results_pdf.stamp).
    # A database default too: a release's workers still running next to the migration
    # store archives without naming it (a rolling upgrade).
    stamp = models.CharField(max_length=64, blank=True, default="", db_default="")
    data = models.BinaryField()
    created = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "kind"], name="one_archive_per_kind")
        ]


# --- tournaments of rounds and tables ----------------------------------------------------------


class Structure(models.Model):
    """How a tournament of tables runs: rounds of sets of N deals, the movement being
    the tournament's `format`. Absent for the solo format."""

    class Redraw(models.TextChoices):
        STANDING = "standing", _("by standing")
        RANDOM = "random", _("at random")

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="structure"
    )
    rounds = models.PositiveSmallIntegerField(default=1)
    sets = models.PositiveSmallIntegerField(default=3)  # per round
    deals = models.PositiveSmallIntegerField(default=8)  # per set (one game of N deals)
    # The doubling after a tie carries to the next deal, or each deal stands alone.
    tie_carry = models.BooleanField(default=False)
    # Every table of a set plays the same deals (same seed: hands per seat, dealer).
    duplicate = models.BooleanField(default=False)
    # After each round only the best go on: the top `cut` entries, or a fraction.
    cut = models.PositiveIntegerField(null=True, blank=True)
    cut_fraction = models.FloatField(null=True, blank=True)
    redraw = models.CharField(max_length=16, choices=Redraw.choices, default=Redraw.STANDING)
    clock = models.PositiveSmallIntegerField(default=0)  # seconds per move at the tables
    set_minutes = models.PositiveSmallIntegerField(null=True, blank=True)  # a set's deadline
    # Minutes between rounds: the next round is drawn (the organizer's view shows it)
    # and starts at a set time ("next round at 21:10"); 0 = at once.
    round_break = models.PositiveSmallIntegerField(default=0)
    # A club night with real cards: the tables play printed deals in the room and
    # enter each deal's result from a phone (tournaments/room.py); no game online, no
    # bots: an empty seat is a stand-in who never ranks.
    in_room = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.tournament}: {self.rounds} x {self.sets} x {self.deals}"

    @property
    def rules_spec(self) -> str:
        """The tables' rules text: the preset with N deals and the tie option."""
        return game_rules(self.tournament.rules, self.deals, self.tie_carry)

    @property
    def ties_double(self) -> bool:
        """Whether a tie doubles the next deal at the tables: `tie_carry` keeps the
        preset's rule (french and malilla double nothing), off never doubles."""
        return engine.get_rules(self.rules_spec).tie_doubles_next


class Round(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("waiting")
        PLAYING = "playing", _("playing")
        DONE = "done", _("done")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    starts_at = models.DateTimeField(null=True, blank=True)  # live start (null: now)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_round_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class TableSet(models.Model):
    """A set: every player of the round seated at a table of four for one game."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        DONE = "done", _("done")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="sets")
    number = models.PositiveSmallIntegerField()
    # The deal source: every table's game seed in duplicate, else a prefix per table.
    seed = models.CharField(max_length=100)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLAYING)
    deadline = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="unique_set_number")
        ]

    def __str__(self) -> str:
        return f"{self.round} set {self.number}"


class Table(models.Model):
    table_set = models.ForeignKey(TableSet, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()  # 1, 2, ... ("tafel 7")
    # Null at a table of a night in the room (Structure.in_room): played with real cards.
    game = models.OneToOneField(
        "game.Game", on_delete=models.RESTRICT, related_name="tournament_table", null=True,
        blank=True,
    )  # fmt: skip
    finished = models.BooleanField(default=False)
    # In the room: the deals as the table entered them (engine.scoresheet.Line fields and
    # the id of who entered it), and which side agreed with the sheet ({"0": user id,
    # "1": user id}; null for a side of stand-ins). Ids, not names: a name can be deleted.
    sheet = models.JSONField(default=list, blank=True)
    agreed = models.JSONField(default=dict, blank=True)
    # Per deal, when the game is over: the engine's board entries (dealer, trump,
    # no_trump, multiplier, card_points, written) and the announcements.
    board = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["table_set", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table_set", "number"], name="unique_table_number")
        ]

    @property
    def in_room(self) -> bool:
        """Played with real cards: the result is entered, not played online."""
        return self.game_id is None

    def __str__(self) -> str:
        return f"{self.table_set} table {self.number}"


class TableSeat(models.Model):
    """A seat of a tournament table: an entry, or a bot (entry null) that never ranks."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()  # 0 South, 1 West, 2 North, 3 East
    entry = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="table_seats"
    )
    # Set scores once the table is done: own team total minus the opponents' (raw), and
    # in duplicate the matchpoints and the difference from the field's average.
    raw = models.IntegerField(null=True, blank=True)
    dup_mp = models.FloatField(null=True, blank=True)
    dup_diff = models.FloatField(null=True, blank=True)
    # Who played this seat when it was not the entry's player of today: set when the
    # organizer replaced the player (actions.replace_player) on the seats they had
    # finished, so the record of a set names who played it.
    played_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )  # fmt: skip

    class Meta:
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="unique_table_seat"),
        ]
        indexes = [models.Index(fields=["entry"], name="tableseat_by_entry")]

    @property
    def is_bot(self) -> bool:
        return self.entry_id is None

    @property
    def player(self):
        """The person who played this seat (None: a bot)."""
        if self.entry_id is None:
            return None
        return self.played_by if self.played_by_id is not None else self.entry.player

    def __str__(self) -> str:
        return f"{self.table} seat {self.index}: {self.entry or 'bot'}"


class Rating(models.Model):
    """A player's rating: Elo over the pairs of players of every closed tournament they
    ranked in (tournaments/ratings.py). Starts at ratings.START."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating"
    )
    value = models.FloatField()
    events = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["-value"], name="rating_by_value")]

    def __str__(self) -> str:
        return f"{self.player}: {self.value:.0f}"


class RatingChange(models.Model):
    """What one tournament did to one player's rating."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rating_changes"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    before = models.FloatField()
    after = models.FloatField()
    rank = models.PositiveIntegerField()
    field = models.PositiveIntegerField()  # ranked players of the tournament
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_change_per_event")
        ]

    @property
    def delta(self) -> float:
        return self.after - self.before


class Season(models.Model):
    """A club's season: its closed tournaments between two dates make one standing
    (tournaments/seasons.py)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=100)
    starts_on = models.DateField()
    ends_on = models.DateField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_on__gte=models.F("starts_on")), name="season_ends_after"
            )
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"
