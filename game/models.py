"""A game at a table of four seats, each held by a person or a bot.

The game is stored as the engine stores it: (seed, rules, actions). Any position is
rebuilt by replay; `state` only caches South's (seat 0's) last observation for cheap
page loads and for the public fields other apps read (to_move, phase, game_over).

The four seats are `Seat` rows. A seat holds a person (`user`: an account, or a guest
user for friends' tables), a bot (`bot_level`), or nobody yet (a table that has not
started). A person's seat may be played by the bot for a while (`bot_control`: the
person's clock ran out three times, they were away too long, or they left). The solo
game is simply a game with one person in South's seat and three bots: one model and
one code path for every game. Models never change themselves: every mutation goes
through game/actions.py.
"""

import uuid

from django.conf import settings
from django.db import models

SEATS = (0, 1, 2, 3)  # 0 South, 1 West, 2 North, 3 East
CLOCK_CHOICES = (0, 15, 30, 60)  # seconds per move; 0 = no clock


class Game(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "wacht op spelers"
        ACTIVE = "active", "bezig"
        FINISHED = "finished", "afgelopen"

    class Visibility(models.TextChoices):
        # Only the people seated see it (solo games, tournament games).
        PRIVATE = "private", "private"
        # A table listed in the lobby: anyone may sit in a free seat or watch.
        OPEN = "open", "open"
        # A table joined only by its link, which carries the join code.
        LINK = "link", "link"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # The person who made the game: the solo player, or the host of a table.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    seed = models.CharField(max_length=100)
    rules = models.CharField(max_length=32, default="flemish")
    # The level of the bots the table adds (free seats filled by the host, takeovers).
    bot_level = models.CharField(max_length=32, default="heuristic")
    actions = models.JSONField(default=list, blank=True)
    # Always len(actions): the version number clients and tasks compare against.
    seq = models.PositiveIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # South's dagscore (own team total minus the opponents'), set when finished; every
    # seat's own is on its Seat row.
    final_score = models.IntegerField(null=True, blank=True)
    record = models.TextField(blank=True, default="")
    # "Vlot doorspelen": the table shows bot cards without pausing between them.
    fast_play = models.BooleanField(default=False)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    join_code = models.CharField(max_length=32, blank=True, default="")
    # Seconds per move (0 = no clock). The deadline belongs to the move at `seq`: the
    # clock task plays the bot's move only if (seq, deadline) still hold.
    clock = models.PositiveSmallIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)
    chat_enabled = models.BooleanField(default=False)
    # A tournament table's live start: a person whose seat has no socket open by then
    # is played by the bot until they arrive (game/actions.py absence_expired). Null at
    # other tables. Such a table counts its people's sockets even with one person.
    arrive_by = models.DateTimeField(null=True, blank=True)
    # True while the seat to move is played by a bot (the sweeper's scan).
    awaiting_bot = models.BooleanField(default=False)
    # Move numbers (seq) that a bot played for a person's seat (clock, takeover).
    bot_moves = models.JSONField(default=list, blank=True)
    # "Nog een spel": the next game of the same four, made once.
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["owner", "-created"]),
            # The sweeper's scan (ops/sweeper.py): active games by age. Partial, so the
            # ever-growing mass of finished games costs it nothing.
            models.Index(
                fields=["updated"],
                name="game_active_by_updated",
                condition=models.Q(status="active"),
            ),
            # The lobby: open tables waiting for people.
            models.Index(
                fields=["-created"],
                name="game_open_waiting",
                condition=models.Q(status="waiting", visibility="open"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} ({self.owner}, {self.status}, seq {self.seq})"

    @property
    def ws_path(self) -> str:
        return f"/ws/game/{self.public_id}/"


class BotReason(models.TextChoices):
    ABSENT = "absent", "absent"  # never opened the table since the set's start
    REPLACED = "replaced", "replaced"  # handed to a newcomer who has not arrived yet
    AWAY = "away", "away"  # the last socket closed for GAME_DISCONNECT_TAKEOVER
    CLOCK = "clock", "clock"  # the clock ran out three times in a row
    LEFT = "left", "left"  # the person left the game


# Taken because the person was not there yet: their arrival (a socket) gives it back.
RETURN_ON_ARRIVAL = (BotReason.ABSENT, BotReason.REPLACED)


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()  # 0 South, 1 West, 2 North, 3 East
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    # A bot's level when a bot holds the seat ("" for a person or a free seat).
    bot_level = models.CharField(max_length=32, blank=True, default="")
    # The person's seat is played by the bot until they take it back.
    bot_control = models.BooleanField(default=False)
    # Why the bot plays a person's seat ("" while they play it themselves). A seat taken
    # because its person had not arrived (absent, replaced) goes back to them when their
    # socket connects; the others need "take your seat back".
    bot_reason = models.CharField(max_length=8, choices=BotReason.choices, blank=True, default="")
    left = models.BooleanField(default=False)  # the person left the game mid-play
    timeouts = models.PositiveSmallIntegerField(default=0)  # in a row
    connections = models.PositiveSmallIntegerField(default=0)  # open sockets
    disconnected_at = models.DateTimeField(null=True, blank=True)
    # Last sign of life of the seat's counted sockets (their heartbeat). A web process
    # killed outright never closes its sockets: when no socket has beaten for a while,
    # the sweeper knows the count is stale and the person away (ops/sweeper.py).
    seen_at = models.DateTimeField(null=True, blank=True)
    # The seat's dagscore (own team total minus the opponents'), set when finished.
    final_score = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            # One person, one seat at a table (a person may sit at several tables).
            models.UniqueConstraint(
                fields=["game", "user"],
                name="seat_one_per_person",
                condition=models.Q(user__isnull=False),
            ),
            models.CheckConstraint(condition=models.Q(index__lte=3), name="seat_index_0_3"),
        ]
        indexes = [models.Index(fields=["user", "-game"], name="seat_by_user")]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.game_id}: {self.holder}"

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def is_person(self) -> bool:
        return self.user_id is not None

    @property
    def played_by_bot(self) -> bool:
        """A bot chooses this seat's moves now (a bot seat, or a person's taken over)."""
        return self.user_id is None or self.bot_control

    @property
    def holder(self) -> str:
        if self.user_id is not None:
            return self.user.get_username()
        return f"bot:{self.bot_level}" if self.bot_level else ""


def seat_group(public_id, seat: int) -> str:
    """The person (all their sockets) in one seat: that seat's observations, and the
    table's notices (seats, chat, closed)."""
    return f"game-{public_id}-s{seat}"


def watch_group(public_id) -> str:
    """Spectators: the public view only."""
    return f"game-{public_id}-w"
